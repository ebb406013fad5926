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
//!
//! Speed: FNV-1a is a serial chain of one xor and one multiply per byte, and nine tenths of the
//! ~22 kB a realistic spec prints are fixed text: a field's name with its type annotation
//! (` Secret:(*v1.SecretVolumeSource)<nil>`). Such text is hashed in one step with a [`Jump`]
//! table (see there), built once the text has recurred enough to repay it ([`Seg`]) and kept per
//! shipped layout ([`Plan`]). The bytes hashed are exactly the bytes [`spew`] returns.

use std::borrow::Cow;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::layout::{Field, Kind, Layout, STATIC_LAYOUTS, TypeId};
use crate::quantity::{Format, Quantity};
use crate::value::Value;

/// The value prints differently in different Go processes, so its hash cannot be reproduced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot reproduce ARC's hash: {0}")]
pub struct Unverifiable(pub String);

/// The annotation value ARC would write for this `EphemeralRunnerSpec` value.
pub fn integrity_hash(layout: &Layout, spec: &Value) -> Result<String, Unverifiable> {
    template_hash(layout, Root::IntegrityData, spec)
}

/// The spew text ARC hashes, for debugging and tests.
pub fn spew(layout: &Layout, spec: &Value) -> Result<String, Unverifiable> {
    template_spew(layout, Root::IntegrityData, spec)
}

/// The fields of `v` (a value of `ty`) holding a set `metav1.Time` or `MicroTime`, in the diff's
/// path spelling (`metadata.creationTimestamp`): what makes a hash [`Unverifiable`]. go-spew
/// prints a time's `loc`, and a decoded non-zero time holds `&time.Local`
/// (`metav1.Time.UnmarshalJSON` calls `.Local()`), which prints the controller process's zone;
/// only an absent or `null` time (the zero value, nil `loc`) prints the same everywhere.
pub fn set_times(layout: &Layout, ty: TypeId, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    times_at(layout, ty, v, &mut String::new(), &mut out);
    out
}

fn times_at(layout: &Layout, ty: TypeId, v: &Value, path: &mut String, out: &mut Vec<String>) {
    match (v, &layout.ty(ty).kind) {
        (Value::Time(t), _) if t.local => out.push(if path.is_empty() {
            "(root)".to_string()
        } else {
            path.clone()
        }),
        (Value::Struct(values), Kind::Struct(fields)) => {
            for (f, x) in fields.iter().zip(values.iter()) {
                let len = path.len();
                if !f.inline {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&f.json);
                }
                times_at(layout, f.ty, x, path, out);
                path.truncate(len);
            }
        }
        (Value::Ptr(Some(x)), Kind::Ptr(e)) => times_at(layout, *e, x, path, out),
        (Value::Slice(Some(items)), Kind::Slice(e) | Kind::Array(e, _)) => {
            for (i, x) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                times_at(layout, *e, x, path, out);
                path.truncate(len);
            }
        }
        (Value::Map(Some(entries)), Kind::Map(_, e)) => {
            for (k, x) in entries.iter() {
                let len = path.len();
                crate::equality::push_key(path, k);
                times_at(layout, *e, x, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// What ARC hands to `hash.ComputeTemplateHash` around a value of a layout type: the one
/// formatter prints any of them, with the root's own opening text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `&data{EphemeralRunnerSpec: spec}` of `ephemeralRunnerSetIntegrityHash`: a pointer to the
    /// function-local struct `actionsgithubcom.data`, whose one field is the spec.
    IntegrityData,
    /// `&p`, `p` a pointer to a value of this type, as `RunnerSetSpecHash` (`&spec`, `spec` a
    /// `*runnerSetSpec`) and `ListenerSpecHash` (`&spec`, `spec` the `*AutoscalingRunnerSetSpec`
    /// of `DeepCopy`) pass it: `formatPtr` prints `(**T)`, then the value without its annotation.
    PtrPtr(TypeId),
}

/// `hash.ComputeTemplateHash` (ARC hash/hash.go) of `v` wrapped as `root` says.
pub fn template_hash(layout: &Layout, root: Root, v: &Value) -> Result<String, Unverifiable> {
    let mut h = Fnv32a::new();
    render_with(layout, Plan::of_shipped(layout), root, v, &mut h)?;
    Ok(safe_encode_decimal(h.0))
}

/// The go-spew text [`template_hash`] hashes.
pub fn template_spew(layout: &Layout, root: Root, v: &Value) -> Result<String, Unverifiable> {
    let mut s = StringSink(Vec::new());
    render_with(layout, Plan::of_shipped(layout), root, v, &mut s)?;
    Ok(String::from_utf8(s.0).expect("spew of UTF-8 strings is UTF-8"))
}

/// Where spew output goes.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
    /// Fixed text, possibly hashed in one step.
    fn put_seg(&mut self, seg: &Seg) {
        self.put(seg.text.as_bytes())
    }
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

const FNV32_OFFSET: u32 = 2166136261;
const FNV32_PRIME: u32 = 16777619;

/// Go's `hash/fnv` New32a.
struct Fnv32a(u32);

impl Fnv32a {
    fn new() -> Self {
        Fnv32a(FNV32_OFFSET)
    }
}

impl Sink for Fnv32a {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u32;
            h = h.wrapping_mul(FNV32_PRIME);
        }
        self.0 = h;
    }

    #[inline]
    fn put_seg(&mut self, seg: &Seg) {
        match seg.jump() {
            Some(jump) => self.0 = jump.apply(self.0),
            None => self.put(seg.text.as_bytes()),
        }
    }
}

/// FNV-32a over one fixed text `s` of `k` bytes, as a single step: `h ↦ h·P^k + add[h & 0xff]`.
///
/// Why this is exact: a byte step is `h ↦ (h ^ b)·P`, and `h ^ b = h + ((l ^ b) - l)` where `l` is
/// the low byte of `h` (the xor touches nothing else), so a step is `h·P` plus a term that depends
/// on `l` alone; and the next low byte, `((l ^ b)·P) mod 256`, depends on `l` alone too. By
/// induction, hashing `s` from `h` gives `h·P^k` plus a sum that is a function of `l` only:
/// `add[l] = fnv_s(l) - l·P^k`, all modulo 2^32.
struct Jump {
    mul: u32,
    add: [u32; 256],
}

impl Jump {
    fn new(text: &[u8]) -> Jump {
        // The 256 starting states 0..=255, all hashed in lockstep (vectorizes).
        let mut lanes: [u32; 256] = std::array::from_fn(|l| l as u32);
        let mut mul: u32 = 1;
        for &b in text {
            for h in lanes.iter_mut() {
                *h = (*h ^ b as u32).wrapping_mul(FNV32_PRIME);
            }
            mul = mul.wrapping_mul(FNV32_PRIME);
        }
        let add = std::array::from_fn(|l| lanes[l].wrapping_sub((l as u32).wrapping_mul(mul)));
        Jump { mul, add }
    }

    #[inline]
    fn apply(&self, h: u32) -> u32 {
        h.wrapping_mul(self.mul)
            .wrapping_add(self.add[(h & 0xff) as usize])
    }
}

/// A piece of fixed spew text, with its [`Jump`] once it has been hashed often enough.
///
/// A table costs about as much to build as hashing its text byte by byte some 16 times, so it is
/// built on the 16th use (rent, then buy): a process that hashes once pays nothing extra, one that
/// hashes many specs (`migrate`) gets the tables for the texts that recur.
struct Seg {
    text: Cow<'static, str>,
    uses: AtomicU32,
    jump: OnceLock<Box<Jump>>,
}

impl Seg {
    /// Up to this many bytes, hashing byte by byte is as fast as a table step.
    const SHORT: usize = 4;
    /// Uses hashed byte by byte before the table is built.
    const BUILD_AT: u32 = 16;

    const fn fixed(text: &'static str) -> Seg {
        Seg {
            text: Cow::Borrowed(text),
            uses: AtomicU32::new(0),
            jump: OnceLock::new(),
        }
    }

    fn new(text: String) -> Seg {
        Seg {
            text: Cow::Owned(text),
            uses: AtomicU32::new(0),
            jump: OnceLock::new(),
        }
    }

    /// The table, if it is worth having by now.
    #[inline]
    fn jump(&self) -> Option<&Jump> {
        if let Some(jump) = self.jump.get() {
            return Some(jump);
        }
        if self.text.len() <= Self::SHORT
            || self.uses.fetch_add(1, Ordering::Relaxed) + 1 < Self::BUILD_AT
        {
            return None;
        }
        Some(
            self.jump
                .get_or_init(|| Box::new(Jump::new(self.text.as_bytes()))),
        )
    }
}

/// The fixed text of a struct field when go-spew prints its type annotation (the flag
/// `ignoreNextType` is off): `[ ]Name:(T)`, `[ ]Name:(*E)` for a non-nil pointer, and
/// `[ ]Name:(T)<nil>` for a nil pointer, slice or map.
struct FieldSegs {
    head: Seg,
    nil: Seg,
    /// For a pointer field whose target is not a pointer: the target type (`head` is then
    /// `formatPtr`'s `(*E)`).
    ptr_elem: Option<TypeId>,
    /// The `nil` texts of this and the next fields in one, by count minus 2 (in a
    /// `v1.VolumeSource`, all but one of some thirty pointers are nil).
    nil_runs: OnceLock<Box<[OnceLock<Seg>]>>,
}

impl FieldSegs {
    fn new(layout: &Layout, index: usize, f: &Field) -> FieldSegs {
        let sep = if index > 0 { " " } else { "" };
        let t = layout.ty(f.ty);
        let plain = format!("{sep}{}:({})", f.name, t.name);
        let (head, ptr_elem) = match t.kind {
            // formatPtr's `stars`: `(*` and the element's name.
            Kind::Ptr(e) => (
                format!("{sep}{}:(*{})", f.name, layout.ty(e).name),
                (!matches!(layout.ty(e).kind, Kind::Ptr(_))).then_some(e),
            ),
            _ => (plain.clone(), None),
        };
        FieldSegs {
            head: Seg::new(head),
            nil: Seg::new(plain + "<nil>"),
            ptr_elem,
            nil_runs: OnceLock::new(),
        }
    }
}

/// A field value that prints as its field's `nil` text (and leaves the flag off).
fn is_nil(v: &Value) -> bool {
    matches!(v, Value::Ptr(None) | Value::Slice(None) | Value::Map(None))
}

/// The field texts of one layout, indexed by struct type and field, each made on first use.
struct Plan {
    fields: Box<[Box<[OnceLock<FieldSegs>]>]>,
}

impl Plan {
    fn new(layout: &Layout) -> Plan {
        let fields = (0..layout.len() as TypeId)
            .map(|id| match &layout.ty(id).kind {
                Kind::Struct(fields) => fields.iter().map(|_| OnceLock::new()).collect(),
                _ => Box::default(),
            })
            .collect();
        Plan { fields }
    }

    /// The plan of a layout kept for the process (a shipped one, [`Layout::static_id`]); `None`
    /// for any other layout, which is then printed piece by piece.
    fn of_shipped(layout: &Layout) -> Option<&'static Plan> {
        static PLANS: [OnceLock<Plan>; STATIC_LAYOUTS] =
            [const { OnceLock::new() }; STATIC_LAYOUTS];
        let i = layout.static_id?;
        Some(PLANS[i].get_or_init(|| Plan::new(layout)))
    }

    fn field(&self, layout: &Layout, ty: TypeId, index: usize, f: &Field) -> &FieldSegs {
        self.fields[ty as usize][index].get_or_init(|| FieldSegs::new(layout, index, f))
    }

    /// The `nil` texts of `count` fields from `start` on, as one piece.
    fn nil_run(
        &self,
        layout: &Layout,
        ty: TypeId,
        fields: &[Field],
        start: usize,
        count: usize,
    ) -> &Seg {
        let first = self.field(layout, ty, start, &fields[start]);
        if count == 1 {
            return &first.nil;
        }
        let runs = first.nil_runs.get_or_init(|| {
            (start + 2..=fields.len())
                .map(|_| OnceLock::new())
                .collect()
        });
        runs[count - 2].get_or_init(|| {
            Seg::new(
                (start..start + count)
                    .map(|j| &*self.field(layout, ty, j, &fields[j]).nil.text)
                    .collect(),
            )
        })
    }
}

struct StringSink(Vec<u8>);

impl Sink for StringSink {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes)
    }
}

/// ARC's `hash.FNVHashString` (hash/fnv.go, 0.9.0 to 0.14.2): FNV-32a of the string's bytes,
/// `rand.SafeEncodeString` of its decimal.
pub fn fnv_hash_string(text: &str) -> String {
    let mut h = Fnv32a::new();
    h.put(text.as_bytes());
    safe_encode_decimal(h.0)
}

/// `rand.SafeEncodeString(fmt.Sprint(h))`: each decimal digit mapped through the alphabet
/// `bcdfghjklmnpqrstvwxz2456789` at index `rune % 27`.
fn safe_encode_decimal(h: u32) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    // The decimal digits of a u32 (at most 10), last first, each mapped as it is made.
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    let mut u = h;
    loop {
        i -= 1;
        let digit = b'0' + (u % 10) as u8;
        buf[i] = ALPHANUMS[digit as usize % ALPHANUMS.len()];
        u /= 10;
        if u == 0 {
            break;
        }
    }
    buf[i..].iter().map(|&c| c as char).collect()
}

// Fixed texts of the types with their own Go structure.
static DATA_OPEN: Seg = Seg::fixed("(*actionsgithubcom.data){EphemeralRunnerSpec:");
static Q_VALUE: Seg = Seg::fixed("{i:(resource.int64Amount){value:(int64)");
static Q_SCALE: Seg = Seg::fixed(" scale:(resource.Scale)");
static Q_NIL_DEC: Seg = Seg::fixed("} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)");
static Q_FORMAT: [Seg; 4] = [
    Seg::fixed(" Format:(resource.Format)}"),
    Seg::fixed(" Format:(resource.Format)DecimalExponent}"),
    Seg::fixed(" Format:(resource.Format)BinarySI}"),
    Seg::fixed(" Format:(resource.Format)DecimalSI}"),
];
static IOS_TYPE: Seg = Seg::fixed("{Type:(intstr.Type)");
static IOS_INT: Seg = Seg::fixed(" IntVal:(int32)");
static IOS_STR: Seg = Seg::fixed(" StrVal:(string)");
static TIME_WALL: Seg = Seg::fixed("{Time:(time.Time){wall:(uint64)");
static TIME_EXT: Seg = Seg::fixed(" ext:(int64)");
static TIME_LOC: Seg = Seg::fixed(" loc:(*time.Location)<nil>}}");

fn render_with<S: Sink>(
    layout: &Layout,
    plan: Option<&'static Plan>,
    root: Root,
    v: &Value,
    out: &mut S,
) -> Result<(), Unverifiable> {
    let mut f = Formatter {
        layout,
        plan,
        out,
        ignore_next_type: false,
    };
    match root {
        Root::IntegrityData => {
            // The function-local `type data struct{ EphemeralRunnerSpec ... }` of package
            // actionsgithubcom, hashed through a pointer: its own annotation is the pointer's.
            f.out.put_seg(&DATA_OPEN);
            f.format(layout.ephemeral_runner_spec, v)?;
            f.out.put_str("}");
        }
        Root::PtrPtr(ty) => {
            // formatPtr of a `**T` with both pointers set: `(**T)`, then `T`'s value with the
            // annotation suppressed.
            f.out.put_str("(**");
            f.out.put_str(&layout.ty(ty).name);
            f.out.put_str(")");
            f.ignore_next_type = true;
            f.format(ty, v)?;
        }
    }
    Ok(())
}

/// go-spew's `formatState` for `%#v`: the `ignoreNextType` flag decides whether a value is
/// preceded by `(T)`.
struct Formatter<'a, 'o, S: Sink> {
    layout: &'a Layout,
    plan: Option<&'static Plan>,
    out: &'o mut S,
    ignore_next_type: bool,
}

impl<S: Sink> Formatter<'_, '_, S> {
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

    /// One struct field, `[ ]Name:` and the field's `format`, through the plan's fixed texts
    /// when the annotation is printed. Returns false, having printed nothing, when the field
    /// needs the general path (the flag is on, or a pointer to a pointer).
    fn field_planned(
        &mut self,
        plan: &Plan,
        ty: TypeId,
        index: usize,
        f: &Field,
        v: &Value,
    ) -> Result<bool, Unverifiable> {
        debug_assert!(!self.ignore_next_type);
        match v {
            // `(T)<nil>`: formatPtr of a nil pointer, or format then `<nil>` for a nil slice or
            // map; the flag stays off.
            Value::Ptr(None) | Value::Slice(None) | Value::Map(None) => {
                self.out.put_seg(&plan.field(self.layout, ty, index, f).nil);
                Ok(true)
            }
            Value::Ptr(Some(inner)) => {
                let segs = plan.field(self.layout, ty, index, f);
                let Some(elem) = segs.ptr_elem else {
                    return Ok(false);
                };
                // formatPtr with depth 1: `(*E)`, then the target without its annotation.
                self.out.put_seg(&segs.head);
                self.ignore_next_type = true;
                self.format(elem, inner)?;
                Ok(true)
            }
            _ => {
                debug_assert!(!matches!(self.layout.ty(f.ty).kind, Kind::Ptr(_)));
                // format: `(T)`, the flag off, the body.
                self.out
                    .put_seg(&plan.field(self.layout, ty, index, f).head);
                // The commonest bodies without a call.
                match v {
                    Value::String(s) => self.out.put_str(s),
                    Value::Int(n) => self.out.put_i64(*n),
                    Value::Bool(b) => self.out.put_str(if *b { "true" } else { "false" }),
                    _ => self.body(f.ty, v)?,
                }
                Ok(true)
            }
        }
    }

    fn body(&mut self, ty: TypeId, v: &Value) -> Result<(), Unverifiable> {
        match v {
            Value::Bool(b) => self.out.put_str(if *b { "true" } else { "false" }),
            Value::Int(n) => self.out.put_i64(*n),
            Value::Uint(n) => self.out.put_u64(*n),
            // printFloat: `strconv.FormatFloat(f, 'g', -1, 64)` (a listener metric's histogram
            // buckets, in ListenerSpecHash).
            Value::Float(x) if self.layout.ty(ty).kind == Kind::Float(64) => {
                self.out.put_str(&crate::goyaml::go_format_g(*x))
            }
            Value::Float(_) => {
                return Err(Unverifiable(format!(
                    "a float of type {} (not in ARC's specs)",
                    self.name(ty)
                )));
            }
            Value::String(s) => self.out.put_str(s),
            Value::Struct(values) => {
                let Kind::Struct(fields) = &self.layout.ty(ty).kind else {
                    unreachable!()
                };
                self.out.put_str("{");
                let n = fields.len().min(values.len());
                // In order: a struct's fields are read one after the other, not by index.
                let mut values = values.iter();
                let mut i = 0;
                while let Some(fv) = values.next().filter(|_| i < n) {
                    let f = &fields[i];
                    if let Some(plan) = self.plan
                        && !self.ignore_next_type
                    {
                        if is_nil(fv) {
                            // Nil fields print their fixed text and leave the flag off, so a run
                            // of them is one piece.
                            let more = (values.clone().take(n - i - 1))
                                .take_while(|v| is_nil(v))
                                .count();
                            let seg = plan.nil_run(self.layout, ty, &fields[..n], i, 1 + more);
                            self.out.put_seg(seg);
                            if more > 0 {
                                values.nth(more - 1);
                            }
                            i += 1 + more;
                            continue;
                        }
                        if self.field_planned(plan, ty, i, f, fv)? {
                            i += 1;
                            continue;
                        }
                    }
                    if i > 0 {
                        self.out.put_str(" ");
                    }
                    self.out.put_str(&f.name);
                    self.out.put_str(":");
                    self.format(f.ty, fv)?;
                    i += 1;
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
                // SortKeys: string keys in byte order, which is the entries' order.
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
            Value::Quantity(q) => self.quantity(q),
            Value::IntOrString(x) => {
                self.out.put_seg(&IOS_TYPE);
                self.out.put_i64(x.kind);
                self.out.put_seg(&IOS_INT);
                self.out.put_i64(x.int_val as i64);
                self.out.put_seg(&IOS_STR);
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
                self.out.put_seg(&TIME_WALL);
                self.out.put_u64(t.nanos as u64);
                self.out.put_seg(&TIME_EXT);
                self.out.put_i64(t.secs);
                self.out.put_seg(&TIME_LOC);
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

    /// [`Quantity::write_spew`], with its fixed texts as segments when `d` is nil (the int64 form
    /// every everyday quantity decodes to).
    fn quantity(&mut self, q: &Quantity) {
        if q.d.is_some() {
            let mut s = String::new();
            q.write_spew(&mut s);
            self.out.put_str(&s);
            return;
        }
        self.out.put_seg(&Q_VALUE);
        self.out.put_i64(q.i.value);
        self.out.put_seg(&Q_SCALE);
        self.out.put_i64(i64::from(q.i.scale));
        self.out.put_seg(&Q_NIL_DEC);
        self.out.put_str(q.s.as_str());
        self.out.put_seg(match q.format {
            Format::Empty => &Q_FORMAT[0],
            Format::DecimalExponent => &Q_FORMAT[1],
            Format::BinarySI => &Q_FORMAT[2],
            Format::DecimalSI => &Q_FORMAT[3],
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::decode;

    fn verified(name: &str) -> Option<String> {
        crate::recorded_go_output(name).map(|t| t.trim_end_matches('\n').to_string())
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
            if let Some(recorded) = verified(file) {
                assert_eq!(spew(l, &v).unwrap(), recorded, "{file}");
            }
            assert_eq!(integrity_hash(l, &v).unwrap(), hash);
        }
    }

    #[test]
    fn safe_encoding_matches_go() {
        assert_eq!(safe_encode_decimal(2239766584), "667fcbb9d8");
        // fmt.Sprint then SafeEncodeString, digit by digit.
        for h in [0, 7, 10, 4294967295] {
            let want: String = h
                .to_string()
                .bytes()
                .map(|c| b"bcdfghjklmnpqrstvwxz2456789"[c as usize % 27] as char)
                .collect();
            assert_eq!(safe_encode_decimal(h), want);
        }
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

    #[test]
    fn set_times_names_each_set_time_by_its_path() {
        let l = Layout::arc();
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":null,
                "managedFields":[{"manager":"m"},{"time":"2024-01-01T00:00:00Z"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            set_times(l, l.ephemeral_runner_spec, &v),
            [
                "metadata.creationTimestamp",
                "metadata.managedFields[1].time"
            ]
        );
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"metadata":{"creationTimestamp":null}}"#,
        )
        .unwrap();
        assert!(set_times(l, l.ephemeral_runner_spec, &v).is_empty());
    }

    /// The bytes of `text` hashed one by one.
    fn fnv_bytes(text: &[u8]) -> u32 {
        let mut h = Fnv32a::new();
        h.put(text);
        h.0
    }

    #[test]
    fn a_jump_is_the_bytewise_hash_from_every_state() {
        let texts: [&[u8]; 5] = [
            b"",
            b"x",
            b" Name:(string)",
            " AzureDisk:(*v1.AzureDiskVolumeSource)<nil>".as_bytes(),
            "\u{0}\u{ff}é ünïcode:(map[string]string)".as_bytes(),
        ];
        let mut state: u32 = 0x9e37_79b9;
        for text in texts {
            let jump = Jump::new(text);
            for _ in 0..2000 {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let mut h = Fnv32a(state);
                h.put(text);
                assert_eq!(jump.apply(state), h.0, "{text:?} from {state:#x}");
            }
            for l in 0..=255u32 {
                let mut h = Fnv32a(l << 8 | l);
                h.put(text);
                assert_eq!(jump.apply(l << 8 | l), h.0);
            }
        }
    }

    #[test]
    fn quantity_pieces_match_write_spew() {
        for (i, f) in [
            Format::Empty,
            Format::DecimalExponent,
            Format::BinarySI,
            Format::DecimalSI,
        ]
        .into_iter()
        .enumerate()
        {
            let want = format!(" Format:(resource.Format){}}}", f.as_go_str());
            assert_eq!(Q_FORMAT[i].text, want);
        }
        let l = Layout::arc();
        for raw in [
            "null",
            "0",
            "1",
            "\"1\"",
            "\"1000m\"",
            "\"500m\"",
            "\"1Gi\"",
            "\"1024Mi\"",
            "\"-5\"",
            "\"1e3\"",
            "\"1.5\"",
            "\"0.1\"",
            "\"12E-3\"",
            "\"123456789012345678901234567890\"",
            "\"9223372036854775807\"",
            "\"100Ki\"",
        ] {
            let q = Quantity::from_json(raw).unwrap();
            let mut out = StringSink(Vec::new());
            let mut f = Formatter {
                layout: l,
                plan: None,
                out: &mut out,
                ignore_next_type: false,
            };
            f.quantity(&q);
            let text = String::from_utf8(out.0).unwrap();
            assert_eq!(text, q.spew(), "{raw}");
            let mut h = Fnv32a::new();
            let mut f = Formatter {
                layout: l,
                plan: None,
                out: &mut h,
                ignore_next_type: false,
            };
            f.quantity(&q);
            assert_eq!(h.0, fnv_bytes(text.as_bytes()), "{raw}");
        }
    }

    #[test]
    fn a_pointer_to_pointer_root_prints_its_stars_then_the_bare_value() {
        let r = crate::release::release("0.14.2").unwrap();
        let l = r.layout();
        let root = l.runner_set_spec.unwrap();
        let v = Value::zero(l, root);
        let text = template_spew(l, Root::PtrPtr(root), &v).unwrap();
        assert!(
            text.starts_with(
                "(**v1alpha1.runnerSetSpec){GitHubConfigUrl:(string) GitHubConfigSecret:(string) RunnerGroup:(string) RunnerScaleSetName:(string) Proxy:(*v1alpha1.ProxyConfig)<nil> GitHubServerTLS:(*v1alpha1.TLSConfig)<nil> Template:(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) "
            ),
            "{text}"
        );
        assert!(text.ends_with("}}}"), "{text}");
        let ars = l.autoscaling_runner_set_spec;
        let text = template_spew(l, Root::PtrPtr(ars), &Value::zero(l, ars)).unwrap();
        assert!(
            text.starts_with("(**v1alpha1.AutoscalingRunnerSetSpec){GitHubConfigUrl:(string) "),
            "{text}"
        );
        assert!(
            text.ends_with(" MaxRunners:(*int)<nil> MinRunners:(*int)<nil>}"),
            "{text}"
        );
    }

    #[test]
    fn floats_print_as_go_formats_them_with_g() {
        let r = crate::release::release("0.11.0").unwrap();
        let l = r.layout();
        let ars = l.autoscaling_runner_set_spec;
        let v = decode(
            l,
            ars,
            r#"{"listenerMetrics":{"histograms":{"h":{"labels":null,"buckets":[0.005,1,1e21,1e-7,-0,100000,1000000]}}}}"#,
        )
        .unwrap();
        let text = template_spew(l, Root::PtrPtr(ars), &v).unwrap();
        assert!(
            text.contains(
                "Histograms:(map[string]*v1alpha1.HistogramMetric)map[h:<*>{Labels:([]string)<nil> Buckets:([]float64)[0.005 1 1e+21 1e-07 -0 100000 1e+06]}]"
            ),
            "{text}"
        );
    }

    #[test]
    fn release_layouts_print_the_same_bytes_planned_or_not() {
        for r in crate::release::releases() {
            let l = r.layout();
            let copy = Layout::from_json(
                crate::layout::RELEASE_SHIPPED
                    .iter()
                    .find(|(name, _)| name.ends_with(&format!("k8s-{}", l.k8s_api)))
                    .unwrap()
                    .1,
            )
            .unwrap();
            assert!(Plan::of_shipped(l).is_some());
            assert!(Plan::of_shipped(&copy).is_none());
            let doc = r#"{"githubConfigUrl":"https://github.com/o","proxy":{"http":{"url":"u"},"noProxy":[]},"githubServerTLS":{},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"r","env":[],"resources":{"limits":{"cpu":"500m"}}}],"nodeSelector":{}}},"maxRunners":3}"#;
            for root in [l.runner_set_spec.unwrap(), l.autoscaling_runner_set_spec] {
                let mut v = decode(l, l.autoscaling_runner_set_spec, doc).unwrap();
                if root != l.autoscaling_runner_set_spec {
                    // Only the printing is checked here: a zero runnerSetSpec.
                    v = Value::zero(l, root);
                }
                let want = template_spew(&copy, Root::PtrPtr(root), &v).unwrap();
                for _ in 0..=Seg::BUILD_AT {
                    assert_eq!(template_spew(l, Root::PtrPtr(root), &v).unwrap(), want);
                    assert_eq!(
                        template_hash(l, Root::PtrPtr(root), &v).unwrap(),
                        safe_encode_decimal(fnv_bytes(want.as_bytes())),
                        "ARC {}",
                        r.version
                    );
                }
            }
        }
    }

    #[test]
    fn the_planned_path_prints_and_hashes_the_same_bytes() {
        let l = Layout::arc();
        assert!(Plan::of_shipped(l).is_some());
        let docs = [
            "{}",
            WORKED_EXAMPLE,
            include_str!("../../../../tests/oracle/testdata/realistic-spec.json"),
            // The leaked flag: a nil pointer as a slice's last element leaves the annotation
            // off for the next field; pointer fields nil and set; empty and nil collections.
            r#"{"spec":{"containers":[{"name":"a","env":[],"ports":null,"securityContext":{"privileged":false,"capabilities":{"add":[]}}}],"nodeSelector":{},"hostAliases":[{"ip":"1.2.3.4","hostnames":["a","b"]}]},"proxy":{"http":null}}"#,
            r#"{"metadata":{"labels":{"":"x"},"finalizers":[]},"spec":{"resources":{"limits":{"cpu":"1","memory":"123456789012345678901234567890"}},"containers":[{"livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"httpGet":{"port":8080}}}]}}"#,
        ];
        for doc in docs {
            let v = decode(l, l.ephemeral_runner_spec, doc).unwrap();
            let mut plain = StringSink(Vec::new());
            render_with(l, None, Root::IntegrityData, &v, &mut plain).unwrap();
            let text = spew(l, &v).unwrap();
            assert_eq!(text.as_bytes(), plain.0.as_slice(), "{doc}");
            // Byte by byte at first, then through tables as the texts recur.
            let want = safe_encode_decimal(fnv_bytes(text.as_bytes()));
            for round in 0..=Seg::BUILD_AT {
                assert_eq!(integrity_hash(l, &v).unwrap(), want, "{doc}, round {round}");
            }
        }
        // Another layout object, even of a shipped version, is printed piece by piece.
        let copy = Layout::from_json(include_str!("../layouts/k8s-api-v0.36.2.json")).unwrap();
        assert_eq!(copy.k8s_api, l.k8s_api);
        assert!(Plan::of_shipped(&copy).is_none());
        let v = decode(&copy, copy.ephemeral_runner_spec, WORKED_EXAMPLE).unwrap();
        assert_eq!(integrity_hash(&copy, &v).unwrap(), "667fcbb9d8");
    }
}
