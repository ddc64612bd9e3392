/* The Imperial Gogen exam's letter_mask.c as handed out, as its handout
 * describes it (puzzlegrade's own copy): print_bitmask and "empty stubs of
 * the functions you should implement". A bool stub returns false, a void
 * one does nothing, as in public copies of the exam's skeleton. What these stubs pass earns nothing (the course's
 * rubric items are `beyond_stub`); the reference knows what each prints
 * through our driver, and a test grades this skeleton to 0. */
#include <stdio.h>

#include "letter_mask.h"

void print_bitmask(letter_mask_t mask) {
    for (int r = 0; r < HEIGHT; r++) {
        for (int c = 0; c < WIDTH; c++) printf("%d", get_bit_value(mask, r, c));
        printf("\n");
    }
}

bool get_bit_value(letter_mask_t mask, int row, int col) { return false; }

void set_bit_value(letter_mask_t *mask, int row, int col, bool value) {}

void set_all_bits(letter_mask_t *mask, bool value) {}

bool is_free_letter(letter_mask_t mask) { return false; }

bool get_fixed_letter_pos(letter_mask_t mask, int *row, int *col) { return false; }

void intersect_neighbourhoods(letter_mask_t *fst, letter_mask_t *snd) {}

int main(void) { return 0; }
