//! Which handout year a handin was written for, by what its code uses: a
//! course's `[build] marks` are names its interfaces alone have
//! (`bitvector_free`) or calls with its own number of arguments
//! (`hdict_insert/2` for a table of entries, `hdict_insert/3` for one of
//! keys and values). The course whose marks a handin uses most, then
//! whose marks it leaves unused fewest, is its year's.

/// Of `marks`, those `text` uses.
pub fn found<'m>(marks: &'m [String], text: &str) -> Vec<&'m str> {
    marks
        .iter()
        .filter(|m| match m.rsplit_once('/') {
            Some((name, n)) => n
                .parse::<usize>()
                .is_ok_and(|n| calls(text, name).contains(&n)),
            None => words(text).any(|w| w == m.as_str()),
        })
        .map(String::as_str)
        .collect()
}

/// The identifiers of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The number of arguments of each call (or declaration) of `name` in
/// `text`: `name(` then its arguments, split at the commas outside
/// brackets; `()` has none.
fn calls(text: &str, name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(args) = after.strip_prefix('(') else {
            continue;
        };
        let (mut depth, mut commas, mut empty) = (0usize, 0, true);
        for c in args.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => break,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => commas += 1,
                _ => {}
            }
            empty &= c.is_whitespace();
        }
        out.push(if empty { 0 } else { commas + 1 });
    }
    out
}

/// How well a handin fits a course: (marks used, marks unused); more used
/// then fewer unused is better.
pub fn fit(marks: &[String], text: &str) -> (usize, usize) {
    let used = found(marks, text).len();
    (used, marks.len() - used)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(m: &[&str]) -> Vec<String> {
        m.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_call_is_told_by_its_arguments() {
        let entries = "hdict_t H = hdict_new(100, &entry_key, &key_equal, &key_hash, NULL);\n\
                       hdict_insert(H, (void *)make(f(a, b), c));";
        let pairs = "H = hdict_new(100, key_equal, key_hash, NULL); hdict_insert(H, k, v);";
        let of_entries = marks(&["hdict_new/5", "hdict_insert/2"]);
        let of_pairs = marks(&["hdict_new/4", "hdict_insert/3"]);
        assert_eq!(fit(&of_entries, entries), (2, 0));
        assert_eq!(fit(&of_pairs, entries), (0, 2));
        assert_eq!(fit(&of_pairs, pairs), (2, 0));
        assert_eq!(calls("f() + xf(1) + f (a)", "f"), [0, 1]);
    }

    #[test]
    fn a_name_is_a_whole_word() {
        let m = marks(&["bitvector_free", "index_t"]);
        assert_eq!(
            found(&m, "void bitvector_free(bitvector B);"),
            ["bitvector_free"]
        );
        assert_eq!(
            found(&m, "my_index_t i; bitvector_freed"),
            Vec::<&str>::new()
        );
    }
}
