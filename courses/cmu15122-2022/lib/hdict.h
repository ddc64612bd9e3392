/* Hash dictionaries of entries, as the 15-122 Lights Out handouts from
 * 2022 document them (lib/hdict.h): puzzlegrade's own version, written for
 * that interface, never the course's file. An entry holds its key; the
 * client gives how to get it, the key's equality and hash, and how to
 * free an entry. */
#ifndef HDICT_H
#define HDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef void *hdict_key;
typedef void *hdict_entry;
typedef hdict_key entry_key_fn(hdict_entry e);
typedef bool key_equal_fn(hdict_key k1, hdict_key k2);
typedef size_t key_hash_fn(hdict_key k);
typedef void key_print_fn(hdict_key k);
typedef void entry_print_fn(hdict_entry e);
typedef void entry_free_fn(hdict_entry e);

typedef struct hdict_header *hdict_t;

/* entry_free may be NULL: the entries are then not freed. */
hdict_t hdict_new(size_t capacity, entry_key_fn *entry_key, key_equal_fn *key_equal,
                  key_hash_fn *key_hash, entry_free_fn *entry_free);
/* The entry of e's key it replaces (the client frees it), or NULL. */
hdict_entry hdict_insert(hdict_t H, hdict_entry e);
hdict_entry hdict_lookup(hdict_t H, hdict_key k);
void hdict_print(hdict_t H, key_print_fn *print_key, entry_print_fn *print_entry);
void hdict_free(hdict_t H);

#endif
