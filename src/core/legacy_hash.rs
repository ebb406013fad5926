//! ARC's legacy integrity hash of a runner spec (the `actions.github.com/integrity-hash` annotation).
//!
//! Pure core. Mirrors `ephemeralRunnerSetIntegrityHash` (ARC controllers/actions.github.com/
//! resourcebuilder.go at 2ee6b3b8) and `hash.ComputeTemplateHash` (ARC hash/hash.go): go-spew's
//! `%#v` of `&data{EphemeralRunnerSpec: spec}` under `ConfigState{Indent: " ", SortKeys: true,
//! DisableMethods: true, SpewKeys: true}` (go-spew d8f796af33cc, `formatState.format`/`formatPtr`),
//! fed into FNV-32a, the `uint32` printed in decimal, then k8s.io/apimachinery
//! `util/rand.SafeEncodeString`.
//!
//! The spew text is streamed into the hasher; nothing is built unless [`spew`] asks for the text.
//! A value whose Go rendering depends on the process (a non-zero `metav1.Time`, whose `loc` is
//! `&time.Local`) is [`Unverifiable`] rather than guessed.

use crate::core::layout::{Kind, Layout, TypeId};
use crate::core::value::Value;

/// The value prints differently in different Go processes, so its hash cannot be reproduced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot reproduce ARC's hash: {0}")]
pub struct Unverifiable(pub String);

/// The annotation value ARC would write for this `EphemeralRunnerSpec` value.
pub fn integrity_hash(layout: &Layout, spec: &Value) -> Result<String, Unverifiable> {
    let mut h = Fnv32a::new();
    render(layout, spec, &mut h)?;
    Ok(safe_encode_decimal(h.0))
}

/// The spew text ARC hashes, for debugging and tests.
pub fn spew(layout: &Layout, spec: &Value) -> Result<String, Unverifiable> {
    let mut s = StringSink(Vec::new());
    render(layout, spec, &mut s)?;
    Ok(String::from_utf8(s.0).expect("spew of UTF-8 strings is UTF-8"))
}

/// Where spew output goes.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
    fn put_str(&mut self, s: &str) {
        self.put(s.as_bytes())
    }
    fn put_i64(&mut self, n: i64) {
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        let neg = n < 0;
        let mut u = n.unsigned_abs();
        loop {
            i -= 1;
            buf[i] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        if neg {
            self.put(b"-");
        }
        self.put(&buf[i..]);
    }
    fn put_u64(&mut self, mut u: u64) {
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        self.put(&buf[i..]);
    }
}

/// Go's `hash/fnv` New32a.
struct Fnv32a(u32);

impl Fnv32a {
    fn new() -> Self {
        Fnv32a(2166136261)
    }
}

impl Sink for Fnv32a {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u32;
            h = h.wrapping_mul(16777619);
        }
        self.0 = h;
    }
}

struct StringSink(Vec<u8>);

impl Sink for StringSink {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes)
    }
}

/// `rand.SafeEncodeString(fmt.Sprint(h))`: each decimal digit mapped through the alphabet
/// `bcdfghjklmnpqrstvwxz2456789` at index `rune % 27`.
fn safe_encode_decimal(h: u32) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    h.to_string()
        .bytes()
        .map(|c| ALPHANUMS[c as usize % ALPHANUMS.len()] as char)
        .collect()
}

fn render(layout: &Layout, spec: &Value, out: &mut dyn Sink) -> Result<(), Unverifiable> {
    // The function-local `type data struct{ EphemeralRunnerSpec ... }` of package
    // actionsgithubcom, hashed through a pointer: its own annotation is the pointer's.
    out.put_str("(*actionsgithubcom.data){EphemeralRunnerSpec:");
    let mut f = Formatter {
        layout,
        out,
        ignore_next_type: false,
    };
    f.format(layout.ephemeral_runner_spec, spec)?;
    f.out.put_str("}");
    Ok(())
}

/// go-spew's `formatState` for `%#v`: the `ignoreNextType` flag decides whether a value is
/// preceded by `(T)`.
struct Formatter<'a, 'o> {
    layout: &'a Layout,
    out: &'o mut dyn Sink,
    ignore_next_type: bool,
}

impl Formatter<'_, '_> {
    fn name(&self, ty: TypeId) -> &str {
        &self.layout.ty(ty).name
    }

    /// `formatState.format`.
    fn format(&mut self, ty: TypeId, v: &Value) -> Result<(), Unverifiable> {
        if let Value::Ptr(p) = v {
            return self.format_ptr(ty, p.as_deref());
        }
        if !self.ignore_next_type {
            self.out.put_str("(");
            let name = &self.layout.ty(ty).name;
            self.out.put_str(name);
            self.out.put_str(")");
        }
        self.ignore_next_type = false;
        self.body(ty, v)
    }

    /// `formatState.formatPtr` for a pointer value (chains of pointers collapse into stars).
    fn format_ptr(&mut self, ty: TypeId, target: Option<&Value>) -> Result<(), Unverifiable> {
        let Some(mut inner) = target else {
            // A nil pointer does not reset the flag (the leak quirk of go-semantics.md A.3.6).
            if self.ignore_next_type {
                self.out.put_str("<nil>");
            } else {
                self.out.put_str("(");
                let name = &self.layout.ty(ty).name;
                self.out.put_str(name);
                self.out.put_str(")<nil>");
            }
            return Ok(());
        };
        let mut depth = 1;
        let Kind::Ptr(mut elem) = self.layout.ty(ty).kind else {
            unreachable!("pointer value of a non-pointer type")
        };
        // Dereference further pointer levels.
        loop {
            match (inner, &self.layout.ty(elem).kind) {
                (Value::Ptr(Some(next)), Kind::Ptr(e)) => {
                    depth += 1;
                    inner = next;
                    elem = *e;
                }
                (Value::Ptr(None), Kind::Ptr(_)) => {
                    // A non-nil pointer to a nil pointer: go-spew prints the chain then <nil>.
                    self.stars(depth, elem);
                    self.out.put_str("<nil>");
                    return Ok(());
                }
                _ => break,
            }
        }
        self.stars(depth, elem);
        self.ignore_next_type = true;
        self.format(elem, inner)
    }

    fn stars(&mut self, depth: usize, elem: TypeId) {
        if self.ignore_next_type {
            self.out.put_str("<");
            for _ in 0..depth {
                self.out.put_str("*");
            }
            self.out.put_str(">");
        } else {
            self.out.put_str("(");
            for _ in 0..depth {
                self.out.put_str("*");
            }
            let name = &self.layout.ty(elem).name;
            self.out.put_str(name);
            self.out.put_str(")");
        }
    }

    fn body(&mut self, ty: TypeId, v: &Value) -> Result<(), Unverifiable> {
        match v {
            Value::Bool(b) => self.out.put_str(if *b { "true" } else { "false" }),
            Value::Int(n) => self.out.put_i64(*n),
            Value::Uint(n) => self.out.put_u64(*n),
            Value::Float(_) => {
                return Err(Unverifiable(format!(
                    "a float of type {} (not in ARC's runner spec)",
                    self.name(ty)
                )));
            }
            Value::String(s) => self.out.put_str(s),
            Value::Struct(values) => {
                let Kind::Struct(fields) = &self.layout.ty(ty).kind else {
                    unreachable!()
                };
                self.out.put_str("{");
                for (i, (f, fv)) in fields.iter().zip(values.iter()).enumerate() {
                    if i > 0 {
                        self.out.put_str(" ");
                    }
                    self.out.put_str(&f.name);
                    self.out.put_str(":");
                    self.format(f.ty, fv)?;
                }
                self.out.put_str("}");
            }
            Value::Slice(None) | Value::Map(None) => self.out.put_str("<nil>"),
            Value::Slice(Some(items)) => {
                let elem = match self.layout.ty(ty).kind {
                    Kind::Slice(e) | Kind::Array(e, _) => e,
                    _ => unreachable!(),
                };
                self.out.put_str("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.put_str(" ");
                    }
                    self.ignore_next_type = true;
                    self.format(elem, item)?;
                }
                self.out.put_str("]");
            }
            Value::Map(Some(entries)) => {
                let Kind::Map(key_ty, elem) = self.layout.ty(ty).kind else {
                    unreachable!()
                };
                // SortKeys: string keys in byte order, which is the BTreeMap's order.
                self.out.put_str("map[");
                for (i, (k, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.put_str(" ");
                    }
                    // A string key with its annotation suppressed is its raw bytes.
                    debug_assert_eq!(self.layout.ty(key_ty).kind, Kind::String);
                    self.ignore_next_type = false;
                    self.out.put_str(k);
                    self.out.put_str(":");
                    self.ignore_next_type = true;
                    self.format(elem, item)?;
                }
                self.out.put_str("]");
            }
            Value::Quantity(q) => {
                let mut s = String::new();
                q.write_spew(&mut s);
                self.out.put_str(&s);
            }
            Value::IntOrString(x) => {
                self.out.put_str("{Type:(intstr.Type)");
                self.out.put_i64(x.kind);
                self.out.put_str(" IntVal:(int32)");
                self.out.put_i64(x.int_val as i64);
                self.out.put_str(" StrVal:(string)");
                self.out.put_str(&x.str_val);
                self.out.put_str("}");
            }
            Value::Time(t) => {
                if t.local {
                    return Err(Unverifiable(format!(
                        "a {} that is set prints Go's local time zone, which depends on the controller's process",
                        self.name(ty)
                    )));
                }
                // Only the zero time has a nil loc: wall 0, ext 0.
                self.out.put_str("{Time:(time.Time){wall:(uint64)");
                self.out.put_u64(t.nanos as u64);
                self.out.put_str(" ext:(int64)");
                self.out.put_i64(t.secs);
                self.out.put_str(" loc:(*time.Location)<nil>}}");
            }
            Value::FieldsV1(raw) => {
                self.out.put_str("{Raw:([]uint8)");
                match raw {
                    None => self.out.put_str("<nil>"),
                    Some(bytes) => {
                        self.out.put_str("[");
                        for (i, b) in bytes.iter().enumerate() {
                            if i > 0 {
                                self.out.put_str(" ");
                            }
                            self.out.put_u64(*b as u64);
                        }
                        self.out.put_str("]");
                    }
                }
                self.out.put_str("}");
            }
            Value::Ptr(_) => unreachable!("handled by format"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::value::decode;

    fn verified(name: &str) -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/reference/verified/");
        std::fs::read_to_string(format!("{path}{name}"))
            .unwrap_or_else(|e| panic!("{path}{name}: {e}"))
            .trim_end_matches('\n')
            .to_string()
    }

    const WORKED_EXAMPLE: &str = r#"{"githubConfigUrl":"https://github.com/my-org","githubConfigSecret":"gh-secret","runnerScaleSetId":3,
 "metadata":{"labels":{"app":"runner"}},
 "spec":{"restartPolicy":"Never","serviceAccountName":"runner-sa",
  "containers":[{"name":"runner","image":"ghcr.io/actions/actions-runner:latest",
   "command":["/home/runner/run.sh"],"env":[{"name":"RUNNER_FEATURE_FLAG_EPHEMERAL","value":"true"}],
   "resources":{"limits":{"cpu":"2","memory":"4Gi"},"requests":{"cpu":"500m"}}}]}}"#;

    #[test]
    fn empty_and_worked_example_match_arc_byte_for_byte() {
        let l = Layout::arc();
        for (json, file, hash) in [
            ("{}", "empty_spew.txt", "9755cd855"),
            (WORKED_EXAMPLE, "example_spew.txt", "667fcbb9d8"),
        ] {
            let v = decode(l, l.ephemeral_runner_spec, json).unwrap();
            assert_eq!(spew(l, &v).unwrap(), verified(file), "{file}");
            assert_eq!(integrity_hash(l, &v).unwrap(), hash);
        }
    }

    #[test]
    fn safe_encoding_matches_go() {
        assert_eq!(safe_encode_decimal(2239766584), "667fcbb9d8");
    }

    #[test]
    fn a_set_timestamp_is_unverifiable() {
        let l = Layout::arc();
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z"}}"#,
        )
        .unwrap();
        assert!(integrity_hash(l, &v).is_err());
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"metadata":{"creationTimestamp":null}}"#,
        )
        .unwrap();
        assert_eq!(integrity_hash(l, &v).unwrap(), "9755cd855");
    }
}
