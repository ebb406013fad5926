//! Go's three equalities over [`Value`]s, with the differing paths and why each differs.
//!
//! Pure core. One walk finds every difference between two values and classifies it; each equality
//! is then a question about the classes it tolerates:
//!
//! | class | `reflect.DeepEqual` | `cmp.Equal` | `apiequality.Semantic.DeepEqual` |
//! |---|---|---|---|
//! | [`Reason::NilVsEmpty`] (slice or map) | unequal | unequal | equal |
//! | [`Reason::QuantityNotation`] (same number) | unequal | equal (`Quantity.Equal`) | equal (`Cmp`) |
//! | [`Reason::SameInstant`] (same time) | unequal | equal (`time.Time.Equal`) | equal (`UTC() ==`) |
//! | [`Reason::Changed`] | unequal | unequal | unequal |
//!
//! Mirrors Go's `reflect.DeepEqual` (reflect/deepequal.go), go-cmp v0.7.0 `cmp.Equal` (which calls a
//! type's `Equal` method; `cmpEqualMethod` in the layout), and k8s.io/apimachinery
//! `pkg/api/equality.Semantic.DeepEqual` (`third_party/forked/golang/reflect` with
//! `equateNilAndEmpty` and the type functions for Quantity, Time, MicroTime and FieldsV1). Pointers
//! are unequal when exactly one is nil under all three, even to an empty struct or `false`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::layout::{Field, Kind, Layout, TypeId};
use crate::value::{Fields, MapEntries, Value};

/// Why two values differ at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub enum Reason {
    /// One side is a nil slice or map, the other an empty one.
    NilVsEmpty,
    /// The same quantity written another way (`1` and `1000m`, `1Gi` and `1024Mi`).
    QuantityNotation,
    /// The same instant in another time zone or representation.
    SameInstant,
    /// A real change.
    Changed,
}

impl Reason {
    /// Whether `apiequality.Semantic.DeepEqual` ignores this difference.
    pub fn semantic_equal(self) -> bool {
        self != Reason::Changed
    }

    /// Whether go-cmp's `cmp.Equal` ignores this difference.
    pub fn cmp_equal(self) -> bool {
        matches!(self, Reason::QuantityNotation | Reason::SameInstant)
    }

    /// A phrase for people.
    pub fn explain(self) -> &'static str {
        match self {
            Reason::NilVsEmpty => "nil vs empty: equal for ARC (Semantic), different strictly",
            Reason::QuantityNotation => "same quantity in another notation",
            Reason::SameInstant => "same instant in another representation",
            Reason::Changed => "changed",
        }
    }
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// JSON path: `spec.containers[0].env`.
    pub path: String,
    pub reason: Reason,
}

/// All differences between two values of one type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Comparison {
    pub differences: Vec<Difference>,
}

impl Comparison {
    /// `reflect.DeepEqual`: no difference at all.
    pub fn reflect_equal(&self) -> bool {
        self.differences.is_empty()
    }

    /// go-cmp `cmp.Equal` with no options.
    pub fn cmp_equal(&self) -> bool {
        self.differences.iter().all(|d| d.reason.cmp_equal())
    }

    /// `apiequality.Semantic.DeepEqual`: what ARC's revision-era controller acts on.
    pub fn semantic_equal(&self) -> bool {
        self.differences.iter().all(|d| d.reason.semantic_equal())
    }

    /// The differences that Semantic equality ignores (what a strict comparison would act on).
    pub fn strict_only(&self) -> impl Iterator<Item = &Difference> {
        self.differences
            .iter()
            .filter(|d| d.reason.semantic_equal())
    }
}

/// Compare two values of type `ty` and collect every difference.
pub fn compare(layout: &Layout, ty: TypeId, a: &Value, b: &Value) -> Comparison {
    let mut w = Walker {
        layout,
        path: String::new(),
        out: Vec::new(),
        stop_early: false,
    };
    if !same(a, b) {
        w.walk(ty, a, b);
    }
    Comparison { differences: w.out }
}

/// `apiequality.Semantic.DeepEqual` alone, stopping at the first semantic difference.
pub fn semantic_equal(layout: &Layout, ty: TypeId, a: &Value, b: &Value) -> bool {
    // No difference at all (the no-drift case): no walk, no path.
    if same(a, b) {
        return true;
    }
    let mut w = Walker {
        layout,
        path: String::new(),
        out: Vec::new(),
        stop_early: true,
    };
    w.walk(ty, a, b);
    w.out.iter().all(|d| d.reason.semantic_equal())
}

struct Walker<'a> {
    layout: &'a Layout,
    path: String,
    out: Vec<Difference>,
    /// Stop at the first [`Reason::Changed`] (a Semantic verdict needs no more).
    stop_early: bool,
}

impl Walker<'_> {
    fn record(&mut self, reason: Reason) {
        self.out.push(Difference {
            path: if self.path.is_empty() {
                "(root)".into()
            } else {
                self.path.clone()
            },
            reason,
        });
    }

    fn done(&self) -> bool {
        self.stop_early && self.out.iter().any(|d| d.reason == Reason::Changed)
    }

    fn walk(&mut self, ty: TypeId, a: &Value, b: &Value) {
        if self.done() {
            return;
        }
        match (a, b) {
            (Value::Struct(fa), Value::Struct(fb)) => {
                let Kind::Struct(fields) = &self.layout.ty(ty).kind else {
                    unreachable!("struct value of a non-struct type")
                };
                self.walk_fields(fields, fa, fb);
            }
            (Value::Ptr(pa), Value::Ptr(pb)) => match (pa, pb) {
                (None, None) => {}
                (Some(x), Some(y)) => {
                    let Kind::Ptr(e) = self.layout.ty(ty).kind else {
                        unreachable!()
                    };
                    self.walk(e, x, y)
                }
                _ => self.record(Reason::Changed),
            },
            (Value::Slice(sa), Value::Slice(sb)) => {
                let elem = match self.layout.ty(ty).kind {
                    Kind::Slice(e) | Kind::Array(e, _) => e,
                    _ => unreachable!(),
                };
                match (sa, sb) {
                    (None, None) => {}
                    (None, Some(v)) | (Some(v), None) => self.record(if v.is_empty() {
                        Reason::NilVsEmpty
                    } else {
                        Reason::Changed
                    }),
                    (Some(x), Some(y)) if x.len() != y.len() => self.record(Reason::Changed),
                    (Some(x), Some(y)) => {
                        for (i, (ex, ey)) in x.iter().zip(y).enumerate() {
                            if same(ex, ey) {
                                continue;
                            }
                            let len = self.path.len();
                            let _ = write!(self.path, "[{i}]");
                            self.walk(elem, ex, ey);
                            self.path.truncate(len);
                            if self.done() {
                                return;
                            }
                        }
                    }
                }
            }
            (Value::Map(ma), Value::Map(mb)) => {
                let Kind::Map(_, elem) = self.layout.ty(ty).kind else {
                    unreachable!()
                };
                match (ma, mb) {
                    (None, None) => {}
                    (None, Some(m)) | (Some(m), None) => self.record(if m.is_empty() {
                        Reason::NilVsEmpty
                    } else {
                        Reason::Changed
                    }),
                    (Some(x), Some(y)) => self.walk_map_entries(elem, x, y),
                }
            }
            (Value::Quantity(qa), Value::Quantity(qb)) => {
                if !qa.go_reflect_eq(qb) {
                    self.record(if qa.go_cmp(qb) == std::cmp::Ordering::Equal {
                        Reason::QuantityNotation
                    } else {
                        Reason::Changed
                    });
                }
            }
            (Value::Time(ta), Value::Time(tb)) => {
                if ta != tb {
                    self.record(if (ta.secs, ta.nanos) == (tb.secs, tb.nanos) {
                        Reason::SameInstant
                    } else {
                        Reason::Changed
                    });
                }
            }
            (Value::FieldsV1(a), Value::FieldsV1(b)) => {
                // Raw is nil or the non-empty bytes of a JSON value, so nil-vs-empty cannot arise.
                if a != b {
                    self.record(Reason::Changed)
                }
            }
            (a, b) => {
                if !same(a, b) {
                    self.record(Reason::Changed)
                }
            }
        }
    }

    /// The fields of two structs, in Go order (the `reflect.Struct` case of `deepValueEqual`): an
    /// inline (embedded) field adds no step to the path.
    fn walk_fields(&mut self, fields: &[Field], fa: &Fields, fb: &Fields) {
        for (i, a, b) in Fields::maybe_differ(fa, fb) {
            if same(a, b) {
                continue;
            }
            let f = &fields[i];
            let len = self.path.len();
            if !f.inline {
                if !self.path.is_empty() {
                    self.path.push('.');
                }
                self.path.push_str(&f.json);
            }
            self.walk(f.ty, a, b);
            self.path.truncate(len);
            if self.done() {
                return;
            }
        }
    }

    /// The entries of two non-nil maps (the `reflect.Map` case of `deepValueEqual`), walked over
    /// the union of their keys in order, so every key that differs is named.
    fn walk_map_entries(&mut self, elem: TypeId, x: &MapEntries, y: &MapEntries) {
        // Walk the union of keys in order, so every key that differs is named.
        let mut ix = x.iter().peekable();
        let mut iy = y.iter().peekable();
        loop {
            let (key, ex, ey) = match (ix.peek(), iy.peek()) {
                (None, None) => break,
                (Some((kx, _)), Some((ky, _))) if kx == ky => {
                    let (k, ex) = ix.next().unwrap();
                    let (_, ey) = iy.next().unwrap();
                    (k, Some(ex), Some(ey))
                }
                (Some((kx, _)), Some((ky, _))) if kx < ky => {
                    let (k, ex) = ix.next().unwrap();
                    (k, Some(ex), None)
                }
                (Some(_), None) => {
                    let (k, ex) = ix.next().unwrap();
                    (k, Some(ex), None)
                }
                _ => {
                    let (k, ey) = iy.next().unwrap();
                    (k, None, Some(ey))
                }
            };
            if let (Some(ex), Some(ey)) = (ex, ey)
                && same(ex, ey)
            {
                continue;
            }
            let len = self.path.len();
            push_key(&mut self.path, key);
            match (ex, ey) {
                (Some(ex), Some(ey)) => self.walk(elem, ex, ey),
                _ => self.record(Reason::Changed),
            }
            self.path.truncate(len);
            if self.done() {
                return;
            }
        }
    }
}

/// Whether two values are identical: exactly `a == b` (so exactly "[`compare`] finds no
/// difference"), without the walk's path bookkeeping.
///
/// Spelled out rather than derived for speed: most strings of a decoded spec are empty, an empty
/// `String`'s data pointer is dangling (0x1), and `==` still calls `memcmp`, whose AVX-512 version
/// in glibc does a masked load there: ~150 ns a comparison on the benchmark machine (a
/// fault-suppression assist) against ~1 ns for a one-byte string.
fn same(a: &Value, b: &Value) -> bool {
    walk_same::<false>(a, b)
}

/// Whether two values are the same value in every bit Go keeps: [`same`], and floats by their
/// bits (`==` equates `-0` and `0`, which `encoding/json` writes differently; a NaN is itself).
/// What a result remembered for one value may be reused for
/// ([`crate::recycle_loop::RoundTrips`]).
pub fn identical(a: &Value, b: &Value) -> bool {
    walk_same::<true>(a, b)
}

/// [`same`], floats compared by their bits when `BITS`.
fn walk_same<const BITS: bool>(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) if BITS => x.to_bits() == y.to_bits(),
        (Value::Struct(x), Value::Struct(y)) => same_fields::<BITS>(x, y),
        (Value::Ptr(x), Value::Ptr(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => walk_same::<BITS>(x, y),
            _ => false,
        },
        (Value::String(x), Value::String(y)) => same_str(x, y),
        (Value::Slice(x), Value::Slice(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => same_values::<BITS>(x, y),
            _ => false,
        },
        (Value::Map(x), Value::Map(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => same_map::<BITS>(x, y),
            _ => false,
        },
        (Value::IntOrString(x), Value::IntOrString(y)) => {
            x.kind == y.kind && x.int_val == y.int_val && same_str(&x.str_val, &y.str_val)
        }
        // Scalars, quantities, times, FieldsV1, and values of different variants.
        (a, b) => a == b,
    }
}

/// [`same_values`] over two structs' fields: those that may differ ([`Fields::maybe_differ`]).
fn same_fields<const BITS: bool>(x: &Fields, y: &Fields) -> bool {
    x.len() == y.len() && Fields::maybe_differ(x, y).all(|(_, a, b)| walk_same::<BITS>(a, b))
}

fn same_values<const BITS: bool>(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(x, y)| walk_same::<BITS>(x, y))
}

/// Kept out of [`walk_same`], whose frame would otherwise hold two map iterators on every call.
#[inline(never)]
fn same_map<const BITS: bool>(x: &MapEntries, y: &MapEntries) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y)
            .all(|((kx, vx), (ky, vy))| same_str(kx, ky) && walk_same::<BITS>(vx, vy))
}

#[inline]
fn same_str(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a.as_bytes() == b.as_bytes())
}

/// Append a map key to a path: `.app`, or `["app.kubernetes.io/name"]` when it needs quoting.
pub fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        let _ = write!(path, "[{key:?}]");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::decode;

    fn cmp(a: &str, b: &str) -> Comparison {
        let l = Layout::arc();
        let va = decode(l, l.ephemeral_runner_spec, a).unwrap();
        let vb = decode(l, l.ephemeral_runner_spec, b).unwrap();
        compare(l, l.ephemeral_runner_spec, &va, &vb)
    }

    fn base(container_extra: &str) -> String {
        format!(
            r#"{{"githubConfigUrl":"https://github.com/o","spec":{{"containers":[{{"name":"runner","image":"img"{container_extra}}}]}}}}"#
        )
    }

    /// (reflect, cmp, semantic) as verified/equality_table.txt records them.
    fn verdict(c: &Comparison) -> (bool, bool, bool) {
        (c.reflect_equal(), c.cmp_equal(), c.semantic_equal())
    }

    #[test]
    fn the_nil_empty_quantity_table() {
        let t = (true, true, true);
        let cases: &[(&str, &str, (bool, bool, bool))] = &[
            (r#","env":[]"#, "", (false, false, true)),
            (r#","env":null"#, "", t),
            (r#","command":[]"#, "", (false, false, true)),
            (
                r#","resources":{"limits":{"cpu":"1"}}"#,
                r#","resources":{"limits":{"cpu":"1000m"}}"#,
                (false, true, true),
            ),
            (
                r#","resources":{"limits":{"cpu":"1"}}"#,
                r#","resources":{"limits":{"cpu":1}}"#,
                t,
            ),
            (
                r#","resources":{"limits":{"memory":"1Gi"}}"#,
                r#","resources":{"limits":{"memory":"1024Mi"}}"#,
                (false, true, true),
            ),
            (r#","resources":{"limits":{}}"#, "", (false, false, true)),
            (r#","resources":{}"#, "", t),
            (r#","securityContext":{}"#, "", (false, false, false)),
            (r#","ports":[{"containerPort":0}]"#, r#","ports":[{}]"#, t),
        ];
        for (a, b, want) in cases {
            let c = cmp(&base(a), &base(b));
            assert_eq!(verdict(&c), *want, "{a} vs {b}: {c:?}");
        }
    }

    #[test]
    fn paths_name_the_json_fields() {
        let c = cmp(&base(r#","env":[]"#), &base(r#","image":"other""#));
        let paths: Vec<(&str, Reason)> = c
            .differences
            .iter()
            .map(|d| (d.path.as_str(), d.reason))
            .collect();
        assert_eq!(
            paths,
            [
                ("spec.containers[0].image", Reason::Changed),
                ("spec.containers[0].env", Reason::NilVsEmpty)
            ]
        );
        let c = cmp(
            r#"{"metadata":{"labels":{"app.kubernetes.io/name":"a","x":"1"}}}"#,
            r#"{"metadata":{"labels":{"x":"2"}}}"#,
        );
        let paths: Vec<&str> = c.differences.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "metadata.labels[\"app.kubernetes.io/name\"]",
                "metadata.labels.x"
            ]
        );
    }

    #[test]
    fn same_is_derived_equality_and_no_difference() {
        let l = Layout::arc();
        let docs = [
            base(""),
            base(r#","env":[]"#),
            base(r#","env":null"#),
            base(r#","image":"""#),
            base(r#","image":"other""#),
            base(r#","resources":{"limits":{"cpu":"1"}}"#),
            base(r#","resources":{"limits":{"cpu":"1000m"}}"#),
            base(r#","resources":{"limits":{"memory":"1"}}"#),
            base(r#","resources":{"limits":{}}"#),
            base(r#","securityContext":{}"#),
            base(r#","ports":[{"containerPort":0}]"#),
            base(r#","ports":[{"containerPort":1}]"#),
            base(r#","livenessProbe":{"httpGet":{"port":"http"}}"#),
            base(r#","livenessProbe":{"httpGet":{"port":80}}"#),
            r#"{"metadata":{"labels":{"":"a","x":"1"},"creationTimestamp":"2024-01-01T00:00:00Z"}}"#
                .to_string(),
            r#"{"metadata":{"labels":{"x":"1"},"creationTimestamp":"2024-01-01T01:00:00+01:00"}}"#
                .to_string(),
            include_str!("../../../../tests/oracle/testdata/realistic-spec.json").to_string(),
        ];
        let values: Vec<Value> = docs
            .iter()
            .map(|d| decode(l, l.ephemeral_runner_spec, d).unwrap())
            .collect();
        for a in &values {
            for b in &values {
                let c = compare(l, l.ephemeral_runner_spec, a, b);
                assert_eq!(same(a, b), a == b);
                assert_eq!(same(a, b), c.reflect_equal());
                assert_eq!(
                    semantic_equal(l, l.ephemeral_runner_spec, a, b),
                    c.semantic_equal()
                );
            }
        }
    }
}
