//! Which servers `/probe?target=` may reach beyond those the config file names. By default
//! none: a probe of any `host:port` would let whoever reaches the exporter make it connect
//! anywhere with innodebt's own credentials (mysqld_exporter's multi-target mode has the same
//! hole; its docs say to keep the exporter private). `--probe-allow` (or `probe_allow` in
//! `[serve]`) opens it to host patterns: `*` matches any run of characters, a `:PORT` limits
//! the port, `*` alone allows every target.

#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern {
    host: String,
    port: Option<u16>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeAllow {
    patterns: Vec<Pattern>,
}

impl ProbeAllow {
    /// The patterns of the flag (or the config key); an error names the bad one.
    pub fn parse<S: AsRef<str>>(list: &[S]) -> Result<ProbeAllow, String> {
        let patterns = list
            .iter()
            .map(|p| p.as_ref().trim())
            .filter(|p| !p.is_empty())
            .map(pattern)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ProbeAllow { patterns })
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.to_ascii_lowercase();
        self.patterns
            .iter()
            .any(|p| p.port.is_none_or(|q| q == port) && glob(&p.host, &host))
    }

    /// For the start-up line.
    pub fn describe(&self) -> String {
        self.patterns
            .iter()
            .map(|p| match p.port {
                Some(port) if p.host.contains(':') => format!("[{}]:{port}", p.host),
                Some(port) => format!("{}:{port}", p.host),
                None => p.host.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn pattern(s: &str) -> Result<Pattern, String> {
    let bad = |why: &str| {
        format!(
            "--probe-allow {s:?}: {why}; give host patterns such as db1.example.com, \
             'db*.example.com', 10.0.0.*:3306 or [::1]"
        )
    };
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, after) = rest.split_once(']').ok_or_else(|| bad("no closing ]"))?;
        match after.strip_prefix(':') {
            Some(p) => (h, Some(p)),
            None if after.is_empty() => (h, None),
            None => return Err(bad("text after ]")),
        }
    } else if s.matches(':').count() == 1 {
        let (h, p) = s.split_once(':').unwrap_or((s, ""));
        (h, Some(p))
    } else {
        (s, None)
    };
    let port = match port {
        Some(p) => Some(
            p.parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
        ),
        None => None,
    };
    let ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '*'));
    if !ok {
        return Err(bad("a host is letters, digits, '.', '-', '_', ':' and '*'"));
    }
    Ok(Pattern {
        host: host.to_ascii_lowercase(),
        port,
    })
}

/// `*` matches any run of characters (dots too); everything else matches itself.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_hosts_and_ports() {
        let a = ProbeAllow::parse(&["db*.example.com", "10.0.0.*:3306", "[::1]", "Solo"]).unwrap();
        assert!(a.allows("db1.example.com", 3306));
        assert!(a.allows("DB-west.a.example.com", 3307));
        assert!(!a.allows("web1.example.com", 3306));
        assert!(!a.allows("db1.example.com.evil.net", 3306));
        assert!(a.allows("10.0.0.7", 3306));
        assert!(!a.allows("10.0.0.7", 3307));
        assert!(a.allows("::1", 3310));
        assert!(a.allows("solo", 1));
        assert!(!a.allows("solo2", 1));
        let any = ProbeAllow::parse(&["*"]).unwrap();
        assert!(any.allows("anything.at.all", 1));
        let none = ProbeAllow::parse::<&str>(&[]).unwrap();
        assert!(none.is_empty() && !none.allows("127.0.0.1", 3306));
        assert_eq!(a.describe(), "db*.example.com, 10.0.0.*:3306, ::1, solo");
    }

    #[test]
    fn a_bad_pattern_is_named() {
        for bad in ["db1:0", "db1:x", "[::1", "a b", "u@db1", "db/1"] {
            let e = ProbeAllow::parse(&[bad]).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }
}
