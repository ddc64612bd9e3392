/* Keys to values (see kv.h). */
#include <stdlib.h>

#include "contracts.h"
#include "kv.h"
#include "xalloc.h"

struct chain {
    void *key;
    void *value;
    struct chain *next;
};

struct kv_header {
    size_t size;
    size_t capacity;
    struct chain **table;
    bool (*equal)(void *k1, void *k2);
    size_t (*hash)(void *k);
    void (*value_free)(void *v);
};

kv_t kv_new(size_t capacity, bool (*equal)(void *k1, void *k2), size_t (*hash)(void *k),
            void (*value_free)(void *v)) {
    REQUIRES(capacity > 0 && equal != NULL && hash != NULL);
    kv_t T = xmalloc(sizeof *T);
    T->size = 0;
    T->capacity = capacity;
    T->table = xcalloc(capacity, sizeof(struct chain *));
    T->equal = equal;
    T->hash = hash;
    T->value_free = value_free;
    return T;
}

static size_t bucket(kv_t T, void *k) { return T->hash(k) % T->capacity; }

static struct chain *find(kv_t T, void *k) {
    for (struct chain *c = T->table[bucket(T, k)]; c != NULL; c = c->next)
        if (T->equal(c->key, k)) return c;
    return NULL;
}

void *kv_lookup(kv_t T, void *k) {
    REQUIRES(T != NULL);
    struct chain *c = find(T, k);
    return c == NULL ? NULL : c->value;
}

static void grow(kv_t T) {
    size_t old = T->capacity;
    struct chain **table = T->table;
    T->capacity = 2 * old;
    T->table = xcalloc(T->capacity, sizeof(struct chain *));
    for (size_t i = 0; i < old; i++) {
        struct chain *c = table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            size_t b = bucket(T, c->key);
            c->next = T->table[b];
            T->table[b] = c;
            c = next;
        }
    }
    free(table);
}

void *kv_insert(kv_t T, void *k, void *v) {
    REQUIRES(T != NULL);
    struct chain *c = find(T, k);
    if (c != NULL) {
        void *before = c->value;
        c->key = k;
        c->value = v;
        return before == v ? NULL : before;
    }
    size_t b = bucket(T, k);
    c = xmalloc(sizeof *c);
    c->key = k;
    c->value = v;
    c->next = T->table[b];
    T->table[b] = c;
    T->size++;
    if (T->size > 2 * T->capacity) grow(T);
    return NULL;
}

void kv_each(kv_t T, void (*visit)(void *k, void *v)) {
    REQUIRES(T != NULL && visit != NULL);
    for (size_t i = 0; i < T->capacity; i++)
        for (struct chain *c = T->table[i]; c != NULL; c = c->next) visit(c->key, c->value);
}

void kv_free(kv_t T) {
    REQUIRES(T != NULL);
    for (size_t i = 0; i < T->capacity; i++) {
        struct chain *c = T->table[i];
        while (c != NULL) {
            struct chain *next = c->next;
            if (T->value_free != NULL) T->value_free(c->value);
            free(c);
            c = next;
        }
    }
    free(T->table);
    free(T);
}
