/* puzzlegrade's driver for 15-122 Task 4: runs a board hash table
 * (board-ht.c, on bool-array bit vectors: every key is a fresh array, so
 * a table must hash and compare boards by their bits) on one board and
 * prints what it finds; the grader compares that with the reference
 * (question lightsout:board-ht, docs/adapters.md).
 *
 *   board-ht-test BOARD        exit 0; 2 usage; 3 unreadable board */
#include <stdio.h>
#include <stdlib.h>

#include "board-ht.h"
#include "board.h"
#include "lib/xalloc.h"

#define L BITVECTOR_LIMIT

/* The handout's table: hset_t (2015) or hdict_t, as ht_new gives it. */
typedef __typeof__(ht_new(1)) table_t;
#ifndef TABLE_FREE
#define TABLE_FREE hset_free
#endif
#define BOARD_TEST 200

static bool lit[MAX_CELLS];
static int cells;

/* The board's vector, built afresh; with index j flipped when j >= 0; or
 * every index flipped when j == -2. */
static bitvector key(int j) {
    bitvector B = bitvector_new();
    for (int i = 0; i < cells; i++)
        if (lit[i]) B = bitvector_flip(B, (uint8_t)(i % L));
    if (j >= 0) B = bitvector_flip(B, (uint8_t)j);
    if (j == -2)
        for (int k = 0; k < L; k++) B = bitvector_flip(B, (uint8_t)k);
    return B;
}

static void insert(table_t H, int j, int test) {
    struct board_data *d = xcalloc(1, sizeof *d);
    d->board = key(j);
    d->test = (uint8_t)test;
    if (ht_lookup(H, d->board) == NULL) ht_insert(H, d);
}

static void lookup(table_t H, const char *name, int j) {
    struct board_data *d = ht_lookup(H, key(j));
    if (d == NULL)
        printf("%s: none\n", name);
    else
        printf("%s: %d\n", name, d->test);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: board-ht-test BOARD\n");
        return 2;
    }
    cells = read_cells(argv[1], lit);
    if (cells < 0) {
        fprintf(stderr, "board-ht-test: cannot read %s\n", argv[1]);
        return 3;
    }
    printf("limit %d\n", L);
    fflush(stdout);
    table_t H = ht_new(4);
    for (int j = 0; j < L; j += 2) insert(H, j, j);
    insert(H, -1, BOARD_TEST);
    for (int j = 0; j < L; j++) {
        char name[8];
        snprintf(name, sizeof name, "%d", j);
        lookup(H, name, j);
    }
    lookup(H, "board", -1);
    lookup(H, "complement", -2);
    if (fflush(stdout) != 0) return 3;
    TABLE_FREE(H);
    return 0;
}
