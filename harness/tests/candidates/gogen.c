/* A student-style Gogen solver in C, as the Imperial C test builds it:
 * letter masks in the 25 high bits of a uint32_t, the handout's update and
 * intersect_neighbourhoods until nothing changes, then backtracking.
 * Usage: gogen PUZZLE (exam form) or gogen BOARD WORDS.
 * Prints the board and exits 0; exits 1 with nothing on stdout when there is
 * no solution; 2 usage; 3 unreadable; 4 malformed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 5
#define LETTERS 25
#define MAXWORDS 256
typedef uint32_t mask_t;

static char words[MAXWORDS][32];
static int nwords;

static mask_t bit(int r, int c) { return (mask_t)1 << (31 - (r * N + c)); }
static int popcount(mask_t m) { int n = 0; while (m) { m &= m - 1; n++; } return n; }

static mask_t neighbourhood(mask_t m) {
  mask_t out = 0;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++)
      if (m & bit(r, c))
        for (int dr = -1; dr <= 1; dr++)
          for (int dc = -1; dc <= 1; dc++) {
            int rr = r + dr, cc = c + dc;
            if (rr >= 0 && rr < N && cc >= 0 && cc < N) out |= bit(rr, cc);
          }
  return out;
}

/* Returns 0 on a contradiction. */
static int propagate(char board[N][N], mask_t masks[LETTERS]) {
  for (;;) {
    int changed = 0;
    mask_t occupied = 0;
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++)
        if (board[r][c] != '.') occupied |= bit(r, c);
    for (int l = 0; l < LETTERS; l++) {
      int found = 0;
      for (int r = 0; r < N && !found; r++)
        for (int c = 0; c < N && !found; c++)
          if (board[r][c] == 'A' + l) {
            if (!(masks[l] & bit(r, c))) return 0;
            masks[l] = bit(r, c);
            found = 1;
          }
      if (found) continue;
      mask_t m = masks[l] & ~occupied;
      if (m == 0) return 0;
      if (m != masks[l]) { masks[l] = m; changed = 1; }
      if (popcount(m) == 1)
        for (int r = 0; r < N; r++)
          for (int c = 0; c < N; c++)
            if (m & bit(r, c)) { board[r][c] = 'A' + l; occupied |= bit(r, c); changed = 1; }
    }
    for (int w = 0; w < nwords; w++)
      for (int i = 0; words[w][i + 1]; i++) {
        int a = words[w][i] - 'A', b = words[w][i + 1] - 'A';
        mask_t na = masks[a] & neighbourhood(masks[b]);
        mask_t nb = masks[b] & neighbourhood(masks[a]);
        if (a == b || na == 0 || nb == 0) return 0;
        if (na != masks[a] || nb != masks[b]) { masks[a] = na; masks[b] = nb; changed = 1; }
      }
    if (!changed) return 1;
  }
}

static int solve(char board[N][N], mask_t masks[LETTERS]) {
  if (!propagate(board, masks)) return 0;
  int best = -1;
  for (int l = 0; l < LETTERS; l++)
    if (popcount(masks[l]) > 1 && (best < 0 || popcount(masks[l]) < popcount(masks[best]))) best = l;
  if (best < 0) return 1;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++)
      if (masks[best] & bit(r, c)) {
        char b2[N][N];
        mask_t m2[LETTERS];
        memcpy(b2, board, sizeof b2);
        memcpy(m2, masks, sizeof m2);
        b2[r][c] = 'A' + best;
        m2[best] = bit(r, c);
        if (solve(b2, m2)) { memcpy(board, b2, sizeof b2); memcpy(masks, m2, sizeof m2); return 1; }
      }
  return 0;
}

static int read_board(FILE *f, char board[N][N]) {
  char line[64];
  for (int r = 0; r < N; r++) {
    if (!fgets(line, sizeof line, f) || strcspn(line, "\r\n") != N) return 0;
    for (int c = 0; c < N; c++) {
      char ch = line[c];
      if (ch != '.' && (ch < 'A' || ch > 'Y')) return 0;
      board[r][c] = ch;
    }
  }
  return 1;
}

static int read_words(FILE *f, int count) {
  char w[64];
  while ((count < 0 || nwords < count) && fscanf(f, "%31s", w) == 1) {
    if (nwords == MAXWORDS) return 0;
    for (char *p = w; *p; p++) if (*p < 'A' || *p > 'Y') return 0;
    strcpy(words[nwords++], w);
  }
  return count < 0 || nwords == count;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) { fprintf(stderr, "usage: gogen PUZZLE | BOARD WORDS\n"); return 2; }
  char board[N][N];
  FILE *f = fopen(argv[1], "r");
  if (!f) { perror(argv[1]); return 3; }
  int ok = read_board(f, board);
  if (ok && argc == 2) {
    int count;
    ok = fscanf(f, "%d", &count) == 1 && count >= 0 && read_words(f, count);
  }
  fclose(f);
  if (ok && argc == 3) {
    FILE *w = fopen(argv[2], "r");
    if (!w) { perror(argv[2]); return 3; }
    ok = read_words(w, -1);
    fclose(w);
  }
  if (!ok) { fprintf(stderr, "malformed puzzle\n"); return 4; }
  mask_t masks[LETTERS];
  for (int l = 0; l < LETTERS; l++) masks[l] = 0xFFFFFF80u;
  if (!solve(board, masks)) { fprintf(stderr, "no solution\n"); return 1; }
  for (int r = 0; r < N; r++) printf("%.5s\n", board[r]);
  return 0;
}
