#!/usr/bin/env python3
"""The Imperial Gogen exam's question 5, read from a student's gogen.c.

The handout: "Find the solution to the Gogen game from gogen-challenge.txt.
Paste it in gogen.c as a comment above the main function." This prints the
board found in the last comment before `main` (a /* ... */ block, or a run
of // lines), five rows of five letters, spaced or not, any case, as the
Gogen solver contract prints a solution, and exits 0; the harness judges it
against the challenge puzzle (appended to the command line, unused here).
No such board: nothing on stdout, why on stderr, exit 1.

    q5.py GOGEN.C [PUZZLE...]
"""

import re
import sys

MAIN = re.compile(r"^[ \t]*(?:int|void)?[ \t\n]*\bmain[ \t]*\(", re.M)
BLOCK = re.compile(r"/\*(.*?)\*/", re.S)
LINES = re.compile(r"(?:^[ \t]*//[^\n]*\n)+", re.M)
ROW = re.compile(r"^[\s*/#|-]*((?:[A-Ya-y][ \t]*){5})[\s*/#|-]*$")


def comment_above_main(text):
    """The text of the last comment that ends before main's definition."""
    at = MAIN.search(text)
    if not at:
        return None
    before = text[: at.start()]
    found = [(m.end(), m.group(1)) for m in BLOCK.finditer(before)]
    found += [(m.end(), m.group(0)) for m in LINES.finditer(before)]
    return max(found)[1] if found else None


def board(comment):
    """The first five consecutive rows of five letters in the comment."""
    rows = []
    for line in comment.splitlines():
        m = ROW.match(line.strip())
        if m:
            rows.append(re.sub(r"\s", "", m.group(1)).upper())
            if len(rows) == 5:
                return rows
        elif rows:
            rows = []
    return None


def main(argv):
    if len(argv) < 2:
        print("usage: q5.py GOGEN.C [PUZZLE...]", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        print(f"q5: cannot read {argv[1]}: {e.strerror}", file=sys.stderr)
        return 1
    comment = comment_above_main(text)
    if comment is None:
        print("q5: no comment above main in gogen.c", file=sys.stderr)
        return 1
    rows = board(comment)
    if rows is None:
        print("q5: no 5x5 board of letters in the comment above main", file=sys.stderr)
        return 1
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
