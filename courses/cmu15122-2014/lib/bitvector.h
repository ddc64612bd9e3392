/* Not the 2014 handout's: the grader's drivers (../cmu15122/tests) and
 * our boardutil speak of bit vectors; in this handout they are its bit
 * arrays, compared with == as its writeup allows. */
#ifndef BITVECTOR_H
#define BITVECTOR_H

#include "bitarray.h"

typedef bitarray bitvector;
#define BITVECTOR_LIMIT BITARRAY_LIMIT
#define bitvector_new bitarray_new
#define bitvector_get bitarray_get
#define bitvector_flip bitarray_flip

static inline bool bitvector_equal(bitvector B1, bitvector B2) { return B1 == B2; }

#endif
