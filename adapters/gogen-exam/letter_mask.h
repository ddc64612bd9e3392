/* The Imperial Gogen exam's letter_mask.h, as its handout (seed 002)
 * describes it: puzzlegrade's own copy, so a student's letter_mask.c and
 * gogen.c compile against our test driver. The exam's own header also has
 * "some constants that represent letter masks for specific
 * configurations" whose names the handout does not give: put the course's
 * own letter_mask.h here instead when submissions use them. */
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

bool get_bit_value(letter_mask_t mask, int row, int col);
void set_bit_value(letter_mask_t *mask, int row, int col, bool value);
void set_all_bits(letter_mask_t *mask, bool value);
bool is_free_letter(letter_mask_t mask);
bool get_fixed_letter_pos(letter_mask_t mask, int *row, int *col);
void intersect_neighbourhoods(letter_mask_t *fst, letter_mask_t *snd);

#endif
