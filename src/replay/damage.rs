//! What damage cost a replay: each stretch of samples the reader could not read, between the
//! times that bound it, and the one wording every reader of a capture uses for it (`replay
//! --once`, the dashboard's header, `compare`, `export`), so they all say the same.

use chrono::{DateTime, Utc};

/// A stretch of samples lost to damage.
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    /// The reader's words: file, where and what is wrong there.
    pub what: String,
    /// The last sample read before it (or, with none, when the file's recording started).
    pub after: DateTime<Utc>,
    /// The first time known after it.
    pub until: Until,
    /// Which file and section it is in, so that reading the section again does not count it
    /// twice (`None`: between sections).
    pub(crate) key: (usize, Option<usize>),
}

/// The first time known after a lost stretch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Until {
    /// The next sample read: the capture goes on there.
    Sample(DateTime<Utc>),
    /// The section's last sample, as its summary (written after it) gives it.
    SectionEnd(DateTime<Utc>),
    /// When the writer finished (its end mark): about one sample after the last it wrote.
    EndMark(DateTime<Utc>),
    /// Nothing after the damage can be read: how long it held is not known.
    Unknown,
}

impl Until {
    fn at(self) -> Option<DateTime<Utc>> {
        match self {
            Until::Sample(t) | Until::SectionEnd(t) | Until::EndMark(t) => Some(t),
            Until::Unknown => None,
        }
    }
}

impl Lost {
    /// `section 0: damaged at byte 20616: …: the samples after 21:20:48 up to the end mark
    /// at 21:22:41 (1m53s) are lost`.
    pub fn words(&self) -> String {
        let after = clock(self.after);
        let stretch = |until: DateTime<Utc>| span(secs(until - self.after));
        let lost = match self.until {
            Until::Sample(t) => format!(
                "nothing between {after} and the next readable sample at {} ({}) could be read",
                clock(t),
                stretch(t)
            ),
            Until::SectionEnd(t) => format!(
                "the samples after {after} up to {} (the section's last, by its summary; {}) are lost",
                clock(t),
                stretch(t)
            ),
            Until::EndMark(t) => format!(
                "the samples after {after} up to the end mark at {} ({}) are lost",
                clock(t),
                stretch(t)
            ),
            Until::Unknown => format!(
                "everything after {after} is lost (nothing later in the file can be read, so how long it held is not known)"
            ),
        };
        format!("{}: {lost}", self.what)
    }
}

/// What damage cost a set whose samples run from `first` to `last`.
#[derive(Debug, Clone, PartialEq)]
pub struct Damage<'a> {
    pub lost: &'a [Lost],
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
}

impl Damage<'_> {
    /// From the first sample to the latest time known, lost stretches included.
    fn whole(&self) -> (DateTime<Utc>, DateTime<Utc>) {
        let end = self
            .lost
            .iter()
            .filter_map(|l| l.until.at())
            .fold(self.last, DateTime::max);
        (self.first, end)
    }

    /// Seconds lost (the union of the stretches, so one counted twice is not).
    fn lost_s(&self) -> i64 {
        let mut spans: Vec<(DateTime<Utc>, DateTime<Utc>)> = self
            .lost
            .iter()
            .filter_map(|l| l.until.at().map(|u| (l.after, u)))
            .filter(|(a, u)| u > a)
            .collect();
        spans.sort();
        let mut total = 0;
        let mut reach: Option<DateTime<Utc>> = None;
        for (a, u) in spans {
            let from = reach.map_or(a, |r| r.max(a));
            if u > from {
                total += secs(u - from);
            }
            reach = Some(reach.map_or(u, |r| r.max(u)));
        }
        total
    }

    /// `damaged: 1m37s of 3m30s could be read` (or, when the end is lost, `damaged: 1m37s
    /// could be read, then the rest of the file is lost`).
    pub fn summary(&self) -> String {
        let (from, to) = self.whole();
        let whole = secs(to - from).max(0);
        let read = (whole - self.lost_s()).max(0);
        if self.lost.iter().any(|l| l.until == Until::Unknown) {
            format!(
                "damaged: {} could be read, then the rest of the file is lost",
                span(read)
            )
        } else {
            format!("damaged: {} of {} could be read", span(read), span(whole))
        }
    }

    /// The summary, then each lost stretch in the reader's words.
    pub fn lines(&self, name: &str) -> Vec<String> {
        let mut lines = vec![format!("{name}: {}", self.summary())];
        lines.extend(self.lost.iter().map(Lost::words));
        lines
    }
}

/// Whole seconds, rounded (samples land a few milliseconds off the second).
pub fn secs(d: chrono::Duration) -> i64 {
    (d.num_milliseconds() + 500).div_euclid(1000)
}

/// A time of day as the damage words give it (UTC).
fn clock(t: DateTime<Utc>) -> String {
    t.format("%H:%M:%S").to_string()
}

/// `3m29s`: a length of time as the command line takes it.
pub fn span(secs: i64) -> String {
    crate::cli::compact_duration(u64::try_from(secs).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(s: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 21, 21, 19, 11)
            .single()
            .expect("a time")
            + chrono::Duration::seconds(s)
    }

    fn lost(after: i64, until: Until) -> Lost {
        Lost {
            what: "d.idbt: section 0: damaged at byte 20616: the compressed data does not decode"
                .into(),
            after: at(after),
            until,
            key: (0, Some(0)),
        }
    }

    #[test]
    fn the_end_mark_bounds_what_damage_took() {
        let l = [lost(97, Until::EndMark(at(210)))];
        let d = Damage {
            lost: &l,
            first: at(0),
            last: at(97),
        };
        assert_eq!(d.summary(), "damaged: 1m37s of 3m30s could be read");
        assert!(
            l[0].words().ends_with(
                "the samples after 21:20:48 up to the end mark at 21:22:41 (1m53s) are lost"
            ),
            "{}",
            l[0].words()
        );
        // Two readers of one stretch (the same lost twice) count it once.
        let twice = [l[0].clone(), lost(97, Until::Sample(at(150)))];
        let d = Damage { lost: &twice, ..d };
        assert_eq!(d.summary(), "damaged: 1m37s of 3m30s could be read");
    }

    #[test]
    fn an_unbounded_loss_says_so() {
        let l = [lost(97, Until::Unknown)];
        let d = Damage {
            lost: &l,
            first: at(0),
            last: at(97),
        };
        assert_eq!(
            d.summary(),
            "damaged: 1m37s could be read, then the rest of the file is lost"
        );
        assert!(l[0].words().contains("how long it held is not known"));
    }
}
