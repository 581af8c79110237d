//! A figure no server can produce (a checkpoint age past the log's capacity, a negative rate,
//! more dirty pages than the pool holds): named once, in derivation, with why, so panels mark
//! it and the JSON carries it instead of either drawing it as the server's truth.

use serde::{Deserialize, Serialize};

use super::{FigureId, Figures};

/// One figure flagged as impossible, and why (`suspect[]` in the JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suspect {
    pub figure: FigureId,
    /// In the DBA's words, with the figures that contradict each other.
    pub reason: String,
}

impl Figures {
    /// Why `figure` cannot be true, when derivation found it impossible.
    pub fn suspect(&self, figure: FigureId) -> Option<&Suspect> {
        self.suspect.iter().find(|s| s.figure == figure)
    }
}
