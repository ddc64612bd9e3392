/* Hash dictionaries of entries (see hdict.h), over our tables of keys to
 * values (lib/kv.h): an entry is stored as the value of its own key. */
#include <stdio.h>

#include "contracts.h"
#include "hdict.h"
#include "kv.h"
#include "xalloc.h"

/* The table's client functions, where the entries' key is found. */
struct hdict_header {
    kv_t table;
    entry_key_fn *key;
    key_print_fn *print_key;
    entry_print_fn *print_entry;
};

hdict_t hdict_new(size_t capacity, entry_key_fn *entry_key, key_equal_fn *key_equal,
                  key_hash_fn *key_hash, entry_free_fn *entry_free) {
    REQUIRES(capacity > 0 && entry_key != NULL && key_equal != NULL && key_hash != NULL);
    hdict_t H = xcalloc(1, sizeof *H);
    H->table = kv_new(capacity, key_equal, key_hash, entry_free);
    H->key = entry_key;
    return H;
}

hdict_entry hdict_insert(hdict_t H, hdict_entry e) {
    REQUIRES(H != NULL && e != NULL);
    return kv_insert(H->table, H->key(e), e);
}

hdict_entry hdict_lookup(hdict_t H, hdict_key k) {
    REQUIRES(H != NULL && k != NULL);
    return kv_lookup(H->table, k);
}

/* kv_each's visitor takes no context: the dict being printed. */
static hdict_t printing;

static void print_one(void *k, void *e) {
    printing->print_key(k);
    fprintf(stderr, " => ");
    printing->print_entry(e);
    fprintf(stderr, "\n");
}

void hdict_print(hdict_t H, key_print_fn *print_key, entry_print_fn *print_entry) {
    REQUIRES(H != NULL && print_key != NULL && print_entry != NULL);
    H->print_key = print_key;
    H->print_entry = print_entry;
    printing = H;
    kv_each(H->table, print_one);
    printing = NULL;
}

void hdict_free(hdict_t H) {
    REQUIRES(H != NULL);
    kv_free(H->table);
    free(H);
}
