//! A class's report: a first page that opens on the points (one row per
//! submission, sortable and searchable, a histogram of totals, a line per
//! suite) and one page per submission beside it (its items, its cases
//! with verdicts, reasons, stderr excerpts and links to the kept outputs,
//! and the replays of its wrong answers), so the first page stays small
//! for a class of a thousand.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::{Input, JS, Kept, case_table, filters, head, replays_of};
use crate::course::points::Points;
use crate::course::rubric::show;
use crate::outcome::{Row, Verdict};

/// Most characters of a stderr excerpt on a submission's page.
const STDERR_EXCERPT: usize = 400;

/// The folder of the submissions' pages for the report at `html`:
/// `report.html` has `report-students/`.
pub fn pages_dir(html: &Path) -> PathBuf {
    let stem = html
        .file_stem()
        .map_or_else(|| "report".into(), |s| s.to_string_lossy().into_owned());
    html.with_file_name(format!("{stem}-students"))
}

/// Writes the class report: `html` and a page per submission in
/// [`pages_dir`]. Returns how many submission pages were written.
pub fn write(input: &Input, html: &Path) -> anyhow::Result<usize> {
    let Some((items, points)) = &input.points else {
        anyhow::bail!("a class report needs the course's points");
    };
    let dir = pages_dir(html);
    // The pages go into a new folder beside it, each written plainly,
    // then the folder takes the old one's place whole: no page of an
    // earlier report is left, and a page costs no rename of its own.
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    let parent = parent.unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let fresh = tempfile::Builder::new()
        .prefix(".report-pages-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot make a folder in {}", parent.display()))?;
    let link_dir = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut by_id: HashMap<&str, Vec<Row>> = HashMap::new();
    for r in &input.rows {
        by_id
            .entry(r.candidate.as_str())
            .or_default()
            .push(r.clone());
    }
    let abs_dir = parent.canonicalize().map_or_else(
        |_| dir.clone(),
        |p| p.join(dir.file_name().unwrap_or_default()),
    );
    let index = html
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    for p in points {
        let rows = by_id.remove(p.submission.as_str()).unwrap_or_default();
        let page = student_page(input, (items, &index), p, &rows, &abs_dir);
        let file = fresh
            .path()
            .join(format!("{}.html", crate::export::safe_name(&p.submission)));
        std::fs::write(&file, page.as_bytes())
            .with_context(|| format!("cannot write {}", file.display()))?;
    }
    swap_in(fresh, &dir)?;
    let index = index_page(input, items, points, &link_dir);
    crate::export::write_atomically(html, index.as_bytes())?;
    Ok(points.len())
}

/// Puts the folder `fresh` in `dir`'s place (the old one, where there is
/// one, moved aside first and then removed), readable by everyone as a
/// report is.
fn swap_in(fresh: tempfile::TempDir, dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let made = fresh.keep();
    std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o755))?;
    let old = made.with_extension("old");
    let moved = match std::fs::rename(dir, &old) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(e).with_context(|| format!("cannot replace {}", dir.display())),
    };
    std::fs::rename(&made, dir).with_context(|| format!("cannot write {}", dir.display()))?;
    if moved {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// The first page: the points, the totals' spread, a line per suite.
fn index_page(input: &Input, items: &[String], points: &[Points], link_dir: &str) -> String {
    let extras: Vec<String> = {
        let mut names: Vec<String> = Vec::new();
        for p in points {
            for (name, _, _) in &p.extra {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        names
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            (head(&input.title))
            body {
                h1 { (input.title) }
                p.sources { "From " (input.sources.join(", ")) ": " (points.len())
                    " submissions, " (input.rows.len()) " rows." }
                h2 { "Points" }
                p.hint { "Click a column to sort; type to search. A submission opens its own page: its cases, verdicts, reasons, outputs and replays." }
                input #search type="search" placeholder="search submissions" data-table="points";
                table #points .sortable {
                    thead { tr {
                        th { "submission" }
                        th data-type="num" { "total" } th data-type="num" { "max" } th { "built" }
                        @for i in items { th data-type="num" { (i) } }
                        @for e in &extras { th data-type="num" { (e) } }
                        th data-type="num" { "accepted" }
                    } }
                    tbody {
                        @for p in points {
                            tr {
                                td { a href=(format!("{link_dir}/{}.html", crate::export::safe_name(&p.submission))) { (p.submission) } }
                                td.num.total { (show(p.total)) }
                                td.num { (show(p.max)) }
                                td { (if p.built { "yes" } else { "no" }) }
                                @for (_, s) in &p.items {
                                    td.num title=(format!("{}/{} cases", s.passed, s.cases)) { (show(s.points)) }
                                }
                                @for e in &extras {
                                    @let found = p.extra.iter().find(|(n, _, _)| n == e);
                                    td.num title=(found.map_or("", |(_, _, why)| why.as_str())) {
                                        (found.map_or_else(String::new, |(_, x, _)| show(*x)))
                                    }
                                }
                                td.num { (p.accepted) " / " (p.cases) }
                            }
                        }
                    }
                }
                @if let Some((source, rows, old)) = &input.before {
                    (changes(source, rows, old, &input.rows, points, link_dir))
                }
                h2 { "Totals" }
                (histogram(points))
                h2 { "Suites" }
                (suites(&input.rows))
                script { (PreEscaped(JS)) }
            }
        }
    };
    page.into_string()
}

/// A submission's page.
fn student_page(
    input: &Input,
    (items, index): (&[String], &str),
    p: &Points,
    rows: &[Row],
    dir: &Path,
) -> String {
    let kept = |r: &Row| -> Kept {
        let Some(out_dir) = &input.outputs else {
            return (None, None, String::new());
        };
        let (out, err) = crate::grade::output_files(out_dir, &r.candidate, &r.suite, &r.case);
        let link = |f: &Path| {
            let abs = f.canonicalize().ok()?;
            let rel = pathdiff::diff_paths(&abs, dir)?;
            Some(rel.to_string_lossy().into_owned())
        };
        let tail = if r.verdict == Verdict::Accepted {
            String::new()
        } else {
            excerpt(&std::fs::read(&err).unwrap_or_default())
        };
        (link(&out), link(&err), tail)
    };
    let cases: Vec<Row> = rows
        .iter()
        .filter(|r| r.suite != crate::job::BUILD)
        .cloned()
        .collect();
    let build = rows.iter().find(|r| r.suite == crate::job::BUILD);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            (head(&format!("{}: {}", input.title, p.submission)))
            body {
                p { a href=(format!("../{index}")) { "← the class" } }
                h1 { (p.submission) }
                p.sources { (input.title) ": " b { (show(p.total)) " / " (show(p.max)) } " points; "
                    (p.accepted) " of " (p.cases) " cases accepted" }
                @if let Some(b) = build {
                    @if b.verdict != Verdict::Accepted {
                        p.end.illegal { "The build failed: " (b.detail) }
                    }
                }
                h2 { "Points" }
                table.points {
                    thead { tr { th { "item" } th { "points" } th { "most it can give" } th { "cases passed" } } }
                    tbody {
                        @for (i, (name, s)) in p.items.iter().enumerate() {
                            tr {
                                td { (items.get(i).unwrap_or(name)) }
                                td.num { (show(s.points)) }
                                td.num { (show(p.item_max.get(i).copied().unwrap_or(0.0))) }
                                td.num { (s.passed) " / " (s.cases) }
                            }
                        }
                        @for (name, x, why) in &p.extra {
                            tr { td { (name) } td.num { (show(*x)) } td {} td.detail { (why) } }
                        }
                    }
                }
                h2 { "Cases" }
                (filters(&cases))
                (case_table(&cases, Some(&kept)))
                (replays_of(input, &cases))
                script { (PreEscaped(JS)) }
            }
        }
    };
    page.into_string()
}

/// The last lines of a stderr, at most [`STDERR_EXCERPT`] characters.
fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    let count = text.chars().count();
    if count <= STDERR_EXCERPT {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - STDERR_EXCERPT).collect();
    format!("…{tail}")
}

/// Totals in ten bins of the maximum, as an SVG bar chart.
fn histogram(points: &[Points]) -> Markup {
    const BINS: usize = 10;
    let max = points.iter().map(|p| p.max).fold(0.0, f64::max);
    let mut bins = [0usize; BINS];
    for p in points {
        let i = if max > 0.0 {
            ((p.total.max(0.0) / max) * BINS as f64).floor() as usize
        } else {
            0
        };
        bins[i.min(BINS - 1)] += 1;
    }
    let most = bins.iter().copied().max().unwrap_or(0).max(1);
    let (w, h, bar) = (420.0, 140.0, 42.0);
    let mut svg = format!(
        r#"<svg id="totals" class="plot" viewBox="0 0 {w} {}" width="{w}" height="{}" role="img" aria-label="totals">"#,
        h + 30.0,
        h + 30.0
    );
    for (i, n) in bins.iter().enumerate() {
        let bh = h * *n as f64 / most as f64;
        let x = i as f64 * bar;
        let _ = write!(
            svg,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="#1f77b4"><title>{n}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
            x + 2.0,
            h - bh,
            bar - 4.0,
            x + bar / 2.0,
            h + 14.0,
            show(max * i as f64 / BINS as f64)
        );
        if *n > 0 {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" class="tick">{n}</text>"#,
                x + bar / 2.0,
                (h - bh - 3.0).max(10.0)
            );
        }
    }
    svg.push_str("</svg>");
    PreEscaped(svg)
}

/// Per suite over the class: cases accepted of cases run.
fn suites(rows: &[Row]) -> Markup {
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for r in rows {
        let e = per.entry(r.suite.as_str()).or_default();
        e.1 += 1;
        if r.verdict == Verdict::Accepted {
            e.0 += 1;
        }
    }
    html! {
        table.summary {
            thead { tr { th { "suite" } th { "accepted" } } }
            tbody {
                @for (suite, (ok, all)) in &per {
                    tr { td { (suite) } td.num { (ok) " / " (all) } }
                }
            }
        }
    }
}

/// Most flipped cases named per submission in the changes table.
const FLIPS_SHOWN: usize = 5;

/// Per submission, what changed since an earlier run of the class: its
/// points, and the cases that flipped (accepted to not, or back).
fn changes(
    source: &str,
    old_rows: &[Row],
    old: &[Points],
    new_rows: &[Row],
    new: &[Points],
    link_dir: &str,
) -> Markup {
    let key = |r: &Row| (r.candidate.clone(), r.suite.clone(), r.case.clone());
    let before: HashMap<_, Verdict> = old_rows.iter().map(|r| (key(r), r.verdict)).collect();
    let mut flips: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in new_rows {
        if let Some(v) = before.get(&key(r))
            && (*v == Verdict::Accepted) != (r.verdict == Verdict::Accepted)
        {
            flips
                .entry(r.candidate.as_str())
                .or_default()
                .push(format!("{}/{}: {v} → {}", r.suite, r.case, r.verdict));
        }
    }
    let was: HashMap<&str, f64> = old
        .iter()
        .map(|p| (p.submission.as_str(), p.total))
        .collect();
    let changed: Vec<(&Points, Option<f64>, &[String])> = new
        .iter()
        .map(|p| {
            let f = flips
                .get(p.submission.as_str())
                .map_or(&[][..], Vec::as_slice);
            (p, was.get(p.submission.as_str()).copied(), f)
        })
        .filter(|(p, w, f)| w.is_none_or(|w| (w - p.total).abs() > 1e-9) || !f.is_empty())
        .collect();
    html! {
        h2 { "Changes since " (source) }
        @if changed.is_empty() {
            p.hint { "No submission's points or cases changed." }
        } @else {
            p.hint { (changed.len()) " of " (new.len()) " submissions changed." }
            table #changes .sortable {
                thead { tr {
                    th { "submission" } th data-type="num" { "before" } th data-type="num" { "after" }
                    th data-type="num" { "change" } th data-type="num" { "cases flipped" } th { "which" }
                } }
                tbody {
                    @for (p, w, f) in &changed {
                        tr {
                            td { a href=(format!("{link_dir}/{}.html", crate::export::safe_name(&p.submission))) { (p.submission) } }
                            td.num { (w.map_or_else(|| "new".to_string(), show)) }
                            td.num { (show(p.total)) }
                            td.num { (w.map_or_else(String::new, |w| signed(p.total - w))) }
                            td.num { (f.len()) }
                            td.detail {
                                (f.iter().take(FLIPS_SHOWN).cloned().collect::<Vec<_>>().join("; "))
                                @if f.len() > FLIPS_SHOWN { " (+" (f.len() - FLIPS_SHOWN) " more)" }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A change of points with its sign: `+15`, `-0.5`, `0`.
fn signed(x: f64) -> String {
    let shown = show(x);
    if x > 1e-9 { format!("+{shown}") } else { shown }
}
