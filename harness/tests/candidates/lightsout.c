/* A Lights Out solver in the 15-122 contract, in C as the course writes it:
 * breadth-first search over boards of at most 25 cells (bit vectors), so it
 * finds a minimum-press solution. Exponential: fine for the easy suite. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static int read_non_space(FILE *f) {
  int c;
  do c = fgetc(f); while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
  return c;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "Usage: lightsout <board name>\n"); return 1; }
  FILE *f = fopen(argv[1], "r");
  if (!f) { fprintf(stderr, "cannot open %s\n", argv[1]); return 1; }
  int w = read_non_space(f) - '0';
  if (read_non_space(f) != 'x') { fprintf(stderr, "bad header\n"); return 1; }
  int h = read_non_space(f) - '0';
  if (w < 1 || h < 1 || w * h > 25) { fprintf(stderr, "bad size\n"); return 1; }
  int n = w * h;
  uint32_t board = 0, press[25];
  for (int i = 0; i < n; i++) {
    int c = read_non_space(f);
    if (c == '#') board |= 1u << i;
    else if (c != 'O') { fprintf(stderr, "bad cell\n"); return 1; }
  }
  fclose(f);
  for (int i = 0; i < n; i++) {
    int r = i / w, c = i % w;
    press[i] = 1u << i;
    if (r > 0) press[i] |= 1u << (i - w);
    if (r < h - 1) press[i] |= 1u << (i + w);
    if (c > 0) press[i] |= 1u << (i - 1);
    if (c < w - 1) press[i] |= 1u << (i + 1);
  }
  size_t states = (size_t)1 << n;
  uint32_t *from = malloc(states * sizeof *from); /* presses that reach it */
  uint8_t *seen = calloc(states, 1);
  uint32_t *queue = malloc(states * sizeof *queue);
  if (!from || !seen || !queue) { fprintf(stderr, "out of memory\n"); return 1; }
  size_t head = 0, tail = 0;
  queue[tail++] = board; seen[board] = 1; from[board] = 0;
  while (head < tail) {
    uint32_t b = queue[head++];
    if (b == 0) {
      for (int i = 0; i < n; i++)
        if (from[b] >> i & 1) printf("%d:%d\n", i / w, i % w);
      return 0;
    }
    for (int i = 0; i < n; i++) {
      uint32_t nb = b ^ press[i];
      if (!seen[nb]) { seen[nb] = 1; from[nb] = from[b] ^ (1u << i); queue[tail++] = nb; }
    }
  }
  fprintf(stderr, "No solution\n");
  return 1;
}
