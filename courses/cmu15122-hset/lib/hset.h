/* Hash sets of generic elements (void pointers): separate chaining,
 * growing as they fill. The client says when two elements are the same
 * (elem_equiv), how an element hashes (elem_hash, consistent with
 * elem_equiv) and how one is freed (elem_free, or NULL). */
#ifndef HSET_H
#define HSET_H

/* As the course's own header: stdlib.h (malloc, free, NULL) comes with it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef void *hset_elem;
typedef bool elem_equiv_fn(hset_elem x, hset_elem y);
/* The course's other spelling of it. */
typedef elem_equiv_fn elem_equal_fn;
typedef size_t elem_hash_fn(hset_elem x);
typedef void elem_free_fn(hset_elem x);

typedef struct hset_header *hset_t;

/* Requires capacity > 0. */
hset_t hset_new(size_t capacity, elem_equiv_fn *elem_equiv, elem_hash_fn *elem_hash,
                elem_free_fn *elem_free);
/* The element equivalent to x, or NULL. */
hset_elem hset_lookup(hset_t H, hset_elem x);
/* Adds x; an equivalent element already there is replaced and returned
 * (the client frees it, if it must), else NULL. */
hset_elem hset_insert(hset_t H, hset_elem x);
/* Frees the set and, when elem_free is not NULL, every element. */
void hset_free(hset_t H);

#endif
