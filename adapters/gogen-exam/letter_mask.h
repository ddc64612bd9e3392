/* The Imperial Gogen exam's letter_mask.h, as its handout (seed 002)
 * describes it: puzzlegrade's own copy, so a student's letter_mask.c and
 * gogen.c compile against our test driver. With "some constants that
 * represent letter masks for specific configurations" under the names the
 * exam's own header gives them (public copies of handins use them), and
 * print_bitmask, which the skeleton's letter_mask.c defines. */
#ifndef LETTER_MASK_H
#define LETTER_MASK_H

#include <stdbool.h>
#include <stdint.h>

#define HEIGHT 5
#define WIDTH 5
#define NUM_LETTERS 25
#define NUM_BITS 32
#define MSB(x) (x >> 31)

/* The 25 most significant bits, row by row; the 7 low bits are 0. */
typedef uint32_t letter_mask_t;

/* Masks for specific configurations (cells row by row from the top bit). */
#define BOARD_ZEROS (0x00000000u)
#define BOARD_ONES (0xFFFFFF80u)
#define FIRST_ROW_SET (0xF8000000u)
#define LAST_ROW_SET (0x00000F80u)
#define FIRST_COL_SET (0x84210800u)
#define LAST_COL_SET (0x08421080u)
#define FIRST_CELL_SET (FIRST_COL_SET & FIRST_ROW_SET)

void print_bitmask(letter_mask_t mask);

bool get_bit_value(letter_mask_t mask, int row, int col);
void set_bit_value(letter_mask_t *mask, int row, int col, bool value);
void set_all_bits(letter_mask_t *mask, bool value);
bool is_free_letter(letter_mask_t mask);
bool get_fixed_letter_pos(letter_mask_t mask, int *row, int *col);
void intersect_neighbourhoods(letter_mask_t *fst, letter_mask_t *snd);

#endif
