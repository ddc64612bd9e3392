//! A platform's time limit against the course's worst case: what one
//! submission can take in the kit (its build at the build's limit, every
//! case to its wall-clock net and once more alone, on one slot: the
//! platforms give a grading container one CPU or less), set in the kit
//! where the platform reads its limit there, else said to the staff with
//! where to set it.

use std::time::Duration;

use crate::course::Course;
use crate::settings::{DEFAULT_TIME_LIMIT, safety_net};

/// A platform's limit on one grading job.
pub struct Timeout {
    /// The platform, as people name it.
    pub platform: &'static str,
    /// What it is unless set.
    pub default: Duration,
    /// The most it can be set to (`None`: as the platform's admins allow).
    pub most: Option<Duration>,
    /// Where the staff set it; `None`: the kit sets it itself.
    pub set_in: Option<&'static str>,
    /// What the platform gives a job it stops.
    pub stopped: &'static str,
}

/// One submission's worst case in a kit.
#[derive(Debug, Clone, Copy)]
pub struct Worst {
    /// Cases and probes a submission runs.
    pub cases: usize,
    /// Each one's wall-clock net.
    pub net: Duration,
    /// The build's limit (zero without a build).
    pub build: Duration,
}

impl Worst {
    /// The build, then every case to its net, then again alone.
    pub fn total(&self) -> Duration {
        self.build + self.net.saturating_mul(2 * self.cases as u32)
    }

    /// `course`'s worst case, where a submission runs a case or probe for
    /// each of `own` (as a class run's plan counts them), each its own
    /// time limit where it has one (a problem package's), else the
    /// course's.
    pub fn of(course: &Course, own: &[Option<Duration>]) -> Self {
        let limits = &course.file.limits;
        let net = limits
            .time_limit
            .unwrap_or_else(|| safety_net(limits.cpu_limit.unwrap_or(DEFAULT_TIME_LIMIT)));
        Self {
            cases: own.len(),
            net: longest(net, own),
            build: course
                .file
                .build
                .as_ref()
                .map_or(Duration::ZERO, |b| b.time_limit),
        }
    }

    /// How it is made up, for people.
    pub fn said(&self) -> String {
        format!(
            "{}: the build's {}, then {} cases each to its {} net and once more alone",
            show(self.total()),
            show(self.build),
            self.cases,
            show(self.net)
        )
    }
}

/// The longest net of cases whose own time limits are `own` (each's
/// wall-clock net), `course` for those without one.
fn longest(course: Duration, own: &[Option<Duration>]) -> Duration {
    own.iter()
        .map(|o| o.map_or(course, safety_net))
        .max()
        .unwrap_or(course)
}

/// What to tell the staff of a platform's `timeout` against `worst`, and the
/// limit a kit that sets its own writes (the worst case, within the
/// platform's most).
pub fn check(timeout: &Timeout, worst: &Worst) -> (Duration, Option<String>) {
    let name = timeout.platform;
    let total = worst.total();
    let set = timeout.most.map_or(total, |m| total.min(m));
    let said = match (timeout.set_in, timeout.most) {
        (None, Some(most)) if total > most => Some(format!(
            "warning: a submission's worst case is {}; {name} stops a job at {} at most (the kit sets that): a submission that runs longer {}",
            worst.said(),
            show(most),
            timeout.stopped
        )),
        (None, _) => None,
        (Some(place), most) if total > timeout.default => Some(format!(
            "warning: a submission's worst case is {}; {name} stops a job at {} unless set higher ({place}{}): set it to {}{}",
            worst.said(),
            show(timeout.default),
            most.map(|m| format!(", at most {}", show(m)))
                .unwrap_or_default(),
            show(set),
            if most.is_some_and(|m| total > m) {
                format!(", and a submission that runs longer {}", timeout.stopped)
            } else {
                String::new()
            }
        )),
        (Some(_), _) => None,
    };
    (set, said)
}

/// `d` as people read it: `4h 13m`, `95s`.
pub fn show(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..120 => format!("{s}s"),
        120..7200 if s.is_multiple_of(60) => format!("{}m", s / 60),
        120..7200 => format!("{}m {}s", s / 60, s % 60),
        _ => format!("{}h {}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_s_own_time_limit_is_its_cases_net() {
        let course = Duration::from_secs(245);
        let one = Some(Duration::from_secs(1));
        assert_eq!(
            longest(course, &[one, one]),
            safety_net(Duration::from_secs(1))
        );
        assert_eq!(longest(course, &[one, None]), course);
        assert_eq!(longest(course, &[]), course);
    }

    #[test]
    fn a_limit_the_kit_sets_or_the_staff_are_told_of() {
        let worst = Worst {
            cases: 40,
            net: Duration::from_secs(245),
            build: Duration::from_secs(300),
        };
        assert_eq!(worst.total(), Duration::from_secs(300 + 80 * 245));
        let pl = Timeout {
            platform: "PrairieLearn",
            default: Duration::from_secs(30),
            most: Some(Duration::from_secs(600)),
            set_in: None,
            stopped: "is failed, with no score",
        };
        let (set, said) = check(&pl, &worst);
        assert_eq!(set, Duration::from_secs(600));
        assert_eq!(
            said.unwrap(),
            "warning: a submission's worst case is 5h 31m: the build's 5m, then 40 cases each to its 4m 5s net and once more alone; PrairieLearn stops a job at 10m at most (the kit sets that): a submission that runs longer is failed, with no score"
        );
        let gs = Timeout {
            platform: "Gradescope",
            default: Duration::from_secs(600),
            most: Some(Duration::from_secs(2400)),
            set_in: Some("the assignment's Autograder Settings"),
            stopped: "gets 0",
        };
        let small = Worst {
            cases: 2,
            net: Duration::from_secs(100),
            build: Duration::ZERO,
        };
        let (set, said) = check(&gs, &small);
        assert_eq!((set, said), (Duration::from_secs(400), None));
        let mid = Worst { cases: 5, ..small };
        assert_eq!(
            check(&gs, &mid).1.unwrap(),
            "warning: a submission's worst case is 16m 40s: the build's 0s, then 5 cases each to its 100s net and once more alone; Gradescope stops a job at 10m unless set higher (the assignment's Autograder Settings, at most 40m): set it to 16m 40s"
        );
        let (set, _) = check(&pl, &small);
        assert_eq!(
            set,
            Duration::from_secs(400),
            "the worst case, within the most"
        );
    }
}
