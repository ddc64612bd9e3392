/* Hash dictionaries from keys to values (see hdict.h): separate chaining,
 * doubled when the chains average more than two. */
#include <stdlib.h>

#include "contracts.h"
#include "hdict.h"
#include "xalloc.h"

struct chain {
    hdict_key key;
    hdict_value value;
    struct chain *next;
};

struct hdict_header {
    size_t size;
    size_t capacity;
    struct chain **table;
    key_equal_fn *equal;
    key_hash_fn *hash;
    value_free_fn *value_free;
};

hdict_t hdict_new(size_t capacity, key_equal_fn *key_equal, key_hash_fn *key_hash,
                  value_free_fn *value_free) {
    REQUIRES(capacity > 0 && key_equal != NULL && key_hash != NULL);
    hdict_t H = xmalloc(sizeof *H);
    H->size = 0;
    H->capacity = capacity;
    H->table = xcalloc(capacity, sizeof(struct chain *));
    H->equal = key_equal;
    H->hash = key_hash;
    H->value_free = value_free;
    return H;
}

static size_t bucket(hdict_t H, hdict_key k) { return H->hash(k) % H->capacity; }

hdict_value hdict_lookup(hdict_t H, hdict_key k) {
    REQUIRES(H != NULL);
    for (struct chain *c = H->table[bucket(H, k)]; c != NULL; c = c->next)
        if (H->equal(c->key, k)) return c->value;
    return NULL;
}

static void grow(hdict_t H) {
    size_t old = H->capacity;
    struct chain **table = H->table;
    H->capacity = 2 * old;
    H->table = xcalloc(H->capacity, sizeof(struct chain *));
    for (size_t i = 0; i < old; i++) {
        struct chain *c = table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            size_t b = bucket(H, c->key);
            c->next = H->table[b];
            H->table[b] = c;
            c = next;
        }
    }
    free(table);
}

hdict_value hdict_insert(hdict_t H, hdict_key k, hdict_value v) {
    REQUIRES(H != NULL);
    size_t b = bucket(H, k);
    for (struct chain *c = H->table[b]; c != NULL; c = c->next)
        if (H->equal(c->key, k)) {
            hdict_value old = c->value;
            c->key = k;
            c->value = v;
            return old == v ? NULL : old;
        }
    struct chain *c = xmalloc(sizeof *c);
    c->key = k;
    c->value = v;
    c->next = H->table[b];
    H->table[b] = c;
    H->size++;
    if (H->size > 2 * H->capacity) grow(H);
    return NULL;
}

void hdict_free(hdict_t H) {
    REQUIRES(H != NULL);
    for (size_t i = 0; i < H->capacity; i++) {
        struct chain *c = H->table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            if (H->value_free != NULL) H->value_free(c->value);
            free(c);
            c = next;
        }
    }
    free(H->table);
    free(H);
}
