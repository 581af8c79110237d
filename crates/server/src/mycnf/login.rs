//! `~/.mylogin.cnf`, the option file `mysql_config_editor` writes: obfuscated, not secret (the
//! key is in the file). Read as the mysql client reads it (`my_load_defaults` and
//! `mysql_file_getline` in mysys/my_default.cc): after every other option file, even with
//! `--no-defaults`; only if no one but its owner may read it; the groups of the other files
//! plus the `--login-path` one. `MYSQL_TEST_LOGIN_FILE` names another file.
//!
//! Layout: 4 unused bytes, a 20-byte key, then per line a 4-byte little-endian length and
//! that many bytes of the line encrypted with AES-128-ECB and PKCS padding. The key is folded
//! to 16 bytes by XOR (`my_aes_create_key`: `rkey[i % 16] ^= key[i]`).

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use aes::Aes128;
use aes::cipher::{BlockCipherDecrypt, KeyInit};
use thiserror::Error;

use super::{Entry, GROUPS, Item, Loaded, MyCnfError, Origin, Setting, merge_unit, parse};

const UNUSED: usize = 4;
const KEY_LEN: usize = 20;
const BLOCK: usize = 16;
/// mysql's line buffer: a longer line is no login file.
const MAX_LINE: usize = 4096;
/// Group or other may read, write or run it, or its owner run it: mysql ignores the file.
const TOO_OPEN: u32 = 0o177;

/// Why bytes are not a login file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoginFileError {
    #[error("it is {0} bytes, shorter than the 24-byte header of mysql_config_editor's format")]
    TooShort(usize),
    #[error("line {0} is cut off (the file ends inside it)")]
    Truncated(usize),
    #[error("line {line} claims {len} bytes, not a whole number of AES blocks up to 4096")]
    BadLength { line: usize, len: u32 },
    #[error("line {0} does not decrypt (bad padding): the file is damaged or not a login file")]
    BadPadding(usize),
}

/// The 20-byte key folded to AES-128's 16, as `my_aes_create_key` does.
pub fn fold_key(key: &[u8; KEY_LEN]) -> [u8; BLOCK] {
    let mut folded = [0u8; BLOCK];
    for (i, b) in key.iter().enumerate() {
        folded[i % BLOCK] ^= b;
    }
    folded
}

/// The plain text of a login file. Pure; never panics, whatever the bytes.
pub fn decode(bytes: &[u8]) -> Result<String, LoginFileError> {
    let header = UNUSED + KEY_LEN;
    let key: &[u8; KEY_LEN] = bytes
        .get(UNUSED..header)
        .and_then(|k| k.try_into().ok())
        .ok_or(LoginFileError::TooShort(bytes.len()))?;
    let cipher = Aes128::new(&fold_key(key).into());
    let mut text = Vec::new();
    let mut rest = &bytes[header..];
    let mut line = 0;
    while !rest.is_empty() {
        line += 1;
        let (len, after) = rest
            .split_first_chunk::<4>()
            .ok_or(LoginFileError::Truncated(line))?;
        let len = u32::from_le_bytes(*len);
        let size = usize::try_from(len).unwrap_or(usize::MAX);
        if size == 0 || size % BLOCK != 0 || size > MAX_LINE {
            return Err(LoginFileError::BadLength { line, len });
        }
        let (encrypted, after) = after
            .split_at_checked(size)
            .ok_or(LoginFileError::Truncated(line))?;
        let mut plain = Vec::with_capacity(size);
        for chunk in encrypted.chunks_exact(BLOCK) {
            let mut block = aes::Block::default();
            block.copy_from_slice(chunk);
            cipher.decrypt_block(&mut block);
            plain.extend_from_slice(&block);
        }
        let pad = plain.last().copied().map_or(0, usize::from);
        let body = plain
            .len()
            .checked_sub(pad)
            .filter(|_| (1..=BLOCK).contains(&pad));
        match body {
            Some(body) if plain[body..].iter().all(|&b| usize::from(b) == pad) => {
                text.extend_from_slice(&plain[..body]);
            }
            _ => return Err(LoginFileError::BadPadding(line)),
        }
        rest = after;
    }
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// Reads the login file at `path` into `loaded`, over what the other files said. With
/// `login_path` (the user asked for it) a file that cannot be used is an error; without, a
/// warning, as the mysql client skips it.
pub fn load_login_file(
    loaded: &mut Loaded,
    path: &Path,
    login_path: Option<&str>,
) -> Result<(), MyCnfError> {
    let asked = |reason: String| match login_path {
        Some(name) => Err(MyCnfError::LoginFile {
            path: path.to_path_buf(),
            name: name.to_owned(),
            reason,
        }),
        None => Ok(Some(reason)),
    };
    let skipped = match read(path) {
        Ok(Some(text)) => match parse(&text) {
            Ok(items) => {
                apply(loaded, path, items, login_path);
                None
            }
            Err(e) => asked(e.to_string())?,
        },
        Ok(None) => return Ok(()),
        Err(reason) => asked(reason)?,
    };
    if let Some(reason) = skipped {
        loaded
            .warnings
            .push(format!("skipped login file {}: {reason}", path.display()));
    }
    Ok(())
}

/// The text of the file; `None` when there is none, as mysql without one.
fn read(path: &Path) -> Result<Option<String>, String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if meta.is_file() && meta.permissions().mode() & TOO_OPEN != 0 {
        return Err(format!(
            "others may read it (mode {:o}); the mysql client ignores it too: chmod 600 {}",
            meta.permissions().mode() & 0o777,
            path.display()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    decode(&bytes).map(Some).map_err(|e| e.to_string())
}

fn apply(loaded: &mut Loaded, path: &Path, items: Vec<Item>, login_path: Option<&str>) {
    let mut entries = Vec::new();
    let mut found = false;
    for item in items {
        // Includes mean nothing in a login file (mysql_config_editor writes none).
        let Item::Option {
            group,
            key,
            value,
            line,
        } = item
        else {
            continue;
        };
        let rank = if login_path == Some(group.as_str()) {
            found = true;
            Some(GROUPS.len())
        } else {
            GROUPS.iter().position(|g| *g == group)
        };
        if let Some(rank) = rank {
            entries.push(Entry {
                rank,
                key,
                setting: Setting {
                    value,
                    origin: Origin {
                        path: path.to_path_buf(),
                        line,
                    },
                },
            });
        }
    }
    if let (Some(name), false) = (login_path, found) {
        loaded.warnings.push(format!(
            "login path [{name}] is not in {} (mysql_config_editor print --all lists them)",
            path.display()
        ));
    }
    loaded.read.push(path.to_path_buf());
    merge_unit(&mut loaded.settings, entries);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_folds_by_xor() {
        let mut key = [0u8; KEY_LEN];
        key[0] = 0x0f;
        key[16] = 0xf0;
        key[3] = 1;
        key[19] = 3;
        let folded = fold_key(&key);
        assert_eq!(folded[0], 0xff);
        assert_eq!(folded[3], 2);
        assert!(folded[4..].iter().all(|&b| b == 0));
    }

    /// The header of a file whose key folds to 00 01 … 0f (its last four bytes are zero).
    fn header() -> Vec<u8> {
        let mut bytes = vec![0u8; UNUSED];
        bytes.extend(0u8..16);
        bytes.extend([0u8; 4]);
        bytes
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    /// FIPS-197 appendix C.1: AES-128 with key 000102…0f turns 00112233…ff into 69c4e0d8…;
    /// the padding block (sixteen 0x10) was encrypted with `openssl enc -aes-128-ecb -nopad`.
    #[test]
    fn decrypts_the_fips_197_vector() {
        let mut file = header();
        file.extend(32u32.to_le_bytes());
        file.extend(hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
        file.extend(hex("954f64f2e4e86e9eee82d20216684899"));
        let want = hex("00112233445566778899aabbccddeeff");
        assert_eq!(decode(&file).unwrap(), String::from_utf8_lossy(&want));
    }

    /// Two lines, each encrypted by `openssl enc -aes-128-ecb -K 000102…0f` (PKCS padding).
    #[test]
    fn decodes_lines_openssl_encrypted() {
        let mut file = header();
        for line in [
            "e4f7ded15a0d20735de0ac7cdd085903",
            "cd57fb297b2008cb3849dda95a9b7060",
        ] {
            file.extend(16u32.to_le_bytes());
            file.extend(hex(line));
        }
        assert_eq!(decode(&file).unwrap(), "[client]\nuser = ann\n");
        // One byte changed: the padding no longer checks out.
        let last = file.len() - 1;
        file[last] ^= 1;
        assert_eq!(decode(&file), Err(LoginFileError::BadPadding(2)));
    }

    #[test]
    fn malformed_files_are_errors_not_panics() {
        assert_eq!(decode(b"short"), Err(LoginFileError::TooShort(5)));
        let header = [7u8; 24];
        assert_eq!(decode(&header), Ok(String::new()));
        let mut cut = header.to_vec();
        cut.extend_from_slice(&[16, 0]);
        assert_eq!(decode(&cut), Err(LoginFileError::Truncated(1)));
        let mut odd = header.to_vec();
        odd.extend_from_slice(&[15, 0, 0, 0]);
        odd.extend_from_slice(&[0; 15]);
        assert!(matches!(
            decode(&odd),
            Err(LoginFileError::BadLength { .. })
        ));
        let mut huge = header.to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode(&huge),
            Err(LoginFileError::BadLength { .. })
        ));
        let mut short = header.to_vec();
        short.extend_from_slice(&[32, 0, 0, 0]);
        short.extend_from_slice(&[0; 16]);
        assert_eq!(decode(&short), Err(LoginFileError::Truncated(1)));
    }

    /// Arbitrary bytes after a header: an answer, never a panic.
    #[test]
    fn any_bytes_decode_or_fail_cleanly() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for n in 0..2000 {
            let mut bytes = vec![0u8; n % 120];
            for b in &mut bytes {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = state as u8;
            }
            if bytes.len() > 28 && n % 3 == 0 {
                // A plausible length, so the cipher and padding checks run.
                bytes[24..28].copy_from_slice(&16u32.to_le_bytes());
            }
            let _ = decode(&bytes);
        }
    }
}
