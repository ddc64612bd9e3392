/* Queues of generic elements (void pointers), first in, first out. */
#ifndef QUEUE_H
#define QUEUE_H

#include <stdbool.h>

/* (Once: the 2014 layer's queues.h names it too, and C99 allows one
 * typedef of a name.) */
#ifndef QUEUE_ELEM_TYPEDEF
#define QUEUE_ELEM_TYPEDEF
typedef void *queue_elem;
#endif
typedef struct queue_header *queue_t;
/* The later handouts' names for the client's functions. */
typedef void print_data_fn(void *x);
typedef void queue_elem_free_fn(queue_elem x);

queue_t queue_new(void);
bool queue_empty(queue_t Q);
void enq(queue_t Q, queue_elem x);
/* Requires !queue_empty(Q). */
queue_elem deq(queue_t Q);
/* Frees the queue and, when elem_free is not NULL, each element left. */
void queue_free(queue_t Q, void (*elem_free)(queue_elem x));
void queue_print(queue_t Q, print_data_fn *print_data);

#endif
