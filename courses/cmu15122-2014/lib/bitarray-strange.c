/* A strange bit array, as the Fall 2014 writeup promises the grader
 * compiles the student's Lights Out against: "bit array implementations
 * that store bits in a different order than your implementation stores
 * them ... where bitarray_new() does not return 0". Bit i is stored
 * complemented at place BITARRAY_LIMIT - 1 - i; the places above the
 * limit stay set. Code that keeps to the interface (and == for equality)
 * cannot tell. */
#include "bitarray.h"
#include "contracts.h"

static bitarray place(uint8_t i) { return (bitarray)1 << (BITARRAY_LIMIT - 1 - i); }

bitarray bitarray_new(void) { return (bitarray)~(bitarray)0; }

bool bitarray_get(bitarray n, uint8_t i) {
    REQUIRES(i < BITARRAY_LIMIT);
    return (n & place(i)) == 0;
}

bitarray bitarray_flip(bitarray n, uint8_t i) {
    REQUIRES(i < BITARRAY_LIMIT);
    return n ^ place(i);
}
