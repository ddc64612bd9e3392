/* Hash dictionaries from keys to values (see hdict.h), over our tables of
 * keys to values (lib/kv.h). */
#include "contracts.h"
#include "hdict.h"
#include "kv.h"

hdict_t hdict_new(size_t capacity, key_equal_fn *key_equal, key_hash_fn *key_hash,
                  value_free_fn *value_free) {
    REQUIRES(capacity > 0 && key_equal != NULL && key_hash != NULL);
    return (hdict_t)kv_new(capacity, key_equal, key_hash, value_free);
}

hdict_value hdict_insert(hdict_t H, hdict_key k, hdict_value v) {
    REQUIRES(H != NULL);
    return kv_insert((kv_t)H, k, v);
}

hdict_value hdict_lookup(hdict_t H, hdict_key k) {
    REQUIRES(H != NULL);
    return kv_lookup((kv_t)H, k);
}

void hdict_free(hdict_t H) {
    REQUIRES(H != NULL);
    kv_free((kv_t)H);
}
