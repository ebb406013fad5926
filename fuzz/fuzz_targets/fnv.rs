//! An independent FNV-32a, for checking the legacy hash (the core crate alone).

/// Go's FNV-32a, then `rand.SafeEncodeString(fmt.Sprint(h))`: written independently of
/// crates/kubectl-arc-core/src/go/legacy_hash.rs (which hashes through jump tables), to check it.
pub fn fnv_safe_encoded(bytes: &[u8]) -> String {
    let mut h: u32 = 2166136261;
    for &b in bytes {
        h ^= b as u32;
        h = h.wrapping_mul(16777619);
    }
    h.to_string()
        .bytes()
        .map(|c| b"bcdfghjklmnpqrstvwxz2456789"[c as usize % 27] as char)
        .collect()
}
