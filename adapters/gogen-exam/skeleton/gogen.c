/* The Imperial Gogen exam's gogen.c as handed out, as its handout describes
 * it (puzzlegrade's own copy; see letter_mask.c here): utilities and empty
 * stubs. */
#include <stdio.h>
#include <string.h>

#include "gogen.h"

void print_board(board_t board) {
    for (int r = 0; r < HEIGHT; r++) printf("%.*s\n", WIDTH, board[r]);
}

void copy_board(board_t dest, board_t src) { memcpy(dest, src, sizeof(board_t)); }

bool get_letter_position(board_t board, char letter, int *row, int *col) { return false; }

bool valid_solution(board_t board, char **words) { return false; }

void update(board_t board, letter_mask_t masks[NUM_LETTERS]) {}

bool solve_board(board_t board, char **words) { return false; }

/* Question 5: paste the solution of gogen-challenge.txt above main. */
int main(void) { return 0; }
