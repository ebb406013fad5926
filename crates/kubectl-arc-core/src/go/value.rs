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
    /// `None` is a nil map. Keys are strings (the layout checks), each once, the entries sorted by
    /// their bytes (go-spew's `SortKeys` and `encoding/json`'s order): a map holds its entries and
    /// nothing else ([`MapEntries`]).
    Map(Option<Box<MapEntries>>),
    /// `resource.Quantity`, in Go's exact internal form.
    Quantity(Box<Quantity>),
    /// `intstr.IntOrString`: `Type` (0 Int, 1 String), `IntVal`, `StrVal`.
    IntOrString(Box<IntOrString>),
    /// `metav1.Time` / `metav1.MicroTime`.
    Time(GoTime),
    /// `metav1.FieldsV1`: its `Raw` bytes (`None` is nil).
    FieldsV1(Option<Box<[u8]>>),
}

/// A Go map's entries: each key once, sorted by its bytes.
pub type MapEntries = [(Box<str>, Value)];

/// A struct value's fields, in Go declaration order: a shared base (the type's zero value, from
/// [`Value::zero`]) and the fields written over it, so a struct costs what was written to it, not
/// a value for each of its fields (a decoded `PodSpec` writes a handful of its 40). Shared until
/// written: a clone costs no copy, and the first write through `&mut` copies this level's
/// written fields.
///
/// Reads see every field ([`Fields::get`], [`Fields::iter`]): the representation is not part of
/// the value (`PartialEq` and the equalities compare what the fields hold).
#[derive(Clone)]
pub struct Fields(Arc<[Slot]>);

/// One allocation per struct: the base first, then the written fields in rising index order.
/// The base carries a bit for each index written when the struct has at most 64 fields (so a
/// field's slot is found by counting bits), else 0 (found by a binary search).
#[derive(Clone)]
enum Slot {
    Base(Arc<[Value]>, u64),
    Field(u32, Value),
}

impl Slot {
    /// A written field's index and value (every slot after the first).
    fn field(&self) -> (usize, &Value) {
        match self {
            Slot::Field(i, v) => (*i as usize, v),
            Slot::Base(..) => unreachable!("only the first slot is a base"),
        }
    }

    fn field_mut(&mut self) -> &mut Value {
        match self {
            Slot::Field(_, v) => v,
            Slot::Base(..) => unreachable!("only the first slot is a base"),
        }
    }

    fn into_field(self) -> (u32, Value) {
        match self {
            Slot::Field(i, v) => (i, v),
            Slot::Base(..) => unreachable!("only the first slot is a base"),
        }
    }
}

/// The bit of index `i` among the written ones, for a struct of `len` fields.
fn written_bit(len: usize, i: usize) -> u64 {
    if len <= 64 { 1 << i } else { 0 }
}

impl Fields {
    /// Fields that hold `values` (a base of their own, nothing written over it).
    fn based_on(values: Arc<[Value]>) -> Fields {
        Fields(Arc::new([Slot::Base(values, 0)]))
    }

    fn base(&self) -> &Arc<[Value]> {
        self.head().0
    }

    fn head(&self) -> (&Arc<[Value]>, u64) {
        match &self.0[0] {
            Slot::Base(base, written) => (base, *written),
            Slot::Field(..) => unreachable!("a struct's first slot is its base"),
        }
    }

    /// The slot of field `i`, or where it would be inserted.
    fn position(&self, i: usize) -> Result<usize, usize> {
        let (base, written) = self.head();
        assert!(i < base.len(), "field {i} of a struct of {}", base.len());
        let bit = written_bit(base.len(), i);
        if bit != 0 {
            let p = 1 + (written & (bit - 1)).count_ones() as usize;
            return if written & bit != 0 { Ok(p) } else { Err(p) };
        }
        self.0[1..]
            .binary_search_by(|s| s.field().0.cmp(&i))
            .map(|p| p + 1)
            .map_err(|p| p + 1)
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.base().len()
    }

    /// Whether the struct has no fields.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Field `i`.
    pub fn get(&self, i: usize) -> &Value {
        match self.position(i) {
            Ok(p) => self.0[p].field().1,
            Err(_) => &self.base()[i],
        }
    }

    /// Every field, in order.
    pub fn iter(&self) -> FieldsIter<'_> {
        FieldsIter {
            base: self.base(),
            written: &self.0[1..],
            i: 0,
        }
    }

    /// Field `i`, to write (copying this level's written fields first if they are shared).
    pub fn get_mut(&mut self, i: usize) -> &mut Value {
        let p = match self.position(i) {
            Ok(p) => p,
            Err(p) => {
                let v = self.base()[i].clone();
                self.rebuild(p, i, Some(v));
                p
            }
        };
        Arc::make_mut(&mut self.0)[p].field_mut()
    }

    /// Field `i` back to its base's value (for a decoded struct, the zero value of its type).
    pub fn reset(&mut self, i: usize) {
        if let Ok(p) = self.position(i) {
            self.rebuild(p, i, None);
        }
    }

    /// The slots anew, in one allocation, with field `i` written as `value` at slot `p` or, for
    /// `None`, the slot at `p` (field `i`'s) removed (moved when not shared, else copied).
    fn rebuild(&mut self, p: usize, i: usize, value: Option<Value>) {
        let (base, written) = self.head();
        let base = base.clone();
        let bit = written_bit(base.len(), i);
        let written = if value.is_some() {
            written | bit
        } else {
            written & !bit
        };
        let skip = usize::from(value.is_none());
        let head = std::iter::once(Slot::Base(base.clone(), written));
        let slot = value.map(|v| Slot::Field(i as u32, v));
        let take = |s: &mut Slot| std::mem::replace(s, Slot::Base(base.clone(), 0));
        self.0 = match Arc::get_mut(&mut self.0) {
            Some(slots) => {
                let (before, after) = slots.split_at_mut(p);
                (head.chain(before[1..].iter_mut().map(take)))
                    .chain(slot)
                    .chain(after[skip..].iter_mut().map(take))
                    .collect()
            }
            None => (head.chain(self.0[1..p].iter().cloned()))
                .chain(slot)
                .chain(self.0[p + skip..].iter().cloned())
                .collect(),
        };
    }

    /// The fields at which `a` and `b` (of the same type) may hold different values, in rising
    /// index order with each side's value: those written over either, when both have the same
    /// base; every field otherwise.
    pub fn maybe_differ<'a>(a: &'a Fields, b: &'a Fields) -> MaybeDiffer<'a> {
        MaybeDiffer {
            a,
            b,
            written: (&a.0[1..], &b.0[1..]),
            all: (!Arc::ptr_eq(a.base(), b.base())).then(|| 0..a.len().min(b.len())),
        }
    }

    /// The written fields moved onto `out`, as `(index, value)` in rising index order (copied
    /// when shared); the fields are left holding their base alone.
    fn drain_written_onto(&mut self, out: &mut Vec<(u32, Value)>) {
        if self.0.len() == 1 {
            return;
        }
        let base = self.base().clone();
        match Arc::get_mut(&mut self.0) {
            Some(slots) => out.extend(
                (slots[1..].iter_mut())
                    .map(|s| std::mem::replace(s, Slot::Base(base.clone(), 0)).into_field()),
            ),
            None => out.extend(self.0[1..].iter().cloned().map(Slot::into_field)),
        }
        *self = Fields::based_on(base);
    }

    /// Fields on `base` with `written` over it (`(index, value)`, each index once, any order).
    fn with_written(base: Arc<[Value]>, written: &mut [(u32, Value)]) -> Fields {
        written.sort_unstable_by_key(|(i, _)| *i);
        let bits = (written.iter()).fold(0, |bits, (i, _)| {
            bits | written_bit(base.len(), *i as usize)
        });
        let slots: Arc<[Slot]> = std::iter::once(Slot::Base(base, bits))
            .chain(
                written
                    .iter_mut()
                    .map(|(i, v)| Slot::Field(*i, std::mem::replace(v, Value::Bool(false)))),
            )
            .collect();
        Fields(slots)
    }

    /// The fields as a vector of their own (the written ones moved out when not shared).
    pub fn into_vec(mut self) -> Vec<Value> {
        let mut written = Vec::with_capacity(self.0.len() - 1);
        self.drain_written_onto(&mut written);
        let mut written = written.into_iter().peekable();
        (self.base().iter().enumerate())
            .map(|(i, b)| match written.next_if(|(j, _)| *j as usize == i) {
                Some((_, v)) => v,
                None => b.clone(),
            })
            .collect()
    }

    /// Fields on the base of `like` (a struct value of the same type) with `written` over it:
    /// `(index, value)`, each index once, in any order.
    pub fn written_over(like: &Fields, mut written: Vec<(u32, Value)>) -> Fields {
        Fields::with_written(like.base().clone(), &mut written)
    }
}

/// The fields at which two struct values may differ ([`Fields::maybe_differ`]): with both on
/// the same base, those written over either, merged; otherwise every field.
pub struct MaybeDiffer<'a> {
    a: &'a Fields,
    b: &'a Fields,
    /// The written slots not yet passed, when both are on the same base.
    written: (&'a [Slot], &'a [Slot]),
    all: Option<std::ops::Range<usize>>,
}

impl<'a> Iterator for MaybeDiffer<'a> {
    /// The index and each side's value there.
    type Item = (usize, &'a Value, &'a Value);
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(all) = &mut self.all {
            let i = all.next()?;
            return Some((i, self.a.get(i), self.b.get(i)));
        }
        let (wa, wb) = &mut self.written;
        let (fa, fb) = (wa.first().map(Slot::field), wb.first().map(Slot::field));
        let i = match (fa, fb) {
            (Some((i, _)), Some((j, _))) => i.min(j),
            (Some((i, _)), None) | (None, Some((i, _))) => i,
            (None, None) => return None,
        };
        let base = &self.a.base()[i];
        let side = |f: Option<(usize, &'a Value)>, w: &mut &'a [Slot]| match f {
            Some((j, v)) if j == i => {
                *w = &w[1..];
                v
            }
            _ => base,
        };
        Some((i, side(fa, wa), side(fb, wb)))
    }
}

/// Every field of a struct value, in order ([`Fields::iter`]).
#[derive(Clone)]
pub struct FieldsIter<'a> {
    base: &'a [Value],
    written: &'a [Slot],
    i: usize,
}

impl<'a> Iterator for FieldsIter<'a> {
    type Item = &'a Value;
    fn next(&mut self) -> Option<&'a Value> {
        let i = self.i;
        let base = self.base.get(i)?;
        self.i += 1;
        match self.written.first().map(Slot::field) {
            Some((j, v)) if j == i => {
                self.written = &self.written[1..];
                Some(v)
            }
            _ => Some(base),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.base.len() - self.i;
        (n, Some(n))
    }
}

impl ExactSizeIterator for FieldsIter<'_> {}

impl<'a> IntoIterator for &'a Fields {
    type Item = &'a Value;
    type IntoIter = FieldsIter<'a>;
    fn into_iter(self) -> FieldsIter<'a> {
        self.iter()
    }
}

impl std::ops::Index<usize> for Fields {
    type Output = Value;
    fn index(&self, i: usize) -> &Value {
        self.get(i)
    }
}

impl std::ops::IndexMut<usize> for Fields {
    fn index_mut(&mut self, i: usize) -> &mut Value {
        self.get_mut(i)
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        self.len() == other.len() && Fields::maybe_differ(self, other).all(|(_, a, b)| a == b)
    }
}

impl fmt::Debug for Fields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl From<Vec<Value>> for Fields {
    fn from(values: Vec<Value>) -> Self {
        Fields::based_on(values.into())
    }
}

impl From<Box<[Value]>> for Fields {
    fn from(values: Box<[Value]>) -> Self {
        Fields::based_on(values.into())
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
                    Box::new(Value::Struct(Fields::based_on(fields)))
                        as Box<dyn std::any::Any + Send + Sync>
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
    pub fn fields(&self) -> Option<&Fields> {
        match self {
            Value::Struct(f) => Some(f),
            _ => None,
        }
    }

    /// The fields of a struct value, mutably.
    pub fn fields_mut(&mut self) -> Option<&mut Fields> {
        match self {
            Value::Struct(f) => Some(f),
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
    let (elements, written, entries) = SCRATCH.take();
    let mut d = Decoder {
        layout,
        r: crate::json::Reader::new(json),
        elements,
        written,
        entries,
    };
    let decoded = d.value(ty, &mut value);
    d.elements.clear();
    d.written.clear();
    d.entries.clear();
    SCRATCH.set((d.elements, d.written, d.entries));
    decoded.map(|()| value).map_err(finish_path)
}

thread_local! {
    /// The decoder's stacks, kept empty between decodes on a thread so that a decode does not
    /// grow them anew (a `diff -f` decodes two specs a scale set).
    static SCRATCH: std::cell::Cell<Stacks> =
        const { std::cell::Cell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// [`Decoder`]'s `elements`, `written` and `entries`.
type Stacks = (Vec<Value>, Vec<(u32, Value)>, Vec<(Box<str>, Value)>);

struct Decoder<'a> {
    layout: &'a Layout,
    r: crate::json::Reader<'a>,
    /// The elements of the arrays being decoded, innermost last: each array's are moved out into
    /// a vector of their exact number when it ends (no growing vector per array).
    elements: Vec<Value>,
    /// The fields the structs being decoded write, innermost last (`(index, value)`): each
    /// struct's are written over its base in one piece when its object ends.
    written: Vec<(u32, Value)>,
    /// The entries of the maps being decoded, innermost last.
    entries: Vec<(Box<str>, Value)>,
}

/// An error from inside the value at `step` (a key or an index), seen from outside it: errors
/// are made with the path from where they are (empty) and each level they leave puts its step in
/// front, so a decode that succeeds keeps no path at all. `.key` for a key and `[n]` for an index
/// until [`finish_path`] makes the path read `spec.containers[0].resources.limits.cpu`.
fn under(mut e: DecodeError, step: fmt::Arguments<'_>) -> DecodeError {
    if let DecodeError::Type { path, .. } | DecodeError::Custom { path, .. } = &mut e {
        *path = format!("{step}{path}");
    }
    e
}

/// The path of an error that has left every level ([`under`]): the first key without its dot,
/// `(root)` for none.
fn finish_path(mut e: DecodeError) -> DecodeError {
    if let DecodeError::Type { path, .. } | DecodeError::Custom { path, .. } = &mut e {
        if path.is_empty() {
            *path = "(root)".into();
        } else if path.starts_with('.') {
            path.remove(0);
        }
    }
    e
}

use crate::json::Token;

impl Decoder<'_> {
    fn type_error(&self, found: &'static str, ty: TypeId) -> DecodeError {
        DecodeError::Type {
            path: String::new(),
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
            Kind::Struct(tfields) => {
                let Value::Struct(fields) = v else {
                    unreachable!("struct type holds a non-struct value")
                };
                // The fields written so far (a key given twice decodes into what the first wrote,
                // as in Go) and those this object writes gather above `base`, and are written
                // over the struct's base once, at the object's end.
                let base = self.written.len();
                fields.drain_written_onto(&mut self.written);
                self.r.begin_object();
                while let Some(key) = self.r.next_key() {
                    let Some(path) = t.json_fields.get(key.as_ref()) else {
                        self.r.skip_value();
                        continue;
                    };
                    let (&first, rest) = path.split_first().expect("a field path is never empty");
                    let first = u32::from(first);
                    let at = match self.written[base..].iter().position(|(i, _)| *i == first) {
                        Some(at) => base + at,
                        None => {
                            // Drained above: a field not on the stack is its base's.
                            let zero = fields.base()[first as usize].clone();
                            self.written.push((first, zero));
                            self.written.len() - 1
                        }
                    };
                    // Out of the stack while it is decoded into (the fields of structs inside it
                    // gather above this one's).
                    let mut fv = std::mem::replace(&mut self.written[at].1, Value::Bool(false));
                    // Walk the promoted path through embedded structs to the field.
                    let mut fty = tfields[first as usize].ty;
                    let mut target: &mut Value = &mut fv;
                    for &i in rest {
                        let Kind::Struct(inner) = &self.layout.ty(fty).kind else {
                            unreachable!()
                        };
                        fty = inner[i as usize].ty;
                        target = &mut target.fields_mut().expect("struct value")[i as usize];
                    }
                    let decoded = self.value(fty, target);
                    self.written[at].1 = fv;
                    decoded.map_err(|e| under(e, format_args!(".{key}")))?;
                }
                if self.written.len() > base {
                    let written = &mut self.written[base..];
                    *fields = Fields::with_written(fields.base().clone(), written);
                    self.written.truncate(base);
                }
                Ok(())
            }
            Kind::Map(_, elem) => {
                let elem = *elem;
                self.r.begin_object();
                let Value::Map(m) = v else { unreachable!() };
                // The entries so far (a map decoded into again keeps them, as in Go) and those
                // this object holds gather above `base`, and make the map once, at its end.
                let base = self.entries.len();
                self.entries
                    .extend(m.take().map(Vec::from).unwrap_or_default());
                while let Some(key) = self.r.next_key() {
                    // Each value decodes into a fresh zero element, then replaces the entry.
                    let mut e = Value::zero(self.layout, elem);
                    (self.value(elem, &mut e)).map_err(|e| under(e, format_args!(".{key}")))?;
                    self.entries.push((key.as_ref().into(), e));
                }
                let mut map: Vec<_> = self.entries.drain(base..).collect();
                // Stable, and of a key given twice the later entry is kept (moved into the place
                // of the earlier one, which goes).
                map.sort_by(|(a, _), (b, _)| a.cmp(b));
                map.dedup_by(|later, earlier| {
                    let twice = later.0 == earlier.0;
                    if twice {
                        std::mem::swap(later, earlier);
                    }
                    twice
                });
                *m = Some(map.into_boxed_slice());
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
            (self.value(elem, &mut e)).map_err(|e| under(e, format_args!("[{i}]")))?;
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
            path: String::new(),
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
        let custom = |msg: String| DecodeError::Custom {
            path: String::new(),
            msg,
        };
        match special {
            // `(*Quantity).UnmarshalJSON`: replaces the whole value (null only clears i and d).
            Special::Quantity => {
                let Value::Quantity(q) = v else {
                    unreachable!()
                };
                q.unmarshal_json(raw).map_err(|e| custom(e.to_string()))
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
                                    path: String::new(),
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
                        path: String::new(),
                        found: json_kind_name(raw),
                        go_type: "string".into(),
                    });
                }
                let s = crate::json::unquote(raw);
                let t = crate::gotime::parse_rfc3339(&s)
                    .map_err(|e| custom(format!("cannot parse {s:?} as RFC 3339: {e}")))?;
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
        // Every kind of step, an empty key among them, and the root.
        for (json, path) in [
            (r#"{"metadata":{"labels":{"":1}}}"#, "metadata.labels."),
            (
                r#"{"spec":{"volumes":[{"name":"v"},{"emptyDir":{"sizeLimit":"x"}}]}}"#,
                "spec.volumes[1].emptyDir.sizeLimit",
            ),
            (
                r#"{"spec":{"containers":[{"resources":{"limits":{"cpu":"1","memory":"1Q"}}}]}}"#,
                "spec.containers[0].resources.limits.memory",
            ),
            (r#""x""#, "(root)"),
        ] {
            let err = decode(l, l.ephemeral_runner_spec, json).unwrap_err();
            assert!(
                err.to_string().starts_with(&format!("{path}: ")),
                "{json}: {err}"
            );
        }
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
    fn a_field_written_to_its_zero_is_one_never_written() {
        let l = Layout::arc();
        let written = ers(r#"{"spec":{"restartPolicy":"","hostname":"h","containers":null}}"#);
        let not = ers(r#"{"spec":{"hostname":"h"}}"#);
        assert_eq!(written, not);
        assert!(crate::equality::identical(&written, &not));
        let c = crate::equality::compare(l, l.ephemeral_runner_spec, &written, &not);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        assert_ne!(written, ers(r#"{"spec":{"hostname":"i"}}"#));
    }

    #[test]
    fn fields_read_write_and_share_as_a_vector_would() {
        let l = Layout::arc();
        // A type's zero (its written fields found by their bits: at most 64 fields), and a
        // struct of 70 fields on a base of its own (found by a binary search).
        let pod = Value::zero(l, l.by_name("v1.PodSpec").unwrap());
        let wide = Value::Struct(Fields::from((0..70).map(Value::Int).collect::<Vec<_>>()));
        for zero in [pod, wide] {
            let mut a = zero.clone();
            let fields = a.fields_mut().unwrap();
            let n = fields.len();
            let mut model: Vec<Value> = fields.iter().cloned().collect();
            assert_eq!(model.len(), n);
            // Written out of order, one of them twice, and one back to its base.
            for (i, text) in [
                (7, "a"),
                (2, "b"),
                (n - 1, "c"),
                (7, "d"),
                (0, "e"),
                (n - 2, "f"),
            ] {
                fields[i] = Value::String(text.into());
                model[i] = Value::String(text.into());
            }
            fields.reset(2);
            fields.reset(n - 2);
            fields.reset(3);
            model[2] = zero.fields().unwrap()[2].clone();
            model[n - 2] = zero.fields().unwrap()[n - 2].clone();
            let b = a.clone();
            assert_eq!(
                b.fields().unwrap().iter().cloned().collect::<Vec<_>>(),
                model
            );
            for (i, v) in model.iter().enumerate() {
                assert_eq!(&b.fields().unwrap()[i], v, "field {i} of {n}");
            }
            assert_eq!(
                Fields::maybe_differ(zero.fields().unwrap(), b.fields().unwrap())
                    .map(|(i, _, _)| i)
                    .collect::<Vec<_>>(),
                vec![0, 7, n - 1]
            );
            // A write to a clone leaves the original as it was.
            let mut c = b.clone();
            c.fields_mut().unwrap()[7] = Value::String("x".into());
            assert_eq!(b.fields().unwrap()[7], Value::String("d".into()));
            assert_ne!(b, c);
            assert_eq!(b.fields().unwrap().clone().into_vec(), model);
            let Value::Struct(f) = b else { unreachable!() };
            assert_eq!(f.into_vec(), model);
            // Fields on a base of their own compare by what they hold.
            assert_eq!(Value::Struct(Fields::from(model.clone())), c.with(7, "d"));
        }
    }

    impl Value {
        fn with(mut self, i: usize, s: &str) -> Value {
            self.fields_mut().unwrap()[i] = Value::String(s.into());
            self
        }
    }

    #[test]
    fn a_key_given_twice_decodes_into_what_the_first_wrote() {
        let twice = ers(
            r#"{"spec":{"hostname":"h","containers":[{"name":"a"}],"volumes":[{"name":"v","emptyDir":{}}]},
                "spec":{"restartPolicy":"Never","containers":[{"image":"i"}],"volumes":[{"configMap":{"name":"c"}}]}}"#,
        );
        let once = ers(
            r#"{"spec":{"hostname":"h","restartPolicy":"Never","containers":[{"name":"a","image":"i"}],
                "volumes":[{"name":"v","emptyDir":{},"configMap":{"name":"c"}}]}}"#,
        );
        assert_eq!(twice, once);
        assert_ne!(once, ers(r#"{"spec":{"hostname":"h"}}"#));
    }

    #[test]
    fn maps_hold_each_key_once_in_byte_order() {
        let l = Layout::arc();
        let root = l.ephemeral_runner_spec;
        let labels = |json: &str| -> Option<Vec<(String, Value)>> {
            match get(l, root, &ers(json), &["metadata", "labels"]) {
                Value::Map(m) => m
                    .as_ref()
                    .map(|m| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()),
                other => panic!("{other:?}"),
            }
        };
        let s = |k: &str, v: &str| (k.to_string(), Value::String(v.into()));
        // Sorted by bytes; of a key given twice, the later value.
        assert_eq!(
            labels(r#"{"metadata":{"labels":{"b":"1","a":"2","b":"3","B":"4","\u0062":"5"}}}"#),
            Some(vec![s("B", "4"), s("a", "2"), s("b", "5")])
        );
        // A map decoded into again keeps its entries; null makes it nil.
        assert_eq!(
            labels(
                r#"{"metadata":{"labels":{"a":"1","b":"2"}},"metadata":{"labels":{"c":"3","a":"4"}}}"#
            ),
            Some(vec![s("a", "4"), s("b", "2"), s("c", "3")])
        );
        assert_eq!(
            labels(r#"{"metadata":{"labels":{"a":"1"}},"metadata":{"labels":null}}"#),
            None
        );
        assert_eq!(labels(r#"{"metadata":{"labels":{}}}"#), Some(vec![]));
        assert_eq!(labels(r#"{"metadata":{}}"#), None);
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
    /// A Go struct holds a value for each field written to it ([`super::Fields`]), and slices,
    /// maps and pointers one for each element: strings, slices and maps are boxed (a `Box<str>`
    /// is the widest variant, with `Fields`' slice) so that a value is 16 bytes and its tag.
    #[test]
    fn a_value_is_a_boxed_str_and_a_tag() {
        assert_eq!(std::mem::size_of::<super::Value>(), 24);
    }
}
