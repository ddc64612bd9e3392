//! `extends = "base.toml"`: a course config written as another one's
//! changes (a handout year of a course: its name and overlay). The base
//! is read first and this file's keys laid over it: a table merges key by
//! key, anything else (a value, a list, `[[part]]` and `[[rubric]]`
//! lists) replaces the base's. The base sits in the same folder (its
//! paths mean the same from there) and may extend another, at most four
//! deep.

use std::path::Path;

use super::{CourseError, CourseFile, line_at};

const DEEPEST: usize = 4;

/// `text` (the config at `path`) as a course config, its base's keys
/// under its own where it `extends` one.
pub fn read(path: &Path, text: &str) -> Result<CourseFile, CourseError> {
    let syntax = |path: &Path, text: &str, e: toml::de::Error| CourseError::Syntax {
        path: path.to_owned(),
        line: e.span().map(|s| line_at(text, s.start)),
        message: e.message().to_string(),
    };
    let table: toml::Table = toml::from_str(text).map_err(|e| syntax(path, text, e))?;
    if !table.contains_key("extends") {
        return toml::from_str(text).map_err(|e| syntax(path, text, e));
    }
    let merged = merged(path, table, 0)?;
    merged
        .try_into()
        .map_err(|e: toml::de::Error| CourseError::Syntax {
            path: path.to_owned(),
            line: None,
            message: format!("{} (with what it extends)", e.message()),
        })
}

/// `table` (read from `path`) over what it extends, recursively.
fn merged(path: &Path, mut table: toml::Table, depth: usize) -> Result<toml::Table, CourseError> {
    let invalid = |what: String| CourseError::Invalid {
        path: path.to_owned(),
        what,
    };
    let Some(base) = table.remove("extends") else {
        return Ok(table);
    };
    let Some(name) = base.as_str() else {
        return Err(invalid("extends must be a config's file name".into()));
    };
    if name.contains('/') || !name.ends_with(".toml") {
        return Err(invalid(format!(
            "extends {name:?}: name a .toml file in the same folder"
        )));
    }
    if depth >= DEEPEST {
        return Err(invalid(format!(
            "extends {name:?}: more than {DEEPEST} configs deep (a circle?)"
        )));
    }
    let base_path = path.with_file_name(name);
    let text = std::fs::read_to_string(&base_path).map_err(|source| CourseError::Read {
        path: base_path.clone(),
        source,
    })?;
    let base: toml::Table = toml::from_str(&text).map_err(|e| CourseError::Syntax {
        path: base_path.clone(),
        line: e.span().map(|s| line_at(&text, s.start)),
        message: e.message().to_string(),
    })?;
    let mut out = merged(&base_path, base, depth + 1)?;
    lay(&mut out, table);
    Ok(out)
}

/// Lays `top`'s keys over `base`'s: tables merge, the rest replaces.
fn lay(base: &mut toml::Table, top: toml::Table) {
    for (key, value) in top {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(t)) => lay(b, t),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_over_its_base() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base.toml");
        std::fs::write(
            &base,
            "name = 'Base'\nfamily = 'toy'\n[build]\ncommand = 'make'\noverlay = 'common'\n\
             [[part]]\nname = 'solver'\ncommand = 'x'\nsuites = ['s']\n\
             [[rubric]]\nname = 'all'\nrule = 'all'\npoints = 1\npart = 'solver'\n",
        )
        .unwrap();
        let year = dir.path().join("year.toml");
        let text = "extends = 'base.toml'\nname = 'Year'\n[build]\noverlay = ['common', 'y']\n";
        let file = read(&year, text).unwrap();
        assert_eq!(file.name, "Year");
        assert_eq!(file.family, "toy");
        let build = file.build.unwrap();
        assert_eq!(build.command, "make", "a table merges key by key");
        assert_eq!(build.overlay, [Path::new("common"), Path::new("y")]);
        assert_eq!(file.parts.len(), 1);
        // A circle stops; a base elsewhere is refused.
        std::fs::write(&base, "extends = 'year.toml'\n").unwrap();
        std::fs::write(&year, text).unwrap();
        let e = read(&year, text).unwrap_err().to_string();
        assert!(e.contains("more than 4 configs deep"), "{e}");
        let e = read(&year, "extends = '../x.toml'\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("name a .toml file in the same folder"), "{e}");
    }
}
