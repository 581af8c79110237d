//! Basic authentication against the web config's bcrypt hashes. bcrypt is slow on purpose
//! (cost 10 ≈ 50–70 ms); a scrape every 15 s must not pay that each time, so a credential
//! that verified is remembered (by its SHA-256, never the password) as the exporter-toolkit
//! does. Failures are not remembered and go through bcrypt one at a time, so a flood of
//! wrong passwords costs at most one core and never delays a scraper whose credential is
//! known. An unknown user is checked against a dummy hash: the answer takes as long as for
//! a known one, and says nothing about which users exist.

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;

use base64::Engine as _;

/// Verified credentials kept; past that the set starts again (a handful of scrapers is
/// the normal case).
const CACHE_MAX: usize = 256;

pub struct BasicAuth {
    users: BTreeMap<String, String>,
    verified: Mutex<HashSet<[u8; 32]>>,
    /// One bcrypt at a time.
    gate: tokio::sync::Mutex<()>,
    /// For unknown users (same cost as a typical hash).
    dummy: String,
}

impl BasicAuth {
    /// Checks every hash up front: a typo in the file is an error at start, not a 401 later.
    pub fn new(users: BTreeMap<String, String>) -> Result<BasicAuth, String> {
        for (user, hash) in &users {
            if hash.parse::<bcrypt::HashParts>().is_err() {
                return Err(format!(
                    "basic_auth_users: {user:?}: not a bcrypt hash ($2y$10$…); make one with \
                     htpasswd -nBC 10 \"\" | tr -d ':\\n'"
                ));
            }
        }
        let dummy = bcrypt::hash("innodebt: no such user", 10)
            .map_err(|e| format!("bcrypt is unusable here: {e}"))?;
        Ok(BasicAuth {
            users,
            verified: Mutex::new(HashSet::new()),
            gate: tokio::sync::Mutex::new(()),
            dummy,
        })
    }

    /// Whether the `Authorization` header carries a known user and its password.
    pub async fn allows(&self, authorization: Option<&str>) -> bool {
        let Some((user, password)) = authorization.and_then(decode) else {
            return false;
        };
        let hash = self.users.get(&user);
        let key = fingerprint(&user, &password, hash.map_or("", String::as_str));
        if hash.is_some() && self.verified.lock().is_ok_and(|v| v.contains(&key)) {
            return true;
        }
        let hash = hash.cloned().unwrap_or_else(|| self.dummy.clone());
        let known = self.users.contains_key(&user);
        let _one_at_a_time = self.gate.lock().await;
        let ok = tokio::task::spawn_blocking(move || bcrypt::verify(password, &hash))
            .await
            .is_ok_and(|r| r.unwrap_or(false))
            && known;
        if ok && let Ok(mut v) = self.verified.lock() {
            if v.len() >= CACHE_MAX {
                v.clear();
            }
            v.insert(key);
        }
        ok
    }
}

/// `Basic base64(user:password)` → (user, password).
fn decode(header: &str) -> Option<(String, String)> {
    let (scheme, b64) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

/// The hash is part of the key: a changed file does not keep an old password working.
fn fingerprint(user: &str, password: &str, hash: &str) -> [u8; 32] {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [user, password, hash] {
        ctx.update(&(part.len() as u64).to_le_bytes());
        ctx.update(part.as_bytes());
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(user: &str, pw: &str) -> String {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pw}"))
        )
    }

    #[tokio::test]
    async fn right_wrong_and_remembered() {
        let users = BTreeMap::from([("prom".to_string(), bcrypt::hash("s3cret", 10).unwrap())]);
        let auth = BasicAuth::new(users).unwrap();
        assert!(!auth.allows(None).await);
        assert!(!auth.allows(Some("Bearer x")).await);
        assert!(!auth.allows(Some(&basic("prom", "wrong"))).await);
        assert!(!auth.allows(Some(&basic("nobody", "s3cret"))).await);
        let started = std::time::Instant::now();
        assert!(auth.allows(Some(&basic("prom", "s3cret"))).await);
        let first = started.elapsed();
        let started = std::time::Instant::now();
        for _ in 0..20 {
            assert!(auth.allows(Some(&basic("prom", "s3cret"))).await);
        }
        // Twenty remembered checks cost less than the one bcrypt.
        assert!(
            started.elapsed() < first,
            "{:?} vs {first:?}",
            started.elapsed()
        );
        // A password containing ':' is the rest after the first one.
        let users = BTreeMap::from([("u".to_string(), bcrypt::hash("a:b", 4).unwrap())]);
        assert!(
            BasicAuth::new(users)
                .unwrap()
                .allows(Some(&basic("u", "a:b")))
                .await
        );
    }

    #[test]
    fn a_bad_hash_is_named() {
        let users = BTreeMap::from([("alice".to_string(), "$2y$10$short".to_string())]);
        let e = BasicAuth::new(users).err().unwrap();
        assert!(
            e.contains("\"alice\"") && e.contains("not a bcrypt hash"),
            "{e}"
        );
    }
}
