/* Stacks (see stacks.h): a linked list. */
#include <stdlib.h>

#include "contracts.h"
#include "stacks.h"
#include "xalloc.h"

struct stack_node {
    stack_elem data;
    struct stack_node *next;
};

struct stack_header {
    struct stack_node *top;
};

bool stack_empty(stack S) {
    REQUIRES(S != NULL);
    return S->top == NULL;
}

stack stack_new(void) { return xcalloc(1, sizeof(struct stack_header)); }

void push(stack S, stack_elem e) {
    REQUIRES(S != NULL);
    struct stack_node *n = xmalloc(sizeof *n);
    n->data = e;
    n->next = S->top;
    S->top = n;
}

stack_elem pop(stack S) {
    REQUIRES(S != NULL && !stack_empty(S));
    struct stack_node *n = S->top;
    stack_elem e = n->data;
    S->top = n->next;
    free(n);
    return e;
}

void stack_free(stack S, void (*elem_free)(stack_elem e)) {
    REQUIRES(S != NULL);
    while (!stack_empty(S)) {
        stack_elem e = pop(S);
        if (elem_free != NULL) elem_free(e);
    }
    free(S);
}
