#include <stdlib.h>

#include "contracts.h"
#include "queue.h"
#include "xalloc.h"

struct node {
    queue_elem data;
    struct node *next;
};

struct queue_header {
    struct node *front;
    struct node *back;
};

queue_t queue_new(void) { return xcalloc(1, sizeof(struct queue_header)); }

bool queue_empty(queue_t Q) {
    REQUIRES(Q != NULL);
    return Q->front == NULL;
}

void enq(queue_t Q, queue_elem x) {
    REQUIRES(Q != NULL);
    struct node *n = xmalloc(sizeof *n);
    n->data = x;
    n->next = NULL;
    if (Q->back == NULL)
        Q->front = n;
    else
        Q->back->next = n;
    Q->back = n;
}

queue_elem deq(queue_t Q) {
    REQUIRES(Q != NULL && !queue_empty(Q));
    struct node *n = Q->front;
    queue_elem x = n->data;
    Q->front = n->next;
    if (Q->front == NULL) Q->back = NULL;
    free(n);
    return x;
}

void queue_free(queue_t Q, void (*elem_free)(queue_elem x)) {
    REQUIRES(Q != NULL);
    while (!queue_empty(Q)) {
        queue_elem x = deq(Q);
        if (elem_free != NULL) elem_free(x);
    }
    free(Q);
}

void queue_print(queue_t Q, print_data_fn *print_data) {
    REQUIRES(Q != NULL && print_data != NULL);
    for (struct node *n = Q->front; n != NULL; n = n->next) print_data(n->data);
}
