/* Priority queues (heaps) of generic elements, as the 15-122 Lights Out
 * handouts before 2022 document them (lib/heap.h): puzzlegrade's own
 * version, written for that interface. prior(x, y): x has strictly higher
 * priority than y. */
#ifndef HEAP_H
#define HEAP_H

#include <stdbool.h>
#include <stdlib.h>

typedef void *heap_elem;
typedef bool higher_priority_fn(heap_elem x, heap_elem y);
typedef void heap_elem_free_fn(heap_elem x);

typedef struct heap_header *heap_t;

bool heap_empty(heap_t H);
/* elem_free may be NULL: the elements are then not freed. */
heap_t heap_new(higher_priority_fn *prior, heap_elem_free_fn *elem_free);
void heap_add(heap_t H, heap_elem x);
heap_elem heap_rem(heap_t H);
void heap_free(heap_t H);

#endif
