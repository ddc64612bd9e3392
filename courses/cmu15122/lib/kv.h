/* Not a handout's: the one hash table under every handout's (2015's
 * lib/hset.h, the later lib/hdict.h interfaces), keys to values with the
 * client's equality and hash: separate chaining, doubled when the chains
 * average more than two. Each handout's table is a thin layer over it. */
#ifndef KV_H
#define KV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct kv_header *kv_t;

/* Requires capacity > 0; value_free may be NULL (values not freed). */
kv_t kv_new(size_t capacity, bool (*equal)(void *k1, void *k2), size_t (*hash)(void *k),
            void (*value_free)(void *v));
/* Maps k to v; the value an equal key had (NULL if none, or if it was v
 * itself), which the client frees if it must. */
void *kv_insert(kv_t T, void *k, void *v);
/* The value of the key equal to k, or NULL. */
void *kv_lookup(kv_t T, void *k);
/* Each key and value, in no order. */
void kv_each(kv_t T, void (*visit)(void *k, void *v));
/* Frees the table and, where value_free is given, every value. */
void kv_free(kv_t T);

#endif
