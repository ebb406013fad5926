//! Where the input spelled a scalar otherwise than kubectl stores it: the YAML spellings kubectl
//! rewrites on the way to JSON (`1.0`, `0x10`, `yes`, `~`), each at its JSON pointer.
//!
//! Pure core. What both readers record ([`crate::json`] for a JSON file, the manifest reader's
//! YAML half) and [`crate::written`] shows; a module of its own so that the JSON reader and the
//! written form, which reads JSON, do not import each other.

/// One YAML spelling kubectl rewrote: where (a JSON pointer from the object's root, `/spec/x/0`),
/// what the file said, and the JSON kubectl made of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelling {
    pub pointer: String,
    pub yaml: String,
    pub json: String,
}

/// A JSON pointer step for `key` (`~` and `/` escaped).
pub fn pointer_step(out: &mut String, key: &str) {
    out.push('/');
    if key.contains(['~', '/']) {
        out.push_str(&key.replace('~', "~0").replace('/', "~1"));
    } else {
        out.push_str(key);
    }
}
