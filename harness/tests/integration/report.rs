//! `harness report`: a page from real scorecards (with kept outputs for the
//! replays), loaded in headless Chromium: the screenshot must show the
//! plot, and the DOM the table rows and replays drawn by the page's script.
//! Without Chromium the browser part prints why it skips, unless
//! PUZZLEGRADE_REQUIRE_TOOLS is set (CI, where `.ci/run` installs it).

use std::path::Path;
use std::process::Command;

use super::support::{harness, misbehave, workspace};

fn page(dir: &Path) -> std::path::PathBuf {
    let suite = workspace().join("suites/lightsout/easy");
    harness()
        .current_dir(dir)
        .args(["grade", "--scorecard", "ref.csv", "--suite"])
        .arg(&suite)
        .assert()
        .code(0);
    harness()
        .current_dir(dir)
        .args([
            "grade",
            "--scorecard",
            "wrong.csv",
            "--keep-output",
            "out",
            "--name",
            "wrong",
        ])
        .args(["--candidate", &format!("{} wrong", misbehave())])
        .arg("--suite")
        .arg(&suite)
        .assert()
        .code(1);
    let kept = dir.join("out/wrong/lightsout/easy/2x2-00.txt.stdout");
    assert_eq!(
        std::fs::read_to_string(kept).unwrap().lines().next(),
        Some("0:0")
    );
    harness()
        .current_dir(dir)
        .args([
            "report",
            "ref.csv",
            "wrong.csv",
            "--outputs",
            "out",
            "--html",
            "r.html",
        ])
        .arg("--suite")
        .arg(&suite)
        .assert()
        .code(0)
        .stdout("wrote r.html\n");
    dir.join("r.html")
}

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none(),
            "chromium is required here (PUZZLEGRADE_REQUIRE_TOOLS) but not installed"
        );
        eprintln!("note: skipping the browser check: no chromium (.ci/run installs it)");
    }
    found
}

fn headless(browser: &str, dir: &Path, args: &[&str], html: &Path) -> std::process::Output {
    Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(args)
        .arg(format!("file://{}", html.display()))
        .output()
        .expect("run chromium")
}

#[test]
fn a_report_renders_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let html = page(dir.path());
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.contains("<h2>Replays of wrong answers</h2>"));
    assert_eq!(text.matches("<section class=\"replay\">").count(), 19);
    assert!(text.contains("<p class=\"end illegal\">") || text.contains("lights still on"));
    let Some(browser) = chromium() else { return };

    let shot = dir.path().join("shot.png");
    let out = headless(
        browser,
        dir.path(),
        &[
            "--window-size=1200,1600",
            &format!("--screenshot={}", shot.display()),
        ],
        &html,
    );
    assert!(
        shot.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 1600));
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let colours: std::collections::HashSet<&[u8]> = pixels.iter().copied().collect();
    assert!(
        colours.len() > 50,
        "a blank page has few colours: {}",
        colours.len()
    );
    // The cactus plot: its area's background and the first series' line.
    let has = |rgb: [u8; 3]| pixels.iter().filter(|p| p[..3] == rgb).count();
    assert!(has([0xfb, 0xfb, 0xfb]) > 10_000, "the plot area");
    assert!(
        has([0x1f, 0x77, 0xb4]) > 100,
        "the reference's line and bars"
    );

    let out = headless(browser, dir.path(), &["--dump-dom"], &html);
    let dom = String::from_utf8_lossy(&out.stdout);
    let table = dom.split("id=\"cases\"").nth(1).expect("the case table");
    let body = table.split("</table>").next().unwrap();
    assert_eq!(body.matches("<tr>").count(), 1 + 38, "header and every row");
    // The replays were drawn by the page's script: 19 labels and boards.
    assert_eq!(
        dom.matches("class=\"label\">move ").count(),
        19,
        "replay labels"
    );
    assert!(dom.contains("class=\"board\" style=\"grid-template-columns: repeat(2, 22px);\""));
}

/// A class's report opens on the points: one row per submission linking
/// its own page (its items, cases with verdicts and reasons, a stderr
/// excerpt and links to the kept outputs); the first page holds no case
/// table. A wrong exit status with no move has no replay. In Chromium the
/// page's script filters the points by the search box.
#[test]
fn a_class_report_opens_on_the_points_with_a_page_per_submission() {
    let dir = tempfile::tempdir().unwrap();
    harness()
        .current_dir(dir.path())
        .args(["grade", "--course", "cis521", "--submissions"])
        .arg(workspace().join("harness/tests/fixtures/classes/cis521"))
        .args(["--keep-output", "out"])
        .assert()
        .code(1);
    harness()
        .current_dir(dir.path())
        .args([
            "report",
            "scorecard.csv",
            "--course",
            "cis521",
            "--outputs",
            "out",
        ])
        .args(["--html", "class.html"])
        .assert()
        .code(0)
        .stdout("wrote class.html and 4 submission pages in class-students\n");
    let index = std::fs::read_to_string(dir.path().join("class.html")).unwrap();
    let table = index.split("id=\"points\"").nth(1).unwrap();
    let table = table.split("</table>").next().unwrap();
    assert_eq!(table.matches("<tr>").count(), 1 + 4);
    assert!(table.contains("<a href=\"class-students/noisy.html\">noisy</a>"));
    assert!(
        !index.contains("id=\"cases\""),
        "no case table on the first page"
    );
    let noisy = std::fs::read_to_string(dir.path().join("class-students/noisy.html")).unwrap();
    assert!(noisy.contains("<a href=\"../class.html\">"));
    assert!(noisy.contains("NotImplementedError"), "the stderr excerpt");
    let link = noisy
        .split("href=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .find(|l| l.ends_with(".stderr"))
        .expect("a link to a kept stderr");
    assert!(
        dir.path().join("class-students").join(link).is_file(),
        "{link} resolves"
    );
    assert!(noisy.contains("<select id=\"verdict-filter\" data-col=\"3\">"));
    // broken did not build: said on its page, no case.
    let broken = std::fs::read_to_string(dir.path().join("class-students/broken.html")).unwrap();
    assert!(broken.contains("The build failed: "), "{broken}");

    // Two runs of the class, before and after greedy's fix: the page
    // shows what changed, for whom.
    let class = dir.path().join("class2");
    super::support::copy_dir(
        &workspace().join("harness/tests/fixtures/classes/cis521"),
        &class,
    );
    std::fs::copy(
        class.join("perfect/homework1_part2.py"),
        class.join("greedy/homework1_part2.py"),
    )
    .unwrap();
    harness()
        .current_dir(dir.path())
        .args([
            "grade",
            "--course",
            "cis521",
            "--scorecard",
            "after.csv",
            "--submissions",
        ])
        .arg(&class)
        .assert()
        .code(1);
    harness()
        .current_dir(dir.path())
        .args(["report", "scorecard.csv", "after.csv", "--course", "cis521"])
        .args(["--html", "both.html"])
        .assert()
        .code(0);
    let both = std::fs::read_to_string(dir.path().join("both.html")).unwrap();
    assert!(both.contains("<h2>Changes since scorecard.csv</h2>"));
    let changes = both.split("id=\"changes\"").nth(1).unwrap();
    let changes = changes.split("</table>").next().unwrap();
    assert_eq!(
        changes.matches("<tr>").count(),
        1 + 1,
        "greedy alone: {changes}"
    );
    assert!(changes.contains(">greedy</a></td><td class=\"num\">25</td><td class=\"num\">40</td><td class=\"num\">+15</td>"), "{changes}");
    assert!(
        changes.contains("find_solution/lightsout/easy/3x2-02.txt: wrong-exit-status → accepted")
    );

    // A candidate that exits 1 everywhere: wrong exit statuses, no moves,
    // nothing to replay.
    let suite = workspace().join("suites/lightsout/easy");
    harness()
        .current_dir(dir.path())
        .args(["grade", "--scorecard", "quits.csv", "--keep-output", "qout"])
        .args(["--candidate", &format!("{} exit 1", misbehave())])
        .arg("--suite")
        .arg(&suite)
        .assert()
        .code(1);
    harness()
        .current_dir(dir.path())
        .args([
            "report",
            "quits.csv",
            "--outputs",
            "qout",
            "--html",
            "q.html",
        ])
        .arg("--suite")
        .arg(&suite)
        .assert()
        .code(0);
    let quits = std::fs::read_to_string(dir.path().join("q.html")).unwrap();
    assert!(quits.contains("wrong-exit-status"));
    assert!(
        !quits.contains("<section class=\"replay\">"),
        "no move, no replay"
    );
    assert!(quits.contains("<select id=\"suite-filter\" data-col=\"1\">"));

    let Some(browser) = chromium() else { return };
    // The search box keeps the rows holding its text (typed by a script
    // run after the page's own).
    let typed = dir.path().join("typed.html");
    std::fs::write(
        &typed,
        index.replace(
            "</body>",
            "<script>var s = document.getElementById('search'); s.value = 'nois'; \
             s.dispatchEvent(new Event('input'));</script></body>",
        ),
    )
    .unwrap();
    let out = headless(browser, dir.path(), &["--dump-dom"], &typed);
    let dom = String::from_utf8_lossy(&out.stdout);
    let table = dom.split("id=\"points\"").nth(1).expect("the points table");
    let body = table.split("</table>").next().unwrap();
    assert_eq!(
        body.matches("style=\"display: none;\"").count(),
        3,
        "{body}"
    );
}
