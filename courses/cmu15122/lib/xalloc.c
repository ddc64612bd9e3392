#include <stdio.h>
#include <stdlib.h>

#include "xalloc.h"

static void *checked(void *p) {
    if (p == NULL) {
        fprintf(stderr, "allocation failed\n");
        exit(1);
    }
    return p;
}

void *xmalloc(size_t size) { return checked(malloc(size)); }

void *xcalloc(size_t count, size_t size) { return checked(calloc(count, size)); }
