/* Queues of generic elements (void pointers), first in, first out. */
#ifndef QUEUE_H
#define QUEUE_H

#include <stdbool.h>

typedef void *queue_elem;
typedef struct queue_header *queue_t;

queue_t queue_new(void);
bool queue_empty(queue_t Q);
void enq(queue_t Q, queue_elem x);
/* Requires !queue_empty(Q). */
queue_elem deq(queue_t Q);
/* Frees the queue and, when elem_free is not NULL, each element left. */
void queue_free(queue_t Q, void (*elem_free)(queue_elem x));

#endif
