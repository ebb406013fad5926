//! encoding/json's `checkValid` (`core::json::check_valid`), which guards the decoder's reader, and
//! the reader itself through `find_raw`.
//!
//! serde_json accepts a subset of what Go accepts (it also rejects invalid UTF-8, lone surrogate
//! escapes and nesting past 128), so whatever serde_json accepts, `check_valid` must accept.
#![no_main]

use libfuzzer_sys::fuzz_target;

use kubectl_arc_core::json::{check_valid, find_raw};

fuzz_target!(|data: &[u8]| {
    let valid = check_valid(data);
    if serde_json::from_slice::<serde::de::IgnoredAny>(data).is_ok() {
        assert!(
            valid.is_ok(),
            "serde_json accepts, check_valid says {valid:?}"
        );
    }
    if let Err(e) = &valid {
        let _ = e.to_string();
    }
    if let Ok(text) = std::str::from_utf8(data) {
        for path in [&["spec", "ephemeralRunnerSpec"][..], &["spec"][..], &[][..]] {
            let found = find_raw(text, path);
            if valid.is_err() {
                assert_eq!(found, None);
            } else if path.is_empty() {
                assert_eq!(found, Some(text.trim_matches([' ', '\t', '\n', '\r'])));
            }
            if let Some(raw) = found {
                assert!(check_valid(raw.as_bytes()).is_ok(), "{raw:?}");
            }
        }
    }
});
