#include <stdlib.h>

#include "contracts.h"
#include "hset.h"
#include "xalloc.h"

struct chain {
    hset_elem data;
    struct chain *next;
};

struct hset_header {
    size_t size;
    size_t capacity;
    struct chain **table;
    elem_equiv_fn *equiv;
    elem_hash_fn *hash;
    elem_free_fn *free;
};

hset_t hset_new(size_t capacity, elem_equiv_fn *elem_equiv, elem_hash_fn *elem_hash,
                elem_free_fn *elem_free) {
    REQUIRES(capacity > 0 && elem_equiv != NULL && elem_hash != NULL);
    hset_t H = xmalloc(sizeof *H);
    H->size = 0;
    H->capacity = capacity;
    H->table = xcalloc(capacity, sizeof(struct chain *));
    H->equiv = elem_equiv;
    H->hash = elem_hash;
    H->free = elem_free;
    return H;
}

static size_t bucket(hset_t H, hset_elem x) { return H->hash(x) % H->capacity; }

hset_elem hset_lookup(hset_t H, hset_elem x) {
    REQUIRES(H != NULL);
    for (struct chain *c = H->table[bucket(H, x)]; c != NULL; c = c->next)
        if (H->equiv(c->data, x)) return c->data;
    return NULL;
}

static void grow(hset_t H) {
    size_t old = H->capacity;
    struct chain **table = H->table;
    H->capacity = 2 * old;
    H->table = xcalloc(H->capacity, sizeof(struct chain *));
    for (size_t i = 0; i < old; i++) {
        struct chain *c = table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            size_t b = bucket(H, c->data);
            c->next = H->table[b];
            H->table[b] = c;
            c = next;
        }
    }
    free(table);
}

hset_elem hset_insert(hset_t H, hset_elem x) {
    REQUIRES(H != NULL);
    size_t b = bucket(H, x);
    for (struct chain *c = H->table[b]; c != NULL; c = c->next)
        if (H->equiv(c->data, x)) {
            hset_elem old = c->data;
            c->data = x;
            return old == x ? NULL : old;
        }
    struct chain *c = xmalloc(sizeof *c);
    c->data = x;
    c->next = H->table[b];
    H->table[b] = c;
    H->size++;
    if (H->size > 2 * H->capacity) grow(H);
    return NULL;
}

void hset_free(hset_t H) {
    REQUIRES(H != NULL);
    for (size_t i = 0; i < H->capacity; i++) {
        struct chain *c = H->table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            if (H->free != NULL) H->free(c->data);
            free(c);
            c = next;
        }
    }
    free(H->table);
    free(H);
}
