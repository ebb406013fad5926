//! The desired EphemeralRunnerSet runner spec, built from an AutoscalingRunnerSet as ARC builds it,
//! and ARC's verdict on drift.
//!
//! Pure core. Mirrors the spec part of `(*ResourceBuilder).newEphemeralRunnerSet`
//! (ARC controllers/actions.github.com/resourcebuilder.go): `RunnerScaleSetID` is
//! `strconv.Atoi` of the ARS annotation `runner-scale-set-id`; `GitHubConfigURL`,
//! `GitHubConfigSecret`, `Proxy`, `GitHubServerTLS`, `VaultConfig` (`AutoscalingRunnerSet.VaultConfig()`
//! returns `Spec.VaultConfig`) and `EphemeralRunnerConfigSecretMetadata` are copied from the ARS
//! spec, and the inline `PodTemplateSpec` is `Spec.Template`. Where ARC gives up instead, so do we, with
//! ARC's reason: a `githubConfigUrl` its URL parsing refuses ([`gourl`]) and set metadata without
//! annotations (a panic in ARC). Everything else stays zero (notably
//! `ProxySecretRef`, which the ERS controller sets on runners, not on the set). The value is built in
//! memory from the decoded ARS, exactly like ARC: it is never re-encoded, so an `env: []` in the
//! template stays an empty, non-nil slice here while the stored ERS reads it back as nil.
//!
//! The revision-era ARS controller (ARC PR #4638) bumps `spec.actionableRevision` when
//! `apiequality.Semantic.DeepEqual(current, desired)` is false
//! ([`crate::equality::semantic_equal`]).

use crate::arc::ANNOTATION_RUNNER_SCALE_SET_ID;
use crate::gourl;
use crate::layout::{Kind, Layout};
use crate::value::{DecodeError, Fields, Value, decode};
use crate::written::{PathStep, Paths, Written};

/// Why no desired spec can be built from an AutoscalingRunnerSet (ARC logs and gives up too).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DesiredError {
    /// The `runner-scale-set-id` annotation is absent: the listener has not registered the set yet.
    #[error(
        "annotation {ANNOTATION_RUNNER_SCALE_SET_ID} is missing: ARC has not registered this scale set with GitHub yet, so it builds no EphemeralRunnerSet"
    )]
    MissingScaleSetId,
    /// The annotation is not an integer as Go's `strconv.Atoi` reads one.
    #[error(
        "annotation {ANNOTATION_RUNNER_SCALE_SET_ID}={0:?} is not an integer (strconv.Atoi fails)"
    )]
    BadScaleSetId(String),
    /// The spec does not decode into ARC's Go types.
    #[error("spec does not decode into ARC's Go types: {0}")]
    Decode(#[from] DecodeError),
    /// ARC's `applyGitHubURLLabels` cannot parse `spec.githubConfigUrl`: `newEphemeralRunnerSet`
    /// returns this error, ARC logs it and never updates the set. Holds ARC's message.
    #[error(
        "spec.githubConfigUrl: ARC will not update this set: its controller fails to build the EphemeralRunnerSet and logs: {0}"
    )]
    GitHubConfigUrl(String),
    /// `spec.ephemeralRunnerSetMetadata` is set without annotations: ARC's `mergeAnnotations`
    /// writes into a nil map and the controller panics on every reconcile of this set.
    #[error(
        "spec.ephemeralRunnerSetMetadata has no annotations: ARC's controller panics on every reconcile of this set (mergeAnnotations writes to a nil map: \"assignment to entry in nil map\"), so it never updates it; fix: give it an annotation, even an empty map (ephemeralRunnerSetMetadata.annotations: {{}})"
    )]
    MergeAnnotationsPanic,
}

/// `strconv.Atoi`: an optional sign and decimal digits, within int64 (Go's `int` on 64-bit).
pub fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i128 = digits.parse().ok()?;
    let n = if s.starts_with('-') { -n } else { n };
    i64::try_from(n).ok()
}

/// Build the desired `EphemeralRunnerSpec` value from an ARS's `spec` JSON text and its
/// `runner-scale-set-id` annotation.
pub fn desired_runner_spec(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id_annotation: Option<&str>,
) -> Result<Value, DesiredError> {
    let id_text = scale_set_id_annotation.ok_or(DesiredError::MissingScaleSetId)?;
    let id = go_atoi(id_text).ok_or_else(|| DesiredError::BadScaleSetId(id_text.to_string()))?;
    let ars = decode(layout, layout.autoscaling_runner_set_spec, ars_spec_json)?;
    arc_builds(layout, &ars)?;
    Ok(build(layout, ars, id))
}

/// What `newEphemeralRunnerSet` checks of a scale set that has no EphemeralRunnerSet yet: ARC
/// builds the first set with the same function as a replacement, so the same id rule
/// (`strconv.Atoi`, when the annotation is there; a render without one waits for the listener),
/// the same decoding and the same ways out ([`arc_builds`]) apply, in ARC's order.
pub fn check_builds(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id_annotation: Option<&str>,
) -> Result<(), DesiredError> {
    if let Some(id_text) = scale_set_id_annotation {
        go_atoi(id_text).ok_or_else(|| DesiredError::BadScaleSetId(id_text.to_string()))?;
    }
    let ars = decode(layout, layout.autoscaling_runner_set_spec, ars_spec_json)?;
    arc_builds(layout, &ars)
}

/// Build the desired `EphemeralRunnerSpec` value from an ARS's `spec` JSON text with a given
/// `RunnerScaleSetID`, for checks that do not depend on the annotation (or run before the listener
/// has registered the scale set and written it).
pub fn desired_runner_spec_with_id(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id: i64,
) -> Result<Value, DecodeError> {
    let ars = decode(layout, layout.autoscaling_runner_set_spec, ars_spec_json)?;
    Ok(build(layout, ars, scale_set_id))
}

/// The desired runner spec of one AutoscalingRunnerSet, decoded and built once for the checks
/// that read it: the recycle loop's round trip (which takes a missing or malformed id as 0) and
/// the drift ([`Built::for_drift`], which refuses them as [`desired_runner_spec`] does).
#[derive(Debug, Clone)]
pub struct Built {
    /// The runner spec, with the id `go_atoi` reads of the annotation, else 0.
    pub value: Value,
    /// ARC's ways out of `newEphemeralRunnerSet` ([`arc_builds`]) for this spec.
    builds: Result<(), DesiredError>,
}

/// Decode an AutoscalingRunnerSet's `spec` JSON and build its runner spec once
/// ([`desired_runner_spec_with_id`] with the id of `scale_set_id_annotation`, else 0), keeping
/// [`arc_builds`]' verdict for [`Built::for_drift`].
pub fn build_once(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id_annotation: Option<&str>,
) -> Result<Built, DecodeError> {
    let ars = decode(layout, layout.autoscaling_runner_set_spec, ars_spec_json)?;
    let builds = arc_builds(layout, &ars);
    let id = scale_set_id_annotation.and_then(go_atoi).unwrap_or(0);
    Ok(Built {
        value: build(layout, ars, id),
        builds,
    })
}

impl Built {
    /// What [`desired_runner_spec`] gives for the same spec JSON and annotation, in its order of
    /// refusals (the id, the decoding, then [`arc_builds`]).
    pub fn for_drift(
        built: Result<Built, DecodeError>,
        scale_set_id_annotation: Option<&str>,
    ) -> Result<Value, DesiredError> {
        let id_text = scale_set_id_annotation.ok_or(DesiredError::MissingScaleSetId)?;
        go_atoi(id_text).ok_or_else(|| DesiredError::BadScaleSetId(id_text.to_string()))?;
        let built = built?;
        built.builds?;
        Ok(built.value)
    }
}

/// ARC's two ways out of `newEphemeralRunnerSet` after the scale set id, in its order: a
/// `githubConfigUrl` its `applyGitHubURLLabels` cannot parse (an error; ARC never updates the
/// set) and set metadata without annotations (a panic). `ars` is the decoded spec.
pub fn arc_builds(layout: &Layout, ars: &Value) -> Result<(), DesiredError> {
    if let Value::String(url) = ars_field(layout, ars, "GitHubConfigUrl")
        && let Some(message) = gourl::github_config_error(url)
    {
        return Err(DesiredError::GitHubConfigUrl(message));
    }
    if panics_in_merge_annotations(layout, ars) {
        return Err(DesiredError::MergeAnnotationsPanic);
    }
    Ok(())
}

/// The value of a field of the decoded `AutoscalingRunnerSetSpec`, by its Go name.
fn ars_field<'v>(layout: &Layout, ars: &'v Value, go_name: &str) -> &'v Value {
    let Kind::Struct(fields) = &layout.ty(layout.autoscaling_runner_set_spec).kind else {
        unreachable!("AutoscalingRunnerSetSpec is a struct")
    };
    let i = fields
        .iter()
        .position(|f| f.name == go_name)
        .unwrap_or_else(|| panic!("AutoscalingRunnerSetSpec has no field {go_name}"));
    &ars.fields().expect("struct value")[i]
}

/// ARC merges the set's annotations (always the runner-group and scale-set-name keys) into
/// `ephemeralRunnerSetMetadata.annotations` with `mergeAnnotations`, which clones the base (nil
/// stays nil) and writes into it: a non-nil metadata whose annotations map is nil (absent or
/// `null`; labels or not) panics. An empty map `{}` does not.
fn panics_in_merge_annotations(layout: &Layout, ars: &Value) -> bool {
    let Value::Ptr(Some(meta)) = ars_field(layout, ars, "EphemeralRunnerSetMetadata") else {
        return false;
    };
    // ResourceMeta is {Labels, Annotations}.
    let Some(meta_ty) = layout.by_name("v1alpha1.ResourceMeta") else {
        unreachable!("the layout has ResourceMeta")
    };
    let Kind::Struct(meta_fields) = &layout.ty(meta_ty).kind else {
        unreachable!("ResourceMeta is a struct")
    };
    let i = meta_fields
        .iter()
        .position(|f| f.name == "Annotations")
        .expect("ResourceMeta has Annotations");
    matches!(meta.fields().expect("struct")[i], Value::Map(None))
}

fn build(layout: &Layout, ars: Value, scale_set_id: i64) -> Value {
    let Kind::Struct(ars_fields) = &layout.ty(layout.autoscaling_runner_set_spec).kind else {
        unreachable!("AutoscalingRunnerSetSpec is a struct")
    };
    let Value::Struct(ars_values) = ars else {
        unreachable!("struct value")
    };
    let mut ars_values: Vec<Value> = ars_values.into_vec();
    let mut take = |go_name: &str| -> Value {
        let i = ars_fields
            .iter()
            .position(|f| f.name == go_name)
            .unwrap_or_else(|| panic!("AutoscalingRunnerSetSpec has no field {go_name}"));
        std::mem::replace(&mut ars_values[i], Value::Bool(false))
    };
    let zero = Value::zero(layout, layout.ephemeral_runner_spec);
    let Kind::Struct(ers_fields) = &layout.ty(layout.ephemeral_runner_spec).kind else {
        unreachable!("EphemeralRunnerSpec is a struct")
    };
    let written = ers_fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let v = match copied_from(&f.name) {
                Some(ars_name) => take(ars_name),
                None if f.name == "RunnerScaleSetID" => Value::Int(scale_set_id),
                None => return None,
            };
            Some((i as u32, v))
        })
        .collect();
    Value::Struct(Fields::written_over(
        zero.fields().expect("a struct type's zero is a struct"),
        written,
    ))
}

/// The fields of `EphemeralRunnerSpec` that `newEphemeralRunnerSet` copies from the
/// AutoscalingRunnerSet's spec, by Go name: (EphemeralRunnerSpec field, AutoscalingRunnerSetSpec
/// field).
const COPIED: [(&str, &str); 7] = [
    ("GitHubConfigURL", "GitHubConfigUrl"),
    ("GitHubConfigSecret", "GitHubConfigSecret"),
    ("Proxy", "Proxy"),
    ("GitHubServerTLS", "GitHubServerTLS"),
    ("PodTemplateSpec", "Template"),
    ("VaultConfig", "VaultConfig"),
    (
        "EphemeralRunnerConfigSecretMetadata",
        "EphemeralRunnerConfigSecretMetadata",
    ),
];

fn copied_from(ers_go_name: &str) -> Option<&'static str> {
    COPIED
        .iter()
        .find(|(ers, _)| *ers == ers_go_name)
        .map(|(_, ars)| *ars)
}

/// What an AutoscalingRunnerSet's `spec` wrote, laid out as the runner spec ARC builds from it
/// (the fields [`desired_runner_spec`] copies, under the runner spec's JSON names; the inline
/// pod template's `metadata` and `spec` from `template`), for showing the desired values as
/// written. `runnerScaleSetId` comes from an annotation, so nothing is known of its spelling.
pub fn written_runner_spec(layout: &Layout, mut ars_spec: Written) -> Written {
    let mut out = Vec::new();
    for (ers_json, inline, ars_json) in copied_json(layout) {
        let value = ars_spec.take(ars_json);
        match value {
            // The pod template is inline in the runner spec: its keys are the runner spec's.
            Written::Object(entries) if inline => out.extend(entries),
            value if !inline => out.push((ers_json.to_string(), value)),
            _ => {}
        }
    }
    Written::Object(out)
}

/// The fields [`desired_runner_spec`] copies, by their JSON names: (the runner spec's, whether
/// it is inline there, the AutoscalingRunnerSet spec's).
fn copied_json(layout: &Layout) -> impl Iterator<Item = (&str, bool, &str)> + '_ {
    let json_name = |ty, go_name: &str| match &layout.ty(ty).kind {
        Kind::Struct(fields) => fields
            .iter()
            .find(|f| f.name == go_name)
            .map(|f| (f.json.as_str(), f.inline)),
        _ => None,
    };
    COPIED.into_iter().filter_map(move |(ers, ars)| {
        let (ers_json, inline) = json_name(layout.ephemeral_runner_spec, ers)?;
        let (ars_json, _) = json_name(layout.autoscaling_runner_set_spec, ars)?;
        Some((ers_json, inline, ars_json))
    })
}

/// [`written_runner_spec`] of an AutoscalingRunnerSet, reading of its spec only what lies on the
/// way to `paths` of the runner spec and under them (`None`: all of it). Each runner-spec path
/// is read where [`written_runner_spec`] finds its first step: a copied field's own key, and
/// (the pod template being inline) the same key under `template`.
pub fn written_runner_spec_reaching(
    layout: &Layout,
    ars: &crate::object::Object,
    paths: Option<&Paths>,
) -> Written {
    let Some(paths) = paths else {
        return written_runner_spec(layout, ars.written_spec(None));
    };
    let copied: Vec<_> = copied_json(layout).collect();
    let mut in_ars = Vec::new();
    for path in &paths.0 {
        let Some((PathStep::Key(first), rest)) = path.split_first() else {
            // The whole runner spec, or an item of it: read all.
            return written_runner_spec(layout, ars.written_spec(None));
        };
        for &(ers_json, inline, ars_json) in &copied {
            if !inline && ers_json != first {
                continue;
            }
            let mut steps = Vec::with_capacity(path.len() + 1);
            steps.push(PathStep::Key(ars_json.to_string()));
            if inline {
                steps.push(PathStep::Key(first.clone()));
            }
            steps.extend(rest.iter().cloned());
            in_ars.push(steps);
        }
    }
    written_runner_spec(
        layout,
        ars.written_spec_reaching(None, Some(&Paths(in_ars))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_is_go_strconv_atoi() {
        assert_eq!(go_atoi("7"), Some(7));
        assert_eq!(go_atoi("+7"), Some(7));
        assert_eq!(go_atoi("-7"), Some(-7));
        assert_eq!(go_atoi("007"), Some(7));
        assert_eq!(go_atoi("9223372036854775807"), Some(i64::MAX));
        assert_eq!(go_atoi("9223372036854775808"), None);
        assert_eq!(go_atoi("-9223372036854775808"), Some(i64::MIN));
        for bad in ["", " 7", "7 ", "0x7", "1e3", "+", "7.0"] {
            assert_eq!(go_atoi(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn env_empty_in_the_template_is_strict_only_drift() {
        let l = Layout::arc();
        let ars = r#"{"githubConfigUrl":"https://github.com/o","githubConfigSecret":"s",
            "template":{"spec":{"containers":[{"name":"runner","image":"img","env":[]}]}}}"#;
        let desired = desired_runner_spec(l, ars, Some("3")).unwrap();
        let stored = r#"{"githubConfigUrl":"https://github.com/o","githubConfigSecret":"s","runnerScaleSetId":3,
            "spec":{"containers":[{"name":"runner","image":"img"}]}}"#;
        let current = decode(l, l.ephemeral_runner_spec, stored).unwrap();
        assert!(crate::equality::semantic_equal(
            l,
            l.ephemeral_runner_spec,
            &desired,
            &current
        ));
        let c = crate::equality::compare(l, l.ephemeral_runner_spec, &desired, &current);
        assert!(!c.reflect_equal());
        assert_eq!(c.differences.len(), 1);
        assert_eq!(c.differences[0].path, "spec.containers[0].env");
    }

    #[test]
    fn arc_refuses_a_github_config_url_it_cannot_parse() {
        let l = Layout::arc();
        let err = desired_runner_spec(l, r#"{"githubConfigUrl":"https://github.com"}"#, Some("1"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec.githubConfigUrl: ARC will not update this set: its controller fails to build the EphemeralRunnerSet and logs: failed to apply GitHub URL labels: failed to parse github config from url: \"https://github.com\": invalid config URL, should point to an enterprise, org, or repository"
        );
        // The scale set id is checked first, as in ARC.
        assert_eq!(
            desired_runner_spec(l, r#"{"githubConfigUrl":"x"}"#, None).unwrap_err(),
            DesiredError::MissingScaleSetId
        );
    }

    #[test]
    fn set_metadata_without_annotations_panics_in_arc() {
        let l = Layout::arc();
        let url = r#""githubConfigUrl":"https://github.com/o""#;
        for meta in [r#"{"labels":{"a":"b"}}"#, "{}", r#"{"annotations":null}"#] {
            let spec = format!(r#"{{{url},"ephemeralRunnerSetMetadata":{meta}}}"#);
            assert_eq!(
                desired_runner_spec(l, &spec, Some("1")).unwrap_err(),
                DesiredError::MergeAnnotationsPanic,
                "{meta}"
            );
        }
        for meta in ["null", r#"{"labels":{"a":"b"},"annotations":{}}"#] {
            let spec = format!(r#"{{{url},"ephemeralRunnerSetMetadata":{meta}}}"#);
            assert!(desired_runner_spec(l, &spec, Some("1")).is_ok(), "{meta}");
        }
    }

    #[test]
    fn missing_or_bad_scale_set_id() {
        let l = Layout::arc();
        assert_eq!(
            desired_runner_spec(l, "{}", None).unwrap_err(),
            DesiredError::MissingScaleSetId
        );
        assert!(matches!(
            desired_runner_spec(l, "{}", Some("x")).unwrap_err(),
            DesiredError::BadScaleSetId(_)
        ));
    }

    #[test]
    fn the_runner_spec_read_along_paths_answers_on_them_as_the_whole() {
        let l = Layout::arc();
        // The realistic runner spec as the AutoscalingRunnerSet it is built from: the pod
        // template under `template`, and a key of that template named like a copied field.
        let text = include_str!("../../../../tests/oracle/testdata/realistic-spec.json");
        let mut spec: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).unwrap();
        let template = serde_json::json!({
            "metadata": spec.remove("metadata"),
            "spec": spec.remove("spec"),
            "proxy": {"http": {"url": "from the template"}},
        });
        spec.insert("template".into(), template);
        let ars = serde_json::json!({
            "apiVersion": "actions.github.com/v1alpha1",
            "kind": "AutoscalingRunnerSet",
            "metadata": {"name": "a", "namespace": "n"},
            "spec": spec,
        });
        let ars = crate::object::Object::from_manifest(&ars, crate::object::Origin::Cluster, None);
        let whole = written_runner_spec(l, ars.written_spec(None));
        let mut all = Vec::new();
        crate::written::test_support::paths_of(&whole, "", &mut all);
        assert!(all.len() > 200, "{}", all.len());
        assert!(all.contains(&"proxy.http.url".to_string()), "{all:?}");
        let under = |a: &str, b: &str| {
            b.is_empty()
                || a.starts_with(b) && matches!(a.as_bytes().get(b.len()), None | Some(b'.' | b'['))
        };
        for p in &all {
            let read = written_runner_spec_reaching(l, &ars, Some(&Paths::parse([p.as_str()])));
            for q in all.iter().filter(|q| under(q, p)) {
                assert_eq!(read.at_path(q), whole.at_path(q), "{q} read along {p}");
            }
        }
        assert_eq!(written_runner_spec_reaching(l, &ars, None), whole);
    }
}
