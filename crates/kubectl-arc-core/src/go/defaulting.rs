//! What the API server does to a custom resource before anyone reads it back: the structural
//! defaults of its CRD's schema, and the refusal of a number that is not an integer where the
//! schema says `x-kubernetes-int-or-string`.
//!
//! Pure core. Mirrors k8s.io/apiextensions-apiserver v0.36.2 (the test bed's kube-apiserver,
//! `testbed/go.mod`), `pkg/apiserver/schema/defaulting`: on create and update the custom resource
//! handler's decoder prunes unknown fields (`structuralpruning.PruneWithOptions`), then
//! [`prune_non_nullable_nulls_without_defaults`], then the defaulter runs [`default`], then the
//! object is validated against the schema (kube-openapi's type validator, where
//! `x-kubernetes-int-or-string: true` is the type `[integer, string]`).
//!
//! Mirrored: `PruneNonNullableNullsWithoutDefaults`, `Default` (into properties, list items and map
//! values, only where a field is absent or a null its schema does not allow, each default copied,
//! the defaults inside a default applied since the walk goes on into what it just set), and the
//! type check of int-or-string nodes. Not mirrored: the pruning of unknown fields (neither ARC's Go
//! types nor our decoding of them read an unknown field, so what it drops changes no hash and no
//! comparison), `PruneDefaults` (it prunes unknown fields out of the defaults themselves; every
//! default of ARC's CRDs is a scalar), and every other validation of the schema.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::json::TextKey;

/// The parts of a structural schema node (apiextensions-apiserver's `structuralschema.Structural`)
/// that defaulting and the int-or-string check read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Structural {
    pub properties: BTreeMap<String, Structural>,
    /// `additionalProperties` as a schema (`additionalProperties: true` holds none).
    pub additional_properties: Option<Box<Structural>>,
    pub items: Option<Box<Structural>>,
    pub nullable: bool,
    pub default: Option<Value>,
    /// `x-kubernetes-int-or-string: true`.
    pub int_or_string: bool,
    /// `anyOf` whose only branch a number can match is `type: integer` of the default format
    /// (controller-gen's `anyOf: [{type: integer}, {type: string}]` of every int-or-string node).
    pub any_of_integer: bool,
}

/// Why a CRD's schema cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error("it serves no version {0}")]
    NoVersion(String),
    #[error("version {0} has no schema.openAPIV3Schema")]
    NoSchema(String),
    #[error("{0}: not a schema object")]
    NotASchema(String),
}

impl Structural {
    /// The schema of `version` in a CustomResourceDefinition's `spec` (apiextensions.k8s.io/v1:
    /// `versions[].schema.openAPIV3Schema`).
    pub fn of_crd(crd_spec: &Value, version: &str) -> Result<Structural, SchemaError> {
        let served = (crd_spec.get("versions").and_then(Value::as_array))
            .and_then(|vs| {
                vs.iter()
                    .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
            })
            .ok_or_else(|| SchemaError::NoVersion(version.to_string()))?;
        let schema = served
            .pointer("/schema/openAPIV3Schema")
            .ok_or_else(|| SchemaError::NoSchema(version.to_string()))?;
        Structural::from_schema(schema, "openAPIV3Schema")
    }

    /// One node of an OpenAPI v3 schema as JSON, and the nodes under it.
    pub fn from_schema(schema: &Value, path: &str) -> Result<Structural, SchemaError> {
        let node = schema
            .as_object()
            .ok_or_else(|| SchemaError::NotASchema(path.to_string()))?;
        let mut s = Structural {
            nullable: node.get("nullable").and_then(Value::as_bool) == Some(true),
            default: node.get("default").cloned(),
            int_or_string: node
                .get("x-kubernetes-int-or-string")
                .and_then(Value::as_bool)
                == Some(true),
            any_of_integer: any_of_integer(node.get("anyOf")),
            ..Structural::default()
        };
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                let child = Structural::from_schema(v, &format!("{path}.properties.{k}"))?;
                s.properties.insert(k.clone(), child);
            }
        }
        if let Some(ap) = node.get("additionalProperties").filter(|v| v.is_object()) {
            let child = Structural::from_schema(ap, &format!("{path}.additionalProperties"))?;
            s.additional_properties = Some(Box::new(child));
        }
        if let Some(items) = node.get("items").filter(|v| v.is_object()) {
            let child = Structural::from_schema(items, &format!("{path}.items"))?;
            s.items = Some(Box::new(child));
        }
        Ok(s)
    }

    /// The schema a map key is read by: its property's, else `additionalProperties`
    /// (`getSchemaForField`).
    fn for_field(&self, field: &str) -> Option<&Structural> {
        self.properties
            .get(field)
            .or(self.additional_properties.as_deref())
    }
}

/// Whether an `anyOf` takes a number only through a branch `type: integer` without a format: its
/// branches are `type: integer` (one at least) and `type: string`, and nothing else.
fn any_of_integer(any_of: Option<&Value>) -> bool {
    let Some(branches) = any_of.and_then(Value::as_array) else {
        return false;
    };
    let ty = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_string);
    branches.iter().any(|b| ty(b).as_deref() == Some("integer"))
        && branches.iter().all(|b| {
            b.as_object().is_some_and(|o| o.len() == 1)
                && matches!(ty(b).as_deref(), Some("integer" | "string"))
        })
}

/// `isNonNullableNull`: a null its schema does not allow.
fn is_non_nullable_null(x: &Value, s: Option<&Structural>) -> bool {
    x.is_null() && s.is_some_and(|s| !s.nullable)
}

/// Whether the API server stores the object `{"spec": <spec_json>}` under `root` as it is:
/// [`completes`] says no and [`int_or_string_refusals`] finds nothing, read as the text is
/// scanned, with no value built. `false` also where it does not judge: a text serde does not
/// read, or an object whose keys do not come in strictly rising byte order (a key given twice
/// among them: serde's map keeps one value, the checks on the value then read that one; Go's
/// encoding/json, which writes every spec kubectl-arc reads, sorts the keys).
///
/// The checks by node: under an object with a schema, a null its field's schema (property, else
/// `additionalProperties`) does not allow is pruned or defaulted, and a property with a default
/// that is absent is defaulted; under an array with an `items` schema, a null item that schema
/// does not allow but defaults is defaulted; a number at an int-or-string node is judged by
/// [`number_refused`]; a value without a schema is not looked at.
fn stored_as_given(spec_json: &str, root: &Structural) -> bool {
    use serde::de::DeserializeSeed;
    // ARC's CRDs default nothing at the root, but the rule is the rule.
    if root
        .properties
        .iter()
        .any(|(k, p)| k != "spec" && p.default.is_some())
    {
        return false;
    }
    let Some(schema) = root.for_field("spec") else {
        return serde_json::from_str::<serde::de::IgnoredAny>(spec_json).is_ok();
    };
    let mut d = serde_json::Deserializer::from_str(spec_json);
    match Unchanged(schema).deserialize(&mut d) {
        Ok(null) => (schema.nullable || !null) && d.end().is_ok(),
        Err(_) => false,
    }
}

/// [`stored_as_given`] of one value under its schema: `Ok(whether it is null)` when nothing
/// under it changes, else an error (which also ends the reading).
#[derive(Clone, Copy)]
struct Unchanged<'s>(&'s Structural);

/// A change found, or a reading not judged: [`stored_as_given`] says no at once.
fn changes<E: serde::de::Error>() -> E {
    E::custom("the server would not store this as given")
}

impl<'de> serde::de::DeserializeSeed<'de> for Unchanged<'_> {
    type Value = bool;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Unchanged<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    // As serde's `Value` reads numbers, so the number check sees the same `Number`.
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<bool, E> {
        self.number(n.into())
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<bool, E> {
        self.number(n.into())
    }
    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<bool, E> {
        match serde_json::Number::from_f64(f) {
            Some(n) => self.number(n),
            None => Err(changes()),
        }
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        match self.0.items.as_deref() {
            Some(items) => {
                while let Some(null) = seq.next_element_seed(Unchanged(items))? {
                    if null && !items.nullable && items.default.is_some() {
                        return Err(changes());
                    }
                }
            }
            None => while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {},
        }
        Ok(false)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let s = self.0;
        let mut last: Option<std::borrow::Cow<'de, str>> = None;
        let mut defaulted_given = 0;
        while let Some(TextKey(key)) = map.next_key()? {
            if last.as_deref().is_some_and(|last| last >= key.as_ref()) {
                return Err(changes());
            }
            match s.for_field(&key) {
                Some(field) => {
                    let null = map.next_value_seed(Unchanged(field))?;
                    if null && !field.nullable {
                        return Err(changes());
                    }
                    if s.properties
                        .get(key.as_ref())
                        .is_some_and(|p| p.default.is_some())
                    {
                        defaulted_given += 1;
                    }
                }
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            last = Some(key);
        }
        let defaulted = s
            .properties
            .values()
            .filter(|p| p.default.is_some())
            .count();
        if defaulted_given < defaulted {
            return Err(changes());
        }
        Ok(false)
    }
}

impl Unchanged<'_> {
    fn number<E: serde::de::Error>(self, n: serde_json::Number) -> Result<bool, E> {
        if number_refused(&n, self.0).is_some() {
            return Err(changes());
        }
        Ok(false)
    }
}

/// `PruneNonNullableNullsWithoutDefaults` (defaulting/prunenulls.go): drop the map values that are
/// nulls their schema neither allows nor defaults; the nulls with a default are left to
/// [`default`].
pub fn prune_non_nullable_nulls_without_defaults(x: &mut Value, s: Option<&Structural>) {
    match x {
        Value::Object(map) => {
            map.retain(|k, v| {
                let schema = s.and_then(|s| s.for_field(k));
                !(is_non_nullable_null(v, schema) && schema.is_some_and(|s| s.default.is_none()))
            });
            for (k, v) in map.iter_mut() {
                prune_non_nullable_nulls_without_defaults(v, s.and_then(|s| s.for_field(k)));
            }
        }
        Value::Array(items) => {
            let schema = s.and_then(|s| s.items.as_deref());
            for item in items {
                prune_non_nullable_nulls_without_defaults(item, schema);
            }
        }
        _ => {}
    }
}

/// `Default` (defaulting/algorithm.go): every property with a default that is absent, or a null
/// its schema does not allow, takes a copy of the default; then every key of the map (those just
/// set too) is defaulted by its property's schema, else by `additionalProperties` (whose
/// disallowed null takes its default, or stays null without one), and every list item by `items`.
pub fn default(x: &mut Value, s: Option<&Structural>) {
    let Some(s) = s else { return };
    match x {
        Value::Object(map) => {
            for (k, prop) in &s.properties {
                let Some(d) = &prop.default else { continue };
                match map.get_mut(k) {
                    None => {
                        map.insert(k.clone(), d.clone());
                    }
                    Some(v) if is_non_nullable_null(v, Some(prop)) => *v = d.clone(),
                    Some(_) => {}
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(prop) = s.properties.get(k) {
                    default(v, Some(prop));
                } else if let Some(ap) = s.additional_properties.as_deref() {
                    if is_non_nullable_null(v, Some(ap)) {
                        *v = ap.default.clone().unwrap_or(Value::Null);
                    }
                    default(v, Some(ap));
                }
            }
        }
        Value::Array(items) => {
            let schema = s.items.as_deref();
            for item in items {
                if let Some(schema) = schema
                    && is_non_nullable_null(item, Some(schema))
                {
                    *item = schema.default.clone().unwrap_or(Value::Null);
                }
                default(item, schema);
            }
        }
        _ => {}
    }
}

/// What the API server does to an object of the schema `s` before it stores it, of what is
/// mirrored here: the non-nullable nulls without a default pruned, then the defaults applied.
pub fn complete(x: &mut Value, s: &Structural) {
    prune_non_nullable_nulls_without_defaults(x, Some(s));
    default(x, Some(s));
}

/// Whether [`complete`] would change `x`: a null [`prune_non_nullable_nulls_without_defaults`]
/// drops, or a value [`default`] sets (an absent or disallowed null property with a default, a
/// disallowed null under `additionalProperties` or `items` with one).
pub fn completes(x: &Value, s: &Structural) -> bool {
    prunes(x, Some(s)) || defaults(x, Some(s))
}

fn prunes(x: &Value, s: Option<&Structural>) -> bool {
    if let Some(entries) = x.as_object() {
        return entries.iter().any(|(k, v)| {
            let schema = s.and_then(|s| s.for_field(k));
            (is_non_nullable_null(v, schema) && schema.is_some_and(|s| s.default.is_none()))
                || prunes(v, schema)
        });
    }
    if let Some(items) = x.as_array() {
        let schema = s.and_then(|s| s.items.as_deref());
        return items.iter().any(|item| prunes(item, schema));
    }
    false
}

fn defaults(x: &Value, s: Option<&Structural>) -> bool {
    let Some(s) = s else { return false };
    if let Some(entries) = x.as_object() {
        let sets = s.properties.iter().any(|(k, prop)| {
            prop.default.is_some()
                && entries
                    .get(k)
                    .is_none_or(|v| is_non_nullable_null(v, Some(prop)))
        });
        return sets
            || entries.iter().any(|(k, v)| {
                if let Some(prop) = s.properties.get(k) {
                    defaults(v, Some(prop))
                } else if let Some(ap) = s.additional_properties.as_deref() {
                    (is_non_nullable_null(v, Some(ap)) && ap.default.is_some())
                        || defaults(v, Some(ap))
                } else {
                    false
                }
            });
    }
    if let Some(items) = x.as_array() {
        let schema = s.items.as_deref();
        return items.iter().any(|item| {
            schema.is_some_and(|sc| is_non_nullable_null(item, Some(sc)) && sc.default.is_some())
                || defaults(item, schema)
        });
    }
    false
}

/// A number the API server refuses at an int-or-string node: the field, as the server's
/// validation names it (`spec.template.spec.containers[0].resources.limits.cpu`), the number, and
/// what the server says first.
#[derive(Debug, Clone, PartialEq)]
pub struct NotIntOrString {
    pub path: String,
    /// The JSON pointer of the value from the walk's root (for the spelling as written).
    pub pointer: String,
    pub number: serde_json::Number,
    /// `must be of type integer,string` (the type check), else `must validate at least one
    /// schema (anyOf)` (a number the type check takes that the `anyOf`'s integer branch refuses,
    /// such as `1000000000.5`).
    pub server_says: &'static str,
}

/// Every number under `x` at a node of `s` typed `x-kubernetes-int-or-string` that the API
/// server's validation refuses. sigs.k8s.io/json decodes a literal without `.` that
/// `strconv.ParseInt` reads as an int64, and any other as a float64. kube-openapi's
/// `(*typeValidator).Validate` for the type `[integer, string]` takes an int64, and a float64
/// only when [`is_float64_a_json_integer`]; the node's `anyOf: [{type: integer}, {type: string}]`
/// takes a float64 only through `IsValueValidAgainstRange` of the integer branch, when
/// `swag.ConvertInt64(swag.FormatFloat64(f))` reads it (an integral value within int64). `path`
/// and `pointer` name `x` itself.
pub fn int_or_string_refusals(
    x: &Value,
    s: &Structural,
    path: &str,
    pointer: &str,
) -> Vec<NotIntOrString> {
    let mut out = Vec::new();
    let (mut path, mut pointer) = (path.to_string(), pointer.to_string());
    walk_int_or_string(x, s, &mut path, &mut pointer, &mut out);
    out
}

/// [`int_or_string_refusals`] under `path` and `pointer`, each grown and cut back as the walk goes.
fn walk_int_or_string(
    x: &Value,
    s: &Structural,
    path: &mut String,
    pointer: &mut String,
    out: &mut Vec<NotIntOrString>,
) {
    let (path_len, pointer_len) = (path.len(), pointer.len());
    if let Some(n) = x.as_number() {
        let Some(server_says) = number_refused(n, s) else {
            return;
        };
        out.push(NotIntOrString {
            path: path.clone(),
            pointer: pointer.clone(),
            number: n.clone(),
            server_says,
        });
    } else if let Some(entries) = x.as_object() {
        for (k, v) in entries {
            if let Some(child) = s.for_field(k) {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                pointer.push('/');
                // RFC 6901: `~` as `~0`, `/` as `~1`.
                if k.contains(['~', '/']) {
                    pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                } else {
                    pointer.push_str(k);
                }
                walk_int_or_string(v, child, path, pointer, out);
                path.truncate(path_len);
                pointer.truncate(pointer_len);
            }
        }
    } else if let Some(items) = x.as_array()
        && let Some(child) = s.items.as_deref()
    {
        use std::fmt::Write as _;
        for (i, v) in items.iter().enumerate() {
            let _ = write!(path, "[{i}]");
            let _ = write!(pointer, "/{i}");
            walk_int_or_string(v, child, path, pointer, out);
            path.truncate(path_len);
            pointer.truncate(pointer_len);
        }
    }
}

/// What the server's validation says first of a number at node `s`, when it refuses it there: at
/// an int-or-string node one it does not see as an integer, at an `anyOf` of an integer and a
/// string one the integer branch does not take.
fn number_refused(n: &serde_json::Number, s: &Structural) -> Option<&'static str> {
    if s.int_or_string && !is_json_integer(n) {
        Some("must be of type integer,string")
    } else if s.any_of_integer && !integer_branch_takes(n) {
        Some("must validate at least one schema (anyOf)")
    } else {
        None
    }
}

/// Whether the server's validation sees an integer: an int64, else a float64 that
/// [`is_float64_a_json_integer`]. A number written by Go's encoding/json that serde reads as an
/// i64 was written without `.` and within int64, so `strconv.ParseInt` reads it too; any other is
/// the float64 `strconv.ParseFloat` reads.
fn is_json_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.as_f64().is_some_and(is_float64_a_json_integer)
}

/// Whether `IsValueValidAgainstRange(value, "integer", "", ...)` (kube-openapi
/// validate/values.go) takes the number: an int64 always; a float64 when
/// `strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64)` reads it, that is an integral
/// value within int64.
fn integer_branch_takes(n: &serde_json::Number) -> bool {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    n.is_i64()
        || n.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f))
}

/// go-openapi/swag v0.23.0 `IsFloat64AJSONInteger` (convert.go), which kube-openapi's type
/// validator calls: within ±(2^53−1), equal to its truncation, or within a relative error of
/// 1e-9 of it (so `1000000000.5` passes). Go's `uint64(f)` of a negative float is the
/// platform's; both amd64's (the int64 truncation's bits) and arm64's (0) give the same answers,
/// since a negative integer passes by the int64 case and no other negative value passes.
pub fn is_float64_a_json_integer(f: f64) -> bool {
    const MAX_JSON_FLOAT: f64 = ((1u64 << 53) - 1) as f64;
    const EPSILON: f64 = 1e-9;
    let smallest_nonzero = f64::from_bits(1);
    if f.is_nan() || f.is_infinite() || !(-MAX_JSON_FLOAT..=MAX_JSON_FLOAT).contains(&f) {
        return false;
    }
    // Go on amd64: uint64(f) converts through int64 below 2^63.
    let go_uint64 = |f: f64| (f as i64) as u64;
    let fa = f.abs();
    let g = go_uint64(f) as f64;
    let ga = g.abs();
    let diff = (f - g).abs();
    if f == g || f == (f as i64) as f64 || f == go_uint64(f) as f64 {
        return true;
    }
    if f == 0.0 || g == 0.0 || diff < smallest_nonzero {
        return diff < EPSILON * smallest_nonzero;
    }
    diff / (fa + ga).min(f64::MAX) < EPSILON
}

/// An object's `spec` (JSON text) as the API server stores it under the CRD schema `root`
/// (`openAPIV3Schema`): [`complete`] applied to the object `{"spec": ...}` (ARC's CRDs default
/// nothing at the root), written back as Go's encoding/json writes it. Err: the numbers the
/// server's validation refuses at int-or-string nodes (it answers 422 and stores nothing).
pub fn stored_spec(spec_json: &str, root: &Structural) -> Result<String, Vec<NotIntOrString>> {
    stored_spec_if_changed(spec_json, root).map(|s| s.unwrap_or_else(|| spec_json.to_string()))
}

/// [`stored_spec`], `None` when the server stores the text as given (nothing to prune or
/// default): the caller keeps the text it has.
pub fn stored_spec_if_changed(
    spec_json: &str,
    root: &Structural,
) -> Result<Option<String>, Vec<NotIntOrString>> {
    // Most specs need nothing: judged as the text is read (no value built), and said so; any
    // other goes the whole way below, where the same checks decide.
    if stored_as_given(spec_json, root) {
        return Ok(None);
    }
    let Ok(spec) = serde_json::from_str::<Value>(spec_json) else {
        return Ok(None);
    };
    let mut object = Value::Object(serde_json::Map::from_iter([("spec".to_string(), spec)]));
    if !completes(&object, root) {
        // Nothing to prune or default: the text is what the server stores (it is Go's
        // encoding/json text already, which writing the value again gives back unchanged).
        let refused = int_or_string_refusals(&object, root, "", "");
        return if refused.is_empty() {
            Ok(None)
        } else {
            Err(refused)
        };
    }
    complete(&mut object, root);
    let refused = int_or_string_refusals(&object, root, "", "");
    if !refused.is_empty() {
        return Err(refused);
    }
    Ok(object.get("spec").map(crate::manifest::go_json))
}

/// The fix of a number refused at an int-or-string node: its text quoted, or in milli-units when
/// that is an integer (`0.5` → `"0.5"` or `500m`). `written` is the number as the file spells it,
/// when it differs from the stored text.
pub fn int_or_string_fix(number: &serde_json::Number, written: Option<&str>) -> String {
    let text = written.map_or_else(|| number.to_string(), str::to_string);
    let milli = number
        .as_f64()
        .map(|f| f * 1000.0)
        .filter(|m| m.fract() == 0.0 && m.abs() < 1e15);
    match milli {
        Some(m) => format!("quote it (\"{text}\"), or write it in milli-units ({m}m)"),
        None => format!("quote it (\"{text}\")"),
    }
}

/// A compact form of a schema's defaults and int-or-string nodes, one line each:
/// `default PATH JSON`, `int-or-string PATH` or `any-of-integer PATH`, where PATH steps into properties with `.name`,
/// list items with `[]` and map values with `{}`. Sorted by path. What the shipped defaults are
/// written in, and what a schema is compared with them by.
pub fn entries(s: &Structural) -> Vec<String> {
    let mut out = Vec::new();
    collect_entries(s, "", &mut out);
    out.sort();
    out
}

fn collect_entries(s: &Structural, path: &str, out: &mut Vec<String>) {
    if let Some(d) = &s.default {
        out.push(format!("default {path} {d}"));
    }
    if s.int_or_string {
        out.push(format!("int-or-string {path}"));
    }
    if s.any_of_integer {
        out.push(format!("any-of-integer {path}"));
    }
    for (k, child) in &s.properties {
        collect_entries(child, &format!("{path}.{k}"), out);
    }
    if let Some(ap) = &s.additional_properties {
        collect_entries(ap, &format!("{path}{{}}"), out);
    }
    if let Some(items) = &s.items {
        collect_entries(items, &format!("{path}[]"), out);
    }
}

/// The schema the [`entries`] lines describe: the nodes on their paths, non-nullable, with their
/// defaults and int-or-string marks (what defaulting and the check read of a schema; nothing is
/// nullable in ARC's CRDs).
pub fn from_entries(text: &str) -> Result<Structural, String> {
    let mut root = Structural::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("line {}: {line:?}", n + 1);
        let (what, rest) = line.split_once(' ').ok_or_else(bad)?;
        let (path, value) = match what {
            "default" => {
                let (path, json) = rest.split_once(' ').ok_or_else(bad)?;
                let v: Value = serde_json::from_str(json).map_err(|_| bad())?;
                (path, Some(v))
            }
            "int-or-string" | "any-of-integer" => (rest, None),
            _ => return Err(bad()),
        };
        let node = node_at(&mut root, path).ok_or_else(bad)?;
        match value {
            Some(v) => node.default = Some(v),
            None if what == "int-or-string" => node.int_or_string = true,
            None => node.any_of_integer = true,
        }
    }
    Ok(root)
}

/// The node at an [`entries`] path, made on the way.
fn node_at<'a>(root: &'a mut Structural, path: &str) -> Option<&'a mut Structural> {
    let mut node = root;
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[]") {
            node = node.items.get_or_insert_with(Box::default);
            rest = r;
        } else if let Some(r) = rest.strip_prefix("{}") {
            node = node.additional_properties.get_or_insert_with(Box::default);
            rest = r;
        } else {
            let r = rest.strip_prefix('.')?;
            let end = r.find(['.', '[', '{']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            node = node.properties.entry(r[..end].to_string()).or_default();
            rest = &r[end..];
        }
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Structural {
        Structural::from_schema(&v, "s").unwrap()
    }

    /// A pod-like schema: ports with a defaulted protocol in a list, a map of objects whose
    /// values have a defaulted field, a nullable field, an object default holding a field with a
    /// default of its own.
    fn pod() -> Structural {
        schema(json!({"type": "object", "properties": {
            "ports": {"type": "array", "items": {"type": "object", "properties": {
                "containerPort": {"type": "integer"},
                "protocol": {"type": "string", "default": "TCP"}}}},
            "byName": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                "optional": {"type": "boolean", "default": false}}}},
            "maybe": {"type": "string", "nullable": true, "default": "m"},
            "plain": {"type": "string"},
            "outer": {"type": "object", "default": {}, "properties": {
                "inner": {"type": "string", "default": "i"}}},
            "limits": {"type": "object", "additionalProperties": {
                "x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}},
            "typeOnly": {"x-kubernetes-int-or-string": true}
        }}))
    }

    #[test]
    fn defaults_fill_absent_fields_in_lists_and_maps_and_inside_a_default() {
        let mut x = json!({"ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
            "byName": {"a": {}, "b": {"optional": true}}});
        complete(&mut x, &pod());
        assert_eq!(
            x,
            json!({"ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}],
                "byName": {"a": {"optional": false}, "b": {"optional": true}},
                "maybe": "m", "outer": {"inner": "i"}})
        );
    }

    /// Where a null is changed by the server, judged as read: in a list only when the items'
    /// schema defaults it, in a map unless its schema allows null; a list or map without a schema
    /// is not looked at; a key given twice is not judged as read.
    #[test]
    fn nulls_judged_as_read_as_on_the_value() {
        let root = schema(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {
                "list": {"type": "array", "items": {"type": "string", "default": "d"}},
                "plain": {"type": "array", "items": {"type": "string"}},
                "maybe": {"type": "string", "nullable": true},
                "open": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object"}}}}}),
        );
        let cases = [
            (r#"{"list":["a",null]}"#, false),
            (r#"{"list":["a"]}"#, true),
            (r#"{"plain":["a",null]}"#, true),
            (r#"{"maybe":null}"#, true),
            (r#"{"open":{"k":null}}"#, false),
            (r#"{"free":{"k":null,"l":[null]}}"#, true),
            (r#"{"maybe":"a","maybe":"b"}"#, false),
        ];
        for (spec, as_given) in cases {
            let object = json!({"spec": serde_json::from_str::<Value>(spec).unwrap()});
            let unchanged = !completes(&object, &root)
                && int_or_string_refusals(&object, &root, "", "").is_empty();
            assert_eq!(stored_as_given(spec, &root), as_given, "{spec}");
            // (The last: the value keeps one of the two, and says unchanged.)
            assert_eq!(
                unchanged,
                as_given || spec.contains("\"maybe\":\"b\""),
                "{spec}"
            );
        }
    }

    #[test]
    fn nulls_are_pruned_defaulted_or_kept_as_the_server_does() {
        let mut x = json!({"ports": [null, {"protocol": null}], "maybe": null, "plain": null,
            "outer": null, "byName": {"a": null}, "unknown": null});
        complete(&mut x, &pod());
        // A disallowed null with a default takes it; without one it is dropped from a map (and
        // kept in a list: PruneNonNullableNullsWithoutDefaults deletes map values only); a
        // nullable null stays; a field the schema does not know is left to pruning (not ours).
        assert_eq!(
            x,
            json!({"ports": [null, {"protocol": "TCP"}], "maybe": null,
                "outer": {"inner": "i"}, "byName": {}, "unknown": null})
        );
    }

    /// `completes` tells, without changing it, whether `complete` changes a value: every
    /// combination of present, absent, null and set fields of the pod-like schema.
    #[test]
    fn completes_says_whether_complete_changes_the_value() {
        let s = pod();
        let options: Vec<(&str, Vec<Option<Value>>)> = vec![
            (
                "ports",
                vec![
                    None,
                    Some(json!([])),
                    Some(json!([null])),
                    Some(json!([{"protocol": "UDP"}])),
                    Some(json!([{"protocol": null}])),
                    Some(json!([{}])),
                ],
            ),
            (
                "byName",
                vec![
                    None,
                    Some(json!({"a": null})),
                    Some(json!({"a": {"optional": true}})),
                    Some(json!({"a": {}})),
                ],
            ),
            ("maybe", vec![None, Some(json!(null)), Some(json!("x"))]),
            ("plain", vec![None, Some(json!(null)), Some(json!("p"))]),
            (
                "outer",
                vec![
                    None,
                    Some(json!(null)),
                    Some(json!({"inner": "x"})),
                    Some(json!({"inner": null})),
                ],
            ),
            ("unknown", vec![None, Some(json!(null))]),
        ];
        let total: usize = options.iter().map(|(_, o)| o.len()).product();
        let (mut changed, mut unchanged) = (0, 0);
        for mut n in 0..total {
            let mut map = serde_json::Map::new();
            for (field, choices) in &options {
                if let Some(v) = &choices[n % choices.len()] {
                    map.insert(field.to_string(), v.clone());
                }
                n /= choices.len();
            }
            let x = Value::Object(map);
            let mut y = x.clone();
            complete(&mut y, &s);
            assert_eq!(completes(&x, &s), y != x, "{x}");
            if y != x { changed += 1 } else { unchanged += 1 }
        }
        assert!(
            changed > 0 && unchanged > 0,
            "{changed} changed, {unchanged} not"
        );
    }

    #[test]
    fn each_default_is_a_copy() {
        let s = pod();
        let mut x = json!({"ports": [{}, {}]});
        complete(&mut x, &s);
        x["outer"]["inner"] = json!("changed");
        let mut y = json!({});
        complete(&mut y, &s);
        assert_eq!(y["outer"], json!({"inner": "i"}));
    }

    #[test]
    fn an_int_or_string_number_must_be_an_integer_as_kube_openapi_reads_it() {
        let x: Value = serde_json::from_str(
            r#"{"limits": {"cpu": 0.5, "memory": 4096, "big": 12345678901234567000, "e": 1000000000.5, "s": "0.5"}, "typeOnly": 1000000000.5}"#,
        )
        .unwrap();
        let refused = int_or_string_refusals(&x, &pod(), "spec", "/spec");
        let paths: Vec<(&str, &str, String, &str)> = refused
            .iter()
            .map(|r| {
                let n = r.number.to_string();
                (r.path.as_str(), r.pointer.as_str(), n, r.server_says)
            })
            .collect();
        let type_check = "must be of type integer,string";
        assert_eq!(
            paths,
            vec![
                (
                    "spec.limits.cpu",
                    "/spec/limits/cpu",
                    "0.5".into(),
                    type_check
                ),
                (
                    "spec.limits.big",
                    "/spec/limits/big",
                    "12345678901234567000".into(),
                    type_check
                ),
                // The type check takes it (within 1e-9 of an integer), the anyOf does not; a
                // node without the anyOf takes it (the server stores 1000000000.5).
                (
                    "spec.limits.e",
                    "/spec/limits/e",
                    "1000000000.5".into(),
                    "must validate at least one schema (anyOf)"
                ),
            ]
        );
    }

    #[test]
    fn is_float64_a_json_integer_as_swag() {
        for (f, want) in [
            (0.0, true),
            (1.0, true),
            (-3.0, true),
            (0.5, false),
            (-0.5, false),
            (-1.5, false),
            (1e9 + 0.5, true), // relative error under 1e-9
            (1e6 + 0.5, false),
            (9007199254740991.0, true),
            (9007199254740992.0, false), // beyond 2^53 - 1
            (-9007199254740992.0, false),
            (f64::NAN, false),
            (f64::INFINITY, false),
            (5e-324, false),
        ] {
            assert_eq!(is_float64_a_json_integer(f), want, "{f}");
        }
    }

    #[test]
    fn a_spec_is_stored_defaulted_or_refused() {
        let root = schema(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"ports": {"type": "array", "items": {"type": "object", "properties": {
                "protocol": {"type": "string", "default": "TCP"}}}},
            "limits": {"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": true}}}}}}),
        );
        assert_eq!(
            stored_spec(
                r#"{"ports":[{"containerPort":80}],"limits":{"cpu":2}}"#,
                &root
            )
            .unwrap(),
            r#"{"limits":{"cpu":2},"ports":[{"containerPort":80,"protocol":"TCP"}]}"#
        );
        let refused = stored_spec(r#"{"limits":{"cpu":0.5}}"#, &root).unwrap_err();
        assert_eq!(refused[0].path, "spec.limits.cpu");
        assert_eq!(refused[0].pointer, "/spec/limits/cpu");
        assert_eq!(
            int_or_string_fix(&refused[0].number, None),
            "quote it (\"0.5\"), or write it in milli-units (500m)"
        );
        let n: serde_json::Number = serde_json::from_str("12345678901234567000").unwrap();
        assert_eq!(
            int_or_string_fix(&n, Some("12345678901234567890")),
            "quote it (\"12345678901234567890\")"
        );
    }

    /// The reading that judges as it reads ([`stored_as_given`]) answers as the checks on serde's
    /// `Value` do, on 22,000 generated values under the pod-like schema and the shipped 0.14
    /// scale-set schema (nulls, numbers at int-or-string nodes, escaped and repeated keys among
    /// them) as Go writes them, and never says yes where they say no as written; and a spec
    /// stored as given is stored as written.
    #[test]
    fn judged_as_read_answers_as_the_value_does() {
        fn names(s: &Structural, out: &mut Vec<String>) {
            for (k, p) in &s.properties {
                out.push(k.clone());
                names(p, out);
            }
            for child in [&s.additional_properties, &s.items].into_iter().flatten() {
                names(child, out);
            }
        }
        // A small deterministic generator (xorshift): objects of the schema's own keys.
        struct Gen(u64, Vec<String>, std::collections::HashMap<usize, bool>);
        impl Gen {
            fn next(&mut self, n: u64) -> u64 {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                self.0 % n
            }
            fn value(&mut self, depth: u32) -> String {
                let numbers = [
                    "0",
                    "-1",
                    "2",
                    "0.5",
                    "1000000000.5",
                    "1e3",
                    "-0.0",
                    "9007199254740993",
                    "12345678901234567890",
                ];
                match self.next(if depth > 4 { 4 } else { 7 }) {
                    0 => "null".to_string(),
                    1 => numbers[self.next(numbers.len() as u64) as usize].to_string(),
                    2 => ["\"x\"", "true", "\"\""][self.next(3) as usize].to_string(),
                    3 => "{}".to_string(),
                    4 | 5 => self.object(depth),
                    _ => {
                        let n = self.next(3);
                        let items: Vec<String> = (0..n).map(|_| self.value(depth + 1)).collect();
                        format!("[{}]", items.join(","))
                    }
                }
            }
            /// A value shaped by the schema `s` (its properties, map values and items), with
            /// nulls, numbers and keys it does not know mixed in.
            fn guided(&mut self, s: &Structural, depth: u32) -> String {
                if depth > 12 || self.next(8) == 0 {
                    return self.value(depth.max(5));
                }
                if (s.int_or_string || s.any_of_integer) && self.next(4) != 0 {
                    let numbers = ["3", "0.5", "1000000000.5", "2.0", "-0.0"];
                    return numbers[self.next(5) as usize].to_string();
                }
                if let Some(items) = s.items.as_deref() {
                    let n = self.next(3);
                    let items: Vec<String> =
                        (0..n).map(|_| self.guided(items, depth + 1)).collect();
                    return format!("[{}]", items.join(","));
                }
                // Mostly the properties whose subtree defaults or holds an int-or-string node.
                let all: Vec<(&String, &Structural)> = s.properties.iter().collect();
                let wanted: Vec<(&String, &Structural)> =
                    all.iter().copied().filter(|(_, c)| self.wants(c)).collect();
                let keys = if wanted.is_empty() || self.next(5) == 0 {
                    all
                } else {
                    wanted
                };
                if keys.is_empty() && s.additional_properties.is_none() {
                    return self.value(5);
                }
                let n = self.next(5);
                let entries: Vec<String> = (0..n)
                    .map(|_| {
                        let (k, child) = match (keys.len(), s.additional_properties.as_deref()) {
                            (0, Some(ap)) => (format!("k{}", self.next(3)), ap),
                            (len, _) => {
                                let (k, c) = keys[self.next(len as u64) as usize];
                                (k.clone(), c)
                            }
                        };
                        format!("\"{k}\":{}", self.guided(child, depth + 1))
                    })
                    .collect();
                format!("{{{}}}", entries.join(","))
            }
            /// Whether the subtree of `s` has a default or an int-or-string node.
            fn wants(&mut self, s: &Structural) -> bool {
                let at = s as *const Structural as usize;
                if let Some(&w) = self.2.get(&at) {
                    return w;
                }
                let w = s.default.is_some()
                    || s.int_or_string
                    || s.any_of_integer
                    || s.properties.values().any(|c| self.wants(c))
                    || [&s.additional_properties, &s.items]
                        .into_iter()
                        .flatten()
                        .any(|c| self.wants(c));
                self.2.insert(at, w);
                w
            }
            fn object(&mut self, depth: u32) -> String {
                {
                    {
                        let n = self.next(4);
                        let entries: Vec<String> = (0..n)
                            .map(|_| {
                                let k = match self.next(10) {
                                    0 => "a~b/c".to_string(),
                                    1 => "esc\\u0061ped".to_string(),
                                    _ => {
                                        let i = self.next(self.1.len() as u64) as usize;
                                        self.1[i].clone()
                                    }
                                };
                                format!("\"{k}\":{}", self.value(depth + 1))
                            })
                            .collect();
                        format!("{{{}}}", entries.join(","))
                    }
                }
            }
        }
        let shipped = crate::arc::shipped::shipped_text("0.14.2").unwrap().2;
        for (root, wrap) in [(pod(), false), (from_entries(shipped).unwrap(), true)] {
            let mut keys = Vec::new();
            names(&root, &mut keys);
            let mut g = Gen(0x9E37_79B9_7F4A_7C15, keys, Default::default());
            let (mut changed, mut refused, mut as_given) = (0, 0, 0);
            let rounds = if wrap { 20_000 } else { 2_000 };
            for _ in 0..rounds {
                let text = match wrap {
                    true => {
                        let spec = root.properties.get("spec").unwrap();
                        format!("{{\"spec\":{}}}", g.guided(spec, 0))
                    }
                    false => g.object(0),
                };
                let value: Value = serde_json::from_str(&text).unwrap();
                let by_value = int_or_string_refusals(&value, &root, "", "");
                changed += usize::from(completes(&value, &root));
                refused += usize::from(!by_value.is_empty());
                // Judged as read: the checks on the value, of the text Go writes (keys sorted, a
                // key given twice once), and never yes where they say no, as written.
                let (spec, root_of_spec) = if wrap {
                    (value["spec"].clone(), root.clone())
                } else {
                    (
                        value.clone(),
                        Structural {
                            properties: BTreeMap::from([("spec".to_string(), root.clone())]),
                            ..Structural::default()
                        },
                    )
                };
                let object = json!({"spec": spec});
                let unchanged = !completes(&object, &root_of_spec)
                    && int_or_string_refusals(&object, &root_of_spec, "", "").is_empty();
                let go = crate::manifest::go_json(&spec);
                assert_eq!(stored_as_given(&go, &root_of_spec), unchanged, "{go}");
                let as_written = if wrap {
                    serde_json::to_string(&value["spec"]).unwrap()
                } else {
                    text.clone()
                };
                if stored_as_given(&as_written, &root_of_spec) {
                    assert!(unchanged, "{as_written}");
                }
                as_given += usize::from(unchanged);
                if wrap {
                    let spec = serde_json::to_string(&value["spec"]).unwrap();
                    if let Ok(None) = stored_spec_if_changed(&spec, &root) {
                        assert_eq!(stored_spec(&spec, &root).unwrap(), spec);
                    }
                }
            }
            // The generator reaches both answers of both checks.
            assert!(
                changed > 50 && refused > 5 && as_given > 5,
                "changed {changed}, refused {refused}, stored as given {as_given} of {rounds}"
            );
        }
    }

    #[test]
    fn entries_round_trip_a_schema() {
        let s = pod();
        let lines = entries(&s);
        assert_eq!(
            lines,
            vec![
                "any-of-integer .limits{}",
                "default .byName{}.optional false",
                "default .maybe \"m\"",
                "default .outer {}",
                "default .outer.inner \"i\"",
                "default .ports[].protocol \"TCP\"",
                "int-or-string .limits{}",
                "int-or-string .typeOnly",
            ]
        );
        let back = from_entries(&lines.join("\n")).unwrap();
        assert_eq!(entries(&back), lines);
        assert!(from_entries("default .a").is_err());
        assert!(from_entries("other .a").is_err());
    }

    #[test]
    fn a_crd_names_its_version() {
        let crd = json!({"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema":
            {"type": "object", "properties": {"spec": {"type": "object"}}}}}]});
        assert!(Structural::of_crd(&crd, "v1alpha1").is_ok());
        assert_eq!(
            Structural::of_crd(&crd, "v1").unwrap_err(),
            SchemaError::NoVersion("v1".into())
        );
    }
}
