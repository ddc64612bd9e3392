//! `json`: every row and the summary, as one JSON document.

use serde::Serialize;

use super::{Export, Record};
use crate::event::Summary;
use crate::outcome::Row;

/// The JSON exporter.
pub struct Json;

#[derive(Serialize)]
struct Document<'a> {
    candidate: &'a str,
    finished: bool,
    summary: &'a Summary,
    rows: &'a [Row],
}

impl Export for Json {
    fn render(&self, r: &Record) -> anyhow::Result<Vec<u8>> {
        super::pretty_json(&Document {
            candidate: &r.candidate,
            finished: r.finished,
            summary: &r.summary,
            rows: &r.rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::record;

    #[test]
    fn rows_and_summary_read_back() {
        let bytes = Json.render(&record()).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 3);
        assert_eq!(v["rows"][1]["verdict"], "wrong-answer");
        assert_eq!(
            v["summary"]["suites"]["toy/easy"]["verdicts"]["accepted"],
            1
        );
        insta::assert_json_snapshot!(v);
    }
}
