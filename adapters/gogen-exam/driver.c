/* puzzlegrade's test driver for the Imperial Gogen exam (seed 002): links a
 * student's letter_mask.c and gogen.c and prints, for one puzzle, the
 * transcript of one function (docs/adapters.md), which the harness judges
 * against the reference.
 *
 *   gogen-driver FUNCTION PUZZLE           (exam form: board, count, words)
 *   gogen-driver FUNCTION BOARD WORDS      (two-file form)
 *   gogen-driver FUNCTION MASKS            (a mask case: %08x masks, one a line)
 *
 * FUNCTION is one of get_bit_value, set_bit_value, set_all_bits,
 * is_free_letter, get_fixed_letter_pos, intersect_neighbourhoods,
 * get_letter_position, valid_solution, update, solve_board. solve_board
 * follows the Gogen solver contract: the solved board on stdout and exit 0,
 * or nothing and exit 1. Exit 2: usage; 3: unreadable puzzle.
 *
 * The Part A functions get the case's *test masks*, computed here without
 * the student's code: for a puzzle, per letter 'A' to 'Y', its cell alone
 * when the board holds it, else every empty cell; for a mask case (masks/),
 * its masks: each edge mask a case of its own (00000000, ffffff80,
 * 80000000, 00000080), and families of them (every cell alone, every cell
 * missing, every row and column, 64 seeded random masks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gogen.h"

#define MAX_WORDS 256
#define MAX_WORD 64
#define FULL 0xFFFFFF80u
#define TESTS NUM_LETTERS
/* The most masks of a mask case (a family: masks/random.masks). */
#define MOST_MASKS 64

static board_t board;
/* A mask case: its masks (and no board or words). */
static int mask_case;
static letter_mask_t the_masks[MOST_MASKS];
static char *words[MAX_WORDS + 1];
static int nwords;

static uint32_t bit(int r, int c) { return 1u << (31 - (r * WIDTH + c)); }

static int read_board(FILE *f) {
    char line[128];
    for (int r = 0; r < HEIGHT; r++) {
        if (!fgets(line, sizeof line, f)) return 0;
        for (int c = 0; c < WIDTH; c++) {
            char ch = line[c];
            if (ch != '.' && (ch < 'A' || ch > 'Z')) return 0;
            board[r][c] = ch;
        }
    }
    return 1;
}

static int read_word(FILE *f) {
    char w[MAX_WORD];
    if (fscanf(f, "%63s", w) != 1 || nwords >= MAX_WORDS) return 0;
    words[nwords] = malloc(strlen(w) + 1);
    strcpy(words[nwords++], w);
    words[nwords] = NULL;
    return 1;
}

/* The number of masks the file holds, one a line (eight hex digits each,
   at most MOST_MASKS), into the_masks; 0 where it is anything else. */
static int read_mask(const char *path) {
    FILE *f = fopen(path, "r");
    char line[64], rest[64];
    unsigned m;
    int n = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        if (line[strspn(line, " \t\r\n")] == '\0') continue;
        if (n == MOST_MASKS || strlen(line) < 8 || strspn(line, "0123456789abcdefABCDEF") != 8 ||
            sscanf(line, "%8x%63s", &m, rest) != 1) {
            n = 0;
            break;
        }
        the_masks[n++] = m;
    }
    fclose(f);
    return n;
}

static int load(int argc, char **argv) {
    if (argc == 3 && (mask_case = read_mask(argv[2])) > 0) {
        for (int r = 0; r < HEIGHT; r++)
            for (int c = 0; c < WIDTH; c++) board[r][c] = '.';
        return 1;
    }
    FILE *f = fopen(argv[2], "r");
    if (!f || !read_board(f)) return 0;
    if (argc == 3) {
        int n;
        if (fscanf(f, "%d", &n) != 1 || n < 0) return 0;
        for (int i = 0; i < n; i++)
            if (!read_word(f)) return 0;
    } else {
        fclose(f);
        f = fopen(argv[3], "r");
        if (!f) return 0;
        while (read_word(f)) {
        }
    }
    fclose(f);
    return 1;
}

/* The case's test masks into out; their number. */
static int test_masks(letter_mask_t out[MOST_MASKS]) {
    if (mask_case) {
        for (int i = 0; i < mask_case; i++) out[i] = the_masks[i];
        return mask_case;
    }
    uint32_t occupied = 0;
    for (int r = 0; r < HEIGHT; r++)
        for (int c = 0; c < WIDTH; c++)
            if (board[r][c] != '.') occupied |= bit(r, c);
    for (int l = 0; l < NUM_LETTERS; l++) {
        out[l] = FULL & ~occupied;
        for (int i = 0; i < HEIGHT * WIDTH; i++)
            if (board[i / WIDTH][i % WIDTH] == 'A' + l) {
                out[l] = bit(i / WIDTH, i % WIDTH);
                break;
            }
    }
    return NUM_LETTERS;
}

static void show_board(board_t b) {
    for (int r = 0; r < HEIGHT; r++) printf("%.*s\n", WIDTH, b[r]);
}

static void pos(bool found, int r, int c) {
    if (found)
        printf("1 %d %d\n", r, c);
    else
        printf("0\n");
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: gogen-driver FUNCTION PUZZLE | FUNCTION BOARD WORDS\n");
        return 2;
    }
    if (!load(argc, argv)) {
        fprintf(stderr, "gogen-driver: cannot read the puzzle\n");
        return 3;
    }
    const char *fn = argv[1];
    letter_mask_t t[MOST_MASKS];
    int tests = test_masks(t);
    if (mask_case && (!strcmp(fn, "get_letter_position") ||
                      !strcmp(fn, "valid_solution") || !strcmp(fn, "update") ||
                      !strcmp(fn, "solve_board"))) {
        fprintf(stderr, "gogen-driver: a mask case is for the mask functions, not %s\n", fn);
        return 2;
    }
    /* Labels (`@ ...`, not compared): the calls in the exam's terms, for the
       harness to explain a wrong answer (docs/adapters.md, Labels). */
    if (!strcmp(fn, "get_bit_value")) {
        for (int i = 0; i < tests; i++) {
            printf("@ get_bit_value(0x%08x, row, col), cell by cell, row by row, gave\n", (unsigned)t[i]);
            for (int r = 0; r < HEIGHT; r++)
                for (int c = 0; c < WIDTH; c++) putchar(get_bit_value(t[i], r, c) ? '1' : '0');
            putchar('\n');
        }
    } else if (!strcmp(fn, "set_bit_value")) {
        for (int i = 0; i < tests; i++) {
            printf("@ set_bit_value(&mask, row, col, !bit) on 0x%08x, each cell in turn, gave\n",
                   (unsigned)t[i]);
            for (int k = 0; k < HEIGHT * WIDTH; k++) {
                int r = k / WIDTH, c = k % WIDTH;
                letter_mask_t m = t[i];
                set_bit_value(&m, r, c, !(t[i] & bit(r, c)));
                printf(k ? " %08x" : "%08x", (unsigned)m);
            }
            putchar('\n');
        }
    } else if (!strcmp(fn, "set_all_bits")) {
        for (int i = 0; i < tests; i++) {
            letter_mask_t on = t[i], off = t[i];
            printf("@ set_all_bits(&mask, true), then (&mask, false), on 0x%08x gave\n", (unsigned)t[i]);
            set_all_bits(&on, true);
            set_all_bits(&off, false);
            printf("%08x %08x\n", (unsigned)on, (unsigned)off);
        }
    } else if (!strcmp(fn, "is_free_letter")) {
        for (int i = 0; i < tests; i++) {
            printf("@ is_free_letter(0x%08x) returned\n", (unsigned)t[i]);
            printf("%d\n", is_free_letter(t[i]) ? 1 : 0);
        }
    } else if (!strcmp(fn, "get_fixed_letter_pos")) {
        for (int i = 0; i < tests; i++) {
            int r = -1, c = -1;
            printf("@ get_fixed_letter_pos(0x%08x, &row, &col) gave (found row col)\n", (unsigned)t[i]);
            bool found = get_fixed_letter_pos(t[i], &r, &c);
            pos(found, r, c);
        }
    } else if (!strcmp(fn, "intersect_neighbourhoods") && mask_case) {
        /* Each mask with the next (the last with the first). */
        for (int i = 0; i < tests; i++) {
            letter_mask_t a = t[i], b = t[(i + 1) % tests];
            printf("@ intersect_neighbourhoods(&a, &b) on 0x%08x 0x%08x left\n", (unsigned)a, (unsigned)b);
            intersect_neighbourhoods(&a, &b);
            printf("%08x %08x\n", (unsigned)a, (unsigned)b);
        }
    } else if (!strcmp(fn, "intersect_neighbourhoods")) {
        for (int w = 0; w < nwords; w++)
            for (int i = 0; words[w][i] && words[w][i + 1]; i++) {
                letter_mask_t a = t[words[w][i] - 'A'], b = t[words[w][i + 1] - 'A'];
                printf("@ intersect_neighbourhoods(&a, &b) for %c%c of %s (0x%08x 0x%08x) left\n",
                       words[w][i], words[w][i + 1], words[w], (unsigned)a, (unsigned)b);
                intersect_neighbourhoods(&a, &b);
                printf("%08x %08x\n", (unsigned)a, (unsigned)b);
            }
    } else if (!strcmp(fn, "get_letter_position")) {
        for (int l = 0; l < NUM_LETTERS; l++) {
            int r = -1, c = -1;
            printf("@ get_letter_position(board, '%c', &row, &col) gave (found row col)\n", 'A' + l);
            bool found = get_letter_position(board, 'A' + l, &r, &c);
            pos(found, r, c);
        }
    } else if (!strcmp(fn, "valid_solution")) {
        /* The board, then three corruptions of it (as the judge makes). */
        for (int v = 0; v < 4; v++) {
            board_t b;
            memcpy(b, board, sizeof b);
            char x;
            switch (v) {
            case 1: x = b[0][0]; b[0][0] = b[4][4]; b[4][4] = x; break;
            case 2: x = b[0][0]; b[0][0] = b[0][1]; b[0][1] = x; break;
            case 3: b[2][2] = b[0][0]; break;
            }
            static const char *how[] = {"the solution", "the solution with its corners swapped",
                                         "the solution with its first two cells swapped",
                                         "the solution with its centre a copy of its first cell"};
            printf("@ valid_solution(board, words) on %s returned\n", how[v]);
            printf("%d\n", valid_solution(b, words) ? 1 : 0);
        }
    } else if (!strcmp(fn, "update")) {
        letter_mask_t masks[NUM_LETTERS];
        for (int l = 0; l < NUM_LETTERS; l++) masks[l] = FULL;
        update(board, masks);
        printf("@ update(board, masks) on all-ones masks left the board\n");
        show_board(board);
        for (int l = 0; l < NUM_LETTERS; l++) {
            printf("@ update(board, masks) on all-ones masks left the mask of '%c'\n", 'A' + l);
            printf("%08x\n", (unsigned)masks[l]);
        }
    } else if (!strcmp(fn, "solve_board")) {
        if (!solve_board(board, words)) return 1;
        show_board(board);
    } else {
        fprintf(stderr, "gogen-driver: unknown function %s\n", fn);
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 3;
}
