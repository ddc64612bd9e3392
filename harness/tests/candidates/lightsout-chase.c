/* A 15-122 Lights Out solver, standalone (the hostile-class tests' honest
 * submission, with its own Makefile):
 * light chasing over every first-row press pattern. Moves "r:c" on stdout,
 * exit 0; no solution or any error: nothing on stdout, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX 20

static int width, height;
static int lights[MAX][MAX], press[MAX][MAX];

static void toggle(int b[MAX][MAX], int r, int c) {
    if (r >= 0 && r < height && c >= 0 && c < width) b[r][c] ^= 1;
}

static void push(int b[MAX][MAX], int r, int c) {
    toggle(b, r, c);
    toggle(b, r - 1, c);
    toggle(b, r + 1, c);
    toggle(b, r, c - 1);
    toggle(b, r, c + 1);
}

static int read_board(const char *name) {
    FILE *f = fopen(name, "r");
    if (!f) return 0;
    if (fscanf(f, "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || width > MAX ||
        height > MAX) {
        fclose(f);
        return 0;
    }
    for (int r = 0; r < height; r++)
        for (int c = 0; c < width; c++) {
            int ch;
            do ch = fgetc(f);
            while (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t');
            if (ch != '#' && ch != 'O') {
                fclose(f);
                return 0;
            }
            lights[r][c] = ch == '#';
        }
    fclose(f);
    return 1;
}

#ifndef PAUSE_ON
#define PAUSE_ON(w, h) 0
#endif
#ifndef UNSOLVABLE_STATUS
#define UNSOLVABLE_STATUS 1
#endif

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "Usage: lightsout <board name>\n");
        return 1;
    }
    if (!read_board(argv[1])) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    while (PAUSE_ON(width, height)) {
    }
    for (long first = 0; first < (1L << width); first++) {
        int b[MAX][MAX];
        memcpy(b, lights, sizeof b);
        memset(press, 0, sizeof press);
        for (int c = 0; c < width; c++)
            if (first >> c & 1) {
                press[0][c] = 1;
                push(b, 0, c);
            }
        for (int r = 1; r < height; r++)
            for (int c = 0; c < width; c++)
                if (b[r - 1][c]) {
                    press[r][c] = 1;
                    push(b, r, c);
                }
        int out = 0;
        for (int c = 0; c < width; c++) out |= b[height - 1][c];
        if (out) continue;
        for (int r = 0; r < height; r++)
            for (int c = 0; c < width; c++)
                if (press[r][c]) printf("%d:%d\n", r, c);
        return 0;
    }
    fprintf(stderr, "No solution was found!\n");
    return UNSOLVABLE_STATUS;
}
