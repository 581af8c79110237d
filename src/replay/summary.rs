//! What a version 2 capture stores beside the events so a replay never has to read it all:
//! per section, a *state* (the [`Checkpoint`] at the section's end and one [`Row`] per
//! sample) and a small [`SectionSummary`] (counts, times, severities, notable moments).
//! The [`Summarizer`] makes both from the events exactly as the dashboard derives them; the
//! capture writer runs one (it is the writer's [`SectionHook`]), and so does a replay for
//! files that lack them (format 1, or states written by another derivation version).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::data_view::moments::{Moment, ScanState, Scanner};
use crate::data_view::rows::{self, Row};
use crate::data_view::{Charts, DataView, ViewState};
use innodebt_capture::SectionHook;
use innodebt_capture::format;
use innodebt_engine::derive::DERIVATION_VERSION;
use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::{EnginePoints, RecoveryModel, Severity};
use innodebt_server::sample::SourceEvent;

/// Samples per severity bucket of the timeline digest.
pub const BUCKET_SAMPLES: u64 = 60;

/// What derivation knew after some event: the view (deriver, verdict engine, link) and the
/// moment scanner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// [`DERIVATION_VERSION`] of the build that wrote it; another is not trusted.
    pub derivation: u32,
    pub view: ViewState,
    pub scan: ScanState,
}

impl Checkpoint {
    /// Derivation before any event.
    pub fn fresh() -> Self {
        Checkpoint {
            derivation: DERIVATION_VERSION,
            view: DataView::default().state(),
            scan: ScanState::default(),
        }
    }

    pub fn trusted(&self) -> bool {
        self.derivation == DERIVATION_VERSION
    }
}

/// A section's summary as stored after its state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionSummary {
    pub frame_no: u32,
    /// Where the section's marker starts.
    pub marker_at: u64,
    /// Where the previous section's summary frame starts (how a reader walks back).
    pub prev_summary_at: Option<u64>,
    /// Where the section's state frame starts, and its length.
    pub state_at: Option<(u64, u64)>,
    pub records: u64,
    pub samples: u64,
    /// Index of the section's first sample, counted over the file's derivation chain (from 0
    /// in a fresh file; a rotated file continues its predecessor's count).
    pub first_sample: u64,
    pub first_at: Option<DateTime<Utc>>,
    pub last_at: Option<DateTime<Utc>>,
    /// [`DERIVATION_VERSION`] the severities and moments were made with.
    pub derivation: u32,
    /// Worst verdict severity per [`BUCKET_SAMPLES`] samples: `0` ok, `1` warning, `2`
    /// critical, `-` no figures.
    #[serde(default)]
    pub severity: String,
    #[serde(default)]
    pub moments: Vec<Moment>,
    /// Highest history length in the section: sample, time, length (its first sample).
    #[serde(default)]
    pub history_peak: Option<(u64, DateTime<Utc>, u64)>,
}

/// A section's state as the writer makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionState {
    pub checkpoint: Checkpoint,
    pub rows: Vec<Row>,
}

/// A state frame as read: the rows decoded, the checkpoint parsed only when asked for (most
/// reads want only the rows: the chart window, the verdict engine's series).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredState {
    pub rows: Vec<Row>,
    json: Vec<u8>,
}

impl StoredState {
    pub fn checkpoint(&self) -> Result<Checkpoint, String> {
        serde_json::from_slice(&self.json)
            .map_err(|e| format!("its checkpoint cannot be read ({e})"))
    }
}

/// The derivation a rotated file starts from: the checkpoint and the verdict engine's series
/// (which the new file's rows cannot rebuild yet).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Initial {
    pub checkpoint: Checkpoint,
    /// Index the file's first sample has in its derivation chain.
    pub first_sample: u64,
    #[serde(skip)]
    pub engine: EnginePoints,
}

fn body(json: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(4 + json.len() + tail.len());
    b.extend_from_slice(&u32::try_from(json.len()).unwrap_or(u32::MAX).to_le_bytes());
    b.extend_from_slice(json);
    b.extend_from_slice(tail);
    // Written once a section: level 9 costs a few milliseconds and ~10 % of the size.
    zstd::bulk::compress(&b, 9).unwrap_or_default()
}

/// The body's JSON and what follows it, after decompression — bounded in size and in the
/// zstd window it may ask for, whatever the bytes.
fn unbody(body: &[u8]) -> Option<(Vec<u8>, usize)> {
    use std::io::Read;
    let mut dec = zstd::stream::read::Decoder::new(body).ok()?;
    dec.window_log_max(23).ok()?;
    let mut plain = Vec::new();
    dec.take(format::MAX_SKIPPABLE as u64 + 1)
        .read_to_end(&mut plain)
        .ok()?;
    if plain.len() > format::MAX_SKIPPABLE {
        return None;
    }
    let n = usize::try_from(format::le_u32(&plain, 0)?).ok()?;
    let end = 4usize.checked_add(n)?;
    (end <= plain.len()).then_some((plain, end))
}

/// A state frame's body.
pub fn encode_state(state: &SectionState) -> Vec<u8> {
    let json = serde_json::to_vec(&state.checkpoint).unwrap_or_default();
    body(&json, &rows::encode(&state.rows))
}

/// A state frame's body back; `Err` says what is wrong.
pub fn decode_state(body: &[u8]) -> Result<StoredState, String> {
    let (plain, end) = unbody(body).ok_or("its data does not decompress")?;
    let rows = rows::decode(&plain[end..]).ok_or("its rows are malformed")?;
    Ok(StoredState {
        rows,
        json: plain[4..end].to_vec(),
    })
}

/// An initial frame's body.
pub fn encode_initial(initial: &Initial) -> Vec<u8> {
    let json = serde_json::to_vec(initial).unwrap_or_default();
    let mut tail = Vec::new();
    for s in &initial.engine {
        tail.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_le_bytes());
        for (t, v) in s {
            tail.extend_from_slice(&t.to_le_bytes());
            tail.extend_from_slice(&v.to_le_bytes());
        }
    }
    body(&json, &tail)
}

pub fn decode_initial(body: &[u8]) -> Result<Initial, String> {
    let (plain, end) = unbody(body).ok_or("its data does not decompress")?;
    let mut initial: Initial = serde_json::from_slice(&plain[4..end])
        .map_err(|e| format!("its checkpoint cannot be read ({e})"))?;
    let mut at = end;
    let f = |at: usize| {
        plain
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(f64::from_le_bytes)
    };
    for series in initial.engine.iter_mut() {
        let n = format::le_u32(&plain, at).ok_or("its series are cut")? as usize;
        at += 4;
        if n > plain.len() / 16 {
            return Err("its series claim more points than it holds".into());
        }
        for _ in 0..n {
            let (t, v) = (f(at), f(at + 8));
            let (Some(t), Some(v)) = (t, v) else {
                return Err("its series are cut".into());
            };
            series.push((t, v));
            at += 16;
        }
    }
    Ok(initial)
}

fn severity_char(s: Option<Severity>) -> char {
    match s {
        None => '-',
        Some(Severity::Ok) => '0',
        // Older readers take any other character as "no severity": the same thing to them.
        Some(Severity::Unknown) => '?',
        Some(Severity::Warning) => '1',
        Some(Severity::Critical) => '2',
    }
}

/// A severity bucket's character back (see [`SectionSummary::severity`]).
pub fn severity_of(c: char) -> Option<Severity> {
    match c {
        '0' => Some(Severity::Ok),
        '?' => Some(Severity::Unknown),
        '1' => Some(Severity::Warning),
        '2' => Some(Severity::Critical),
        _ => None,
    }
}

/// Derives events as the dashboard does and cuts what a capture stores per section.
#[derive(Debug, Clone)]
pub struct Summarizer {
    view: DataView,
    scan: Scanner,
    rows: Vec<Row>,
    records: u64,
    first_sample: u64,
    severity: String,
    bucket: Option<Option<Severity>>,
    peak: Option<(u64, DateTime<Utc>, u64)>,
}

impl SectionHook for Summarizer {
    fn event(&mut self, event: &SourceEvent) {
        self.feed(event);
    }

    fn end_section(&mut self, frame_no: u32) -> (Vec<u8>, serde_json::Value) {
        let (state, summary) = Summarizer::end_section(self, frame_no);
        (
            encode_state(&state),
            serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null),
        )
    }

    fn carry(&self) -> Vec<u8> {
        encode_initial(&self.initial())
    }
}

impl Default for Summarizer {
    fn default() -> Self {
        Summarizer::resume(&Checkpoint::fresh(), EnginePoints::default())
            .unwrap_or_else(|_| Summarizer::blank(DataView::default(), Scanner::default()))
    }
}

impl Summarizer {
    fn blank(view: DataView, scan: Scanner) -> Self {
        let first_sample = scan.samples();
        Summarizer {
            view,
            scan,
            rows: Vec::new(),
            records: 0,
            first_sample,
            severity: String::new(),
            bucket: None,
            peak: None,
        }
    }

    /// Continues derivation from a checkpoint, with the verdict engine's series points.
    pub fn resume(c: &Checkpoint, engine: EnginePoints) -> Result<Self, String> {
        // The writer's charts are never drawn: keep one point.
        let view = DataView::restore(
            c.view.clone(),
            RecoveryModel::published_default(),
            engine,
            Charts::with_capacity(1),
        )?;
        Ok(Summarizer::blank(view, Scanner::from_state(c.scan.clone())))
    }

    /// Where derivation stands (for the next file of a rotation).
    pub fn initial(&self) -> Initial {
        Initial {
            checkpoint: self.checkpoint(),
            first_sample: self.scan.samples(),
            engine: self.view.deriver.engine_points(),
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            derivation: DERIVATION_VERSION,
            view: self.view.state(),
            scan: self.scan.state(),
        }
    }

    /// Events in the current section so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    pub fn feed(&mut self, ev: &SourceEvent) {
        self.records += 1;
        let step = self.view.step(ev, ev.at());
        let figures = self.view.latest.as_ref().filter(|_| step.figures);
        self.scan.feed(ev, figures);
        let SourceEvent::Sample(s) = ev else {
            return;
        };
        let here = self.scan.samples().saturating_sub(1);
        self.rows.push(Row::new(s.taken_at, s.mono_s, figures));
        let worst = figures.and_then(Figures::severity);
        let history = figures.and_then(|f| f.history.length);
        if let Some(h) = history
            && self.peak.is_none_or(|(_, _, p)| h > p)
        {
            self.peak = Some((here, s.taken_at, h));
        }
        self.bucket = Some(match self.bucket {
            Some(b) => b.max(worst),
            None => worst,
        });
        if (here + 1).is_multiple_of(BUCKET_SAMPLES) {
            self.close_bucket();
        }
    }

    fn close_bucket(&mut self) {
        if let Some(b) = self.bucket.take() {
            self.severity.push(severity_char(b));
        }
    }

    /// Ends the section: its state (the checkpoint now and its rows) and its summary (the
    /// frame's offsets are the caller's to fill in).
    pub fn end_section(&mut self, frame_no: u32) -> (SectionState, SectionSummary) {
        self.close_bucket();
        let rows = std::mem::take(&mut self.rows);
        let summary = SectionSummary {
            frame_no,
            marker_at: 0,
            prev_summary_at: None,
            state_at: None,
            records: self.records,
            samples: rows.len() as u64,
            first_sample: self.first_sample,
            first_at: rows.first().map(|r| r.at),
            last_at: rows.last().map(|r| r.at),
            derivation: DERIVATION_VERSION,
            severity: std::mem::take(&mut self.severity),
            moments: self.scan.take(),
            history_peak: self.peak.take(),
        };
        self.records = 0;
        self.first_sample = self.scan.samples();
        let state = SectionState {
            checkpoint: self.checkpoint(),
            rows,
        };
        (state, summary)
    }
}
