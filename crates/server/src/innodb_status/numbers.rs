//! Numbers as the generations of InnoDB print them: ids and LSNs in one decimal or hex number
//! or as two 32-bit halves (MySQL ≤ 5.1), and which of those this text uses.

use std::borrow::Cow;

use super::MONITOR_MARK;

/// Whether single-number trx ids are hex (InnoDB plugin, MySQL 5.5, XtraDB, MariaDB 5.5)
/// rather than decimal (MySQL ≥ 5.6, MariaDB ≥ 10.0). Those two families also differ in
/// the header's timestamp: `111010  9:56:19` versus `2019-07-08 14:30:01 7fe6628b9700`.
pub(super) fn ids_are_hex(header: Option<&str>, norm: &[Cow<str>]) -> bool {
    if let Some(h) = header {
        let before = h.split(MONITOR_MARK).next().unwrap_or("");
        for tok in before.split_whitespace() {
            let digits = tok.bytes().filter(u8::is_ascii_digit).count();
            if digits == 8 && tok.len() == 10 && tok.bytes().filter(|&b| b == b'-').count() == 2 {
                return false;
            }
            if digits == 6 && tok.len() == 6 {
                return true;
            }
        }
    }
    // No usable header (a fragment): MySQL ≥ 5.6 prints the purge state; old servers often
    // give themselves away with a hex letter.
    let mut hex_letter = false;
    for l in norm {
        if let Some(rest) = l.strip_prefix("Purge done for trx's n:o < ") {
            if rest.contains("state:") {
                return false;
            }
            hex_letter |= rest.split_whitespace().any(has_hex_letter);
        } else if let Some(rest) = l.strip_prefix("Trx id counter ") {
            hex_letter |= rest.split_whitespace().any(has_hex_letter);
        }
    }
    hex_letter
}

fn has_hex_letter(tok: &str) -> bool {
    tok.bytes().all(|b| b.is_ascii_hexdigit()) && tok.bytes().any(|b| b.is_ascii_alphabetic())
}

/// An LSN or age: one decimal number, or two decimal halves (high, low 32 bits) as printed
/// by MySQL ≤ 5.1's built-in InnoDB (`Log sequence number 0 1234567`).
pub(super) fn parse_two_part(s: &str) -> Option<u64> {
    let mut it = s.split_whitespace();
    let a = decimal(it.next()?)?;
    match it.next().and_then(decimal) {
        Some(b) => combine(a, b),
        None => Some(a),
    }
}

/// A trx or undo number: two halves (`0 418256672`, decimal; hex when a half has a hex
/// letter), or one number, hex when it has a letter or when `hex_ids`.
pub(super) fn parse_id(s: &str, hex_ids: bool) -> Option<u64> {
    let mut it = s.split_whitespace();
    let a = it.next()?;
    if let Some(b) = it
        .next()
        .filter(|b| b.bytes().all(|c| c.is_ascii_hexdigit()))
    {
        if let (Some(x), Some(y)) = (decimal(a), decimal(b)) {
            return combine(x, y);
        }
        if let (Some(x), Some(y)) = (hex(a), hex(b)) {
            return combine(x, y);
        }
    }
    if let Some(h) = a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
        return hex(h);
    }
    if hex_ids || has_hex_letter(a) {
        hex(a)
    } else {
        decimal(a)
    }
}

fn combine(high: u64, low: u64) -> Option<u64> {
    high.checked_mul(1 << 32)?.checked_add(low)
}

fn decimal(tok: &str) -> Option<u64> {
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    tok.parse().ok()
}

fn hex(tok: &str) -> Option<u64> {
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(tok, 16).ok()
}

/// First token as a decimal number, a trailing `,` or `;` allowed.
pub(super) fn first_u64(s: &str) -> Option<u64> {
    let tok = s.split_whitespace().next()?;
    decimal(tok.trim_end_matches([',', ';']))
}
