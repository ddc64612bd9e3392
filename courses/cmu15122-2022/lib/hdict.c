/* Hash dictionaries of entries (see hdict.h): separate chaining, doubled
 * when the chains average more than two. */
#include <stdio.h>
#include <stdlib.h>

#include "contracts.h"
#include "hdict.h"
#include "xalloc.h"

struct chain {
    hdict_entry entry;
    struct chain *next;
};

struct hdict_header {
    size_t size;
    size_t capacity;
    struct chain **table;
    entry_key_fn *key;
    key_equal_fn *equal;
    key_hash_fn *hash;
    entry_free_fn *entry_free;
};

hdict_t hdict_new(size_t capacity, entry_key_fn *entry_key, key_equal_fn *key_equal,
                  key_hash_fn *key_hash, entry_free_fn *entry_free) {
    REQUIRES(capacity > 0 && entry_key != NULL && key_equal != NULL && key_hash != NULL);
    hdict_t H = xmalloc(sizeof *H);
    H->size = 0;
    H->capacity = capacity;
    H->table = xcalloc(capacity, sizeof(struct chain *));
    H->key = entry_key;
    H->equal = key_equal;
    H->hash = key_hash;
    H->entry_free = entry_free;
    return H;
}

static size_t bucket(hdict_t H, hdict_key k) { return H->hash(k) % H->capacity; }

hdict_entry hdict_lookup(hdict_t H, hdict_key k) {
    REQUIRES(H != NULL && k != NULL);
    for (struct chain *c = H->table[bucket(H, k)]; c != NULL; c = c->next)
        if (H->equal(H->key(c->entry), k)) return c->entry;
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
            size_t b = bucket(H, H->key(c->entry));
            c->next = H->table[b];
            H->table[b] = c;
            c = next;
        }
    }
    free(table);
}

hdict_entry hdict_insert(hdict_t H, hdict_entry e) {
    REQUIRES(H != NULL && e != NULL);
    hdict_key k = H->key(e);
    size_t b = bucket(H, k);
    for (struct chain *c = H->table[b]; c != NULL; c = c->next)
        if (H->equal(H->key(c->entry), k)) {
            hdict_entry old = c->entry;
            c->entry = e;
            return old == e ? NULL : old;
        }
    struct chain *c = xmalloc(sizeof *c);
    c->entry = e;
    c->next = H->table[b];
    H->table[b] = c;
    H->size++;
    if (H->size > 2 * H->capacity) grow(H);
    return NULL;
}

void hdict_print(hdict_t H, key_print_fn *print_key, entry_print_fn *print_entry) {
    REQUIRES(H != NULL && print_key != NULL && print_entry != NULL);
    for (size_t i = 0; i < H->capacity; i++)
        for (struct chain *c = H->table[i]; c != NULL; c = c->next) {
            print_key(H->key(c->entry));
            fprintf(stderr, " => ");
            print_entry(c->entry);
            fprintf(stderr, "\n");
        }
}

void hdict_free(hdict_t H) {
    REQUIRES(H != NULL);
    for (size_t i = 0; i < H->capacity; i++) {
        struct chain *c = H->table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            if (H->entry_free != NULL) H->entry_free(c->entry);
            free(c);
            c = next;
        }
    }
    free(H->table);
    free(H);
}
