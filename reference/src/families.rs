//! The table of families, one line each, and the lookups over it: by name,
//! and by a suite listing's header.

use crate::family::{Adapter, Grader};

/// Every family the harness knows, one line each.
pub static FAMILIES: &[&dyn Grader] = &[
    &Adapter::<crate::lightsout::LightsOut>::NEW,
    &Adapter::<crate::slidingblock::SlidingBlock>::NEW,
    &Adapter::<crate::gogen::Gogen>::NEW,
    #[cfg(feature = "toy")]
    &Adapter::<crate::toy::Toy>::NEW,
];

/// The family called `name`.
pub fn family(name: &str) -> Option<&'static dyn Grader> {
    FAMILIES
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .or_else(|| {
            // (Problem packages: each is graded by its own grader, made where
            // it is found; this one names them all.)
            (name == crate::package::grader::NAME).then(crate::package::grader::by_its_validator)
        })
}

/// The function-level question called `name` (`family:function`), from
/// the family's own list.
pub fn question(name: &str) -> Option<&'static dyn Grader> {
    FAMILIES
        .iter()
        .flat_map(|f| f.questions())
        .copied()
        .find(|q| q.name() == name)
}

/// Every question's name, family by family.
pub fn question_names() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|f| f.questions())
        .map(|q| q.name())
        .collect()
}

/// What a listing header says about its family.
#[derive(Clone, Copy)]
pub enum ListingMatch {
    /// No family's file columns start the header: not a listing.
    None,
    /// This family, with this many file columns.
    Family(&'static dyn Grader, usize),
    /// Two families' forms of the same length both start the header.
    Ambiguous(&'static dyn Grader, &'static dyn Grader),
}

/// The family whose listing header starts with the file columns of one of
/// its forms (trimmed, case-insensitive), and how many file columns that
/// form has. The longest matching form wins (`board,words` is Gogen's
/// two-file form, not a Lights Out `board` with a `words` column); two
/// families matching at the same length is [`ListingMatch::Ambiguous`],
/// never a silent pick.
pub fn family_for_listing(header: &[&str]) -> ListingMatch {
    let mut best: ListingMatch = ListingMatch::None;
    let mut best_len = 0;
    for &f in FAMILIES {
        for form in f.listing_forms() {
            let fits = header.len() >= form.len()
                && form
                    .iter()
                    .zip(header)
                    .all(|(want, got)| got.trim().eq_ignore_ascii_case(want));
            if !fits || form.len() < best_len {
                continue;
            }
            best = match best {
                ListingMatch::Family(g, n) if n == form.len() && g.name() != f.name() => {
                    ListingMatch::Ambiguous(g, f)
                }
                ListingMatch::Ambiguous(..) if best_len == form.len() => best,
                _ => ListingMatch::Family(f, form.len()),
            };
            best_len = form.len();
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn table_lookups() {
        assert_eq!(family("lightsout").map(|f| f.name()), Some("lightsout"));
        assert!(family("chess").is_none());
        let name = |h: &[&str]| match family_for_listing(h) {
            ListingMatch::Family(f, n) => Some((f.name(), n)),
            _ => None,
        };
        assert_eq!(
            name(&["board", "expect", "min_presses"]),
            Some(("lightsout", 1))
        );
        assert_eq!(
            name(&["initial config file", " goal file", " comments"]),
            Some(("slidingblock", 2))
        );
        assert_eq!(name(&["board", "words", "expect"]), Some(("gogen", 2)));
        assert_eq!(name(&["puzzle", "expect"]), Some(("gogen", 1)));
        assert!(name(&["init", "goal", "expect"]).is_none());
    }

    /// No header can be claimed by two families: every form of every family,
    /// alone or followed by any other form's columns, is read as that
    /// family's own (or a longer form of it), never as a tie.
    #[test]
    fn no_two_families_claim_the_same_header() {
        let forms: Vec<(&str, &[&str])> = FAMILIES
            .iter()
            .flat_map(|f| f.listing_forms().iter().map(move |form| (f.name(), *form)))
            .collect();
        for (i, (fam_a, a)) in forms.iter().enumerate() {
            for (fam_b, b) in &forms[i + 1..] {
                let same =
                    a.len() == b.len() && a.iter().zip(*b).all(|(x, y)| x.eq_ignore_ascii_case(y));
                assert!(
                    !(same && fam_a != fam_b),
                    "{fam_a} and {fam_b} both declare {a:?}"
                );
            }
            let mut headers: Vec<Vec<&str>> = vec![a.to_vec()];
            for (_, tail) in &forms {
                headers.push(a.iter().chain(tail.iter()).copied().collect());
            }
            headers.push(a.iter().copied().chain(["expect", "comments"]).collect());
            for h in headers {
                match family_for_listing(&h) {
                    ListingMatch::Family(f, n) => {
                        // A longer form may win only within the same family
                        // or where the header spells that longer form.
                        let winner: Vec<&str> = h[..n].to_vec();
                        assert!(
                            f.name() == *fam_a
                                || forms.iter().any(|(ff, form)| *ff == f.name()
                                    && form.len() == n
                                    && form
                                        .iter()
                                        .zip(&winner)
                                        .all(|(x, y)| x.eq_ignore_ascii_case(y))),
                            "{h:?} misread"
                        );
                        assert!(n >= a.len(), "{h:?}: a shorter form won");
                    }
                    ListingMatch::Ambiguous(x, y) => {
                        panic!("{h:?} is claimed by {} and {}", x.name(), y.name())
                    }
                    ListingMatch::None => panic!("{h:?} matched no family"),
                }
            }
        }
    }

    #[test]
    fn wrong_file_count_is_a_load_error() {
        let err = family("lightsout").unwrap().load(&[]).err().unwrap();
        assert_eq!(err.to_string(), "lightsout takes board, got 0 file(s)");
        let err = family("gogen")
            .unwrap()
            .load(&[PathBuf::new(), PathBuf::new(), PathBuf::new()])
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "gogen takes puzzle or board words, got 3 file(s)"
        );
    }

    /// Every family has a battery for each of its roles and none other;
    /// every battery is well formed (a status per probe, unique names,
    /// every file it names in its folder) and as long as it was written.
    #[test]
    fn batteries_are_well_formed() {
        use crate::family::Role;
        let least = |family: &str, role: Role| match (family, role) {
            ("slidingblock", Role::Checker) => 40,
            ("slidingblock", Role::Solver) => 10,
            ("toy", _) => 3,
            _ => 8,
        };
        for family in FAMILIES {
            for role in [Role::Checker, Role::Solver] {
                let battery = family.battery(role);
                assert_eq!(
                    battery.is_some(),
                    family.roles().contains(&role),
                    "{} {role:?}",
                    family.name()
                );
                let Some(b) = battery else { continue };
                assert_eq!(b.check(), Ok(()), "{} {role:?}", family.name());
                assert!(
                    b.probes.len() >= least(family.name(), role),
                    "{} {role:?}: {}",
                    family.name(),
                    b.probes.len()
                );
                assert_eq!(
                    b,
                    family.battery(role).unwrap(),
                    "seeded: the same each time"
                );
            }
        }
    }

    #[test]
    fn question_names_are_unique_and_known() {
        let names = question_names();
        let set: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(set.len(), names.len());
        let course_questions = names.iter().filter(|n| !n.starts_with("toy:"));
        assert_eq!(course_questions.count(), 23);
        assert!(question("lightsout:display").is_some());
        // CIS 521's handout examples, run as written.
        assert!(question("lightsout:examples").is_some_and(|q| !q.judges_answers()));
        // 15-122's judge of a solver's moves: the contract, not a transcript.
        assert!(question("lightsout:loplayer").is_some_and(|q| q.judges_answers()));
        assert!(!question("lightsout:display").unwrap().judges_answers());
        assert!(question("lightsout:perform_move").is_some());
        assert!(question("gogen:update").is_some());
        assert!(
            question("lightsout:find_solution").is_none(),
            "a contract part"
        );
        for family in FAMILIES {
            for q in family.questions() {
                assert!(q.name().starts_with(&format!("{}:", family.name())));
            }
        }
    }
}
