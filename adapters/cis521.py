#!/usr/bin/env python3
"""puzzlegrade adapter for UPenn CIS 521 Homework 1 Part 2 (Lights Out).

Usage: cis521.py STUDENT.py QUESTION BOARD_FILE

Imports the student's file by path (any name, spaces allowed), calls one
question's function on the board, and prints the question's transcript
(docs/adapters.md) for the harness to judge against the reference:

  get_board      LightsOutPuzzle(board).get_board()
  create_puzzle  create_puzzle(rows, cols).get_board()
  perform_move   for every cell: a fresh puzzle, perform_move(r, c)
  scramble       40 fresh puzzles, scramble() each (random.seed(521) first)
  is_solved      is_solved() on the board, then on an all-off board
  copy           copy(), then presses on each side: are they independent?
  successors     successors(), sorted by move
  find_solution  the 15-122 contract: moves "r:c", exit 0; None: exit 1,
                 nothing printed

Anything the student's code prints (at import or in a call) goes to stderr,
so it never mixes with the transcript. Exit statuses: 0 transcript printed,
1 find_solution returned None, 2 usage, 3 the student's code raised (the
traceback is on stderr).
"""

import importlib.util
import os
import random
import sys
import traceback

QUESTIONS = (
    "get_board",
    "create_puzzle",
    "perform_move",
    "scramble",
    "is_solved",
    "copy",
    "successors",
    "find_solution",
)
SCRAMBLES = 40


def read_board(path):
    """A 15-122 board file: `WxH`, then H rows of W cells, `#` on, `O` off."""
    with open(path) as f:
        text = f.read()
    header, _, rest = text.partition("\n")
    width, height = (int(n) for n in header.strip().split("x"))
    cells = [c for c in rest if not c.isspace()]
    if len(cells) != width * height or any(c not in "#O" for c in cells):
        raise ValueError(f"{path}: not a {width}x{height} board")
    return [[cells[r * width + c] == "#" for c in range(width)] for r in range(height)]


def rows(board):
    """Board rows as the transcript writes them: True `#`, False `O`."""
    def cell(v):
        return "#" if v is True else "O" if v is False else "?"
    try:
        return ["".join(cell(v) for v in row) for row in board]
    except TypeError:
        return [f"not a list of lists: {board!r}"]


def fresh(board):
    return [row[:] for row in board]


def main(argv, out):
    if len(argv) != 4 or argv[2] not in QUESTIONS:
        print(f"usage: {argv[0]} STUDENT.py {{{','.join(QUESTIONS)}}} BOARD_FILE",
              file=sys.stderr)
        return 2
    student, question, board_file = argv[1], argv[2], argv[3]
    try:
        board = read_board(board_file)
    except (OSError, ValueError) as e:
        print(f"cis521 adapter: {e}", file=sys.stderr)
        return 2
    height, width = len(board), len(board[0])

    spec = importlib.util.spec_from_file_location("student_submission", student)
    module = importlib.util.module_from_spec(spec)
    sys.modules["student_submission"] = module
    spec.loader.exec_module(module)
    Puzzle = getattr(module, "LightsOutPuzzle", None)
    # Labels (not compared): the calls in the handout's terms, for the
    # harness to explain a wrong answer (docs/adapters.md, Labels). Not
    # for find_solution, whose output is the moves alone.
    lines = [] if question == "find_solution" else ["@values python", f"@input {board!r}"]

    if question == "get_board":
        lines.append("@ LightsOutPuzzle(board).get_board() returned")
        lines += rows(Puzzle(fresh(board)).get_board())
    elif question == "create_puzzle":
        lines.append(f"@ create_puzzle({height}, {width}).get_board() returned")
        lines += rows(module.create_puzzle(height, width).get_board())
    elif question == "perform_move":
        for r in range(height):
            for c in range(width):
                p = Puzzle(fresh(board))
                p.perform_move(r, c)
                lines.append(f"@ perform_move({r}, {c}) left the board")
                lines.append(f"{r} {c}")
                lines += rows(p.get_board())
    elif question == "scramble":
        random.seed(521)
        for _ in range(SCRAMBLES):
            p = Puzzle(fresh(board))
            p.scramble()
            lines += rows(p.get_board())
    elif question == "is_solved":
        lines.append("@ is_solved() returned")
        lines.append(str(bool(Puzzle(fresh(board)).is_solved())).lower())
        off = [[False] * width for _ in range(height)]
        lines.append("@ is_solved() on an all-off board returned")
        lines.append(str(bool(Puzzle(off).is_solved())).lower())
    elif question == "copy":
        p = Puzzle(fresh(board))
        q = p.copy()
        lines.append("@ q = p.copy(); q.get_board() returned")
        lines += rows(q.get_board())
        q.perform_move(0, 0)
        lines.append("@ after q.perform_move(0, 0), p.get_board() returned")
        lines += rows(p.get_board())
        p.perform_move(height - 1, width - 1)
        lines.append(f"@ after p.perform_move({height - 1}, {width - 1}), q.get_board() returned")
        lines += rows(q.get_board())
    elif question == "successors":
        found = list(Puzzle(fresh(board)).successors())
        for move, new in sorted(found, key=lambda s: tuple(s[0])):
            r, c = move
            lines.append(f"@ successors() gave move ({r}, {c}) with the board")
            lines.append(f"{r} {c}")
            lines += rows(new.get_board())
    elif question == "find_solution":
        solution = Puzzle(fresh(board)).find_solution()
        if solution is None:
            return 1
        lines += [f"{r}:{c}" for r, c in solution]
    out.write("".join(line + "\n" for line in lines))
    out.flush()
    return 0


def serve(main, name):
    """Runs main(argv, transcript) and exits with its status: the
    transcript goes to the real stdout; fd 1 becomes stderr, so the
    student's prints (even os.write(1, ...)) stay out of it. The student's
    exit() or exception is status 3."""
    transcript = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        status = main(sys.argv, transcript)
    except SystemExit as e:
        print(f"{name}: the student's code called exit({e.code})", file=sys.stderr)
        status = 3
    except BaseException:  # the student's exception, whatever it is
        traceback.print_exc()
        status = 3
    sys.exit(status)


if __name__ == "__main__":
    serve(main, "cis521 adapter")
