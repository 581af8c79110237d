//! The audit trail of runtime changes: one JSON line per change, kill or wait, appended to
//! `$XDG_STATE_HOME/innodebt/audit.log` (else `~/.local/state/innodebt/audit.log`). The file
//! is the user's own (mode 0600, directory 0700) and never holds a password: entries carry
//! the account name, the server label and the statement, nothing from the connection options.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::ControlError;
use innodebt_server::sample::AuditEntry;

/// Where the audit lines go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditLog {
    path: PathBuf,
}

/// `$XDG_STATE_HOME/innodebt/audit.log`, else `~/.local/state/innodebt/audit.log`.
pub fn default_path() -> Option<PathBuf> {
    let state = dirs::state_dir().or_else(|| dirs::home_dir().map(|h| h.join(".local/state")))?;
    Some(state.join("innodebt").join("audit.log"))
}

impl AuditLog {
    /// The default location. Nothing is created until the first [`append`](Self::append).
    pub fn open_default() -> Result<AuditLog, ControlError> {
        default_path()
            .map(AuditLog::at)
            .ok_or(ControlError::NoStateDir)
    }

    /// A log at `path` (tests, or a user's choice).
    pub fn at(path: impl Into<PathBuf>) -> AuditLog {
        AuditLog { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line. Creates the directory (0700) and the file (0600) when missing, and
    /// takes group/other permissions away from an existing file. One `write` of the whole line
    /// to an `O_APPEND` file: concurrent writers do not interleave within a line.
    pub fn append(&self, entry: &AuditEntry) -> Result<(), ControlError> {
        let err = |source| ControlError::Audit {
            path: self.path.clone(),
            source,
        };
        let mut line = serde_json::to_string(entry).map_err(|e| err(e.into()))?;
        line.push('\n');
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).map_err(err)?;
        }
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&self.path).map_err(err)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = file.metadata().map_err(err)?;
            if meta.permissions().mode() & 0o077 != 0 {
                file.set_permissions(fs::Permissions::from_mode(0o600))
                    .map_err(err)?;
            }
        }
        file.write_all(line.as_bytes()).map_err(err)?;
        file.flush().map_err(err)
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn entry(result: &str) -> AuditEntry {
        AuditEntry {
            at: Utc::now(),
            account: "dba@%".into(),
            server: "db1:3306".into(),
            action: "SET GLOBAL innodb_max_purge_lag = 0".into(),
            old_value: Some("100000".into()),
            new_value: Some("0".into()),
            result: result.into(),
        }
    }

    #[test]
    fn appends_private_json_lines() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state/innodebt/audit.log");
        let log = AuditLog::at(&path);
        log.append(&entry("ok")).unwrap();
        log.append(&entry("error: x")).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let back: AuditEntry = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(back.result, "error: x");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().unwrap()), 0o700);
        }
    }

    #[cfg(unix)]
    #[test]
    fn tightens_a_loose_existing_file() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("audit.log");
        fs::write(&path, "").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        AuditLog::at(&path).append(&entry("ok")).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn default_path_ends_in_innodebt() {
        if let Some(p) = default_path() {
            assert!(p.ends_with("innodebt/audit.log"), "{}", p.display());
        }
    }
}
