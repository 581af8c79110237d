//! What `--what-if` can change, checked against the recorded server: which variables have a
//! model on which flavour, their ranges, and the redo capacity a size implies.

use serde::{Deserialize, Serialize};

use crate::units::bytes;
use crate::verdicts::layout::RedoLayout;
use innodebt_server::flavor::{DmlDelayRule, RedoModel};
use innodebt_server::sample::ServerInfo;

/// What `--what-if` can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhatIfVariable {
    LogFileSize,
    RedoLogCapacity,
    MaxPurgeLag,
    MaxPurgeLagDelay,
    PurgeThreads,
}

/// The variables `--what-if` knows, and why some have no model.
const KNOWN: &str = "innodb_log_file_size, innodb_redo_log_capacity, innodb_max_purge_lag, \
                     innodb_max_purge_lag_delay, innodb_purge_threads (MySQL ≥ 8.0.14)";

impl WhatIfVariable {
    pub fn name(self) -> &'static str {
        match self {
            WhatIfVariable::LogFileSize => "innodb_log_file_size",
            WhatIfVariable::RedoLogCapacity => "innodb_redo_log_capacity",
            WhatIfVariable::MaxPurgeLag => "innodb_max_purge_lag",
            WhatIfVariable::MaxPurgeLagDelay => "innodb_max_purge_lag_delay",
            WhatIfVariable::PurgeThreads => "innodb_purge_threads",
        }
    }

    /// The variable a variable name is, or why there is no model for it.
    pub fn from_name(name: &str) -> Result<WhatIfVariable, String> {
        match name.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "innodb_log_file_size" => Ok(WhatIfVariable::LogFileSize),
            "innodb_redo_log_capacity" => Ok(WhatIfVariable::RedoLogCapacity),
            "innodb_max_purge_lag" => Ok(WhatIfVariable::MaxPurgeLag),
            "innodb_max_purge_lag_delay" => Ok(WhatIfVariable::MaxPurgeLagDelay),
            v @ ("innodb_io_capacity" | "innodb_io_capacity_max") => Err(format!(
                "--what-if has no model for {v}: it sets how fast the page cleaner flushes, \
                 which changes the checkpoint age and dirty pages the workload reaches, and a \
                 capture records only the outcome of flushing. Models exist for {KNOWN}"
            )),
            "innodb_purge_threads" => Ok(WhatIfVariable::PurgeThreads),
            "innodb_purge_batch_size" => Err(format!(
                "--what-if has no model for {}: it changes how fast purge removes history, and \
                 a capture does not measure purge throughput per thread. Models exist for {KNOWN}",
                name.trim()
            )),
            _ => Err(format!(
                "--what-if: unknown variable {:?}: models exist for {KNOWN}",
                name.trim()
            )),
        }
    }
}

/// One `--what-if VAR=VALUE`, checked against the server the capture is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setting {
    #[serde(rename = "knob")]
    pub variable: WhatIfVariable,
    pub value: u64,
}

/// The settings of one scenario, checked against the recorded server: the redo capacity it
/// implies (`None`: the recorded one) and the purge lag and delay (`None`: recorded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub settings: Vec<Setting>,
    pub redo_capacity: Option<u64>,
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay: Option<u64>,
    pub purge_threads: Option<u64>,
    /// `4G`, `innodb_max_purge_lag = 100000`: how the result names the scenario.
    pub label: String,
}

const MAX_PURGE_LAG_MAX: u64 = 4_294_967_295;
const MAX_PURGE_LAG_DELAY_MAX: u64 = 10_000_000;

impl Scenario {
    /// Checks `settings` against the recorded server (flavour and layout).
    pub fn new(settings: &[(String, u64)], info: &ServerInfo) -> Result<Scenario, String> {
        let flavor = info.flavor;
        let layout = RedoLayout::from_info(info);
        let mut s = Scenario {
            settings: Vec::new(),
            redo_capacity: None,
            max_purge_lag: None,
            max_purge_lag_delay: None,
            purge_threads: None,
            label: String::new(),
        };
        let mut labels = Vec::new();
        for (name, value) in settings {
            let variable = WhatIfVariable::from_name(name)?;
            let value = *value;
            match variable {
                WhatIfVariable::LogFileSize | WhatIfVariable::RedoLogCapacity => {
                    let wants = match flavor.redo {
                        RedoModel::Mysql8030 => WhatIfVariable::RedoLogCapacity,
                        _ => WhatIfVariable::LogFileSize,
                    };
                    if variable != wants {
                        return Err(format!(
                            "--what-if {}: {} sizes redo with {}, not {}: use --what-if {}=SIZE",
                            variable.name(),
                            flavor.display_name(),
                            wants.name(),
                            variable.name(),
                            wants.name()
                        ));
                    }
                    let files = flavor.redo_size_files(layout.files_in_group);
                    let capacity = value.saturating_mul(files);
                    let (min, max) = flavor.redo_capacity_range(layout.files_in_group);
                    if !(min..=max).contains(&capacity) {
                        return Err(format!(
                            "--what-if {}={value}: {} accepts {} to {}{}",
                            variable.name(),
                            flavor.display_name(),
                            bytes(min / files),
                            bytes(max / files),
                            if files > 1 {
                                format!(" per file ({files} files)")
                            } else {
                                String::new()
                            }
                        ));
                    }
                    s.redo_capacity = Some(capacity);
                    labels.push(format!("{} = {}", variable.name(), size_setting(value)));
                }
                WhatIfVariable::PurgeThreads => {
                    if flavor.dml_delay_rule() != DmlDelayRule::Mysql8014 {
                        return Err(format!(
                            "--what-if has no model for innodb_purge_threads on {}: there it \
                             changes only how fast purge runs, and a capture does not measure \
                             purge throughput per thread (on MySQL ≥ 8.0.14 it gates the DML \
                             delay, which is modelled). Models exist for {KNOWN}",
                            flavor.display_name()
                        ));
                    }
                    if !(1..=32).contains(&value) {
                        return Err(format!(
                            "--what-if innodb_purge_threads={value}: the server accepts 1 to 32"
                        ));
                    }
                    s.purge_threads = Some(value);
                    labels.push(format!("innodb_purge_threads = {value}"));
                }
                WhatIfVariable::MaxPurgeLag | WhatIfVariable::MaxPurgeLagDelay => {
                    let max = if variable == WhatIfVariable::MaxPurgeLag {
                        MAX_PURGE_LAG_MAX
                    } else {
                        MAX_PURGE_LAG_DELAY_MAX
                    };
                    if value > max {
                        return Err(format!(
                            "--what-if {}={value}: the server accepts 0 to {max}",
                            variable.name()
                        ));
                    }
                    if variable == WhatIfVariable::MaxPurgeLag {
                        s.max_purge_lag = Some(value);
                    } else {
                        s.max_purge_lag_delay = Some(value);
                    }
                    labels.push(format!("{} = {value}", variable.name()));
                }
            }
            s.settings.push(Setting { variable, value });
        }
        if s.settings.is_empty() {
            return Err("--what-if needs VAR=VALUE, e.g. innodb_log_file_size=4G".into());
        }
        s.label = labels.join(", ");
        Ok(s)
    }
}

impl Scenario {
    /// Whether the scenario changes anything the DML delay depends on.
    pub fn changes_purge(&self) -> bool {
        self.max_purge_lag.is_some()
            || self.max_purge_lag_delay.is_some()
            || self.purge_threads.is_some()
    }

    pub(super) fn label_redo(&self) -> Option<String> {
        self.settings
            .iter()
            .find(|x| {
                matches!(
                    x.variable,
                    WhatIfVariable::LogFileSize | WhatIfVariable::RedoLogCapacity
                )
            })
            .map(|x| format!("{} = {}", x.variable.name(), size_setting(x.value)))
    }

    pub(super) fn label_purge(&self) -> String {
        let parts: Vec<String> = self
            .settings
            .iter()
            .filter(|x| {
                matches!(
                    x.variable,
                    WhatIfVariable::MaxPurgeLag
                        | WhatIfVariable::MaxPurgeLagDelay
                        | WhatIfVariable::PurgeThreads
                )
            })
            .map(|x| format!("{} = {}", x.variable.name(), x.value))
            .collect();
        parts.join(", ")
    }
}

/// `4G`, `304M`, or bytes when not a whole MiB.
pub fn size_setting(v: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if v >= 1024 * MIB && v.is_multiple_of(1024 * MIB) {
        format!("{}G", v / (1024 * MIB))
    } else if v.is_multiple_of(MIB) {
        format!("{}M", v / MIB)
    } else {
        v.to_string()
    }
}
