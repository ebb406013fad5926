//! Kubernetes `resource.Quantity`, byte for byte as Go holds it after JSON decoding.
//!
//! Pure core layer: no I/O. This module mirrors `k8s.io/apimachinery` v0.36.2
//! `pkg/api/resource` (`quantity.go`, `amount.go`, `math.go`, `suffix.go`) together with the parts of
//! `gopkg.in/inf.v0` v0.9.1 (`dec.go`, `rounder.go`) and Go's `math/big` that a decoded quantity
//! touches. [`Quantity`] keeps exactly Go's internal state — the `int64Amount`, the optional
//! `*inf.Dec` (with `big.Int`'s `neg` flag and its `abs` word slice, nil or not), the cached string
//! `s` and the `Format` — because ARC's legacy hash prints that state with go-spew, and
//! `reflect.DeepEqual` compares it.
//!
//! Go quirks reproduced on purpose (all checked against the real Go code):
//! * `UnmarshalJSON` receives the *raw* JSON literal: string escapes are **not** decoded, so
//!   `"1\u0030"` is an error, not `10`.
//! * Inputs without digits parse: `"."`, `"+"`, `"Ki"` and `"Ti"` are zero, while `"Pi"`, `"Ei"`
//!   and `"e-10"` are errors (they take the slow path, which needs a digit).
//! * Exponents wrap like Go's `int32` (`"1e4294967296"` is `1`, cached as written).
//! * `String()` of a DecimalSI value whose exponent has no SI suffix drops the exponent
//!   (`"1000E"` prints as `"1"`).
//! * A value is cached in `s` only when Go's fast path judges the input canonical (`"8Gi"` is not).
//!
//! Where Go panics (an `int32` scale that wraps to `i32::MIN`, an integer division by zero in
//! `int64Amount.Cmp`) this module reports an error instead; where Go would build a power of ten
//! with billions of digits (exponents near ±2^31 on the slow path) it computes the same result
//! without building it, or gives up with [`QuantityError::TooLarge`] when the result itself would
//! have more than [`MAX_SLOW_PATH_UPSCALE`] extra digits.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};

/// Go's `ErrFormatWrong` message.
pub const GO_ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// Go's `ErrNumeric` message.
pub const GO_ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
/// Go's `ErrSuffix` message.
pub const GO_ERR_SUFFIX: &str = "unable to parse quantity's suffix";

/// The largest power of ten the slow path of [`Quantity::parse`] will multiply by when it rounds a
/// value to scale 9 (Go would multiply by any power, taking minutes and gigabytes near 10^(2^31)).
/// Only inputs with more than 18 digits (leading zeros of the integer part aside) *and* an
/// exponent above this limit hit it; inputs with up to 18 digits take the int64 fast path.
pub const MAX_SLOW_PATH_UPSCALE: i32 = 100_000;

/// `maxInt64Factors` in math.go: the decimal digits an int64 can always hold.
const MAX_INT64_FACTORS: i64 = 18;
/// `Nano` in amount.go: the smallest scale the int64 fast path keeps.
const NANO: i32 = -9;

/// Why a quantity could not be decoded. The first three are Go's own errors (see
/// [`QuantityError::go_message`]); the others are cases where Go fails differently (JSON syntax
/// error, panic, or an unbounded computation).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// Go `ErrFormatWrong`: empty input or characters outside the quantity grammar.
    #[error("invalid quantity {input:?}: {}", GO_ERR_FORMAT_WRONG)]
    FormatWrong {
        /// The (trimmed) text that was parsed.
        input: String,
    },
    /// Go `ErrNumeric`: the numeric part has no digit where the slow path needs one.
    #[error("invalid quantity {input:?}: {}", GO_ERR_NUMERIC)]
    Numeric {
        /// The (trimmed) text that was parsed.
        input: String,
    },
    /// Go `ErrSuffix`: the suffix is not an SI, binary-SI or `e<int64>` suffix.
    #[error("invalid quantity {input:?}: {}", GO_ERR_SUFFIX)]
    Suffix {
        /// The (trimmed) text that was parsed.
        input: String,
    },
    /// The raw value is not one valid JSON value; Go's decoder rejects the document before
    /// `UnmarshalJSON` runs.
    #[error("invalid JSON for a quantity: {input:?}")]
    InvalidJson {
        /// The raw JSON text.
        input: String,
    },
    /// Go's `ParseQuantity` panics on this input (an `int32` scale wraps to `math.MinInt32`).
    #[error("quantity {input:?}: Go's ParseQuantity panics on this input ({reason})")]
    GoPanic {
        /// The (trimmed) text that was parsed.
        input: String,
        /// What goes wrong in Go.
        reason: &'static str,
    },
    /// The value would need more than [`MAX_SLOW_PATH_UPSCALE`] extra decimal digits.
    #[error(
        "quantity {input:?}: too large to represent (more than {MAX_SLOW_PATH_UPSCALE} extra digits)"
    )]
    TooLarge {
        /// The (trimmed) text that was parsed.
        input: String,
    },
}

impl QuantityError {
    /// The text of the Go error `UnmarshalJSON` returns for this case, when Go returns one of its
    /// three sentinel errors (`None` for the non-Go cases).
    pub fn go_message(&self) -> Option<&'static str> {
        match self {
            QuantityError::FormatWrong { .. } => Some(GO_ERR_FORMAT_WRONG),
            QuantityError::Numeric { .. } => Some(GO_ERR_NUMERIC),
            QuantityError::Suffix { .. } => Some(GO_ERR_SUFFIX),
            _ => None,
        }
    }
}

/// A Go runtime panic that Go's code would raise for the given values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Go panics here: {0}")]
pub struct GoPanic(pub &'static str);

/// `resource.Format` (a Go string type). `Empty` is the `""` a `null` decode leaves behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// `""`.
    #[default]
    Empty,
    /// `"DecimalExponent"`, e.g. `12e6`.
    DecimalExponent,
    /// `"BinarySI"`, e.g. `12Mi`.
    BinarySI,
    /// `"DecimalSI"`, e.g. `12M`.
    DecimalSI,
}

impl Format {
    /// The Go string value of the format.
    pub fn as_go_str(self) -> &'static str {
        match self {
            Format::Empty => "",
            Format::DecimalExponent => "DecimalExponent",
            Format::BinarySI => "BinarySI",
            Format::DecimalSI => "DecimalSI",
        }
    }
}

/// `resource.int64Amount`: `value * 10^scale` (`scale` is `resource.Scale`, an int32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Int64Amount {
    /// `value int64`.
    pub value: i64,
    /// `scale Scale` (base-10 exponent).
    pub scale: i32,
}

/// `inf.Dec`: `(-1)^neg * abs * 10^(-scale)`, with `big.Int`'s layout `{neg bool; abs nat}`.
///
/// `abs` is `None` for a nil `nat` and `Some` for a non-nil one (`Some(0)` is the empty slice
/// `[]`). Go keeps `abs` normalized (no high zero words) and `neg` false for zero; every value this
/// module produces does the same.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfDec {
    /// `unscaled.neg`.
    pub neg: bool,
    /// `unscaled.abs`: little-endian 64-bit words, nil or not.
    pub abs: Option<BigUint>,
    /// `scale inf.Scale` (int32; the value is divided by `10^scale`).
    pub scale: i32,
}

impl InfDec {
    fn view(&self) -> DecView<'_> {
        match &self.abs {
            Some(m) => DecView {
                neg: self.neg && !m.is_zero(),
                mag: Cow::Borrowed(m),
                scale: self.scale,
            },
            None => DecView {
                neg: false,
                mag: Cow::Owned(BigUint::zero()),
                scale: self.scale,
            },
        }
    }
}

const INLINE_CAP: usize = 22;

/// A Go `string` field, stored inline when short (the common case for quantities), so that the
/// fast parse path allocates nothing for the cached `s`.
#[derive(Clone)]
pub struct GoString(StrRepr);

#[derive(Clone)]
enum StrRepr {
    Inline { len: u8, buf: [u8; INLINE_CAP] },
    Heap(Box<str>),
}

impl GoString {
    /// The empty string.
    pub const fn new() -> Self {
        GoString(StrRepr::Inline {
            len: 0,
            buf: [0; INLINE_CAP],
        })
    }

    /// The string's text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            StrRepr::Inline { len, buf } => std::str::from_utf8(&buf[..usize::from(*len)])
                .expect("GoString holds the bytes of a &str"),
            StrRepr::Heap(s) => s,
        }
    }
}

impl Default for GoString {
    fn default() -> Self {
        Self::new()
    }
}

impl From<&str> for GoString {
    fn from(s: &str) -> Self {
        if s.len() <= INLINE_CAP {
            let mut buf = [0u8; INLINE_CAP];
            buf[..s.len()].copy_from_slice(s.as_bytes());
            GoString(StrRepr::Inline {
                len: s.len() as u8,
                buf,
            })
        } else {
            GoString(StrRepr::Heap(s.into()))
        }
    }
}

impl Deref for GoString {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for GoString {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for GoString {}

impl std::hash::Hash for GoString {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for GoString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for GoString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `resource.Quantity` with Go's exact internal state (`i`, `d`, `s`, `Format`, in spew order).
///
/// `==` is Go's `reflect.DeepEqual` on the struct (representation equality: `"1"` != `"1000m"`);
/// use [`Quantity::go_cmp`] for the numeric comparison that `Semantic.DeepEqual` and `cmp.Equal`
/// use.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Quantity {
    /// `i int64Amount`: the value when `d` is `None`.
    pub i: Int64Amount,
    /// `d infDecAmount{*inf.Dec}`: `None` is a nil pointer.
    pub d: Option<InfDec>,
    /// `s string`: the cached string form (empty when nothing is cached).
    pub s: GoString,
    /// `Format` (embedded field).
    pub format: Format,
}

impl Quantity {
    /// Mirrors `(*Quantity).UnmarshalJSON` on a fresh zero `Quantity`.
    ///
    /// `raw` is the JSON value exactly as it appears in the document (surrounding JSON whitespace
    /// is ignored). `null` gives the zero quantity with the empty Format. A string has one pair of
    /// quotes stripped; like Go, its escapes are **not** decoded (`UnmarshalJSON` sees raw bytes,
    /// so `"1\u0030"` fails). The text is then trimmed (`strings.TrimSpace`) and parsed with
    /// [`Quantity::parse`]. Numbers are parsed from their literal text (`1e3` is `"1e3"`).
    /// Raw text that is not valid JSON is rejected, as Go's decoder would reject the document.
    pub fn from_json(raw: &str) -> Result<Quantity, QuantityError> {
        match json_quantity_text(raw)? {
            None => Ok(Quantity::default()),
            Some(text) => Quantity::parse(go_trim_space(text)),
        }
    }

    /// Mirrors `(*Quantity).UnmarshalJSON` on an existing value: `null` resets `i` and `d` but
    /// leaves `s` and `Format` as they were; anything else replaces the whole value on success
    /// and leaves it untouched on error.
    pub fn unmarshal_json(&mut self, raw: &str) -> Result<(), QuantityError> {
        match json_quantity_text(raw)? {
            None => {
                self.d = None;
                self.i = Int64Amount::default();
            }
            Some(text) => *self = Quantity::parse(go_trim_space(text))?,
        }
        Ok(())
    }

    /// Mirrors `ParseQuantity(str)` (quantity.go), including `parseQuantityString`, the suffixer,
    /// the int64 fast path with its rule for caching `s`, and the `inf.Dec` slow path (rounding up
    /// to scale 9, the BinarySI clamp at 2^63-1, BinarySI in (0, 1) becoming DecimalSI).
    /// The input is not trimmed (`UnmarshalJSON` trims before calling it).
    pub fn parse(input: &str) -> Result<Quantity, QuantityError> {
        if input.is_empty() {
            return Err(QuantityError::FormatWrong {
                input: input.into(),
            });
        }
        if input == "0" {
            return Ok(Quantity {
                format: Format::DecimalSI,
                s: GoString::from(input),
                ..Quantity::default()
            });
        }
        let parts = parse_quantity_string(input).ok_or_else(|| QuantityError::FormatWrong {
            input: input.into(),
        })?;
        let (base, exponent, format) =
            interpret_suffix(parts.suffix).ok_or_else(|| QuantityError::Suffix {
                input: input.into(),
            })?;

        let num = parts.num.as_bytes();
        let denom = parts.denom.as_bytes();
        let precision: i64;
        let mut scale: i32 = 0;
        let mut mantissa: i64 = 1;
        match format {
            Format::BinarySI => {
                if exponent >= 0 && denom.is_empty() {
                    mantissa <<= exponent;
                    // Go: 15 - len(num) - int32(float32(exponent)*3/10) - 1
                    let digits = ((exponent as f32) * 3.0 / 10.0) as i64;
                    precision = 15 - num.len() as i64 - digits - 1;
                } else {
                    precision = -1;
                }
            }
            _ => {
                scale = exponent;
                precision = MAX_INT64_FACTORS - (num.len() + denom.len()) as i64;
            }
        }

        if precision >= 0 {
            scale = scale.wrapping_sub(denom.len() as i32);
            if scale >= NANO {
                // shifted = num + denom has at most 18 digits here, so it fits an int64.
                let value = num
                    .iter()
                    .chain(denom)
                    .fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0'));
                if let Some(mut result) = value.checked_mul(mantissa) {
                    if !parts.positive {
                        result = -result;
                    }
                    let canonical = match format {
                        Format::BinarySI => exponent % 10 == 0 && value & 0x07 != 0,
                        _ => scale % 3 == 0 && !ends_with_000(num, denom) && num[0] != b'0',
                    };
                    return Ok(Quantity {
                        i: Int64Amount {
                            value: result,
                            scale,
                        },
                        d: None,
                        s: if canonical {
                            GoString::from(input)
                        } else {
                            GoString::new()
                        },
                        format,
                    });
                }
            }
        }

        Self::parse_slow(input, parts.value, base, exponent, format)
    }

    /// The `inf.Dec` half of `ParseQuantity`.
    fn parse_slow(
        input: &str,
        value: &str,
        base: u32,
        exponent: i32,
        mut format: Format,
    ) -> Result<Quantity, QuantityError> {
        let (neg, mut mag, mut scale) =
            inf_set_string(value).ok_or_else(|| QuantityError::Numeric {
                input: input.into(),
            })?;
        if base == 10 {
            // amount.SetScale(amount.Scale() + Scale(exponent).infScale()), in int32.
            scale = scale.wrapping_add(exponent.wrapping_neg());
        } else {
            mag <<= exponent as usize;
        }
        // amount.Sign(); the magnitude is worked on and the sign restored at the end.
        let negative = neg && !mag.is_zero();

        if !mag.is_zero() {
            // amount.Round(amount, Nano.infScale(), inf.RoundUp)
            let shift = 9i32.wrapping_sub(scale);
            if shift > MAX_SLOW_PATH_UPSCALE {
                return Err(QuantityError::TooLarge {
                    input: input.into(),
                });
            }
            mag = round_up_magnitude(&mag, shift).map_err(|GoPanic(reason)| {
                QuantityError::GoPanic {
                    input: input.into(),
                    reason,
                }
            })?;
            scale = 9;
        }

        if format == Format::BinarySI {
            let amount = DecView {
                neg: false,
                mag: Cow::Borrowed(&mag),
                scale,
            };
            let max = DecView::from_i64(i64::MAX, 0);
            if dec_cmp_or_exact(&amount, &max) == Ordering::Greater {
                mag = BigUint::from(i64::MAX as u64);
                scale = 0;
            }
            let amount = DecView {
                neg: false,
                mag: Cow::Borrowed(&mag),
                scale,
            };
            if dec_cmp_or_exact(&amount, &DecView::from_i64(1, 0)) == Ordering::Less
                && dec_cmp_or_exact(&amount, &DecView::from_i64(0, 0)) == Ordering::Greater
            {
                format = Format::DecimalSI;
            }
        }

        let abs = if mag.is_zero() { None } else { Some(mag) };
        Ok(Quantity {
            i: Int64Amount::default(),
            d: Some(InfDec {
                neg: negative,
                abs,
                scale,
            }),
            s: GoString::new(),
            format,
        })
    }

    /// Mirrors `(*Quantity).IsZero`.
    pub fn is_zero(&self) -> bool {
        match &self.d {
            Some(d) => d.abs.as_ref().is_none_or(BigUint::is_zero),
            None => self.i.value == 0,
        }
    }

    /// Mirrors `(*Quantity).Sign`: -1, 0 or 1.
    pub fn sign(&self) -> i32 {
        match &self.d {
            Some(d) => d.view().sign(),
            None => self.i.value.signum() as i32,
        }
    }

    /// Mirrors `(*Quantity).Cmp` (numeric comparison across the int64 and `inf.Dec`
    /// representations; the comparison behind `Semantic.DeepEqual` and `cmp.Equal`).
    ///
    /// Go's `Cmp` converts its receiver to the `inf.Dec` form when either side is one; this
    /// function does not mutate. In the rare cases where Go panics (scales whose difference
    /// overflows int32, see [`Quantity::go_cmp_checked`]) it returns the exact numeric order.
    pub fn go_cmp(&self, other: &Quantity) -> Ordering {
        self.go_cmp_checked(other)
            .unwrap_or_else(|_| exact_cmp(&self.dec_view(), &other.dec_view()))
    }

    /// [`Quantity::go_cmp`], but reporting the cases where Go's `Cmp` panics (an integer division
    /// by zero in `int64Amount.Cmp`, or an `exp10` index out of range in `inf.Dec.Cmp`, both from
    /// int32 scale arithmetic that wraps). Where Go would compare through a power of ten with
    /// billions of digits, the same answer is computed without building it.
    pub fn go_cmp_checked(&self, other: &Quantity) -> Result<Ordering, GoPanic> {
        if self.d.is_none() && other.d.is_none() {
            return int64_amount_cmp(self.i, other.i);
        }
        dec_cmp(&self.dec_view(), &other.dec_view())
    }

    /// Mirrors `(*Quantity).CmpInt64`.
    fn cmp_int64(&self, y: i64) -> Ordering {
        match &self.d {
            Some(d) => dec_cmp_or_exact(&d.view(), &DecView::from_i64(y, 0)),
            None => {
                let other = Int64Amount { value: y, scale: 0 };
                int64_amount_cmp(self.i, other).unwrap_or_else(|_| {
                    exact_cmp(&DecView::from_amount(self.i), &DecView::from_amount(other))
                })
            }
        }
    }

    /// Mirrors `(*Quantity).String()` without caching: the cached `s` when it is not empty,
    /// otherwise the canonical form ([`Quantity::canonicalize`]).
    pub fn canonical_string(&self) -> String {
        if self.s.is_empty() {
            self.canonicalize()
        } else {
            self.s.as_str().to_owned()
        }
    }

    /// Mirrors `(*Quantity).String()` including its side effect: an empty `s` is filled with the
    /// canonical form, which changes what spew prints afterwards.
    pub fn go_string(&mut self) -> &str {
        if self.s.is_empty() {
            self.s = GoString::from(self.canonicalize().as_str());
        }
        self.s.as_str()
    }

    /// Mirrors `Quantity.MarshalJSON`: the quoted cached string, or the quoted canonical form.
    pub fn marshal_json(&self) -> String {
        format!("\"{}\"", self.canonical_string())
    }

    /// Mirrors `(*Quantity).CanonicalizeBytes` (number and suffix concatenated), ignoring `s`.
    pub fn canonicalize(&self) -> String {
        let mut out = String::with_capacity(20);
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut String) {
        if self.is_zero() {
            out.push('0');
            return;
        }
        let mut format = self.format;
        let mut rounded = None;
        match format {
            Format::DecimalExponent | Format::DecimalSI => {}
            Format::BinarySI => {
                if self.cmp_int64(-1024) == Ordering::Greater
                    && self.cmp_int64(1024) == Ordering::Less
                {
                    format = Format::DecimalSI;
                } else {
                    match self.as_scale_zero() {
                        Some(r) => rounded = Some(r),
                        None => format = Format::DecimalSI,
                    }
                }
            }
            Format::Empty => format = Format::DecimalExponent,
        }
        match (format, rounded) {
            (Format::BinarySI, Some(rounded)) => {
                let exponent = match rounded {
                    Rounded::Int(a) => write_int_base1024(a, out),
                    Rounded::Dec(neg, mag) => write_big_base1024(neg, &mag, out),
                };
                out.push_str(binary_suffix(exponent.wrapping_mul(10)));
            }
            _ => {
                let exponent = match &self.d {
                    Some(d) => {
                        let v = d.view();
                        let digits = v.mag.to_string();
                        write_dec_canonical_base10(v.neg, &digits, d.scale.wrapping_neg(), out)
                    }
                    None => write_int_canonical_base10(self.i, out),
                };
                write_decimal_suffix(exponent, format, out);
            }
        }
    }

    /// Mirrors `(*Quantity).AsScale(0)` when it is exact (`None` when it loses precision).
    fn as_scale_zero(&self) -> Option<Rounded> {
        match &self.d {
            None => {
                let a = self.i;
                if a.scale > MAX_SLOW_PATH_UPSCALE {
                    // Go would print value * 10^scale in full; no decoded BinarySI int64 amount has
                    // a scale other than 0, so fall back to DecimalSI instead.
                    return None;
                }
                if a.scale >= 0 {
                    return Some(Rounded::Int(a));
                }
                let (value, exact) = negative_scale_int64(a.value, 0i32.wrapping_sub(a.scale));
                exact.then_some(Rounded::Int(Int64Amount { value, scale: 0 }))
            }
            Some(d) => {
                let v = d.view();
                // tmp.Round(a.Dec, 0, inf.RoundUp); exact iff tmp.Cmp(a.Dec) == 0. Go panics or
                // never finishes on scales near ±2^31; treat those as inexact.
                let shift = 0i32.wrapping_sub(v.scale);
                if shift > MAX_SLOW_PATH_UPSCALE {
                    return None;
                }
                let mag = round_up_magnitude(&v.mag, shift).ok()?;
                let tmp = DecView {
                    neg: v.neg && !mag.is_zero(),
                    mag: Cow::Owned(mag),
                    scale: 0,
                };
                (dec_cmp(&tmp, &v).ok()? == Ordering::Equal)
                    .then(|| Rounded::Dec(tmp.neg, tmp.mag.into_owned()))
            }
        }
    }

    /// The value as `inf.Dec` (mirrors `(*Quantity).AsDec`, without mutating).
    fn dec_view(&self) -> DecView<'_> {
        match &self.d {
            Some(d) => d.view(),
            None => DecView::from_amount(self.i),
        }
    }

    /// Writes go-spew's `%#v` body of the struct (ARC's `ConfigState`: DisableMethods, SortKeys),
    /// starting at `{i:`; the caller adds `(resource.Quantity)` when the type annotation is on.
    pub fn write_spew(&self, out: &mut String) {
        out.push_str("{i:(resource.int64Amount){value:(int64)");
        push_i64(out, self.i.value);
        out.push_str(" scale:(resource.Scale)");
        push_i64(out, i64::from(self.i.scale));
        out.push_str("} d:(resource.infDecAmount){Dec:(*inf.Dec)");
        match &self.d {
            None => out.push_str("<nil>"),
            Some(d) => {
                out.push_str("{unscaled:(big.Int){neg:(bool)");
                out.push_str(if d.neg { "true" } else { "false" });
                out.push_str(" abs:(big.nat)");
                match &d.abs {
                    None => out.push_str("<nil>"),
                    Some(m) => {
                        out.push('[');
                        for (n, w) in m.iter_u64_digits().enumerate() {
                            if n > 0 {
                                out.push(' ');
                            }
                            push_u64(out, w);
                        }
                        out.push(']');
                    }
                }
                out.push_str("} scale:(inf.Scale)");
                push_i64(out, i64::from(d.scale));
                out.push('}');
            }
        }
        out.push_str("} s:(string)");
        out.push_str(self.s.as_str());
        out.push_str(" Format:(resource.Format)");
        out.push_str(self.format.as_go_str());
        out.push('}');
    }

    /// The spew body as a new string (see [`Quantity::write_spew`]).
    pub fn spew(&self) -> String {
        let mut out = String::with_capacity(160);
        self.write_spew(&mut out);
        out
    }

    /// Go's `reflect.DeepEqual` on two quantities: every internal field, including the nil-ness
    /// of `abs`, `neg`, the scales, the cached `s` and the Format. Same as `==`.
    pub fn go_reflect_eq(&self, other: &Quantity) -> bool {
        self == other
    }
}

impl fmt::Display for Quantity {
    /// Displays `String()`'s output ([`Quantity::canonical_string`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.s.is_empty() {
            let mut out = String::with_capacity(20);
            self.write_canonical(&mut out);
            f.write_str(&out)
        } else {
            f.write_str(self.s.as_str())
        }
    }
}

/// The text `UnmarshalJSON` hands to `ParseQuantity` (before trimming): `None` for `null`, the
/// raw bytes between the quotes for a string, the literal itself otherwise. Rejects raw text that
/// is not one valid JSON value.
fn json_quantity_text(raw: &str) -> Result<Option<&str>, QuantityError> {
    let is_json_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let mut raw = raw;
    if raw.bytes().next().is_some_and(is_json_space)
        || raw.bytes().last().is_some_and(is_json_space)
    {
        raw = raw.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    }
    let bytes = raw.as_bytes();
    let valid = match bytes.first() {
        Some(b'"') => {
            if valid_json_string(bytes) {
                return Ok(Some(&raw[1..raw.len() - 1]));
            }
            false
        }
        Some(b'n') if bytes == b"null" => return Ok(None),
        Some(b'-' | b'0'..=b'9') => valid_json_number(bytes),
        // true, false, an object or an array: Go hands the raw bytes to UnmarshalJSON, and
        // ParseQuantity rejects them.
        _ => serde_json::from_str::<serde::de::IgnoredAny>(raw).is_ok(),
    };
    if valid {
        Ok(Some(raw))
    } else {
        Err(QuantityError::InvalidJson { input: raw.into() })
    }
}

/// `strings.TrimSpace` (Unicode white space, as Rust's `str::trim`), skipping the work when the
/// ends are plain ASCII non-space bytes.
fn go_trim_space(s: &str) -> &str {
    let plain = |c: u8| c.is_ascii() && !c.is_ascii_whitespace() && c != 0x0b;
    match (s.bytes().next(), s.bytes().last()) {
        (Some(a), Some(b)) if plain(a) && plain(b) => s,
        _ => s.trim(),
    }
}

/// The pieces `parseQuantityString` returns.
struct Parts<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// Mirrors `parseQuantityString` (quantity.go). `None` is `ErrFormatWrong`.
fn parse_quantity_string(str: &str) -> Option<Parts<'_>> {
    let b = str.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    if pos < end {
        match b[0] {
            b'-' => {
                positive = false;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
    }

    // Leading zeros; nothing but zeros means the value is "0" (sign dropped from value).
    loop {
        if pos >= end {
            return Some(Parts {
                positive,
                value: "0",
                num: "0",
                denom: "",
                suffix: "",
            });
        }
        if b[pos] != b'0' {
            break;
        }
        pos += 1;
    }

    // Numerator.
    let mut i = pos;
    while i < end && b[i].is_ascii_digit() {
        i += 1;
    }
    if i >= end {
        return Some(Parts {
            positive,
            value: str,
            num: &str[pos..end],
            denom: "",
            suffix: "",
        });
    }
    let num = if i == pos { "0" } else { &str[pos..i] };
    pos = i;

    // Denominator.
    let mut denom = "";
    if b[pos] == b'.' {
        pos += 1;
        let mut i = pos;
        while i < end && b[i].is_ascii_digit() {
            i += 1;
        }
        if i >= end {
            return Some(Parts {
                positive,
                value: str,
                num,
                denom: &str[pos..end],
                suffix: "",
            });
        }
        denom = &str[pos..i];
        pos = i;
    }
    let value = &str[..pos];

    // Suffix: letters, then an optional sign, then digits to the end.
    let suffix_start = pos;
    let mut i = pos;
    while i < end && b"eEinumkKMGTP".contains(&b[i]) {
        i += 1;
    }
    pos = i;
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    let mut i = pos;
    while i < end && b[i].is_ascii_digit() {
        i += 1;
    }
    if i >= end {
        return Some(Parts {
            positive,
            value,
            num,
            denom,
            suffix: &str[suffix_start..],
        });
    }
    None
}

/// Mirrors `quantitySuffixer.interpret` (suffix.go): `(base, exponent, format)`.
fn interpret_suffix(suffix: &str) -> Option<(u32, i32, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    let bin = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E'])?;
            // strconv.ParseInt(rest, 10, 64), then int32(parsed) (truncating).
            let parsed: i64 = rest.parse().ok()?;
            Some((10, parsed as i32, Format::DecimalExponent))
        }
    }
}

/// `strings.HasSuffix(num+denom, "000")` without building the string.
fn ends_with_000(num: &[u8], denom: &[u8]) -> bool {
    let total = num.len() + denom.len();
    total >= 3
        && (total - 3..total).all(|k| {
            let c = if k < num.len() {
                num[k]
            } else {
                denom[k - num.len()]
            };
            c == b'0'
        })
}

/// Mirrors `(*inf.Dec).SetString`: `(neg, magnitude, scale)`, or `None` when Go fails (no digit,
/// or characters left over).
fn inf_set_string(value: &str) -> Option<(bool, BigUint, i32)> {
    let b = value.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = b.first() {
        neg = c == b'-';
        i = 1;
    }
    let mut digits = Vec::with_capacity(b.len());
    let mut frac: Option<usize> = None;
    for &c in &b[i..] {
        match c {
            b'0'..=b'9' => {
                digits.push(c);
                if let Some(n) = frac.as_mut() {
                    *n += 1;
                }
            }
            b'.' if frac.is_none() => frac = Some(0),
            _ => return None,
        }
    }
    if digits.is_empty() {
        return None;
    }
    let mag = BigUint::parse_bytes(&digits, 10)?;
    Some((neg, mag, frac.unwrap_or(0) as i32))
}

/// The magnitude of `inf.Dec.Round(x, s, inf.RoundUp)` for a nonzero `x`, where
/// `shift = s - x.scale` (int32, wrapping as in `quoRem`). The caller bounds positive shifts.
fn round_up_magnitude(mag: &BigUint, shift: i32) -> Result<BigUint, GoPanic> {
    match shift.cmp(&0) {
        Ordering::Equal => Ok(mag.clone()),
        Ordering::Greater => Ok(mag * pow10(shift as u32)),
        Ordering::Less => {
            if shift == i32::MIN {
                return Err(GoPanic("inf.exp10: index out of range"));
            }
            let k = shift.unsigned_abs();
            if u64::from(k) >= mag.bits() {
                // 10^k > mag: the quotient is 0 and the remainder is mag.
                return Ok(if mag.is_zero() {
                    BigUint::zero()
                } else {
                    BigUint::one()
                });
            }
            let (q, r) = mag.div_rem(&pow10(k));
            Ok(if r.is_zero() { q } else { q + 1u32 })
        }
    }
}

fn pow10(k: u32) -> BigUint {
    if k < 20 {
        BigUint::from(10u64.pow(k))
    } else {
        BigUint::from(10u32).pow(k)
    }
}

/// A value `(-1)^neg * mag * 10^(-scale)` as `inf.Dec` sees it.
struct DecView<'a> {
    neg: bool,
    mag: Cow<'a, BigUint>,
    scale: i32,
}

impl DecView<'static> {
    fn from_i64(value: i64, scale: i32) -> Self {
        DecView {
            neg: value < 0,
            mag: Cow::Owned(BigUint::from(value.unsigned_abs())),
            scale,
        }
    }

    /// `int64Amount.AsDec`: scale `-a.scale` (int32 negation wraps).
    fn from_amount(a: Int64Amount) -> Self {
        Self::from_i64(a.value, a.scale.wrapping_neg())
    }
}

impl DecView<'_> {
    fn sign(&self) -> i32 {
        if self.mag.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }
}

/// Compares two signed magnitudes.
fn cmp_signed(an: bool, am: &BigUint, bn: bool, bm: &BigUint) -> Ordering {
    let sa = signum(an, am);
    let sb = signum(bn, bm);
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let c = am.cmp(bm);
    if sa < 0 { c.reverse() } else { c }
}

fn signum(neg: bool, mag: &BigUint) -> i32 {
    if mag.is_zero() {
        0
    } else if neg {
        -1
    } else {
        1
    }
}

/// Compares `(-1)^an * am * 10^k` with `(-1)^bn * bm` without building `10^k` when it is larger
/// than `bm` anyway.
fn cmp_mul_pow10(an: bool, am: &BigUint, k: u64, bn: bool, bm: &BigUint) -> Ordering {
    let sa = signum(an, am);
    let sb = signum(bn, bm);
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let c = if k >= bm.bits() {
        // am * 10^k >= 10^k > 2^bits(bm) > bm.
        Ordering::Greater
    } else {
        (am * pow10(k as u32)).cmp(bm)
    };
    if sa < 0 { c.reverse() } else { c }
}

/// `x.rescale(newScale)` compared with `other` (inf dec.go `rescale` + `Cmp`): a negative shift
/// truncates (`big.Int.Quo`), a positive one multiplies.
fn cmp_rescaled(x: &DecView<'_>, new_scale: i32, other: &DecView<'_>) -> Result<Ordering, GoPanic> {
    let shift = new_scale.wrapping_sub(x.scale);
    match shift.cmp(&0) {
        Ordering::Equal => Ok(cmp_signed(x.neg, &x.mag, other.neg, &other.mag)),
        Ordering::Greater => Ok(cmp_mul_pow10(
            x.neg,
            &x.mag,
            u64::from(shift as u32),
            other.neg,
            &other.mag,
        )),
        Ordering::Less => {
            if shift == i32::MIN {
                return Err(GoPanic("inf.exp10: index out of range"));
            }
            let k = shift.unsigned_abs();
            let q = if u64::from(k) >= x.mag.bits() {
                BigUint::zero()
            } else {
                &*x.mag / pow10(k)
            };
            Ok(cmp_signed(x.neg, &q, other.neg, &other.mag))
        }
    }
}

/// Mirrors `(*inf.Dec).Cmp` (with `upscale`'s int32 scale arithmetic).
fn dec_cmp(x: &DecView<'_>, y: &DecView<'_>) -> Result<Ordering, GoPanic> {
    match x.scale.cmp(&y.scale) {
        Ordering::Equal => Ok(cmp_signed(x.neg, &x.mag, y.neg, &y.mag)),
        Ordering::Greater => cmp_rescaled(y, x.scale, x).map(Ordering::reverse),
        Ordering::Less => cmp_rescaled(x, y.scale, y),
    }
}

fn dec_cmp_or_exact(x: &DecView<'_>, y: &DecView<'_>) -> Ordering {
    dec_cmp(x, y).unwrap_or_else(|_| exact_cmp(x, y))
}

/// The mathematically exact order of two decimals (no int32 wrapping).
fn exact_cmp(x: &DecView<'_>, y: &DecView<'_>) -> Ordering {
    let (xs, ys) = (i64::from(x.scale), i64::from(y.scale));
    match xs.cmp(&ys) {
        Ordering::Equal => cmp_signed(x.neg, &x.mag, y.neg, &y.mag),
        // x = xm / 10^xs, y = ym / 10^ys: compare xm with ym * 10^(xs - ys).
        Ordering::Greater => {
            cmp_mul_pow10(y.neg, &y.mag, (xs - ys) as u64, x.neg, &x.mag).reverse()
        }
        Ordering::Less => cmp_mul_pow10(x.neg, &x.mag, (ys - xs) as u64, y.neg, &y.mag),
    }
}

/// Mirrors `int64Amount.Cmp` (amount.go), including its fallback to `inf.Dec` when the scales are
/// 18 or more apart and its division by zero when the scale difference wraps negative.
fn int64_amount_cmp(a: Int64Amount, b: Int64Amount) -> Result<Ordering, GoPanic> {
    let (mut av, mut bv) = (a.value, b.value);
    match a.scale.cmp(&b.scale) {
        Ordering::Equal => {}
        Ordering::Greater => {
            let Some((result, remainder)) =
                divide_by_scale_int64(b.value, a.scale.wrapping_sub(b.scale))?
            else {
                return dec_cmp(&DecView::from_amount(a), &DecView::from_amount(b));
            };
            if result == a.value {
                return Ok(0.cmp(&remainder));
            }
            bv = result;
        }
        Ordering::Less => {
            let Some((result, remainder)) =
                divide_by_scale_int64(a.value, b.scale.wrapping_sub(a.scale))?
            else {
                return dec_cmp(&DecView::from_amount(a), &DecView::from_amount(b));
            };
            if result == b.value {
                return Ok(remainder.cmp(&0));
            }
            av = result;
        }
    }
    Ok(av.cmp(&bv))
}

/// Mirrors `divideByScaleInt64`: `Ok(None)` is "not exact" (scale >= 18).
fn divide_by_scale_int64(base: i64, scale: i32) -> Result<Option<(i64, i64)>, GoPanic> {
    if scale == 0 {
        return Ok(Some((base, 0)));
    }
    if scale >= 18 {
        return Ok(None);
    }
    if scale < 0 {
        // pow10Int64 returns 0 for a negative exponent.
        return Err(GoPanic("runtime error: integer divide by zero"));
    }
    let divisor = 10i64.pow(scale as u32);
    Ok(Some((base / divisor, base % divisor)))
}

/// Mirrors `negativeScaleInt64` (math.go): divide by `10^scale`, rounding away from zero.
fn negative_scale_int64(base: i64, scale: i32) -> (i64, bool) {
    if scale == 0 {
        return (base, true);
    }
    let mut value = base;
    let mut fraction = false;
    let mut i = 0;
    while i < scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            if fraction {
                return (if base > 0 { 1 } else { -1 }, false);
            }
            return (0, true);
        }
        i += 1;
    }
    if fraction {
        if base > 0 {
            value += 1;
        } else {
            value -= 1;
        }
    }
    (value, !fraction)
}

/// A value rounded by `AsScale(0)`, for the BinarySI branch of `CanonicalizeBytes`.
enum Rounded {
    Int(Int64Amount),
    Dec(bool, BigUint),
}

/// Mirrors `int64Amount.AsCanonicalBytes`: strips factors of ten into the exponent, then makes
/// the exponent a multiple of 3 with **one** multiplication by 10 or 100 (int32 arithmetic, so
/// an exponent that wraps can stay off a multiple of 3). Falls back to the `inf.Dec` version on
/// overflow, as Go does. Returns the exponent.
fn write_int_canonical_base10(a: Int64Amount, out: &mut String) -> i32 {
    let (mut amount, times) = remove_int64_factors(a.value, 10);
    let mut exponent = a.scale.wrapping_add(times);
    let (factor, step) = match exponent % 3 {
        1 | -2 => (10, 1),
        2 | -1 => (100, 2),
        _ => (1, 0),
    };
    if step != 0 {
        match amount.checked_mul(factor) {
            Some(v) => {
                amount = v;
                exponent = exponent.wrapping_sub(step);
            }
            None => {
                let mut buf = [0u8; 20];
                let digits = u64_digits(a.value.unsigned_abs(), &mut buf);
                return write_dec_canonical_base10(a.value < 0, digits, a.scale, out);
            }
        }
    }
    push_i64(out, amount);
    exponent
}

/// Mirrors `removeInt64Factors` (math.go).
fn remove_int64_factors(value: i64, base: i64) -> (i64, i32) {
    let mut times = 0;
    // Go negates a negative value; math.MinInt64 stays negative and loses no factors.
    let negative = value < 0;
    let mut result = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    while result >= base && result % base == 0 {
        times += 1;
        result /= base;
    }
    if negative {
        result = result.wrapping_neg();
    }
    (result, times)
}

/// Mirrors `infDecAmount.AsCanonicalBytes`: strips factors of ten into the exponent, then
/// appends zeros one at a time until the exponent is a multiple of 3 (int32 arithmetic).
/// `digits` is the decimal magnitude (nonzero) and `exponent` is `-scale`. Returns the exponent.
fn write_dec_canonical_base10(neg: bool, digits: &str, exponent: i32, out: &mut String) -> i32 {
    let trimmed = digits.trim_end_matches('0');
    let times = (digits.len() - trimmed.len()) as i32;
    let mut exponent = exponent.wrapping_add(times);
    if neg {
        out.push('-');
    }
    out.push_str(trimmed);
    while exponent % 3 != 0 {
        out.push('0');
        exponent = exponent.wrapping_sub(1);
    }
    exponent
}

/// Mirrors `int64Amount.AsCanonicalBase1024Bytes` (`a.scale >= 0`). Returns the base-1024
/// exponent.
fn write_int_base1024(a: Int64Amount, out: &mut String) -> i32 {
    // AsScaledInt64(0) = positiveScaleInt64(value, scale): exact int64 multiplication or bust.
    let scaled = u32::try_from(a.scale)
        .ok()
        .and_then(|s| 10i64.checked_pow(s))
        .and_then(|p| a.value.checked_mul(p));
    match scaled {
        Some(value) => {
            let (result, times) = remove_int64_factors(value, 1024);
            push_i64(out, result);
            times
        }
        None => {
            // infDecAmount{a.AsDec()}.AsCanonicalBase1024Bytes: value * 10^scale, exactly.
            // The scale is in 0..=MAX_SLOW_PATH_UPSCALE (see `as_scale_zero`).
            let mag = BigUint::from(a.value.unsigned_abs()) * pow10(a.scale as u32);
            write_big_base1024(a.value < 0, &mag, out)
        }
    }
}

/// Mirrors `removeBigIntFactors(x, 1024)` + `String()` on an integer (scale 0) value.
fn write_big_base1024(neg: bool, mag: &BigUint, out: &mut String) -> i32 {
    let times = mag.trailing_zeros().map_or(0, |tz| tz / 10);
    let rest = mag >> (times * 10);
    if neg && !rest.is_zero() {
        out.push('-');
    }
    out.push_str(&rest.to_string());
    times as i32
}

/// `quantitySuffixer.constructBytes(10, exponent, format)` for DecimalSI / DecimalExponent. A
/// DecimalSI exponent without a suffix yields no suffix at all (Go ignores the `ok` result).
fn write_decimal_suffix(exponent: i32, format: Format, out: &mut String) {
    if format == Format::DecimalSI {
        out.push_str(match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => "",
        });
    } else if exponent != 0 {
        out.push('e');
        push_i64(out, i64::from(exponent));
    }
}

/// `quantitySuffixer.constructBytes(2, exponent, BinarySI)`; unknown exponents give no suffix.
fn binary_suffix(exponent: i32) -> &'static str {
    match exponent {
        10 => "Ki",
        20 => "Mi",
        30 => "Gi",
        40 => "Ti",
        50 => "Pi",
        60 => "Ei",
        _ => "",
    }
}

fn u64_digits(mut v: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).expect("ASCII digits")
}

fn push_u64(out: &mut String, v: u64) {
    let mut buf = [0u8; 20];
    out.push_str(u64_digits(v, &mut buf));
}

fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_u64(out, v.unsigned_abs());
}

/// Whether `b` is exactly one JSON string literal (Go's scanner rules: no raw control characters,
/// only the standard escapes).
fn valid_json_string(b: &[u8]) -> bool {
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => return i == b.len() - 1,
            b'\\' => {
                match b.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => {
                        let hex = b.get(i + 2..i + 6);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return false;
                        }
                        i += 6;
                    }
                    _ => return false,
                }
                continue;
            }
            c if c < 0x20 => return false,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether `b` is exactly one JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn valid_json_number(b: &[u8]) -> bool {
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if b.first() == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(raw: &str) -> Quantity {
        Quantity::from_json(raw).unwrap_or_else(|e| panic!("{raw}: {e}"))
    }

    fn p(s: &str) -> Quantity {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn spew(q: &Quantity) -> String {
        format!("(resource.Quantity){}", q.spew())
    }

    /// One data row of a verified file: `<raw JSON>  err=<nil> [canonical=<c>] spew=<spew>`.
    struct Row {
        raw: String,
        canonical: Option<String>,
        spew: String,
    }

    /// The rows of a recorded file; `None` where `../shared/` is absent (see
    /// [`crate::recorded_go_output`]). A file that exists must give at least `min` rows: a
    /// format this reader no longer recognises fails instead of comparing nothing.
    fn verified_rows(file: &str, min: usize) -> Option<Vec<Row>> {
        let text = crate::recorded_go_output(file)?;
        let mut rows = Vec::new();
        for line in text.lines() {
            if !line.contains(" err=") || !line.contains(" spew=") {
                continue;
            }
            let (raw, rest) = if let Some(body) = line.strip_prefix('"') {
                let close = body.find('"').expect("closing quote");
                (format!("\"{}\"", &body[..close]), &body[close + 1..])
            } else {
                let end = line.find(' ').expect("space after raw value");
                (line[..end].to_string(), &line[end..])
            };
            assert!(!raw.contains('\\'), "escapes not expected in {line}");
            let rest = rest.trim_start();
            let rest = rest.strip_prefix("err=<nil> ").expect("only successes");
            let (canonical, spew) = match rest.strip_prefix("canonical=") {
                Some(r) => {
                    let (c, s) = r.split_once(" spew=").expect("spew after canonical");
                    (Some(c.to_string()), s)
                }
                None => (None, rest.strip_prefix("spew=").expect("spew")),
            };
            rows.push(Row {
                raw,
                canonical,
                spew: spew.to_string(),
            });
        }
        assert!(
            rows.len() >= min,
            "{file} exists but gave only {} rows (at least {min} expected)",
            rows.len()
        );
        Some(rows)
    }

    #[test]
    fn verified_quantity_parses() {
        let Some(rows) = verified_rows("quantity_parses.txt", 40) else {
            return; // said on stderr; a failure under CI=true
        };
        for row in &rows {
            let parsed = q(&row.raw);
            assert_eq!(spew(&parsed), row.spew, "spew of {}", row.raw);
            let canonical = row.canonical.as_deref().expect("canonical column");
            assert_eq!(
                parsed.canonical_string(),
                canonical,
                "String() of {}",
                row.raw
            );
        }
    }

    #[test]
    fn verified_quantity_parses_extra() {
        let Some(rows) = verified_rows("quantity_parses_extra.txt", 15) else {
            return; // said on stderr; a failure under CI=true
        };
        for row in &rows {
            assert_eq!(spew(&q(&row.raw)), row.spew, "spew of {}", row.raw);
        }
    }

    #[test]
    fn verified_string_caches() {
        // "String() caches s" line of quantity_parses.txt.
        let mut x = q("\"1000m\"");
        assert_eq!(x.s.as_str(), "");
        assert_eq!(x.go_string(), "1");
        assert!(spew(&x).contains(" s:(string)1 Format:"));
        assert!(!x.go_reflect_eq(&q("\"1000m\"")));
        assert!(!q("\"1\"").go_reflect_eq(&q("\"1000m\"")));
        assert!(q("\"1\"").go_reflect_eq(&q("1")));
    }

    /// Replays `tests/data/quantity/go_cases.tsv`: outputs of the real Go code (see its header).
    #[test]
    fn go_generated_cases() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/quantity/go_cases.tsv"
        );
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("Go-generated cases {path} must exist: {e}"));
        let (mut parses, mut cmps) = (0, 0);
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let f: Vec<&str> = line.split('\t').collect();
            match f[..] {
                ["P", raw, "ok", want_spew, want_string] => {
                    let x = q(raw);
                    assert_eq!(spew(&x), want_spew, "spew of {raw}");
                    assert_eq!(x.canonical_string(), want_string, "String() of {raw}");
                    parses += 1;
                }
                ["P", raw, "err", go_err] => {
                    let err = Quantity::from_json(raw).expect_err(raw);
                    match err.go_message() {
                        Some(m) => assert_eq!(m, go_err, "error of {raw}"),
                        // A JSON syntax error in Go.
                        None => assert!(
                            matches!(err, QuantityError::InvalidJson { .. }),
                            "{raw}: Go says {go_err}, we say {err}"
                        ),
                    }
                    parses += 1;
                }
                ["P", raw, "panic"] => {
                    let err = Quantity::from_json(raw).expect_err(raw);
                    assert!(matches!(err, QuantityError::GoPanic { .. }), "{raw}: {err}");
                    parses += 1;
                }
                ["C", a, b, want] => {
                    let got = q(a).go_cmp_checked(&q(b));
                    let want = match want {
                        "-1" => Ok(Ordering::Less),
                        "0" => Ok(Ordering::Equal),
                        "1" => Ok(Ordering::Greater),
                        "panic" => Err(()),
                        other => panic!("bad result {other:?} in {line}"),
                    };
                    assert_eq!(got.map_err(|_| ()), want, "Cmp({a}, {b})");
                    cmps += 1;
                }
                _ => panic!("malformed line {line:?}"),
            }
        }
        assert!(
            parses >= 500 && cmps >= 1000,
            "{parses} parses, {cmps} comparisons"
        );
    }

    #[test]
    fn cmp_across_representations() {
        use Ordering::*;
        let cases = [
            ("1", "1000m", Equal),
            ("1Gi", "1024Mi", Equal),
            ("1.5Gi", "1536Mi", Equal),
            ("-1.5Gi", "-1536Mi", Equal),
            ("0.5", "500m", Equal),
            ("1e3", "1k", Equal),
            ("1e20", "100E", Equal),
            ("1e20", "1", Greater),
            ("1n", "1e20", Less),
            ("0.1n", "1n", Equal),
            ("-0.1n", "-1n", Equal),
            ("-0.1n", "0", Less),
            ("123456789012345678901", "999999999999999999", Greater),
            ("123456789012345678901", "123456789012345678901000m", Equal),
            ("-123456789012345678901", "-999999999999999999", Less),
            ("16Ei", "9223372036854775807", Equal),
            ("8Ei", "16Ei", Equal),
            ("1Ei", "1152921504606846976", Equal),
            ("-1", "1", Less),
            ("-1", "-1000m", Equal),
            ("-2", "-1", Less),
            ("1.000000001", "1", Greater),
            ("999m", "1", Less),
        ];
        for (a, b, want) in cases {
            assert_eq!(p(a).go_cmp(&p(b)), want, "{a} vs {b}");
            assert_eq!(p(b).go_cmp(&p(a)), want.reverse(), "{b} vs {a}");
        }
        // Zero in every form.
        let zeros = [
            Quantity::from_json("null").unwrap(),
            p("0"),
            p("00"),
            p("0m"),
            p("0.0"),
            p("0Gi"),
            p("-0"),
            p("0.0000000000"),
            p("0.0000000000Ki"),
        ];
        for a in &zeros {
            assert!(a.is_zero());
            for b in &zeros {
                assert_eq!(a.go_cmp(b), Equal, "{a:?} vs {b:?}");
            }
            assert_eq!(a.go_cmp(&p("1n")), Less);
            assert_eq!(a.go_cmp(&p("-1n")), Greater);
        }
    }

    #[test]
    fn cmp_where_go_panics() {
        // int64Amount.Cmp: scale difference MaxInt32+9 wraps negative, pow10Int64 gives 0.
        let big = p("1e2147483647");
        let small = p("1n");
        assert!(big.go_cmp_checked(&small).is_err());
        assert_eq!(big.go_cmp(&small), Ordering::Greater);
        assert_eq!(small.go_cmp(&big), Ordering::Less);
    }

    #[test]
    fn canonical_strings() {
        let cases = [
            ("1000m", "1"),
            ("1.5Gi", "1536Mi"),
            ("0.1", "100m"),
            ("2048Ki", "2Mi"),
            ("8Gi", "8Gi"),
            ("1.5", "1500m"),
            ("0.5Gi", "512Mi"),
            ("-1.5Gi", "-1536Mi"),
            ("1000E", "1"),
            ("1e21", "1e21"),
            ("1000e18", "1e21"),
            ("1.5e-2147483648", "150e2147483646"),
            ("10e2147483647", "10e2147483647"),
            ("0.0001Ki", "102400u"),
            ("-16Ei", "-9223372036854775807"),
            ("100Ti", "100Ti"),
            ("1Pi", "1Pi"),
            ("123456789012345678901", "123456789012345678901"),
            ("1234567890123456789012e-3", "1234567890123456789012e-3"),
            ("0.0000000000", "0"),
            ("1000Mi", "1000Mi"),
            ("1024", "1024"),
            ("1.5Ki", "1536"),
            ("0.5Ki", "512"),
        ];
        for (input, want) in cases {
            let x = p(input);
            assert_eq!(x.canonical_string(), want, "String() of {input}");
            assert_eq!(x.to_string(), want);
        }
        assert_eq!(p("01").canonical_string(), "01");
        assert_eq!(p("01").canonicalize(), "1");
        assert_eq!(p("1000m").marshal_json(), "\"1\"");
        assert_eq!(Quantity::default().canonical_string(), "0");
    }

    #[test]
    fn go_parse_quirks() {
        // No digits at all still parses on the fast path...
        for s in [".", "+", "-", "Ki", "Ti", "1.Ki", "e-9"] {
            assert!(Quantity::parse(s).is_ok(), "{s}");
        }
        assert_eq!(p("Ki").format, Format::BinarySI);
        assert_eq!(p("1.Ki").s.as_str(), "1.Ki");
        // ...but not on the slow path.
        for s in ["Pi", "Ei", "e-10", ".Ei"] {
            assert!(
                matches!(Quantity::parse(s), Err(QuantityError::Numeric { .. })),
                "{s}"
            );
        }
        let x = p("1e4294967296");
        assert_eq!((x.i.value, x.i.scale, x.s.as_str()), (1, 0, "1e4294967296"));
        assert!(matches!(
            Quantity::parse("1234567890123456789e2147483639"),
            Err(QuantityError::GoPanic { .. })
        ));
        assert!(matches!(
            Quantity::parse("1234567890123456789e2000000"),
            Err(QuantityError::TooLarge { .. })
        ));
        // Go would compute 10^2147483640 first; the result is 1n.
        let x = p("1234567890123456789e2147483647");
        assert_eq!(x.canonical_string(), "1e-9");
    }

    #[test]
    fn malformed_inputs() {
        for s in ["", "1.2.3", "abc", "1Zi", "1 2", "1Ki-x", "1KiB"] {
            assert!(
                matches!(Quantity::parse(s), Err(QuantityError::FormatWrong { .. })),
                "{s}"
            );
        }
        for s in [
            "--1",
            "1e",
            "1ee5",
            "1e+",
            "1i",
            "1e99999999999999999999",
            "1Kii",
            "1Ki5",
        ] {
            assert!(
                matches!(Quantity::parse(s), Err(QuantityError::Suffix { .. })),
                "{s}"
            );
        }
        assert_eq!(
            Quantity::parse("abc").unwrap_err().go_message(),
            Some(GO_ERR_FORMAT_WRONG)
        );
        assert!(
            Quantity::parse("abc")
                .unwrap_err()
                .to_string()
                .contains("\"abc\"")
        );
    }

    #[test]
    fn json_decoding() {
        assert_eq!(q("\"1\""), q("1"));
        assert_eq!(q(" \"1\" "), q("1"));
        assert_eq!(q("\" 1 \"").s.as_str(), "1");
        assert_eq!(q("\"\u{a0}1\u{a0}\""), p("1"));
        assert_eq!(q("1e3").format, Format::DecimalExponent);
        assert_eq!(q("1e3").s.as_str(), "1e3");
        // Escapes reach ParseQuantity undecoded.
        assert!(Quantity::from_json(r#""1\u0030""#).is_err());
        for raw in [
            "01", "+1", ".5", "1.", "\"1", "\"1\"x", "\"\t1\"", "nul", "{", "1Gi",
        ] {
            assert!(
                matches!(
                    Quantity::from_json(raw),
                    Err(QuantityError::InvalidJson { .. })
                ),
                "{raw}"
            );
        }
        for raw in ["true", "{}", "[1]", "\"\""] {
            assert!(
                matches!(
                    Quantity::from_json(raw),
                    Err(QuantityError::FormatWrong { .. })
                ),
                "{raw}"
            );
        }
        // null on an existing value keeps s and Format.
        let mut x = p("1");
        x.unmarshal_json("null").unwrap();
        assert_eq!(
            (x.i, x.s.as_str(), x.format),
            (Int64Amount::default(), "1", Format::DecimalSI)
        );
    }

    #[test]
    fn spew_of_empty_abs() {
        let x = Quantity {
            d: Some(InfDec {
                neg: false,
                abs: Some(BigUint::zero()),
                scale: 3,
            }),
            ..Quantity::default()
        };
        assert!(x.spew().contains("abs:(big.nat)[]} scale:(inf.Scale)3}"));
        let y = Quantity {
            d: Some(InfDec {
                neg: false,
                abs: None,
                scale: 3,
            }),
            ..Quantity::default()
        };
        assert!(!x.go_reflect_eq(&y));
        assert_eq!(x.go_cmp(&y), Ordering::Equal);
    }
}
