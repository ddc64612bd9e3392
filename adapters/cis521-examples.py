#!/usr/bin/env python3
"""puzzlegrade: runs the CIS 521 handout's examples on a student's file.

Usage: cis521-examples.py STUDENT.py EXAMPLES

EXAMPLES is one of adapters/cis521-examples/*.py.txt: a question's
examples from the handout, as written (its `>>>` sessions). They run as
doctest runs them, in the student's module's namespace, one after another;
an answer is right when it prints what the handout shows, or, where both
are Python values (a board the handout spreads over lines), an equal
value. For each example the transcript holds a label `@ >>> SOURCE` and
`ok`, or `failed: ...` saying what it printed or raised. Anything the
student's code prints outside an example goes to stderr. Exit statuses: 0
transcript printed, 2 usage, 3 the student's file cannot be imported (the
traceback is on stderr).
"""

import ast
import doctest
import importlib.util
import os
import sys
import traceback

# Ours: the handout lets successors() come in any order.
ANY_ORDER = doctest.register_optionflag("ANY_ORDER")


def words(text):
    return [" ".join(line.split()) for line in text.strip().splitlines()]


class Checker(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        if super().check_output(want, got, optionflags | doctest.NORMALIZE_WHITESPACE):
            return True
        if optionflags & ANY_ORDER and sorted(words(want)) == sorted(words(got)):
            return True
        try:
            return ast.literal_eval(want.strip()) == ast.literal_eval(got.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return False


class Runner(doctest.DocTestRunner):
    """Keeps each example's outcome, in order."""

    def __init__(self):
        super().__init__(checker=Checker(), verbose=False)
        self.outcomes = {}

    def report_start(self, out, test, example):
        pass

    def report_success(self, out, test, example, got):
        self.outcomes[id(example)] = "ok"

    def report_failure(self, out, test, example, got):
        self.outcomes[id(example)] = (
            f"failed: printed {' '.join(got.split())!r}, the handout shows {' '.join(example.want.split())!r}"
        )

    def report_unexpected_exception(self, out, test, example, exc_info):
        kind, value, _ = exc_info
        self.outcomes[id(example)] = f"failed: raised {kind.__name__}: {value}"


def main(argv, out):
    if len(argv) != 3:
        print(f"usage: {argv[0]} STUDENT.py EXAMPLES", file=sys.stderr)
        return 2
    student, examples = argv[1], argv[2]
    try:
        with open(examples, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"cis521 examples: {e}", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("student_submission", student)
    module = importlib.util.module_from_spec(spec)
    sys.modules["student_submission"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:  # the student's file, whatever it raises
        traceback.print_exc()
        return 3
    test = doctest.DocTestParser().get_doctest(text, dict(vars(module)), "examples", examples, 0)
    runner = Runner()
    runner.run(test, out=lambda s: None, clear_globs=True)
    lines = []
    for example in test.examples:
        lines.append("@ >>> " + example.source.splitlines()[0])
        lines.append(runner.outcomes.get(id(example), "failed: not run"))
    out.write("".join(line + "\n" for line in lines))
    out.flush()
    return 0


if __name__ == "__main__":
    # (cis521.py beside this file: Python puts the script's folder first
    # on the path.)
    from cis521 import serve

    serve(main, "cis521 examples")
