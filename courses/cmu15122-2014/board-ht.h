/* Not the 2014 handout's (its students hand in ba-ht.c, over lib/ba-ht.h):
 * the grader's hash table driver (../cmu15122/tests/board-ht-test.c)
 * includes this, and its struct's tag field is the handout's last_move. */
#ifndef BOARD_HT_H
#define BOARD_HT_H

#include "lib/ba-ht.h"
#include "lib/bitvector.h"

#define test last_move

#endif
