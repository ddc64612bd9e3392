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
