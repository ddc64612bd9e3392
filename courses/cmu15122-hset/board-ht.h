/* Hash tables of Lights Out boards (Task 4: implement in board-ht.c).
 * Elements are pointers to struct board_data, hashed and compared by
 * their board alone. You may add fields to the struct; the first two must
 * stay `board` and `test`, in that order (the grader uses `test`). */
#ifndef BOARD_HT_H
#define BOARD_HT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/bitvector.h"
#include "lib/hset.h"

struct board_data {
    bitvector board;
    uint8_t test;
};

/* A new, empty table; requires capacity > 0. hset_free(H) frees it and
 * its elements. */
hset_t ht_new(size_t capacity);

/* The element whose board equals B, or NULL. */
struct board_data *ht_lookup(hset_t H, bitvector B);

/* Adds DAT; requires DAT != NULL and ht_lookup(H, DAT->board) == NULL. */
void ht_insert(hset_t H, struct board_data *DAT);

#endif
