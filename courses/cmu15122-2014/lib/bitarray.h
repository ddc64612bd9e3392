/* Bit arrays, as the 15-122 Lights Out handout of Fall 2014 documents
 * lib/bitarray.h: puzzlegrade's own copy, written for that interface. A
 * bitarray is an unsigned integer type of at least BITARRAY_LIMIT bits;
 * clients may compare two with == and cast one to size_t. The grader
 * builds with other types and limits (BITARRAY_TYPE, BITARRAY_LIMIT), as
 * the handout says it may. */
#ifndef BITARRAY_H
#define BITARRAY_H

#include <stdbool.h>
#include <stdint.h>

#ifndef BITARRAY_LIMIT
#define BITARRAY_LIMIT 25
#endif

#ifdef BITARRAY_TYPE
typedef BITARRAY_TYPE bitarray;
#else
typedef uint32_t bitarray;
#endif

/* A bit array of false bits. */
bitarray bitarray_new(void);
/* Bit i; requires i < BITARRAY_LIMIT. */
bool bitarray_get(bitarray n, uint8_t i);
/* A new bit array: n with bit i toggled; requires i < BITARRAY_LIMIT. */
bitarray bitarray_flip(bitarray n, uint8_t i);

#endif
