#include <stdio.h>

#include "boardutil.h"
#include "contracts.h"

bool is_valid_boardsize(uint8_t width, uint8_t height) {
    return width > 0 && height > 0 && (int)width * height <= BITVECTOR_LIMIT;
}

uint8_t get_index(int row, int col, uint8_t width, uint8_t height) {
    REQUIRES(0 <= row && row < height && 0 <= col && col < width);
    (void)height;
    return (uint8_t)(row * width + col);
}

bool is_valid_pos(int row, int col, uint8_t width, uint8_t height) {
    return 0 <= row && row < height && 0 <= col && col < width;
}

/* The end of a row: a newline (after an optional '\r'), or the end of
 * the file after the last row. */
static bool row_end(FILE *f, bool last) {
    int ch = fgetc(f);
    if (ch == '\r') ch = fgetc(f);
    return ch == '\n' || (last && ch == EOF);
}

bool file_read(char *path, bitvector *board, uint8_t *width, uint8_t *height) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return false;
    int w, h;
    bool ok = fscanf(f, "%dx%d", &w, &h) == 2 && w > 0 && h > 0 && w <= 255 && h <= 255 &&
              is_valid_boardsize(w, h) && row_end(f, false);
    bitvector B = ok ? bitvector_new() : 0;
    for (int r = 0; ok && r < h; r++) {
        for (int c = 0; ok && c < w; c++) {
            int ch = fgetc(f);
            if (ch == '#')
                B = bitvector_flip(B, get_index(r, c, w, h));
            else if (ch != 'O')
                ok = false;
        }
        ok = ok && row_end(f, r == h - 1);
    }
    fclose(f);
    if (!ok) return false;
    *board = B;
    *width = (uint8_t)w;
    *height = (uint8_t)h;
    return true;
}

void print_board(bitvector board, uint8_t width, uint8_t height) {
    for (int r = 0; r < height; r++) {
        for (int c = 0; c < width; c++)
            fputc(bitvector_get(board, get_index(r, c, width, height)) ? '#' : '0', stderr);
        fputc('\n', stderr);
    }
}
