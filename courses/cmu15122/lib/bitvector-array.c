/* Bit vectors as bool arrays of BITVECTOR_LIMIT entries (build with
 * -DBITVECTOR_ARRAY). The 2015 interface has no bitvector_free, so these
 * leak, as the handout says (the 2025 one frees them); they exist to check that code using bit vectors
 * respects the interface. */
#include <stdlib.h>

#include "bitvector.h"
#include "contracts.h"
#include "xalloc.h"

bitvector bitvector_new(void) {
    return xcalloc(BITVECTOR_LIMIT, sizeof(bool));
}

bool bitvector_get(bitvector B, uint8_t i) {
    REQUIRES(B != NULL && i < BITVECTOR_LIMIT);
    return B[i];
}

bitvector bitvector_flip(bitvector B, uint8_t i) {
    REQUIRES(B != NULL && i < BITVECTOR_LIMIT);
    bitvector C = bitvector_new();
    for (int k = 0; k < BITVECTOR_LIMIT; k++) C[k] = B[k];
    C[i] = !C[i];
    return C;
}

bool bitvector_equal(bitvector B1, bitvector B2) {
    REQUIRES(B1 != NULL && B2 != NULL);
    for (int k = 0; k < BITVECTOR_LIMIT; k++)
        if (B1[k] != B2[k]) return false;
    return true;
}

#ifdef BITVECTOR_FREE
void bitvector_free(bitvector B) { free(B); }
#endif
