/* Queues, as the Fall 2014 handout documents lib/queues.h: puzzlegrade's
 * own copy. */
#ifndef QUEUES_H
#define QUEUES_H

#include <stdbool.h>

typedef void *queue_elem;
typedef struct queue_header *queue;

bool queue_empty(queue Q);
queue queue_new(void);
void enq(queue Q, queue_elem e);
queue_elem deq(queue Q);
void queue_free(queue Q, void (*elem_free)(queue_elem e));

#endif
