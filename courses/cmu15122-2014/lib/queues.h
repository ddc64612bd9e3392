/* Queues, as the Fall 2014 handout documents lib/queues.h: puzzlegrade's
 * own copy. */
#ifndef QUEUES_H
#define QUEUES_H

#include <stdbool.h>

/* (Once: the 2014 layer's queues.h names it too, and C99 allows one
 * typedef of a name.) */
#ifndef QUEUE_ELEM_TYPEDEF
#define QUEUE_ELEM_TYPEDEF
typedef void *queue_elem;
#endif
typedef struct queue_header *queue;

bool queue_empty(queue Q);
queue queue_new(void);
void enq(queue Q, queue_elem e);
queue_elem deq(queue Q);
void queue_free(queue Q, void (*elem_free)(queue_elem e));

#endif
