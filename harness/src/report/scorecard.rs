//! The CSV scorecard: one row per case, flushed as each case finishes.

use std::fs::File;
use std::path::Path;

use anyhow::Context;

use super::{Sink, Summary};
use crate::outcome::Row;

/// Writes rows to a CSV file with a header.
pub struct CsvScorecard {
    writer: csv::Writer<File>,
}

impl CsvScorecard {
    /// Creates (truncates) the scorecard at `path`.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let file = File::create(path)
            .with_context(|| format!("cannot create scorecard {}", path.display()))?;
        Ok(Self {
            writer: csv::Writer::from_writer(file),
        })
    }
}

impl Sink for CsvScorecard {
    fn row(&mut self, row: &Row) -> anyhow::Result<()> {
        self.writer
            .serialize(row)
            .context("cannot write the scorecard")?;
        self.writer.flush().context("cannot write the scorecard")?;
        Ok(())
    }

    fn finish(&mut self, _summary: &Summary) -> anyhow::Result<()> {
        self.writer.flush().context("cannot write the scorecard")?;
        Ok(())
    }
}
