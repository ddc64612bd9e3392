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
        input.rows.extend(harness::compare::read(path)?);
        input.sources.push(path.display().to_string());
    }
    if !args.suites.is_empty() {
        for case in harness::discover::discover(&args.suites, None, None)? {
            if let Ok(files) = case.files {
                input
                    .files
                    .insert((case.suite.clone(), case.name.clone()), files.clone());
                // A class run's suites carry their part's name in front.
                for r in &input.rows {
                    if r.suite.ends_with(&format!("/{}", case.suite)) {
                        input
                            .files
                            .insert((r.suite.clone(), case.name.clone()), files.clone());
                    }
                }
            }
        }
    }
    if let Some(course) = &args.course {
        let course = Course::load(course)?;
        let mut ids: Vec<String> = input.rows.iter().map(|r| r.candidate.clone()).collect();
        ids.sort();
        ids.dedup();
        let mut keys: Vec<(String, String)> = input
            .rows
            .iter()
            .filter(|r| r.suite != harness::job::BUILD)
            .map(|r| (r.suite.clone(), r.case.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        let points = harness::course::points::points(&course, &ids, &keys, &input.rows);
        let items = course.file.rubric.iter().map(|i| i.name.clone()).collect();
        input.points = Some((items, points));
    }
    harness::export::write_atomically(&args.html, harness::html::render(&input).as_bytes())?;
    println!("wrote {}", args.html.display());
    Ok(ExitCode::SUCCESS)
}
