//! `harness report`: one self-contained HTML page from scorecards (no
//! network: inline CSS, SVG and a little script): a summary per candidate
//! and suite, the points of a class run, a cactus plot, a per-case bar
//! chart, a sortable per-case table, and step-by-step replays of wrong
//! answers (from `grade --keep-output`, for families whose answers are
//! moves: the family draws the frames, the page shows any frame).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::PathBuf;

use maud::{DOCTYPE, Markup, PreEscaped, html};

use reference::replay::Replay;

use crate::course::points::Points;
use crate::outcome::{Row, Verdict};

pub mod class;

/// Everything a report shows.
#[derive(Default)]
pub struct Input {
    /// The page's title.
    pub title: String,
    /// The scorecards read, for the header.
    pub sources: Vec<String>,
    /// Every row of them.
    pub rows: Vec<Row>,
    /// Puzzle files per (suite, case), from `--suite` (for replays).
    pub files: HashMap<(String, String), Vec<PathBuf>>,
    /// Where `grade --keep-output` kept the outputs.
    pub outputs: Option<PathBuf>,
    /// A class run's points: rubric item names and each submission's.
    pub points: Option<(Vec<String>, Vec<Points>)>,
    /// An earlier run of the same class (a class report of two
    /// scorecards: before and after a regrade): its source, its rows and
    /// its points.
    pub before: Option<(String, Vec<Row>, Vec<Points>)>,
}

impl Input {
    /// Adds the puzzle files of `cases` (a run's suites, for replays),
    /// under their suite name and under each class part's (`part/suite`)
    /// that the rows name.
    pub fn add_files(&mut self, cases: Vec<crate::job::Case>) {
        for case in cases {
            let Ok(files) = case.files else { continue };
            let tail = format!("/{}", case.suite);
            let prefixed: Vec<String> = self
                .rows
                .iter()
                .filter(|r| r.suite.ends_with(&tail))
                .map(|r| r.suite.clone())
                .collect();
            for suite in prefixed.into_iter().chain([case.suite]) {
                self.files.insert((suite, case.name.clone()), files.clone());
            }
        }
    }
}

/// The most cases in the bar chart and the most replays on one page.
pub const MAX_BARS: usize = 80;
/// See [`MAX_BARS`].
pub const MAX_REPLAYS: usize = 60;

const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22",
];

/// The report's HTML.
pub fn render(input: &Input) -> String {
    let candidates: Vec<String> = {
        let mut seen: Vec<String> = Vec::new();
        for r in &input.rows {
            if !seen.contains(&r.candidate) {
                seen.push(r.candidate.clone());
            }
        }
        seen
    };
    // A class run's build rows are not cases.
    let cases: Vec<Row> = input
        .rows
        .iter()
        .filter(|r| r.suite != crate::job::BUILD)
        .cloned()
        .collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            (head(&input.title))
            body {
                h1 { (input.title) }
                p.sources { "From " (input.sources.join(", ")) ": " (input.rows.len()) " rows, "
                    (candidates.len()) " candidate(s)." }
                (summary(&input.rows, &candidates))
                @if let Some((items, points)) = &input.points { (points_table(items, points)) }
                h2 { "Cases solved against time" }
                (cactus(&cases, &candidates))
                h2 { "Time per case" }
                (bars(&cases, &candidates))
                h2 { "Every case" }
                p.hint { "Click a column to sort; choose a verdict or a suite to see only its cases." }
                (filters(&input.rows))
                (case_table(&input.rows, None))
                (replays(input))
                script { (PreEscaped(JS)) }
            }
        }
    };
    page.into_string()
}

/// Every page's `<head>`: its title and the shared style.
pub(crate) fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) }
            style { (PreEscaped(CSS)) }
        }
    }
}

fn summary(rows: &[Row], candidates: &[String]) -> Markup {
    let mut per: BTreeMap<(usize, String), (usize, usize, f64)> = BTreeMap::new();
    for r in rows {
        let ci = candidates
            .iter()
            .position(|c| c == &r.candidate)
            .unwrap_or(0);
        let e = per.entry((ci, r.suite.clone())).or_default();
        e.1 += 1;
        if r.verdict == Verdict::Accepted {
            e.0 += 1;
        }
        e.2 += r.wall_ms.unwrap_or(0.0);
    }
    html! {
        h2 { "Summary" }
        table.summary {
            thead { tr { th { "candidate" } th { "suite" } th { "accepted" } th { "time" } } }
            tbody {
                @for ((ci, suite), (ok, all, ms)) in &per {
                    tr {
                        td { (candidates[*ci]) }
                        td { (suite) }
                        td class=(if ok == all { "all" } else { "some" }) { (ok) " / " (all) }
                        td.num { (format!("{:.2} s", ms / 1000.0)) }
                    }
                }
            }
        }
    }
}

fn points_table(items: &[String], points: &[Points]) -> Markup {
    use crate::course::rubric::show;
    html! {
        h2 { "Points" }
        table.points {
            thead { tr {
                th { "submission" }
                @for i in items { th { (i) } }
                th { "total" } th { "max" }
            } }
            tbody {
                @for p in points {
                    tr {
                        td { (p.submission) }
                        @for (_, s) in &p.items { td.num title=(format!("{}/{} cases", s.passed, s.cases)) { (show(s.points)) } }
                        td.num { b { (show(p.total)) } }
                        td.num { (show(p.max)) }
                    }
                }
            }
        }
    }
}

/// Plot geometry.
const W: f64 = 760.0;
const H: f64 = 380.0;
const LEFT: f64 = 70.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 20.0;
const RIGHT: f64 = 150.0;

/// log10 of a time in ms, clamped at 0.01 ms.
fn lg(ms: f64) -> f64 {
    ms.max(0.01).log10()
}

fn time_label(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{} s", ms / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

/// The decades spanning `lo..=hi` ms (log axis ticks).
fn decades(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lg(lo).floor() as i32, lg(hi).ceil() as i32);
    (a..=b.max(a + 1)).map(|e| 10f64.powi(e)).collect()
}

fn cactus(rows: &[Row], candidates: &[String]) -> Markup {
    let mut series: Vec<Vec<f64>> = Vec::new();
    for c in candidates {
        let mut t: Vec<f64> = rows
            .iter()
            .filter(|r| &r.candidate == c && r.verdict == Verdict::Accepted)
            .filter_map(|r| r.wall_ms)
            .collect();
        t.sort_by(f64::total_cmp);
        series.push(t);
    }
    let all: Vec<f64> = series.iter().flatten().copied().collect();
    let most = series.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let (lo, hi) = (
        all.iter().copied().fold(f64::INFINITY, f64::min),
        all.iter().copied().fold(0.0, f64::max),
    );
    let ticks = if all.is_empty() {
        vec![1.0, 10.0]
    } else {
        decades(lo, hi)
    };
    let (y0, y1) = (lg(ticks[0]), lg(*ticks.last().unwrap_or(&10.0)));
    let x = |i: f64| LEFT + (W - LEFT - RIGHT) * i / most as f64;
    let y = |ms: f64| H - BOTTOM - (H - BOTTOM - TOP) * (lg(ms) - y0) / (y1 - y0).max(1e-9);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg id="cactus" class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="cases solved against time">"#
    );
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="#fbfbfb" stroke="#999"/>"##,
        W - LEFT - RIGHT,
        H - BOTTOM - TOP
    );
    for t in &ticks {
        let yy = y(*t);
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" x2="{}" y1="{yy:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end" class="tick">{}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            yy + 4.0,
            time_label(*t)
        );
    }
    let step = (most / 10).max(1);
    for i in (0..=most).step_by(step) {
        let xx = x(i as f64);
        let _ = write!(
            svg,
            r#"<text x="{xx:.1}" y="{}" text-anchor="middle" class="tick">{i}</text>"#,
            H - BOTTOM + 16.0
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle" class="axis">cases solved</text><text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle" class="axis">wall time (log)</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 4.0,
        (H - BOTTOM + TOP) / 2.0,
        (H - BOTTOM + TOP) / 2.0
    );
    for (k, (c, times)) in candidates.iter().zip(&series).enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        let points: Vec<String> = times
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{:.1},{:.1}", x(i as f64 + 1.0), y(*t)))
            .collect();
        if !points.is_empty() {
            let _ = write!(
                svg,
                r#"<polyline class="series" fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
                points.join(" ")
            );
        }
        let ly = TOP + 16.0 * k as f64 + 8.0;
        let _ = write!(
            svg,
            r#"<line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="3"/><text x="{}" y="{}" class="legend">{} ({})</text>"#,
            W - RIGHT + 10.0,
            W - RIGHT + 28.0,
            W - RIGHT + 32.0,
            ly + 4.0,
            escape(c),
            times.len()
        );
    }
    svg.push_str("</svg>");
    PreEscaped(svg)
}

fn bars(rows: &[Row], candidates: &[String]) -> Markup {
    let mut cases: Vec<(String, String)> = Vec::new();
    for r in rows {
        let k = (r.suite.clone(), r.case.clone());
        if !cases.contains(&k) {
            cases.push(k);
        }
    }
    let shown = cases.len().min(MAX_BARS);
    let row_h = 6.0 * candidates.len().max(1) as f64 + 6.0;
    let height = TOP + row_h * shown as f64 + 30.0;
    let label_w = 260.0;
    let all: Vec<f64> = rows.iter().filter_map(|r| r.wall_ms).collect();
    let hi = all.iter().copied().fold(1.0, f64::max);
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min).min(hi);
    let ticks = decades(lo, hi);
    let (x0, x1) = (lg(ticks[0]), lg(*ticks.last().unwrap_or(&10.0)));
    let bw = W - label_w - 20.0;
    let x = |ms: f64| label_w + bw * (lg(ms) - x0) / (x1 - x0).max(1e-9);
    let index: HashMap<(&str, &str, &str), &Row> = rows
        .iter()
        .map(|r| ((r.candidate.as_str(), r.suite.as_str(), r.case.as_str()), r))
        .collect();
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg id="bars" class="plot" viewBox="0 0 {W} {height}" width="{W}" height="{height}" role="img" aria-label="time per case">"#
    );
    for t in &ticks {
        let xx = x(*t);
        let _ = write!(
            svg,
            r##"<line x1="{xx:.1}" x2="{xx:.1}" y1="{TOP}" y2="{:.1}" stroke="#ddd"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
            height - 24.0,
            height - 10.0,
            time_label(*t)
        );
    }
    for (i, (suite, case)) in cases.iter().take(shown).enumerate() {
        let top = TOP + row_h * i as f64;
        let _ = write!(
            svg,
            r#"<text x="{}" y="{:.1}" text-anchor="end" class="label">{}</text>"#,
            label_w - 6.0,
            top + row_h / 2.0 + 3.0,
            escape(&shorten(&format!("{suite}/{case}"), 40))
        );
        for (k, c) in candidates.iter().enumerate() {
            let Some(r) = index.get(&(c.as_str(), suite.as_str(), case.as_str())) else {
                continue;
            };
            let ms = r.wall_ms.unwrap_or(0.0);
            let colour = if r.verdict == Verdict::Accepted {
                PALETTE[k % PALETTE.len()]
            } else {
                "#bbb"
            };
            let _ = write!(
                svg,
                r#"<rect x="{label_w}" y="{:.1}" width="{:.1}" height="5" fill="{colour}"><title>{}: {} {:.3} ms</title></rect>"#,
                top + 3.0 + 6.0 * k as f64,
                (x(ms) - label_w).max(1.0),
                escape(c),
                r.verdict,
                ms
            );
        }
    }
    svg.push_str("</svg>");
    html! {
        (PreEscaped(svg))
        @if cases.len() > shown { p.hint { "The first " (shown) " of " (cases.len()) " cases; the table has them all." } }
    }
}

/// The verdict and suite filters of a case table (`#cases`).
pub(crate) fn filters(rows: &[Row]) -> Markup {
    let mut verdicts: Vec<&str> = rows.iter().map(|r| r.verdict.as_str()).collect();
    verdicts.sort_unstable();
    verdicts.dedup();
    let mut suites: Vec<&str> = rows.iter().map(|r| r.suite.as_str()).collect();
    suites.sort_unstable();
    suites.dedup();
    html! {
        p.filters {
            label { "verdict " select #verdict-filter data-col="3" {
                option value="" { "all" }
                @for v in &verdicts { option value=(v) { (v) } }
            } }
            " "
            label { "suite " select #suite-filter data-col="1" {
                option value="" { "all" }
                @for s in &suites { option value=(s) { (s) } }
            } }
        }
    }
}

/// Kept outputs of a case: (stdout link, stderr link, stderr's last lines).
pub(crate) type Kept = (Option<String>, Option<String>, String);

/// The case table; `kept` gives each row's kept outputs (a student's page).
pub(crate) fn case_table(rows: &[Row], kept: Option<&dyn Fn(&Row) -> Kept>) -> Markup {
    let num = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    let int = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    html! {
        table #cases .sortable {
            thead { tr {
                th { "candidate" } th { "suite" } th { "case" } th { "verdict" }
                th data-type="num" { "wall ms" } th data-type="num" { "cpu ms" }
                th data-type="num" { "moves" } th data-type="num" { "best" } th { "detail" }
                @if kept.is_some() { th { "output" } }
            } }
            tbody {
                @for r in rows {
                    tr {
                        td { (r.candidate) } td { (r.suite) } td { (r.case) }
                        td class=(format!("v {}", r.verdict)) { (r.verdict) }
                        td.num { (num(r.wall_ms)) } td.num { (num(r.cpu_ms)) }
                        td.num { (int(r.moves)) } td.num { (int(r.best_moves)) }
                        td.detail { (r.detail) }
                        @if let Some(kept) = kept {
                            @let (out, err, tail) = kept(r);
                            td.detail {
                                @if let Some(out) = &out { a href=(out) { "stdout" } " " }
                                @if let Some(err) = &err { a href=(err) { "stderr" } }
                                @if !tail.is_empty() { pre.stderr { (tail) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn replays(input: &Input) -> Markup {
    replays_of(input, &input.rows)
}

/// The replays of `rows`' wrong answers that have moves to replay (an exit
/// status alone, with no move, has nothing to show).
pub(crate) fn replays_of(input: &Input, rows: &[Row]) -> Markup {
    let Some(dir) = &input.outputs else {
        return html! {};
    };
    let mut found = Vec::new();
    for r in rows {
        if found.len() >= MAX_REPLAYS {
            break;
        }
        if !matches!(r.verdict, Verdict::WrongAnswer | Verdict::WrongExitStatus) {
            continue;
        }
        let Some(files) = input.files.get(&(r.suite.clone(), r.case.clone())) else {
            continue;
        };
        let (out, _) = crate::grade::output_files(dir, &r.candidate, &r.suite, &r.case);
        let Ok(stdout) = std::fs::read(&out) else {
            continue;
        };
        let family = reference::families::family(&r.family);
        if let Some(rep) = family.and_then(|f| f.replay(files, &stdout))
            && rep.frames.len() > 1
        {
            found.push((r, rep));
        }
    }
    if found.is_empty() {
        return html! {};
    }
    html! {
        h2 { "Replays of wrong answers" }
        @for (r, rep) in &found {
            section.replay {
                h3 { (r.candidate) ": " (r.suite) "/" (r.case) " (" (r.verdict) ")" }
                div.controls {
                    button.prev type="button" { "◀" }
                    input.step type="range" min="0" max=(rep.frames.len() - 1) value="0";
                    button.next type="button" { "▶" }
                    span.label {}
                }
                div.board {}
                p class=(if rep.illegal { "end illegal" } else { "end" }) { (rep.end) }
                script type="application/json" { (PreEscaped(json_for_script(rep))) }
            }
        }
    }
}

/// JSON safe inside a `<script>` element.
fn json_for_script(rep: &Replay) -> String {
    serde_json::to_string(rep)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// `s` cut to its last `n` characters behind an ellipsis.
fn shorten(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let tail: String = s.chars().skip(count - (n - 1)).collect();
    format!("…{tail}")
}

fn escape(s: &str) -> String {
    html! { (s) }.into_string()
}

/// The page's style, shared by every page of a report.
pub(crate) const CSS: &str = include_str!("page.css");

/// The page's script: sortable and searchable tables, filters, replays.
pub(crate) const JS: &str = include_str!("page.js");

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        let mut out = Vec::new();
        for (who, case, verdict, ms, moves) in [
            ("alice", "a.txt", Verdict::Accepted, 1.5, Some(3)),
            ("alice", "b.txt", Verdict::Accepted, 120.0, Some(5)),
            ("bob", "a.txt", Verdict::WrongAnswer, 2.0, Some(2)),
            ("bob", "b.txt", Verdict::TimeLimit, 80_000.0, None),
        ] {
            let mut r = Row::new(who, "toy", "toy/easy", case);
            r.verdict = verdict;
            r.wall_ms = Some(ms);
            r.moves = moves;
            r.best_moves = Some(3);
            if verdict != Verdict::Accepted {
                r.detail = "lights still on after 2 moves (1 lit) <&>".into();
            }
            out.push(r);
        }
        out
    }

    #[test]
    fn the_stable_parts_of_a_report() {
        let rows = rows();
        let who = vec!["alice".to_string(), "bob".to_string()];
        insta::assert_snapshot!("summary", summary(&rows, &who).into_string());
        insta::assert_snapshot!("cases", case_table(&rows, None).into_string());
        insta::assert_snapshot!("cactus", cactus(&rows, &who).into_string());
    }

    #[test]
    fn a_page_is_self_contained_and_escapes_text() {
        let input = Input {
            title: "Class <1>".into(),
            sources: vec!["s.csv".into()],
            rows: rows(),
            ..Input::default()
        };
        let page = render(&input);
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<title>Class &lt;1&gt;</title>"));
        assert!(page.contains("(1 lit) &lt;&amp;&gt;"));
        for outside in ["http://", "https://", "src=", "@import"] {
            assert!(!page.contains(outside), "no network: {outside}");
        }
        assert_eq!(page.matches("<polyline").count(), 1, "bob solved nothing");
    }

    #[test]
    fn long_labels_keep_their_end() {
        assert_eq!(shorten("short", 40), "short");
        assert_eq!(shorten("abcdefghij", 5), "…ghij");
    }
}
