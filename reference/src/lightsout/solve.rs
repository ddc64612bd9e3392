//! Exact Lights Out solving: solvability, one solution, minimum-press solutions
//! and the quiet patterns (the null space of the press matrix), for any m x n.
//!
//! Light chasing reduces an m x n board to n unknowns, the presses of the
//! first row: with press rows `p_k`, lights `L_k` and `T` the tridiagonal
//! "press within a row" matrix, `p_{k+1} = L_k + T p_k + p_{k-1}` and the board
//! is solved exactly when `p_m = 0`, that is `R_m(T) x = c_m` with
//! `R_{k+1} = T R_k + R_{k-1}`. Instead of eliminating that n x n matrix
//! (O(n^3 / 64)), [`Poly`] arithmetic solves it in O(n^2 / 64): `T = I + J`
//! with `J` the path's adjacency matrix, `e_1` is a cyclic vector of `J`, so
//! vectors are polynomials in `y` modulo `q_n` (the minimal polynomial of `J`,
//! `q_{k+1} = y q_k + q_{k-1}`) and `R_m(T)` acts as multiplication by
//! `h = R_m(1 + y) mod q_n`. The system is solvable exactly when
//! `d = gcd(h, q_n)` divides the right-hand side, and the null space is the
//! multiples of `q_n / d`: its dimension, the nullity, is `deg d`.
//!
//! Boards of at most 64 cells use a precomputed dense elimination instead,
//! so that one 5x5 board takes well under a microsecond.

use rayon::prelude::*;

use super::board::{Board, Cell, xor_into};
use super::chase::Chase;
use super::dense::Dense;
use super::minimum::{MAX_TRANSFORM_WORK, minimum_combination, transform_work};

/// The largest null space searched exhaustively for a minimum-press
/// solution on every board of up to 500,000 cells (200 x 200 and beyond):
/// 2^37 solutions by Walsh-Hadamard transform, an estimated 45 s on two cores
/// (nullity 36 on 170 x 170: 22 s). Nullity 34 is searched on boards of up
/// to 12 million cells.
pub const MAX_EXHAUSTIVE_NULLITY: usize = 37;

/// The most word operations spent on an exhaustive minimum search (2^k
/// candidates of `words` each); past it the search is local and not proven.
const MAX_MINIMIZE_WORK: u64 = 1 << 31;

/// Board words the local improvement past the exhaustive searches may chase
/// (one pattern's chase costs the board's words): about 0.1 s. Boards up to
/// 2000 x 2000 reach a local optimum well within it; an 8000 x 8000 board
/// (nullity 80) gets part of one pass, the rest of its 2^80 solutions being
/// out of reach anyway.
const MAX_LOCAL_WORK: u64 = 1 << 25;

/// Words of quiet patterns kept in memory at once for an exhaustive search.
const MAX_BASIS_WORDS: u64 = 1 << 24;

/// A solution: which cells to press, and whether it is proven to use the
/// fewest presses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The cells to press, once each, in any order.
    pub presses: Board,
    /// Whether `presses` is proven minimal.
    pub minimality: Minimality,
}

impl Solution {
    /// The number of presses.
    pub fn press_count(&self) -> usize {
        self.presses.count_on()
    }

    /// The presses as moves, row by row, left to right.
    pub fn moves(&self) -> impl Iterator<Item = Cell> + '_ {
        self.presses.cells_on()
    }
}

/// How far a minimum-press search went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Minimality {
    /// Every solution was considered: no solution has fewer presses.
    Proven,
    /// The null space was too large to search; this is the best found by
    /// local improvement.
    BestFound {
        /// The dimension of the null space (there are 2^nullity solutions).
        nullity: usize,
    },
}

/// A solver prepared for one board size; preparing costs O(n^2 / 64) and is
/// shared by every board of that size.
#[derive(Clone, Debug)]
pub struct Solver {
    width: usize,
    height: usize,
    engine: Engine,
}

#[derive(Clone, Debug)]
enum Engine {
    Dense(Dense),
    Chase(Chase),
}

impl Solver {
    /// Prepares a solver for `width` x `height` boards.
    ///
    /// # Panics
    /// If either dimension is zero.
    pub fn new(width: usize, height: usize) -> Self {
        assert!(width > 0 && height > 0, "a board has at least one cell");
        let engine = if width * height <= 64 {
            Engine::Dense(Dense::new(width, height))
        } else {
            Engine::Chase(Chase::new(width, height))
        };
        Self {
            width,
            height,
            engine,
        }
    }

    /// Board width this solver is for.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height this solver is for.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The dimension of the null space: every solvable board has exactly
    /// 2^nullity solutions, and a fraction 2^-nullity of all boards is solvable.
    pub fn nullity(&self) -> usize {
        match &self.engine {
            Engine::Dense(d) => d.null.len(),
            Engine::Chase(c) => c.nullity,
        }
    }

    /// A basis of the quiet patterns: press patterns that change nothing.
    /// A board is solvable exactly when it has an even number of lights on
    /// inside each of them (the 15-110 "QP1/QP2" test, for any size).
    pub fn quiet_patterns(&self) -> Vec<Board> {
        match &self.engine {
            Engine::Dense(d) => d.null.iter().map(|&m| d.to_board(m)).collect(),
            Engine::Chase(c) => (0..c.nullity).map(|i| c.quiet_pattern(i)).collect(),
        }
    }

    /// Whether `board` can be solved.
    pub fn is_solvable(&self, board: &Board) -> bool {
        self.check_size(board);
        match &self.engine {
            Engine::Dense(d) => d.particular(d.to_mask(board)).is_some(),
            Engine::Chase(c) => c.first_row(board).is_some(),
        }
    }

    /// One solution (not necessarily minimal), or `None` when unsolvable.
    pub fn solve(&self, board: &Board) -> Option<Board> {
        self.check_size(board);
        match &self.engine {
            Engine::Dense(d) => d.particular(d.to_mask(board)).map(|m| d.to_board(m)),
            Engine::Chase(c) => {
                let x = c.first_row(board)?;
                Some(c.chase(Some(board), &x))
            }
        }
    }

    /// A solution with the fewest presses, or `None` when unsolvable. Proven
    /// minimal when the nullity is at most [`MAX_EXHAUSTIVE_NULLITY`] and the
    /// search fits its work budget; otherwise the best found, and said so.
    pub fn solve_minimum(&self, board: &Board) -> Option<Solution> {
        self.check_size(board);
        match &self.engine {
            Engine::Dense(d) => {
                let p = d.particular(d.to_mask(board))?;
                Some(Solution {
                    presses: d.to_board(minimize_mask(p, &d.null)),
                    minimality: Minimality::Proven,
                })
            }
            Engine::Chase(c) => {
                let p = self.solve(board)?;
                Some(c.minimize(p))
            }
        }
    }

    fn check_size(&self, board: &Board) {
        assert_eq!(
            (board.width(), board.height()),
            (self.width, self.height),
            "board size differs from the solver's"
        );
    }
}

/// One solution of `board`, or `None` when it is unsolvable.
pub fn solve(board: &Board) -> Option<Board> {
    Solver::new(board.width(), board.height()).solve(board)
}

/// A minimum-press solution of `board`, or `None` when it is unsolvable.
pub fn solve_minimum(board: &Board) -> Option<Solution> {
    Solver::new(board.width(), board.height()).solve_minimum(board)
}

/// The particular solution XOR the combination of `null` with fewest ones,
/// by Gray code over all 2^k combinations.
fn minimize_mask(p: u64, null: &[u64]) -> u64 {
    let (mut cur, mut best) = (p, p);
    for step in 1u64..1 << null.len() {
        cur ^= null[step.trailing_zeros() as usize];
        if cur.count_ones() < best.count_ones() {
            best = cur;
        }
    }
    best
}

/// Chasing's own minimisation (it needs the solver's limits and search).
impl Chase {
    fn minimize(&self, p: Board) -> Solution {
        let k = self.nullity;
        let words = p.words().len() as u64;
        let cells = self.width * self.height;
        let basis_fits = (k as u64).saturating_mul(words) <= MAX_BASIS_WORDS;
        let walk = 1u64
            .checked_shl(k as u32)
            .map_or(u64::MAX, |n| n.saturating_mul(words));
        let transform = transform_work(k, cells) <= MAX_TRANSFORM_WORK;
        if basis_fits && (walk <= MAX_MINIMIZE_WORK || transform) {
            let basis: Vec<Board> = (0..k).map(|i| self.quiet_pattern(i)).collect();
            let presses = if walk <= MAX_MINIMIZE_WORK {
                minimize_board(p, &basis)
            } else {
                let code = minimum_combination(&p, &basis);
                combine(p, &basis, code)
            };
            return Solution {
                presses,
                minimality: Minimality::Proven,
            };
        }
        // Local improvement: apply any quiet pattern that lowers the count,
        // until none does or the work budget is spent. Each applied pattern
        // strictly lowers it, so this ends. Patterns are chased row by row
        // from their first rows (k short vectors), never stored whole:
        // applying pattern q changes the count by |q| - 2 |best & q|.
        let firsts: Vec<Vec<u64>> = (0..k)
            .into_par_iter()
            .map(|i| self.quiet_first_row(i))
            .collect();
        let mut budget = MAX_LOCAL_WORK;
        let mut best = p;
        let mut improved = true;
        'search: while improved {
            improved = false;
            for first in &firsts {
                let Some(left) = budget.checked_sub(words) else {
                    break 'search;
                };
                budget = left;
                let (mut weight, mut overlap) = (0u64, 0u64);
                self.run(None, first, |r, row| {
                    for (&q, &b) in row.iter().zip(best.row(r)) {
                        weight += u64::from(q.count_ones());
                        overlap += u64::from((q & b).count_ones());
                    }
                });
                if weight < 2 * overlap {
                    self.run(None, first, |r, row| xor_into(best.row_mut(r), row));
                    improved = true;
                }
            }
        }
        Solution {
            presses: best,
            minimality: Minimality::BestFound { nullity: k },
        }
    }
}

/// [`minimize_mask`] for boards of any size.
fn minimize_board(p: Board, basis: &[Board]) -> Board {
    let mut cur = p.clone();
    let (mut best_count, mut best_code) = (cur.count_on(), 0u64);
    for step in 1u64..1 << basis.len() {
        cur.xor_with(&basis[step.trailing_zeros() as usize]);
        let count = cur.count_on();
        if count < best_count {
            best_count = count;
            best_code = step ^ (step >> 1);
        }
    }
    combine(p, basis, best_code)
}

/// `p` plus the patterns `basis[i]` for the bits `i` set in `code`.
pub(super) fn combine(mut p: Board, basis: &[Board], code: u64) -> Board {
    for (i, pattern) in basis.iter().enumerate() {
        if code >> i & 1 == 1 {
            p.xor_with(pattern);
        }
    }
    p
}

/// [`minimize_board`], for the transform search's tests.
#[cfg(test)]
pub(super) fn minimize_board_for_tests(p: Board, basis: &[Board]) -> Board {
    minimize_board(p, basis)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        Board::from_fn(rows[0].len(), rows.len(), |c| {
            rows[c.row].as_bytes()[c.col] == b'#'
        })
    }

    fn solved_by(b: &Board, presses: &Board) -> bool {
        let mut after = b.clone();
        after.apply_presses(presses);
        after.is_solved()
    }

    #[test]
    fn handout_3x2_boards() {
        let b34 = board(&["#00", "##0"]);
        let s = solve_minimum(&b34).unwrap();
        assert_eq!(s.presses.to_string(), "000\n#00\n");
        assert_eq!(s.minimality, Minimality::Proven);
        assert!(solve(&board(&["#0#", "#00"])).is_none());
    }

    #[test]
    fn known_nullities() {
        // The classic 5x5 has nullity 2, 4x4 has 4, 3x3 none, 1x1 none.
        for (w, h, k) in [
            (5, 5, 2),
            (4, 4, 4),
            (3, 3, 0),
            (1, 1, 0),
            (9, 9, 8),
            (3, 2, 2),
            (4, 3, 0),
        ] {
            assert_eq!(Solver::new(w, h).nullity(), k, "{w}x{h}");
        }
        // The same sizes through the chase engine agree (not just the dense one).
        for (w, h) in [(5, 5), (4, 4), (8, 8), (3, 2), (7, 3), (16, 4)] {
            assert_eq!(
                Chase::new(w, h).nullity,
                Dense::new(w, h).null.len(),
                "{w}x{h}"
            );
        }
    }

    #[test]
    fn nullity_of_n_by_n_matches_dense_elimination() {
        // Computed independently by dense elimination of the 900 x 900 matrix.
        let expected = [
            0, 0, 0, 4, 2, 0, 0, 0, 8, 0, 6, 0, 0, 4, 0, 8, 2, 0, 16, 0, 0, 0, 14, 4, 0, 0, 0, 0,
            10, 20,
        ];
        for (n, &k) in (1..).zip(&expected) {
            assert_eq!(Solver::new(n, n).nullity(), k, "{n}x{n}");
        }
        assert_eq!(Solver::new(17, 5).nullity(), 2);
        assert_eq!(Solver::new(33, 2).nullity(), 1);
    }

    #[test]
    fn quiet_patterns_are_quiet() {
        for (w, h) in [(5, 5), (4, 4), (9, 9), (16, 16), (19, 4)] {
            for q in Solver::new(w, h).quiet_patterns() {
                assert!(!q.is_solved());
                assert!(solved_by(&Board::new(w, h), &q), "{w}x{h}");
            }
        }
    }

    #[test]
    fn handout_15_110_quiet_patterns_agree() {
        let qp1 = board(&["#0#0#", "#0#0#", "00000", "#0#0#", "#0#0#"]);
        let qp2 = board(&["##0##", "00000", "##0##", "00000", "##0##"]);
        let solver = Solver::new(5, 5);
        // QP1 and QP2 are quiet, so they lie in the span of our basis.
        assert!(solved_by(&Board::new(5, 5), &qp1));
        assert!(solved_by(&Board::new(5, 5), &qp2));
        let examples = [
            (["#00##", "000##", "##0##", "0#0##", "0####"], true),
            (["#000#", "0###0", "0#000", "#0000", "0#00#"], false),
            (["00000", "00000", "00000", "0000#", "00000"], false),
            (["00000", "00000", "00000", "00000", "000#0"], false),
        ];
        for (rows, solvable) in examples {
            let b = board(&rows);
            assert_eq!(solver.is_solvable(&b), solvable, "{b}");
            let parity = |q: &Board| {
                let mut m = q.clone();
                m.xor_with(&b);
                ((q.count_on() + b.count_on() - m.count_on()) / 2).is_multiple_of(2)
            };
            assert_eq!(parity(&qp1) && parity(&qp2), solvable);
        }
    }

    #[test]
    fn large_all_on_boards_verify() {
        for n in [65, 100, 128, 200] {
            let b = Board::all_on(n, n);
            let solver = Solver::new(n, n);
            match solver.solve(&b) {
                Some(p) => assert!(solved_by(&b, &p), "{n}"),
                None => assert!(solver.nullity() > 0),
            }
        }
    }

    /// The hardest boards of the nullity-2 sizes: the most presses any
    /// solvable board needs, as published in wmboyles/LightsOut-Math
    /// (`code/min_clicks_answers.txt`, proven for these sizes). With quiet
    /// patterns `q1`, `q2`, a press pattern has 4 solutions' worth of
    /// weights set by how many of its presses fall where only `q1`, only
    /// `q2` or both are on; the board of the best such pattern must need
    /// exactly the published count, and our minimum must find it.
    #[test]
    fn hardest_boards_of_nullity_two_need_the_published_presses() {
        for (n, published) in [(5, 15), (17, 199), (41, 1191), (53, 1999), (77, 4239)] {
            let solver = Solver::new(n, n);
            let q = solver.quiet_patterns();
            assert_eq!(q.len(), 2, "{n}x{n}");
            let class = |cell: Cell| (q[0].get(cell), q[1].get(cell));
            let cells: Vec<Cell> = (0..n)
                .flat_map(|row| (0..n).map(move |col| Cell { row, col }))
                .collect();
            let count = |c: (bool, bool)| cells.iter().filter(|&&x| class(x) == c).count();
            let (none, a, b, both) = (
                count((false, false)),
                count((true, false)),
                count((false, true)),
                count((true, true)),
            );
            // (i, j, k) presses among only-q1, only-q2 and both cells.
            let mut best = (0, 0, 0, 0);
            for i in 0..=a {
                for j in 0..=b {
                    let grow = (i + j).min(a - i + b - j);
                    let shrink = (a - i + j).min(i + b - j);
                    let centre = (both + shrink).saturating_sub(grow) / 2;
                    for k in [centre, centre + 1] {
                        let k = k.min(both);
                        let worst = (grow + k).min(shrink + both - k);
                        if none + worst > best.0 {
                            best = (none + worst, i, j, k);
                        }
                    }
                }
            }
            assert_eq!(best.0, published, "{n}x{n}: the hardest board's presses");
            let (mut i, mut j, mut k) = (best.1, best.2, best.3);
            let presses = Board::from_fn(n, n, |cell| {
                let take = |left: &mut usize| {
                    let t = *left > 0;
                    *left = left.saturating_sub(1);
                    t
                };
                match class(cell) {
                    (false, false) => true,
                    (true, false) => take(&mut i),
                    (false, true) => take(&mut j),
                    (true, true) => take(&mut k),
                }
            });
            let mut lights = Board::new(n, n);
            lights.apply_presses(&presses);
            let minimum = solver
                .solve_minimum(&lights)
                .expect("solvable by construction");
            assert_eq!(minimum.minimality, Minimality::Proven);
            assert_eq!(minimum.press_count(), published, "{n}x{n}");
        }
    }

    /// The fewest presses for the all-on N x N board, N = 1 to 54, as
    /// published in OEIS A075464 (Weisstein, Reid, Alekseyev, Du: exhaustive
    /// searches, proven). Sizes with a null space of dimension up to 32
    /// (39 x 39) are among them.
    #[test]
    fn all_on_boards_need_the_published_presses() {
        const A075464: [usize; 54] = [
            1, 4, 5, 4, 15, 28, 33, 40, 25, 44, 55, 72, 105, 56, 117, 104, 147, 188, 141, 224, 245,
            276, 231, 270, 353, 356, 405, 416, 345, 376, 553, 428, 469, 520, 563, 600, 761, 772,
            561, 696, 891, 940, 953, 772, 1069, 1188, 971, 1096, 1165, 1220, 1317, 1256, 1487,
            1400,
        ];
        for (i, published) in A075464.into_iter().enumerate() {
            let n = i + 1;
            let minimum = solve_minimum(&Board::all_on(n, n)).expect("all-on boards are solvable");
            assert_eq!(minimum.minimality, Minimality::Proven, "{n}x{n}");
            assert_eq!(minimum.press_count(), published, "{n}x{n}");
            assert!(solved_by(&Board::all_on(n, n), &minimum.presses), "{n}x{n}");
        }
    }

    #[test]
    fn chase_and_dense_agree_on_minimum() {
        let b = board(&["#0#0#0#", "0##0#0#", "##0000#", "0#0##0#"]);
        let dense = Dense::new(7, 4);
        let chase = Chase::new(7, 4);
        let dense_best = dense
            .particular(dense.to_mask(&b))
            .map(|p| minimize_mask(p, &dense.null).count_ones() as usize);
        let chase_best = chase
            .first_row(&b)
            .map(|x| chase.minimize(chase.chase(Some(&b), &x)).press_count());
        assert_eq!(dense_best, chase_best);
    }

    proptest::proptest! {
        #[test]
        fn chase_and_dense_agree_everywhere(w in 1usize..=8, h in 1usize..=8, seed: u64) {
            let board = super::super::uniform(w, h, &mut super::super::rng(seed));
            let (dense, chase) = (Dense::new(w, h), Chase::new(w, h));
            let dense_best = dense
                .particular(dense.to_mask(&board))
                .map(|p| minimize_mask(p, &dense.null).count_ones() as usize);
            let chase_best = chase.first_row(&board).map(|x| {
                let p = chase.chase(Some(&board), &x);
                assert!(solved_by(&board, &p));
                chase.minimize(p).press_count()
            });
            proptest::prop_assert_eq!(dense_best, chase_best);
        }
    }
}
