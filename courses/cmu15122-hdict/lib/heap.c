/* Priority queues (see heap.h): a binary heap in a growing array. */
#include <stdlib.h>

#include "contracts.h"
#include "heap.h"
#include "xalloc.h"

struct heap_header {
    size_t size;
    size_t capacity;
    heap_elem *data;
    higher_priority_fn *prior;
    heap_elem_free_fn *elem_free;
};

bool heap_empty(heap_t H) {
    REQUIRES(H != NULL);
    return H->size == 0;
}

heap_t heap_new(higher_priority_fn *prior, heap_elem_free_fn *elem_free) {
    REQUIRES(prior != NULL);
    heap_t H = xmalloc(sizeof *H);
    H->size = 0;
    H->capacity = 16;
    H->data = xcalloc(H->capacity, sizeof(heap_elem));
    H->prior = prior;
    H->elem_free = elem_free;
    return H;
}

static void swap(heap_t H, size_t i, size_t j) {
    heap_elem t = H->data[i];
    H->data[i] = H->data[j];
    H->data[j] = t;
}

void heap_add(heap_t H, heap_elem x) {
    REQUIRES(H != NULL);
    if (H->size == H->capacity) {
        H->capacity *= 2;
        heap_elem *data = xcalloc(H->capacity, sizeof(heap_elem));
        for (size_t i = 0; i < H->size; i++) data[i] = H->data[i];
        free(H->data);
        H->data = data;
    }
    size_t i = H->size++;
    H->data[i] = x;
    while (i > 0 && H->prior(H->data[i], H->data[(i - 1) / 2])) {
        swap(H, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

heap_elem heap_rem(heap_t H) {
    REQUIRES(H != NULL && !heap_empty(H));
    heap_elem top = H->data[0];
    H->data[0] = H->data[--H->size];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < H->size && H->prior(H->data[l], H->data[best])) best = l;
        if (r < H->size && H->prior(H->data[r], H->data[best])) best = r;
        if (best == i) break;
        swap(H, i, best);
        i = best;
    }
    return top;
}

void heap_free(heap_t H) {
    REQUIRES(H != NULL);
    if (H->elem_free != NULL)
        for (size_t i = 0; i < H->size; i++) H->elem_free(H->data[i]);
    free(H->data);
    free(H);
}
