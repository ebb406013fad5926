//! Go values: what Go's encoding/json makes of a JSON document, as ARC's controller decodes it.
//!
//! Pure core. A [`Value`] is shaped by a [`Layout`] type: structs hold every field in Go order,
//! pointers, slices and maps keep Go's nil-versus-empty distinction, numbers and strings have no
//! "absent". The few types with custom Go code are native variants: [`Quantity`],
//! `intstr.IntOrString`, `metav1.Time` and `metav1.FieldsV1`.
//!
//! [`decode`] mirrors `sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts` into a fresh zero value
//! (the decoder controller-runtime uses, k8s.io/apimachinery `runtime/serializer/json`): the
//! encoding/json fork with case-sensitive key matching.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

pub use crate::json::DecodeError;
use crate::layout::{Kind, Layout, Special, TypeId};
use crate::quantity::Quantity;

/// A Go value of some [`Layout`] type.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    /// Any signed integer kind.
    Int(i64),
    /// Any unsigned integer kind.
    Uint(u64),
    Float(f64),
    /// (Strings, slices and maps are boxed: a decoded struct holds a value per field, for every
    /// field; `size::a_value_is_a_boxed_str_and_a_tag`.)
    String(Box<str>),
    /// Every field, in Go declaration order.
    Struct(Fields),
    /// `None` is a nil pointer.
    Ptr(Option<Box<Value>>),
    /// `None` is a nil slice; `Some` of an empty one an empty, non-nil one.
    Slice(Option<Box<[Value]>>),
    /// `None` is a nil map. Keys are strings (the layout checks); Rust's `String` order is go-spew's
    /// byte-wise key order.
    Map(Option<Box<BTreeMap<String, Value>>>),
    /// `resource.Quantity`, in Go's exact internal form.
    Quantity(Box<Quantity>),
    /// `intstr.IntOrString`: `Type` (0 Int, 1 String), `IntVal`, `StrVal`.
    IntOrString(Box<IntOrString>),
    /// `metav1.Time` / `metav1.MicroTime`.
    Time(GoTime),
    /// `metav1.FieldsV1`: its `Raw` bytes (`None` is nil).
    FieldsV1(Option<Box<[u8]>>),
}

/// A struct value's fields, in Go declaration order: shared until written (a clone, or a zero
/// value from [`Value::zero`], costs no copy; the first write through `&mut` copies this level).
#[derive(Clone, PartialEq)]
pub struct Fields(Arc<[Value]>);

impl std::ops::Deref for Fields {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

impl std::ops::DerefMut for Fields {
    fn deref_mut(&mut self) -> &mut [Value] {
        Arc::make_mut(&mut self.0)
    }
}

impl fmt::Debug for Fields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<Vec<Value>> for Fields {
    fn from(values: Vec<Value>) -> Self {
        Fields(values.into())
    }
}

impl From<Box<[Value]>> for Fields {
    fn from(values: Box<[Value]>) -> Self {
        Fields(values.into())
    }
}

impl Fields {
    /// The fields as a vector of their own (moved out when not shared, else copied).
    pub fn into_vec(mut self) -> Vec<Value> {
        match Arc::get_mut(&mut self.0) {
            Some(values) => values
                .iter_mut()
                .map(|v| std::mem::replace(v, Value::Bool(false)))
                .collect(),
            None => self.0.to_vec(),
        }
    }
}

/// `intstr.IntOrString` (k8s.io/apimachinery/pkg/util/intstr).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IntOrString {
    /// `Type`: 0 for Int, 1 for String.
    pub kind: i64,
    pub int_val: i32,
    pub str_val: String,
}

/// A `time.Time` as metav1.Time holds it after decoding.
///
/// A parsed time has no monotonic reading, so Go's `wall` is the nanosecond and `ext` the seconds
/// since January 1, year 1 UTC. `local` is the `loc` pointer: `metav1.Time.UnmarshalJSON` calls
/// `.Local()`, which always stores `&localLoc`; `null` and absent leave it nil.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GoTime {
    /// Go's `ext`: seconds since 0001-01-01T00:00:00Z.
    pub secs: i64,
    /// Go's `wall` for a time without a monotonic reading: the nanosecond, 0..1e9.
    pub nanos: u32,
    /// `loc` is `&localLoc` (process-dependent to print) rather than nil.
    pub local: bool,
}

impl Value {
    /// The zero value of a type, as `reflect.New(t).Elem()` gives it.
    pub fn zero(layout: &Layout, ty: TypeId) -> Value {
        let t = layout.ty(ty);
        match t.special {
            Special::Quantity => return Value::Quantity(Box::default()),
            Special::IntOrString => return Value::IntOrString(Box::default()),
            Special::MetaTime | Special::MetaMicroTime => return Value::Time(GoTime::default()),
            Special::FieldsV1 => return Value::FieldsV1(None),
            Special::None => {}
        }
        match &t.kind {
            Kind::Bool => Value::Bool(false),
            Kind::Int(_) => Value::Int(0),
            Kind::Uint(_) => Value::Uint(0),
            Kind::Float(_) => Value::Float(0.0),
            Kind::String => Value::String(Box::default()),
            // Each struct type's zero value is made once per layout, in its slot, and shared.
            Kind::Struct(fields) => {
                let make = || {
                    let fields = fields.iter().map(|f| Value::zero(layout, f.ty)).collect();
                    Box::new(Value::Struct(Fields(fields))) as Box<dyn std::any::Any + Send + Sync>
                };
                match layout.slot(ty, make).downcast_ref::<Value>() {
                    Some(zero) => zero.clone(),
                    None => unreachable!("a struct type's slot holds its zero value"),
                }
            }
            Kind::Ptr(_) | Kind::Interface => Value::Ptr(None),
            Kind::Slice(_) => Value::Slice(None),
            Kind::Array(e, n) => Value::Slice(Some(vec![Value::zero(layout, *e); *n].into())),
            Kind::Map(_, _) => Value::Map(None),
        }
    }

    /// The fields of a struct value.
    pub fn fields(&self) -> Option<&[Value]> {
        match self {
            Value::Struct(f) => Some(&**f),
            _ => None,
        }
    }

    /// The fields of a struct value, mutably.
    pub fn fields_mut(&mut self) -> Option<&mut [Value]> {
        match self {
            Value::Struct(f) => Some(&mut **f),
            _ => None,
        }
    }
}

/// Decode `json` into a fresh zero value of type `ty`, as
/// `sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts` does.
///
/// Like Go, the whole input is checked for syntax first (`checkValid`), so a syntax error anywhere
/// wins over a type error. Unknown keys are skipped; keys match field names case-sensitively.
pub fn decode(layout: &Layout, ty: TypeId, json: &str) -> Result<Value, DecodeError> {
    crate::json::check_valid(json.as_bytes())?;
    let mut value = Value::zero(layout, ty);
    let mut d = Decoder {
        layout,
        r: crate::json::Reader::new(json),
        path: Vec::new(),
        elements: Vec::new(),
    };
    d.value(ty, &mut value)?;
    Ok(value)
}

/// One step of a path into a document, for messages: `spec.containers[0].image` (a key as the
/// input holds it, borrowed unless it had escapes).
#[derive(Debug, Clone)]
enum Step<'a> {
    Key(Cow<'a, str>),
    Index(usize),
}

struct Decoder<'a> {
    layout: &'a Layout,
    r: crate::json::Reader<'a>,
    path: Vec<Step<'a>>,
    /// The elements of the arrays being decoded, innermost last: each array's are moved out into
    /// a vector of their exact number when it ends (no growing vector per array).
    elements: Vec<Value>,
}

/// A dotted path: `spec.containers[0].resources.limits.cpu`.
pub struct PathDisplay<'a>(&'a [Step<'a>]);

impl fmt::Display for PathDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(root)");
        }
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Step::Key(k) if i == 0 => f.write_str(k)?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

use crate::json::Token;

impl Decoder<'_> {
    fn path(&self) -> String {
        PathDisplay(&self.path).to_string()
    }

    fn type_error(&self, found: &'static str, ty: TypeId) -> DecodeError {
        DecodeError::Type {
            path: self.path(),
            found,
            go_type: self.layout.ty(ty).name.clone(),
        }
    }

    /// Mirrors `decodeState.value`: dispatch on the next JSON value, into `v` of type `ty`.
    fn value(&mut self, ty: TypeId, v: &mut Value) -> Result<(), DecodeError> {
        let t = self.layout.ty(ty);
        match t.special {
            Special::None => {}
            special => return self.special(special, ty, v),
        }
        match self.r.peek_kind() {
            Token::Null => {
                self.r.skip_value();
                // literalStore: null zeroes interfaces, pointers, maps and slices; anything else
                // is left unchanged.
                match &t.kind {
                    Kind::Ptr(_) | Kind::Interface => *v = Value::Ptr(None),
                    Kind::Map(_, _) => *v = Value::Map(None),
                    Kind::Slice(_) => *v = Value::Slice(None),
                    _ => {}
                }
                Ok(())
            }
            Token::Object => self.object(ty, v),
            Token::Array => self.array(ty, v),
            Token::String => self.string(ty, v),
            Token::Number => self.number(ty, v),
            Token::True | Token::False => {
                let b = self.r.peek_kind() == Token::True;
                self.r.skip_value();
                match (&t.kind, v) {
                    (Kind::Ptr(e), v) => {
                        let e = *e;
                        let inner = self.alloc(e, v);
                        if self.layout.ty(e).kind == Kind::Bool {
                            *inner = Value::Bool(b);
                            Ok(())
                        } else {
                            Err(self.type_error("bool", e))
                        }
                    }
                    (Kind::Bool, v) => {
                        *v = Value::Bool(b);
                        Ok(())
                    }
                    _ => Err(self.type_error("bool", ty)),
                }
            }
        }
    }

    /// `indirect`: a non-null value into a pointer allocates (or reuses) its target.
    fn alloc<'v>(&self, elem: TypeId, v: &'v mut Value) -> &'v mut Value {
        if let Value::Ptr(p) = v {
            p.get_or_insert_with(|| Box::new(Value::zero(self.layout, elem)))
        } else {
            unreachable!("pointer type holds a non-pointer value")
        }
    }

    /// Follow pointers for a non-null value, allocating as Go's `indirect` does.
    fn deref<'v>(&self, ty: TypeId, v: &'v mut Value) -> (TypeId, &'v mut Value) {
        let mut ty = ty;
        let mut v = v;
        while let Kind::Ptr(e) = self.layout.ty(ty).kind {
            v = self.alloc(e, v);
            ty = e;
        }
        (ty, v)
    }

    fn object(&mut self, ty: TypeId, v: &mut Value) -> Result<(), DecodeError> {
        let (ty, v) = self.deref(ty, v);
        let t = self.layout.ty(ty);
        if t.special != Special::None {
            return self.special(t.special, ty, v);
        }
        match &t.kind {
            Kind::Struct(_) => {
                self.r.begin_object();
                while let Some(key) = self.r.next_key() {
                    let Some(path) = t.json_fields.get(key.as_ref()) else {
                        self.r.skip_value();
                        continue;
                    };
                    // Walk the promoted path through embedded structs to the field.
                    let mut fty = ty;
                    let mut fv: &mut Value = v;
                    for &i in path {
                        let Kind::Struct(fields) = &self.layout.ty(fty).kind else {
                            unreachable!()
                        };
                        fty = fields[i as usize].ty;
                        fv = &mut fv.fields_mut().expect("struct value")[i as usize];
                    }
                    self.path.push(Step::Key(key));
                    self.value(fty, fv)?;
                    self.path.pop();
                }
                Ok(())
            }
            Kind::Map(_, elem) => {
                let elem = *elem;
                self.r.begin_object();
                let Value::Map(m) = v else { unreachable!() };
                let m = m.get_or_insert_with(Box::default);
                while let Some(key) = self.r.next_key() {
                    // Each value decodes into a fresh zero element, then replaces the entry.
                    let mut e = Value::zero(self.layout, elem);
                    self.path.push(Step::Key(key.clone()));
                    self.value(elem, &mut e)?;
                    self.path.pop();
                    m.insert(key.into_owned(), e);
                }
                Ok(())
            }
            _ => Err(self.type_error("object", ty)),
        }
    }

    fn array(&mut self, ty: TypeId, v: &mut Value) -> Result<(), DecodeError> {
        let (ty, v) = self.deref(ty, v);
        let t = self.layout.ty(ty);
        let elem = match &t.kind {
            Kind::Slice(e) | Kind::Array(e, _) => *e,
            _ if t.special != Special::None => return self.special(t.special, ty, v),
            _ => return Err(self.type_error("array", ty)),
        };
        let fixed = match t.kind {
            Kind::Array(_, n) => Some(n),
            _ => None,
        };
        let Value::Slice(slot) = v else {
            unreachable!()
        };
        let mut old = slot.take().map(Vec::from).unwrap_or_default();
        let base = self.elements.len();
        self.r.begin_array();
        let mut i = 0;
        while self.r.next_element() {
            if fixed.is_some_and(|n| i >= n) {
                self.r.skip_value();
                i += 1;
                continue;
            }
            // Existing elements are decoded into (duplicate keys merge, as in Go).
            let mut e = if i < old.len() {
                std::mem::replace(&mut old[i], Value::Ptr(None))
            } else {
                Value::zero(self.layout, elem)
            };
            self.path.push(Step::Index(i));
            self.value(elem, &mut e)?;
            self.path.pop();
            self.elements.push(e);
            i += 1;
        }
        if let Some(n) = fixed {
            while self.elements.len() - base < n {
                self.elements.push(Value::zero(self.layout, elem));
            }
        }
        *slot = Some(self.elements.drain(base..).collect());
        Ok(())
    }

    fn string(&mut self, ty: TypeId, v: &mut Value) -> Result<(), DecodeError> {
        let (ty, v) = self.deref(ty, v);
        let t = self.layout.ty(ty);
        if t.special != Special::None {
            return self.special(t.special, ty, v);
        }
        match &t.kind {
            Kind::String => {
                *v = Value::String(self.r.string().into());
                Ok(())
            }
            // A JSON string into []byte is base64 in Go; the closure's only []byte is FieldsV1's
            // Raw, which JSON never reaches (`json:"-"`).
            _ => Err(self.type_error("string", ty)),
        }
    }

    fn number(&mut self, ty: TypeId, v: &mut Value) -> Result<(), DecodeError> {
        let (ty, v) = self.deref(ty, v);
        let t = self.layout.ty(ty);
        if t.special != Special::None {
            return self.special(t.special, ty, v);
        }
        let text = self.r.number();
        match t.kind {
            Kind::Int(bits) => match go_parse_int(text, bits) {
                Some(n) => {
                    *v = Value::Int(n);
                    Ok(())
                }
                None => Err(self.type_error_number(text, ty)),
            },
            Kind::Uint(bits) => match go_parse_uint(text, bits) {
                Some(n) => {
                    *v = Value::Uint(n);
                    Ok(())
                }
                None => Err(self.type_error_number(text, ty)),
            },
            Kind::Float(bits) => match text.parse::<f64>() {
                Ok(f) if bits == 64 || (f as f32).is_finite() => {
                    *v = Value::Float(if bits == 32 { f as f32 as f64 } else { f });
                    Ok(())
                }
                _ => Err(self.type_error_number(text, ty)),
            },
            _ => Err(self.type_error("number", ty)),
        }
    }

    fn type_error_number(&self, text: &str, ty: TypeId) -> DecodeError {
        DecodeError::Type {
            path: self.path(),
            found: if text.contains(['.', 'e', 'E']) {
                "number (not an integer)"
            } else {
                "number (out of range)"
            },
            go_type: self.layout.ty(ty).name.clone(),
        }
    }

    /// The types with their own `UnmarshalJSON`.
    fn special(&mut self, special: Special, ty: TypeId, v: &mut Value) -> Result<(), DecodeError> {
        let raw = self.r.raw_value();
        let custom = |msg: String, path: String| DecodeError::Custom { path, msg };
        match special {
            // `(*Quantity).UnmarshalJSON`: replaces the whole value (null only clears i and d).
            Special::Quantity => {
                let Value::Quantity(q) = v else {
                    unreachable!()
                };
                q.unmarshal_json(raw)
                    .map_err(|e| custom(e.to_string(), self.path()))
            }
            // `(*IntOrString).UnmarshalJSON`: a leading quote decodes StrVal, anything else IntVal
            // (with encoding/json, so null leaves it as it was).
            Special::IntOrString => {
                let Value::IntOrString(x) = v else {
                    unreachable!()
                };
                if raw.starts_with('"') {
                    x.kind = 1;
                    x.str_val = crate::json::unquote(raw);
                } else {
                    x.kind = 0;
                    if raw != "null" {
                        match go_parse_int(raw, 32) {
                            Some(n) => x.int_val = n as i32,
                            None => {
                                return Err(DecodeError::Type {
                                    path: self.path(),
                                    found: json_kind_name(raw),
                                    go_type: "int32".into(),
                                });
                            }
                        }
                    }
                }
                Ok(())
            }
            // `(*Time).UnmarshalJSON`: null is the zero time; a string is RFC 3339, then `.Local()`.
            Special::MetaTime | Special::MetaMicroTime => {
                if raw == "null" {
                    *v = Value::Time(GoTime::default());
                    return Ok(());
                }
                if !raw.starts_with('"') {
                    return Err(DecodeError::Type {
                        path: self.path(),
                        found: json_kind_name(raw),
                        go_type: "string".into(),
                    });
                }
                let s = crate::json::unquote(raw);
                let t = crate::gotime::parse_rfc3339(&s).map_err(|e| {
                    custom(format!("cannot parse {s:?} as RFC 3339: {e}"), self.path())
                })?;
                *v = Value::Time(GoTime {
                    secs: t.0,
                    nanos: t.1,
                    local: true,
                });
                Ok(())
            }
            // `(*FieldsV1).UnmarshalJSON`: the raw bytes of any non-null value.
            Special::FieldsV1 => {
                if raw != "null" {
                    *v = Value::FieldsV1(Some(raw.as_bytes().into()));
                }
                Ok(())
            }
            Special::None => unreachable!("{}", self.layout.ty(ty).name),
        }
    }
}

fn json_kind_name(raw: &str) -> &'static str {
    match raw.as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "bool",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// `strconv.ParseInt(s, 10, 64)` followed by `reflect.Value.OverflowInt` for `bits`.
fn go_parse_int(s: &str, bits: u8) -> Option<i64> {
    let n: i64 = parse_decimal_i64(s)?;
    let (min, max) = if bits >= 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    };
    (min..=max).contains(&n).then_some(n)
}

/// `strconv.ParseUint(s, 10, 64)` followed by `reflect.Value.OverflowUint` for `bits`.
fn go_parse_uint(s: &str, bits: u8) -> Option<u64> {
    if s.starts_with(['-', '+']) {
        return None;
    }
    let n: u64 = s.parse().ok()?;
    (bits >= 64 || n < (1u64 << bits)).then_some(n)
}

/// ParseInt base 10 on a JSON number literal: only an optional '-' and digits pass.
fn parse_decimal_i64(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ers(json: &str) -> Value {
        let l = Layout::arc();
        decode(l, l.ephemeral_runner_spec, json).unwrap()
    }

    fn get<'v>(l: &Layout, ty: TypeId, v: &'v Value, path: &[&str]) -> &'v Value {
        let mut ty = ty;
        let mut v = v;
        for key in path {
            while let (Kind::Ptr(e), Value::Ptr(Some(inner))) = (&l.ty(ty).kind, v) {
                ty = *e;
                v = inner;
            }
            let fpath = &l.ty(ty).json_fields[*key];
            for &i in fpath {
                let Kind::Struct(fields) = &l.ty(ty).kind else {
                    panic!()
                };
                ty = fields[i as usize].ty;
                v = &v.fields().unwrap()[i as usize];
            }
        }
        v
    }

    #[test]
    fn absent_null_and_empty_follow_go() {
        let l = Layout::arc();
        let root = l.ephemeral_runner_spec;
        let a = ers(r#"{"spec":{"nodeSelector":{},"tolerations":null}}"#);
        assert_eq!(
            get(l, root, &a, &["spec", "nodeSelector"]),
            &Value::Map(Some(Box::default()))
        );
        assert_eq!(
            get(l, root, &a, &["spec", "tolerations"]),
            &Value::Slice(None)
        );
        assert_eq!(get(l, root, &a, &["spec", "volumes"]), &Value::Slice(None));
        let b = ers(r#"{"proxy":{},"githubServerTLS":null}"#);
        assert!(matches!(get(l, root, &b, &["proxy"]), Value::Ptr(Some(_))));
        assert_eq!(get(l, root, &b, &["githubServerTLS"]), &Value::Ptr(None));
        let c = ers(r#"{"spec":{"automountServiceAccountToken":false}}"#);
        assert_eq!(
            get(l, root, &c, &["spec", "automountServiceAccountToken"]),
            &Value::Ptr(Some(Box::new(Value::Bool(false))))
        );
    }

    #[test]
    fn keys_match_case_sensitively_and_unknown_keys_are_dropped() {
        let a = ers(r#"{"spec":{"containers":[{"Image":"x","bogus":{"deep":[1,2]}}]}}"#);
        let b = ers(r#"{"spec":{"containers":[{}]}}"#);
        assert_eq!(a, b);
    }

    #[test]
    fn type_errors_name_the_path() {
        let l = Layout::arc();
        let err = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"spec":{"containers":[{"name":1}]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec.containers[0].name: cannot decode JSON number into Go type string"
        );
        let err = decode(l, l.ephemeral_runner_spec, r#"{"runnerScaleSetId":1.5}"#).unwrap_err();
        assert!(err.to_string().starts_with("runnerScaleSetId:"), "{err}");
        let err = decode(l, l.ephemeral_runner_spec, r#"{"spec":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("v1.PodSpec"), "{err}");
        // Syntax errors win over type errors, wherever they are.
        let err = decode(l, l.ephemeral_runner_spec, r#"{"spec":"x"} x"#).unwrap_err();
        assert!(matches!(err, DecodeError::Syntax { .. }), "{err}");
    }

    #[test]
    fn int_or_string_follows_its_unmarshaler() {
        let l = Layout::arc();
        let root = l.ephemeral_runner_spec;
        let v = ers(
            r#"{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"httpGet":{"port":8080}}}]}}"#,
        );
        let c = match get(l, root, &v, &["spec", "containers"]) {
            Value::Slice(Some(c)) => &c[0],
            other => panic!("{other:?}"),
        };
        let container = l.by_name("v1.Container").unwrap();
        let port = get(l, container, c, &["livenessProbe", "httpGet", "port"]);
        assert_eq!(
            port,
            &Value::IntOrString(Box::new(IntOrString {
                kind: 1,
                int_val: 0,
                str_val: "http".into()
            }))
        );
        let port = get(l, container, c, &["readinessProbe", "httpGet", "port"]);
        assert_eq!(
            port,
            &Value::IntOrString(Box::new(IntOrString {
                kind: 0,
                int_val: 8080,
                str_val: String::new()
            }))
        );
    }

    #[test]
    fn go_integer_parsing() {
        assert_eq!(go_parse_int("-0", 64), Some(0));
        assert_eq!(go_parse_int("2147483648", 32), None);
        assert_eq!(go_parse_int("-2147483648", 32), Some(-2147483648));
        assert_eq!(go_parse_int("1e3", 64), None);
        assert_eq!(go_parse_int("9223372036854775808", 64), None);
        assert_eq!(go_parse_uint("-1", 64), None);
    }
}
#[cfg(test)]
mod size {
    /// A Go struct is a shared slice of its fields' values ([`super::Fields`]): every byte of
    /// [`super::Value`] is paid once per field of every struct written to. Strings, slices and
    /// maps are boxed (a `Box<str>` is the widest variant, with `Fields`' slice) so that a value
    /// is 16 bytes and its tag: 20.8 MB of a 1,000-set `diff -f` were these slices at 32.
    #[test]
    fn a_value_is_a_boxed_str_and_a_tag() {
        assert_eq!(std::mem::size_of::<super::Value>(), 24);
    }
}
