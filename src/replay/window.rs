//! The screen at any sample of a [`CaptureSet`], in work proportional to what it shows: the
//! derivation state stored before the sample's section, the verdict engine's series and the
//! chart window rebuilt from stored rows, then that one section's events fed up to the
//! sample. A [`Cursor`] then steps on event by event, as a sequential replay would.
//!
//! What comes out equals a replay from the start of the file, to the bit: the stored state
//! is what the writer's own derivation held there (derived from the bytes a reader decodes),
//! and the rows are the values that derivation pushed (`tests/it/replay_window.rs` checks
//! hundreds of random moments).

use std::sync::Arc;

use super::damage::{Lost, Until};
use super::set::CaptureSet;
use crate::data_view::{CHART_COLUMNS, Charts, DataView, SERIES_POINTS};
use innodebt_capture::End;
use innodebt_engine::figures::Figures;
use innodebt_engine::measure::series::Series;
use innodebt_server::sample::SourceEvent;

/// Chart history rebuilt before a position: the longest chart window.
pub const CHART_SPAN_S: f64 = 3_600.0;

/// Where a replay stands: the section it is in, its decoded events and how far they are fed.
#[derive(Debug, Clone)]
pub struct Cursor {
    pos: u64,
    file: usize,
    section: usize,
    /// The section's first sample (in the set).
    first: u64,
    events: Arc<Vec<SourceEvent>>,
    next: usize,
    /// Samples fed from this section.
    fed: u64,
    /// The section decoded to its end (no damage, not still being written).
    complete: bool,
    /// Only the start of the section is decoded (a seek needs no more).
    partial: bool,
}

impl Cursor {
    /// The sample shown.
    pub fn pos(&self) -> u64 {
        self.pos
    }
}

/// The figures of a stretch of samples, as a replay shows them (see
/// [`CaptureSet::figures`]).
pub struct FiguresIn<'a> {
    set: &'a mut CaptureSet,
    at: Option<(DataView, Cursor)>,
    first: u64,
    last: u64,
    done: bool,
}

impl Iterator for FiguresIn<'_> {
    type Item = std::io::Result<Figures>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let seen = match self.at.as_mut() {
                None => match self.set.view_at(self.first, false) {
                    Ok(at) => {
                        let seen = at.0.samples_seen;
                        self.at = Some(at);
                        seen.wrapping_sub(1)
                    }
                    Err(e) => {
                        self.done = true;
                        return Some(Err(std::io::Error::other(e)));
                    }
                },
                Some((view, cursor)) => {
                    let seen = view.samples_seen;
                    match self.set.step(view, cursor) {
                        Ok(true) => seen,
                        Ok(false) => {
                            self.done = true;
                            return None;
                        }
                        Err(e) => {
                            self.done = true;
                            return Some(Err(std::io::Error::other(e)));
                        }
                    }
                }
            };
            let (view, cursor) = self.at.as_ref()?;
            self.done |= cursor.pos() >= self.last;
            // A sample before the server is known gives no figures: skip it.
            if view.samples_seen != seen
                && let Some(f) = &view.latest
            {
                return Some(Ok(f.clone()));
            }
        }
        None
    }
}

impl CaptureSet {
    /// The figures of samples `first..=last` (clamped), as a replay shows them: only the
    /// sections holding them are read.
    pub fn figures(&mut self, first: u64, last: u64) -> FiguresIn<'_> {
        FiguresIn {
            set: self,
            at: None,
            first,
            last,
            done: false,
        }
    }

    /// The view at sample `pos` (clamped to the set), with the chart history when `charts`,
    /// and a cursor to step on from there.
    pub fn view_at(&mut self, pos: u64, charts: bool) -> Result<(DataView, Cursor), String> {
        let last = self
            .len()
            .checked_sub(1)
            .ok_or_else(|| format!("{}: no samples to replay", self.name()))?;
        let pos = pos.min(last);
        let (f, k, r) = self
            .locate(pos)
            .ok_or_else(|| format!("{}: sample {pos} is not in the replay", self.name()))?;
        let mut cursor = self.enter(f, k, Some(r + 1))?;
        let charts = if charts {
            self.rebuild_charts(f, k)?
        } else {
            Charts::with_capacity(1)
        };
        let mut view = self.start_view(f, k, charts)?;
        while cursor.fed <= r && self.feed_one(&mut view, &mut cursor) {}
        Ok((view, cursor))
    }

    /// One sample forward; `false` at the end of the set.
    pub fn step(&mut self, view: &mut DataView, cursor: &mut Cursor) -> Result<bool, String> {
        loop {
            if self.feed_one(view, cursor) {
                return Ok(true);
            }
            if cursor.partial {
                // The rest of the section, on from where the seek stopped.
                let whole = self.enter(cursor.file, cursor.section, None)?;
                cursor.events = whole.events;
                cursor.complete = whole.complete;
                cursor.partial = false;
                continue;
            }
            // This section is fed: go on with the next one (or the next file).
            let (f, k) = if cursor.section + 1 < self.files[cursor.file].sections.len() {
                (cursor.file, cursor.section + 1)
            } else if cursor.file + 1 < self.files.len() {
                (cursor.file + 1, 0)
            } else {
                return Ok(false);
            };
            let damaged = !cursor.complete;
            *cursor = self.enter(f, k, None)?;
            if k == 0 || damaged {
                // A file starts from its own derivation; after damage, from the state the
                // writer stored (it saw the events the damage took).
                let charts = std::mem::take(&mut view.charts);
                *view = self.start_view(f, k, charts)?;
            }
        }
    }

    /// Feeds the cursor's next event; `true` once a sample was fed.
    fn feed_one(&self, view: &mut DataView, cursor: &mut Cursor) -> bool {
        while let Some(ev) = cursor.events.get(cursor.next) {
            cursor.next += 1;
            view.ingest(ev, ev.at());
            if matches!(ev, SourceEvent::Sample(_)) {
                cursor.pos = cursor.first + cursor.fed;
                cursor.fed += 1;
                return true;
            }
        }
        false
    }

    /// A cursor at the start of section `k` of file `f`, its events decoded (up to `samples`
    /// samples when given).
    fn enter(&mut self, f: usize, k: usize, samples: Option<u64>) -> Result<Cursor, String> {
        let file = &self.files[f];
        let section = &file.sections[k];
        let first = section.first;
        let partial = samples.is_some_and(|n| n < section.samples);
        let read = file
            .index
            .read_frame_until(section.frame, samples.filter(|_| partial))
            .map_err(|e| e.to_string())?;
        match &read.end {
            End::Truncated { reason, .. } if read.damaged => {
                // Found only now (the scan trusted the section's summary): the samples after
                // the last one decoded, up to the section's last by its summary, are lost.
                let after = read
                    .events
                    .iter()
                    .rev()
                    .find(|e| matches!(e, SourceEvent::Sample(_)))
                    .map(SourceEvent::at)
                    .unwrap_or_else(|| self.read_before(f, k));
                let until = match section.last_at {
                    Some(t) if t > after => Until::SectionEnd(t),
                    _ => self.known_after(f, k),
                };
                self.lose(Lost {
                    what: reason.clone(),
                    after,
                    until,
                    key: (f, Some(k)),
                });
            }
            End::Truncated { reason, .. } => self.note_once(reason.clone()),
            End::Complete => {}
        }
        Ok(Cursor {
            pos: first,
            file: f,
            section: k,
            first,
            events: Arc::new(read.events),
            next: 0,
            fed: 0,
            complete: read.end == End::Complete,
            partial,
        })
    }

    /// The view at the start of section `k` of file `f`, with `charts`.
    fn start_view(&mut self, f: usize, k: usize, charts: Charts) -> Result<DataView, String> {
        let (checkpoint, engine) = self.start_state(f, k)?;
        let mut view = DataView::restore(checkpoint.view, self.recovery.clone(), engine, charts)
            .map_err(|e| {
                format!(
                    "{}: the state before section {k} does not fit its rows ({e})",
                    self.files[f].index.path().display()
                )
            })?;
        view.deriver.set_sizing_span(self.sizing_span);
        Ok(view)
    }

    /// The chart series as they stood before section `k` of file `f`: walks the stored rows
    /// back (across files too) for up to [`CHART_SPAN_S`], keeping what a sequential replay's
    /// series would hold — at most [`SERIES_POINTS`] points, none before time went backwards.
    fn rebuild_charts(&mut self, f: usize, k: usize) -> Result<Charts, String> {
        let mut points: [Vec<(f64, f64)>; CHART_COLUMNS] = Default::default();
        let mut done = [false; CHART_COLUMNS];
        let mut newest: Option<f64> = None;
        let (mut pf, mut pk) = (f, k);
        'walk: loop {
            if pk > 0 {
                pk -= 1;
            } else {
                loop {
                    if pf == 0 {
                        break 'walk;
                    }
                    pf -= 1;
                    if let Some(n) = self.files[pf].sections.len().checked_sub(1) {
                        pk = n;
                        break;
                    }
                }
            }
            let state = self.state(pf, pk)?;
            for row in state.rows.iter().rev() {
                let Some(values) = &row.values else {
                    continue;
                };
                let top = *newest.get_or_insert(row.t);
                if row.t < top - CHART_SPAN_S {
                    break 'walk;
                }
                for (s, v) in values.chart.iter().enumerate() {
                    if done[s] || !v.is_finite() {
                        continue;
                    }
                    // A newer point at an earlier time cleared the series (time went back).
                    if points[s].last().is_some_and(|(t, _)| row.t > *t) {
                        done[s] = true;
                        continue;
                    }
                    points[s].push((row.t, *v));
                    done[s] = points[s].len() >= SERIES_POINTS;
                }
            }
            if done.iter().all(|d| *d) {
                break;
            }
        }
        let mut charts = Charts::default();
        for (series, mut p) in charts.series_mut().into_iter().zip(points) {
            p.reverse();
            *series = Series::from_points(SERIES_POINTS, p);
        }
        Ok(charts)
    }
}
