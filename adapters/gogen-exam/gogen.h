/* The Imperial Gogen exam's gogen.h, as its handout describes it
 * (puzzlegrade's own copy; see letter_mask.h). */
#ifndef GOGEN_H
#define GOGEN_H

#include "letter_mask.h"

/* A 5x5 board of 'A' to 'Y', '.' for an empty cell. */
typedef char board_t[HEIGHT][WIDTH];

/* The skeleton's gogen.c defines these (as the exam's header declares). */
void parse_gogen_file(const char *filename, board_t board, char ***words_ptr);
void print_board(board_t board);

bool get_letter_position(board_t board, char letter, int *row, int *col);
bool valid_solution(board_t board, char **words);
void update(board_t board, letter_mask_t masks[NUM_LETTERS]);
bool solve_board(board_t board, char **words);

#endif
