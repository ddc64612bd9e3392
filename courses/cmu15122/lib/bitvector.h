/* Bit vectors: persistent vectors of BITVECTOR_LIMIT true/false values.
 * puzzlegrade's own version of the interface the 15-122 Lights Out handout
 * documents (Task 1 implements it in bitvector.c).
 *
 * The grader builds a submission with other limits and types:
 *   -DBITVECTOR_LIMIT=8 (or 32)         another limit (Task 2)
 *   -DBITVECTOR_TYPE=uint64_t            another unsigned type (Task 3)
 *   -DBITVECTOR_ARRAY                    a bool array (lib/bitvector-array.c),
 *                                        for code that uses bit vectors
 * so code outside bitvector.c must use only these four functions. */
#ifndef BITVECTOR_H
#define BITVECTOR_H

#include <stdbool.h>
#include <stdint.h>

#ifndef BITVECTOR_LIMIT
#define BITVECTOR_LIMIT 25
#endif

#if defined(BITVECTOR_ARRAY)
typedef bool *bitvector;
#elif defined(BITVECTOR_TYPE)
typedef BITVECTOR_TYPE bitvector;
#else
typedef uint32_t bitvector;
#endif

/* A vector of BITVECTOR_LIMIT false bits. */
bitvector bitvector_new(void);

/* Bit i of B; requires i < BITVECTOR_LIMIT. */
bool bitvector_get(bitvector B, uint8_t i);

/* A new vector: B with bit i flipped (B itself is unchanged); requires
 * i < BITVECTOR_LIMIT. */
bitvector bitvector_flip(bitvector B, uint8_t i);

/* Whether every bit of B1 equals the same bit of B2. */
bool bitvector_equal(bitvector B1, bitvector B2);

#ifdef BITVECTOR_FREE
/* The 2025 handout's additions (its handout.mk defines BITVECTOR_FREE):
 * the index type, and freeing a vector (nothing to free for an integer). */
typedef uint8_t index_t;
#define MAX_INDEX_VALUE UINT8_MAX
void bitvector_free(bitvector B);
#endif

#endif
