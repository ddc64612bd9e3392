//! `harness report`: the HTML page.

use std::process::ExitCode;

use harness::course::Course;

/// Reads the scorecards (and suites, course) and writes the page.
pub fn run(args: &crate::cli::ReportArgs) -> anyhow::Result<ExitCode> {
    let mut input = harness::html::Input {
        title: args.title.clone(),
        outputs: args.outputs.clone(),
        ..Default::default()
    };
    for path in &args.scorecards {
        input.rows.extend(harness::report::read_rows(path)?);
        input.sources.push(path.display().to_string());
    }
    if !args.suites.is_empty() {
        input.add_files(harness::discover::discover(&args.suites, None, None)?);
    }
    if let Some(course) = &args.course {
        let course = Course::load(course)?;
        if let [before, after] = args.scorecards.as_slice() {
            // Two runs of one class: the page shows the second, and what
            // changed since the first.
            let old = harness::report::read_rows(before)?;
            let new = harness::report::read_rows(after)?;
            let (_, old_points) = harness::course::points::of_rows(&course, &old);
            input.before = Some((before.display().to_string(), old, old_points));
            input.rows = new;
        }
        input.points = Some(harness::course::points::of_rows(&course, &input.rows));
    }
    if input.points.is_some() {
        // A class: the points first, a page per submission beside them.
        let n = harness::html::class::write(&input, &args.html)?;
        println!(
            "wrote {} and {} submission pages in {}",
            args.html.display(),
            n,
            harness::html::class::pages_dir(&args.html).display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    harness::export::write_atomically(&args.html, harness::html::render(&input).as_bytes())?;
    println!("wrote {}", args.html.display());
    Ok(ExitCode::SUCCESS)
}
