//! Theme files (`--theme PATH.toml`) on arbitrary text: a theme or an error message that
//! names the place, never a panic; a theme that loads gives a style for every item.
#![no_main]

use innodebt::theme::{Severity, Theme, ThemeItem};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Theme::from_toml_str("fuzz.toml", &text) {
        Ok(theme) => {
            for &item in ThemeItem::ALL {
                let _ = theme.style(item);
            }
            for severity in [Severity::Ok, Severity::Warning, Severity::Critical] {
                let _ = theme.severity(severity);
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("fuzz.toml:"), "{message}");
        }
    }
});
