//! Tests of the student contract, written once for every family.

use super::*;

/// The whole student contract, row by row: exit status, output, what
/// the checker and the solver say, and the verdict with its detail.
#[test]
fn the_contract_table() {
    use Check::*;
    use Statuses::*;
    let ok = |_: &[u8]| Verified {
        result: Ok(()),
        moves: Some(2),
    };
    let bad = |_: &[u8]| Verified {
        result: Err("goal not met after 0 moves".into()),
        moves: Some(0),
    };
    type Row = (
        Statuses,
        &'static [u8],
        i32,
        bool,
        Option<bool>,
        Check,
        &'static str,
    );
    let rows: &[Row] = &[
        (
            WithInputErrors,
            b"0 0 0 1\n",
            0,
            true,
            Some(true),
            Accepted,
            "",
        ),
        (
            WithInputErrors,
            b"",
            0,
            false,
            Some(true),
            WrongAnswer,
            "goal not met after 0 moves",
        ),
        (
            WithInputErrors,
            b"",
            0,
            false,
            None,
            WrongAnswer,
            "goal not met after 0 moves",
        ),
        (
            WithInputErrors,
            b"",
            0,
            false,
            Some(false),
            WrongExitStatus,
            "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)",
        ),
        (
            AnswerOrNone,
            b"0:0\n",
            0,
            false,
            Some(false),
            WrongExitStatus,
            "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)",
        ),
        (
            WithInputErrors,
            b"",
            1,
            false,
            Some(false),
            Accepted,
            "unsolvable, correctly reported",
        ),
        (
            WithInputErrors,
            b" \n",
            1,
            false,
            Some(false),
            Accepted,
            "unsolvable, correctly reported",
        ),
        (
            WithInputErrors,
            b"x\n",
            1,
            false,
            Some(false),
            WrongExitStatus,
            "printed output on an unsolvable puzzle (exit 1 wants empty stdout)",
        ),
        (
            WithInputErrors,
            b"",
            1,
            false,
            Some(true),
            WrongExitStatus,
            "exit 1 (no solution) on a solvable puzzle",
        ),
        (
            WithInputErrors,
            b"",
            1,
            false,
            None,
            Undecided,
            "the reference solver could not decide this puzzle",
        ),
        (
            WithInputErrors,
            b"",
            3,
            false,
            Some(true),
            WrongExitStatus,
            "exit 3 (usage or input error) on a valid puzzle",
        ),
        (
            AnswerOrNone,
            b"",
            3,
            false,
            Some(true),
            RuntimeError,
            "exit status 3 (the contract has 0 and 1)",
        ),
        (
            WithInputErrors,
            b"",
            5,
            false,
            Some(true),
            RuntimeError,
            "exit status 5 (the contract has 0 to 4)",
        ),
        (
            WithInputErrors,
            b"",
            -1,
            false,
            Some(true),
            RuntimeError,
            "exit status -1 (the contract has 0 to 4)",
        ),
    ];
    for (i, &(statuses, out, code, verifies, solvable, check, detail)) in rows.iter().enumerate() {
        let j = if verifies {
            judge_contract(statuses, out, code, ok, || solvable, Some(1))
        } else {
            judge_contract(statuses, out, code, bad, || solvable, Some(1))
        };
        assert_eq!((j.check, j.detail.as_str()), (check, detail), "row {i}");
        assert_eq!(j.best_moves, Some(1), "row {i}");
    }
}
