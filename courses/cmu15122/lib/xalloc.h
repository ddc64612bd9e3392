/* Allocation that never returns NULL: out of memory ends the program. */
#ifndef XALLOC_H
#define XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);

#endif
