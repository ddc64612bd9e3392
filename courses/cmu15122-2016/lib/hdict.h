/* Hash dictionaries from keys to values, as the 15-122 Lights Out handouts
 * before 2022 document them (lib/hdict.h): puzzlegrade's own version,
 * written for that interface, never the course's file. The client gives
 * the key's equality and hash, and how to free a value. */
#ifndef HDICT_H
#define HDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef void *hdict_key;
typedef void *hdict_value;
typedef bool key_equal_fn(hdict_key x, hdict_key y);
typedef key_equal_fn key_equiv_fn;
typedef size_t key_hash_fn(hdict_key x);
typedef void value_free_fn(hdict_value x);

typedef struct hdict_header *hdict_t;

/* value_free may be NULL: the values are then not freed. */
hdict_t hdict_new(size_t capacity, key_equal_fn *key_equal, key_hash_fn *key_hash,
                  value_free_fn *value_free);
/* The value k had before (the client frees it), or NULL. */
hdict_value hdict_insert(hdict_t H, hdict_key k, hdict_value v);
hdict_value hdict_lookup(hdict_t H, hdict_key k);
void hdict_free(hdict_t H);

#endif
