/* Stacks, as the Fall 2014 handout documents lib/stacks.h: puzzlegrade's
 * own copy. */
#ifndef STACKS_H
#define STACKS_H

#include <stdbool.h>

typedef void *stack_elem;
typedef struct stack_header *stack;

bool stack_empty(stack S);
stack stack_new(void);
void push(stack S, stack_elem e);
stack_elem pop(stack S);
void stack_free(stack S, void (*elem_free)(stack_elem e));

#endif
