#!/usr/bin/env python3
"""A minimum-press Lights Out solver in the 15-122 contract, as a student
might write it in Python: every solution is fixed by its first row's
presses (light chasing), so try them all and keep the fewest presses.
Exponential in the width: fine for the easy suite."""
import sys


def read_board(path):
    text = "".join(open(path).read().split())
    w, rest = text.split("x", 1)
    w = int(w)
    i = 0
    while rest[i].isdigit():
        i += 1
    h = int(rest[:i])
    cells = rest[i:]
    return w, h, [[c == "#" for c in cells[r * w:(r + 1) * w]] for r in range(h)]


def chase(w, h, board, first):
    lights = [row[:] for row in board]
    presses = []
    row_presses = first
    for r in range(h):
        presses.append(row_presses)
        for c in range(w):
            if row_presses[c]:
                for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < h and 0 <= cc < w:
                        lights[rr][cc] = not lights[rr][cc]
        row_presses = lights[r][:]
    return presses if not any(lights[h - 1]) else None


def main():
    if len(sys.argv) != 2:
        print("Usage: lightsout <board name>", file=sys.stderr)
        return 1
    w, h, board = read_board(sys.argv[1])
    best = None
    for mask in range(1 << w):
        p = chase(w, h, board, [bool(mask >> c & 1) for c in range(w)])
        if p is not None and (best is None or sum(map(sum, p)) < sum(map(sum, best))):
            best = p
    if best is None:
        print("No solution", file=sys.stderr)
        return 1
    for r in range(h):
        for c in range(w):
            if best[r][c]:
                print(f"{r}:{c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
