/* puzzlegrade's driver for 15-122 Tasks 1-3: runs a bit vector
 * implementation (bitvector.c, built at some BITVECTOR_LIMIT and type) on
 * one board and prints what it sees; the grader compares that with the
 * reference (question lightsout:bitvector, docs/adapters.md).
 *
 *   bitvector-test BOARD        exit 0; 2 usage; 3 unreadable board */
#include <stdio.h>

#include "board.h"
#include "lib/bitvector.h"

#define L BITVECTOR_LIMIT

static bool lit[MAX_CELLS];
static int cells;

/* From a new vector, index i % L flipped for each lit cell i, forwards or
 * backwards. */
static bitvector from_board(bool backwards) {
    bitvector B = bitvector_new();
    for (int k = 0; k < cells; k++) {
        int i = backwards ? cells - 1 - k : k;
        if (lit[i]) B = bitvector_flip(B, (uint8_t)(i % L));
    }
    return B;
}

static void bits(const char *name, bitvector B) {
    printf("%s ", name);
    for (int j = 0; j < L; j++) putchar(bitvector_get(B, (uint8_t)j) ? '1' : '0');
    putchar('\n');
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bitvector-test BOARD\n");
        return 2;
    }
    cells = read_cells(argv[1], lit);
    if (cells < 0) {
        fprintf(stderr, "bitvector-test: cannot read %s\n", argv[1]);
        return 3;
    }
    printf("limit %d\n", L);
    fflush(stdout);
    bits("new", bitvector_new());
    bitvector B = from_board(false);
    bitvector C = B;
    for (int j = 0; j < L; j++) C = bitvector_flip(C, (uint8_t)j);
    bits("board", B);
    bits("complement", C);
    bits("board", B);
    printf("equal %d\n", bitvector_equal(B, from_board(true)) ? 1 : 0);
    printf("equal %d\n", bitvector_equal(B, C) ? 1 : 0);
    printf("equal %d\n", bitvector_equal(bitvector_new(), bitvector_new()) ? 1 : 0);
    printf("flip-differs ");
    for (int j = 0; j < L; j++)
        putchar(bitvector_equal(B, bitvector_flip(B, (uint8_t)j)) ? '0' : '1');
    printf("\nflip-twice ");
    for (int j = 0; j < L; j++) {
        bitvector twice = bitvector_flip(bitvector_flip(B, (uint8_t)j), (uint8_t)j);
        putchar(bitvector_equal(twice, B) ? '1' : '0');
    }
    putchar('\n');
    return fflush(stdout) == 0 ? 0 : 3;
}
