/* Lights Out boards as bit vectors: cell (row, col) of a width x height
 * board is bit get_index(row, col, width, height), row by row. A board
 * file: "WxH" on its first line, then H rows of W cells, '#' on and 'O'
 * off. */
#ifndef BOARDUTIL_H
#define BOARDUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitvector.h"

/* Whether a width x height board fits in a bit vector (and is not empty). */
bool is_valid_boardsize(uint8_t width, uint8_t height);

/* The bit of cell (row, col); requires it to be on the board. */
uint8_t get_index(int row, int col, uint8_t width, uint8_t height);

/* Whether (row, col) is on a width x height board (later handouts). */
bool is_valid_pos(int row, int col, uint8_t width, uint8_t height);

/* Reads the board in file `path` into *board, *width and *height. False
 * (and nothing set) when the file cannot be read, is malformed, or the
 * board does not fit (is_valid_boardsize). */
bool file_read(char *path, bitvector *board, uint8_t *width, uint8_t *height);

/* Prints the board to standard error: '#' on, '0' off. */
void print_board(bitvector board, uint8_t width, uint8_t height);

#endif
