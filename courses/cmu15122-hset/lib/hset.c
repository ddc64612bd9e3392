/* Hash sets (see hset.h) over our tables (kv.h): each element is its own
 * key and value. */
#include "contracts.h"
#include "hset.h"
#include "kv.h"

hset_t hset_new(size_t capacity, elem_equiv_fn *elem_equiv, elem_hash_fn *elem_hash,
                elem_free_fn *elem_free) {
    REQUIRES(capacity > 0 && elem_equiv != NULL && elem_hash != NULL);
    return (hset_t)kv_new(capacity, elem_equiv, elem_hash, elem_free);
}

hset_elem hset_lookup(hset_t H, hset_elem x) {
    REQUIRES(H != NULL);
    return kv_lookup((kv_t)H, x);
}

hset_elem hset_insert(hset_t H, hset_elem x) {
    REQUIRES(H != NULL);
    return kv_insert((kv_t)H, x, x);
}

void hset_free(hset_t H) {
    REQUIRES(H != NULL);
    kv_free((kv_t)H);
}
