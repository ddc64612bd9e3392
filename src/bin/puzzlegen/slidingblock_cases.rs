//! What the bundled sliding-block suites hold: classic puzzles written out
//! by hand from their published layouts (in every quarter turn), edge cases
//! by hand, and seeded random puzzles whose goals come from the search
//! (each proven at its depth, or unsolvable with every reachable layout
//! seen), some put into big trays of blocks that can never move.

use anyhow::{Context, bail};
use reference::lightsout::rng;
use reference::slidingblock::{
    Block, DeepRecipe, Format, Goal, Made, Tray, deep_puzzle, embed, far_puzzle, parse_goal,
    parse_tray, rotated, rotated_goal, unsolvable_puzzle,
};

/// One case of a suite.
pub struct Case {
    /// Its file name (the goal file adds `.goal`).
    pub name: String,
    /// The start.
    pub tray: Tray,
    /// The goal.
    pub goal: Goal,
    /// The listing's comment (after the expected outcome).
    pub comment: String,
    /// The fewest moves its making proved (`Some(None)`: no solution), to
    /// be confirmed by the best-known table's own proof.
    pub made: Option<Option<usize>>,
}

/// Klotski (Huarong Dao, "across the pass"; the Donkey of Winning Ways,
/// L'Ane Rouge): the 2x2 to the bottom middle.
pub const KLOTSKI: (&str, &str) = (
    "5 4\n0 0 1 0\n0 1 1 2\n0 3 1 3\n2 0 3 0\n2 1 2 2\n2 3 3 3\n3 1 3 1\n3 2 3 2\n4 0 4 0\n4 3 4 3\n",
    "3 1 4 2\n",
);

/// Pennant (Winning Ways): the 2x2 from the top left to the bottom left.
pub const PENNANT: (&str, &str) = (
    "5 4\n0 0 1 1\n0 2 0 3\n1 2 1 3\n2 0 2 0\n2 1 2 1\n3 0 4 0\n3 1 4 1\n3 2 3 3\n4 2 4 3\n",
    "3 0 4 1\n",
);

/// Dad's Puzzle (Adams Co., 1961): the 2x2 from the top left to the
/// bottom left.
const DADS: (&str, &str) = (
    "5 4\n0 0 1 1\n0 2 0 3\n1 2 1 3\n2 0 2 0\n2 3 2 3\n3 0 4 0\n3 1 4 1\n3 2 3 3\n4 2 4 3\n",
    "3 0 4 1\n",
);

/// Century (J. H. Conway, Winning Ways): the 2x2 from the top middle to
/// the bottom middle. Century and a Half is the same start with the whole
/// layout turned upside down (a half turn) as its goal.
const CENTURY: (&str, &str) = (
    "5 4\n0 0 0 0\n0 1 1 2\n0 3 0 3\n1 0 2 0\n1 3 2 3\n2 2 3 2\n3 0 3 0\n3 3 3 3\n4 0 4 1\n4 2 4 3\n",
    "3 1 4 2\n",
);

/// Super Century (Gil Dogon, 2004): Century's pieces, the 2x2 from the
/// top right to the bottom middle.
const SUPER_CENTURY: (&str, &str) = (
    "5 4\n0 0 1 0\n0 1 0 1\n0 2 0 2\n0 3 0 3\n1 1 2 1\n1 2 2 3\n2 0 3 0\n3 1 3 2\n3 3 3 3\n4 2 4 3\n",
    "3 1 4 2\n",
);

/// Hand-written puzzles for the easy level: (name, tray, goal, comment).
/// Only the cases named `already.there*` are met before any move.
const EASY_BY_HAND: &[(&str, &str, &str, &str)] = &[
    (
        "one.block",
        "1 2\n0 0 0 0\n",
        "0 1 0 1\n",
        "one 1x1 moves one cell",
    ),
    (
        "already.there",
        "2 2\n0 0 0 0\n1 1 1 1\n",
        "1 1 1 1\n0 0 0 0\n",
        "the goal holds before any move",
    ),
    (
        "already.there.empty.goal",
        "2 2\n0 0 1 0\n",
        "",
        "an empty goal is met at once",
    ),
    (
        "already.there.full.tray",
        "2 2\n0 0 0 0\n0 1 0 1\n1 0 1 0\n1 1 1 1\n",
        "0 0 0 0\n1 1 1 1\n",
        "a full tray that already meets its goal",
    ),
    (
        "slide.far",
        "1 9\n0 0 0 0\n",
        "0 8 0 8\n",
        "one slide of eight cells is one move",
    ),
    (
        "swap.columns",
        "2 2\n0 0 0 0\n0 1 1 1\n",
        "0 0 1 0\n0 1 0 1\n",
        "a 2x1 and a 1x1 cannot trade columns in a 2x2 tray",
    ),
    (
        "no.pass",
        "1 3\n0 0 0 0\n0 1 0 1\n",
        "0 0 0 1\n",
        "blocks cannot pass each other in one row",
    ),
    (
        "full.deadend",
        "2 2\n0 0 0 1\n1 0 1 1\n",
        "0 0 1 0\n",
        "a full tray of 1x2s never holds a 2x1",
    ),
    (
        "wedged",
        "3 3\n0 0 0 2\n1 0 1 0\n1 2 1 2\n2 0 2 2\n",
        "1 0 1 2\n",
        "the 1x3s can never leave their rows",
    ),
    (
        "too.many",
        "2 3\n0 0 0 0\n",
        "0 0 0 0\n1 2 1 2\n",
        "the goal wants two 1x1s, the tray has one",
    ),
];

fn puzzle(name: &str, (tray, goal): (&str, &str)) -> anyhow::Result<(Tray, Goal)> {
    let t = parse_tray(tray.as_bytes(), Format::Corners).with_context(|| format!("{name} tray"))?;
    let g =
        parse_goal(goal.as_bytes(), Format::Corners, &t).with_context(|| format!("{name} goal"))?;
    Ok((t, g))
}

fn by_hand(name: &str, tray: Tray, goal: Goal, comment: &str) -> Case {
    Case {
        name: name.into(),
        tray,
        goal,
        comment: comment.into(),
        made: None,
    }
}

/// The case and its turns by 90, 180 and 270 degrees (`turns` of them).
fn turned(out: &mut Vec<Case>, name: &str, (tray, goal): (Tray, Goal), comment: &str, turns: u32) {
    let (mut t, mut g) = (tray, goal);
    for turn in 0..turns {
        let (label, note) = match turn {
            0 => (name.to_string(), comment.to_string()),
            k => (
                format!("{name}+{}", k * 90),
                format!("{comment}, turned {} degrees", k * 90),
            ),
        };
        out.push(by_hand(&label, t.clone(), g.clone(), &note));
        g = rotated_goal(&g, t.height);
        t = rotated(&t);
    }
}

/// A seeded puzzle: (name, seed, recipe, unsolvable's least states or
/// `None` for a solvable one at the recipe's depth).
type Seeded = (&'static str, u64, DeepRecipe, Option<usize>);

fn recipe(h: u32, w: u32, blocks: usize, depth: usize, goal_blocks: usize) -> DeepRecipe {
    DeepRecipe {
        height: h,
        width: w,
        blocks,
        max_side: 2,
        depth,
        goal_blocks,
        max_states: 1_000_000,
    }
}

fn make((name, seed, recipe, unsolvable): &Seeded) -> anyhow::Result<Case> {
    let made: Option<Made> = match unsolvable {
        None => deep_puzzle(recipe, &mut rng(*seed)),
        Some(least) => unsolvable_puzzle(recipe, *least, &mut rng(*seed)),
    };
    let Some(m) = made else {
        bail!("{name}: no puzzle of its recipe (seed {seed}) reaches what it asks");
    };
    let what = match m.fewest {
        Some(d) => format!("goal taken at depth {d} of the breadth-first layers"),
        None => format!(
            "goal two positions reachable alone, never together in {} layouts",
            m.states
        ),
    };
    let cells: u32 = m
        .tray
        .blocks
        .iter()
        .map(|b| b.shape().height * b.shape().width)
        .sum();
    let comment = format!(
        "random {}x{} tray, {} blocks, {} cells empty, {what} (seed {seed})",
        recipe.height,
        recipe.width,
        m.tray.blocks.len(),
        recipe.height * recipe.width - cells
    );
    Ok(Case {
        name: (*name).into(),
        tray: m.tray,
        goal: m.goal,
        comment,
        made: Some(m.fewest),
    })
}

/// The easy level: edge cases by hand and small random puzzles of 3 to 9
/// moves.
pub fn easy() -> anyhow::Result<Vec<Case>> {
    let mut out = Vec::new();
    for &(name, tray, goal, comment) in EASY_BY_HAND {
        let (t, g) = puzzle(name, (tray, goal))?;
        out.push(by_hand(name, t, g, comment));
    }
    let seeded: [Seeded; 6] = [
        ("random.3x3.0", 61_000, recipe(3, 3, 5, 3, 1), None),
        ("random.3x4.1", 61_001, recipe(3, 4, 6, 4, 1), None),
        ("random.4x3.2", 61_002, recipe(4, 3, 6, 5, 1), None),
        ("random.4x4.3", 61_003, recipe(4, 4, 8, 6, 1), None),
        ("random.4x4.4", 61_004, recipe(4, 4, 8, 8, 2), None),
        ("random.5x4.5", 61_005, recipe(5, 4, 10, 9, 1), None),
    ];
    for s in &seeded {
        out.push(make(s)?);
    }
    Ok(out)
}

/// The hard level's seeded puzzles: solvable ones of 10 to 80 moves, and
/// unsolvable ones whose every reachable layout must be seen.
fn hard_seeded() -> Vec<Seeded> {
    vec![
        ("random.4x4.12", 62_000, recipe(4, 4, 8, 12, 1), None),
        ("random.5x4.15", 62_001, recipe(5, 4, 9, 15, 1), None),
        ("random.5x4.20", 62_002, recipe(5, 4, 9, 20, 1), None),
        ("random.5x4.25", 62_003, recipe(5, 4, 9, 25, 2), None),
        ("random.5x4.30", 62_004, recipe(5, 4, 12, 30, 1), None),
        ("random.5x4.35", 62_005, recipe(5, 4, 9, 35, 1), None),
        ("random.5x4.40", 62_006, recipe(5, 4, 12, 40, 2), None),
        ("random.5x4.50", 62_007, recipe(5, 4, 12, 50, 1), None),
        ("random.6x5.30", 62_008, recipe(6, 5, 14, 30, 1), None),
        ("random.5x5.45", 62_009, recipe(5, 5, 13, 45, 2), None),
        ("nearly.full.5x5.15", 62_010, recipe(5, 5, 18, 15, 1), None),
        ("nearly.full.6x4.25", 62_011, recipe(6, 4, 14, 25, 1), None),
        ("unsolvable.4x4", 62_100, recipe(4, 4, 8, 0, 2), Some(1_000)),
        (
            "unsolvable.5x4",
            62_101,
            recipe(5, 4, 10, 0, 2),
            Some(10_000),
        ),
        (
            "unsolvable.5x5",
            62_102,
            recipe(5, 5, 12, 0, 2),
            Some(100_000),
        ),
        ("unsolvable.4x5", 62_103, recipe(4, 5, 9, 0, 2), Some(3_000)),
    ]
}

/// A puzzle of a big search (millions of states): a 6x5 tray with `holes`
/// empty cells, the goal the whole layout a long random walk reached, its
/// fewest moves (20 or more) proven by the optimal search.
fn far(name: &str, seed: u64, holes: u32) -> anyhow::Result<Case> {
    let recipe = DeepRecipe {
        max_states: 0,
        ..recipe(6, 5, 60, 20, 9)
    };
    let Some(m) = far_puzzle(&recipe, holes, 1_500_000..4_000_000, 30, &mut rng(seed)) else {
        bail!("{name}: no puzzle of its recipe (seed {seed}) needs 1.5 to 4 million states");
    };
    let comment = format!(
        "random 6x5 tray, {} blocks, {holes} cells empty, goal the whole layout 5,000 random tries of a move reached, {} states to prove (seed {seed})",
        m.tray.blocks.len(),
        m.states
    );
    Ok(Case {
        name: name.into(),
        tray: m.tray,
        goal: m.goal,
        comment,
        made: Some(m.fewest),
    })
}

/// Puts `case` into a `size` tray at `at`, filled with blocks of sides up
/// to `side` that can never move.
fn embedded(
    case: Case,
    name: &str,
    size: (u32, u32),
    at: (u32, u32),
    side: u32,
) -> anyhow::Result<Case> {
    let Some((tray, goal)) = embed(&case.tray, &case.goal, size, at, side) else {
        bail!(
            "{name}: {}x{} does not fit a {}x{} tray at {at:?}",
            case.tray.height,
            case.tray.width,
            size.0,
            size.1
        );
    };
    let comment = format!(
        "{}, at row {} column {} of a {}x{} tray filled with {} blocks that never move",
        case.comment,
        at.0,
        at.1,
        size.0,
        size.1,
        tray.blocks.len() - case.tray.blocks.len()
    );
    Ok(Case {
        name: name.into(),
        tray,
        goal,
        comment,
        made: case.made,
    })
}

/// The hard level: the classics in every quarter turn, random puzzles,
/// unsolvable ones, big trays of many blocks, a full tray, long slides.
pub fn hard() -> anyhow::Result<Vec<Case>> {
    let mut out = Vec::new();
    turned(
        &mut out,
        "klotski",
        puzzle("klotski", KLOTSKI)?,
        "Klotski (Huarong Dao; the Donkey, L'Ane Rouge)",
        4,
    );
    turned(
        &mut out,
        "pennant",
        puzzle("pennant", PENNANT)?,
        "Pennant (Winning Ways)",
        4,
    );
    turned(
        &mut out,
        "dads",
        puzzle("dads", DADS)?,
        "Dad's Puzzle (1961)",
        1,
    );
    let (century, goal) = puzzle("century", CENTURY)?;
    turned(
        &mut out,
        "century",
        (century.clone(), goal),
        "Century (Conway, Winning Ways)",
        2,
    );
    let half = rotated(&rotated(&century));
    let whole = Goal {
        blocks: half.blocks,
    };
    turned(
        &mut out,
        "century.and.a.half",
        (century, whole),
        "Century and a Half (Conway, Winning Ways): the start turned upside down",
        4,
    );
    turned(
        &mut out,
        "super.century",
        puzzle("super.century", SUPER_CENTURY)?,
        "Super Century (Dogon, 2004)",
        1,
    );
    for s in &hard_seeded() {
        out.push(make(s)?);
    }
    out.push(far("random.6x5.far", 1, 5)?);
    // Big trays: a puzzle amid many blocks that never move.
    let (t, g) = puzzle("klotski", KLOTSKI)?;
    let k = by_hand("klotski", t, g, "Klotski");
    out.push(embedded(k, "big.klotski.128x128", (128, 128), (3, 5), 16)?);
    let (t, g) = puzzle("century", CENTURY)?;
    let c = by_hand("century", t, g, "Century");
    out.push(embedded(
        c,
        "big.century.200x120",
        (200, 120),
        (100, 50),
        8,
    )?);
    let deep = make(&("random.5x4.30", 62_200, recipe(5, 4, 12, 30, 1), None))?;
    out.push(embedded(
        deep,
        "big.random.256x256",
        (256, 256),
        (200, 13),
        32,
    )?);
    let stuck = make(&("unsolvable.4x4", 62_201, recipe(4, 4, 8, 0, 2), Some(1_000)))?;
    out.push(embedded(
        stuck,
        "big.unsolvable.100x100",
        (100, 100),
        (50, 50),
        10,
    )?);
    // A full tray: no block can move, and the goal is not met.
    let one = Tray {
        height: 1,
        width: 1,
        blocks: vec![Block::new(0, 0, 0, 0)],
    };
    let nowhere = by_hand("full", one, Goal::default(), "a 1x1");
    let mut full = embedded(nowhere, "full.150x150", (150, 150), (70, 70), 12)?;
    full.goal = Goal {
        blocks: vec![Block::new(71, 71, 71, 71)],
    };
    full.comment = format!(
        "{}; the goal wants it one cell down and right",
        full.comment
    );
    full.made = Some(None);
    out.push(full);
    // Long slides: a 1x1 must go the whole length of a row.
    let lane = Tray {
        height: 2,
        width: 200,
        blocks: vec![Block::new(0, 0, 0, 0), Block::new(1, 1, 1, 199)],
    };
    let end = Goal {
        blocks: vec![Block::new(1, 199, 1, 199)],
    };
    let lane = by_hand(
        "lane",
        lane,
        end,
        "a 1x1 above a 1x199 bar that must shift left so it can slide 199 cells and drop in at the far end",
    );
    out.push(embedded(
        lane,
        "long.slide.210x210",
        (210, 210),
        (4, 5),
        20,
    )?);
    let ladder = Tray {
        height: 5,
        width: 250,
        blocks: vec![
            Block::new(0, 0, 0, 0),
            Block::new(1, 0, 1, 248),
            Block::new(3, 1, 3, 249),
        ],
    };
    let down = Goal {
        blocks: vec![Block::new(4, 249, 4, 249)],
    };
    let ladder = by_hand(
        "ladder",
        ladder,
        down,
        "a 1x1 from the top left to the bottom right of a 5x250 ladder of two bars, by slides of up to 249 cells",
    );
    out.push(embedded(
        ladder,
        "long.slides.256x256",
        (256, 256),
        (1, 3),
        24,
    )?);
    Ok(out)
}

/// The puzzles a contest's unreleased ones are walked from: Klotski and
/// Pennant in every quarter turn and the hard level's small random
/// solvable puzzles.
pub fn contest_sources() -> anyhow::Result<Vec<Case>> {
    let mut out = Vec::new();
    turned(
        &mut out,
        "klotski",
        puzzle("klotski", KLOTSKI)?,
        "Klotski",
        4,
    );
    turned(
        &mut out,
        "pennant",
        puzzle("pennant", PENNANT)?,
        "Pennant",
        4,
    );
    for s in hard_seeded()
        .iter()
        .filter(|s| s.3.is_none() && s.2.height * s.2.width <= 20)
    {
        out.push(make(s)?);
    }
    Ok(out)
}
