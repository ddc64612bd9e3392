/* Hash tables of boards, as the Fall 2014 handout documents lib/ba-ht.h
 * (the student writes ba-ht.c): puzzlegrade's own copy. The table owns
 * the structs stored in it, and ht_free frees them. */
#ifndef BA_HT_H
#define BA_HT_H

#include <stdbool.h>
#include <stdlib.h>

#include "bitarray.h"
#include "hset.h"

/* The handout's name for a hash set. */
typedef hset_t hset;

struct board_data {
    uint8_t last_move;
    bitarray board;
};

hset ht_new(size_t capacity);
void ht_insert(hset H, struct board_data *DAT);
struct board_data *ht_lookup(hset H, bitarray B);
void ht_free(hset H);

#endif
