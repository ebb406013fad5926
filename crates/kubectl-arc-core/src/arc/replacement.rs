//! What each ARC release does when an AutoscalingRunnerSet changes: which mechanism decides, and
//! whether it recycles idle and pending runners.
//!
//! Pure core, over [`crate::release`] and [`crate::spec_hash`]. Every released ARC
//! (gha-runner-scale-set 0.9.0 to 0.14.2) decides in `(*AutoscalingRunnerSetReconciler).Reconcile`
//! (controllers/actions.github.com/autoscalingrunnerset_controller.go): when
//! `latestRunnerSet.Annotations["actions.github.com/runner-spec-hash"] !=
//! autoscalingRunnerSet.RunnerSetSpecHash()` it creates a new EphemeralRunnerSet (the default
//! `--update-strategy=immediate`), or first scales the newest set to 0 while runners are running
//! or pending (`eventual`, `drainingJobs`); the old sets are deleted once the newest matches. The
//! listener is deleted and recreated when the AutoscalingListener's
//! `actions.github.com/runner-spec-hash` annotation differs from `ListenerSpecHash()` or its
//! `actions.github.com/values-hash` from the AutoscalingRunnerSet's (the listener carries them as
//! `newAutoScalingListener` in resourcebuilder.go wrote them).

use std::collections::BTreeMap;

use crate::arc::{ANNOTATION_INTEGRITY_HASH, ANNOTATION_RUNNER_SPEC_HASH};
use crate::release::{self, ArcRelease, Mechanism};
use crate::spec_hash::{self, SpecHashError};

/// The AutoscalingRunnerSet annotation the chart sets from its values (`annotationKeyValuesHash`);
/// the listener is recreated when it changes.
pub const ANNOTATION_VALUES_HASH: &str = "actions.github.com/values-hash";

/// The mechanism an EphemeralRunnerSet's own fields show: the revision fields
/// (`spec.actionableRevision` or `status.appliedActionableRevision` present) are the revision era,
/// `actions.github.com/integrity-hash` the integrity-hash era, `actions.github.com/runner-spec-hash`
/// a release up to 0.14.2. `None`: the set says nothing (a hand-made object).
pub fn set_mechanism(
    annotations: &BTreeMap<String, String>,
    labels: &BTreeMap<String, String>,
    has_revision_fields: bool,
) -> Option<Mechanism> {
    if has_revision_fields {
        Some(Mechanism::ActionableRevision)
    } else if annotations.contains_key(ANNOTATION_INTEGRITY_HASH) {
        Some(Mechanism::IntegrityHash)
    } else if annotations.contains_key(ANNOTATION_RUNNER_SPEC_HASH)
        || labels.contains_key(ANNOTATION_RUNNER_SPEC_HASH)
    {
        Some(Mechanism::RunnerSpecHash)
    } else {
        None
    }
}

/// The releases whose `RunnerSetSpecHash()` of an AutoscalingRunnerSet's spec (as stored) equals
/// a set's `runner-spec-hash` annotation: the releases that can have made the set from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The matching releases, oldest first.
    pub matches: Vec<&'static str>,
    /// Every release tried (the hash-era ones), oldest first.
    pub tried: Vec<&'static str>,
    /// The releases whose hash could not be computed, with why.
    pub errors: Vec<(&'static str, SpecHashError)>,
}

/// Try every runner-spec-hash release on `ars_spec_json` against `annotation`.
pub fn detect(ars_spec_json: &str, annotation: &str) -> Detection {
    let mut d = Detection {
        matches: Vec::new(),
        tried: Vec::new(),
        errors: Vec::new(),
    };
    for r in hash_releases() {
        d.tried.push(r.version);
        match spec_hash::runner_set_spec_hash(r, ars_spec_json) {
            Ok(h) if h == annotation => d.matches.push(r.version),
            Ok(_) => {}
            Err(e) => d.errors.push((r.version, e)),
        }
    }
    d
}

/// The releases that decide with the runner-spec hash, oldest first.
pub fn hash_releases() -> impl Iterator<Item = &'static ArcRelease> {
    release::releases()
        .iter()
        .filter(|r| r.mechanism == Mechanism::RunnerSpecHash)
}

/// The newest release of the runner-spec-hash era: the default when nothing says which.
pub fn newest_hash_release() -> Option<&'static ArcRelease> {
    hash_releases().last()
}

/// Versions as a person reads a list of them: consecutive releases of the table as a range
/// (`0.14.0-0.14.2`), others with commas.
pub fn versions_text(versions: &[&str]) -> String {
    let all: Vec<&str> = release::releases().iter().map(|r| r.version).collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < versions.len() {
        let start = versions[i];
        let mut end = i;
        while end + 1 < versions.len() {
            let here = all.iter().position(|v| *v == versions[end]);
            let next = all.iter().position(|v| *v == versions[end + 1]);
            match (here, next) {
                (Some(a), Some(b)) if b == a + 1 => end += 1,
                _ => break,
            }
        }
        out.push(if end == i {
            start.to_string()
        } else {
            format!("{start}-{}", versions[end])
        });
        i = end + 1;
    }
    out.join(", ")
}

/// What a runner-spec-hash release does on applying a desired AutoscalingRunnerSet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashVerdict {
    /// The newest set's `runner-spec-hash` annotation (`None`: the set has none).
    pub current: Option<String>,
    /// `RunnerSetSpecHash()` of the desired AutoscalingRunnerSet.
    pub desired: String,
    /// The set is replaced: the two differ.
    pub recycle: bool,
}

/// The release's verdict on replacing the newest set: `RunnerSetSpecHash()` of the desired spec
/// against the set's annotation, compared as the controller compares them (a missing annotation is
/// the empty string, which no hash equals).
pub fn runner_set_verdict(
    release: &ArcRelease,
    desired_spec_json: &str,
    set_annotation: Option<&str>,
) -> Result<HashVerdict, SpecHashError> {
    let desired = spec_hash::runner_set_spec_hash(release, desired_spec_json)?;
    Ok(HashVerdict {
        recycle: set_annotation != Some(desired.as_str()),
        current: set_annotation.map(str::to_string),
        desired,
    })
}

/// Whether the listener is recreated: the listener's own hash and values-hash annotations when
/// the listener is known, else the live AutoscalingRunnerSet's `ListenerSpecHash()` and
/// values-hash (what the running listener was made from, once the controller has caught up).
pub fn listener_restart(
    release: &ArcRelease,
    desired_spec_json: &str,
    desired_values_hash: Option<&str>,
    live: ListenerSide<'_>,
) -> Result<bool, SpecHashError> {
    let desired = spec_hash::listener_spec_hash(release, desired_spec_json)?;
    let (hash, values) = match live {
        ListenerSide::Listener { hash, values_hash } => (hash.map(str::to_string), values_hash),
        ListenerSide::LiveScaleSet {
            spec_json,
            values_hash,
        } => (
            Some(spec_hash::listener_spec_hash(release, spec_json)?),
            values_hash,
        ),
    };
    Ok(hash.as_deref() != Some(desired.as_str()) || values != desired_values_hash)
}

/// What the running listener was made from.
#[derive(Debug, Clone, Copy)]
pub enum ListenerSide<'a> {
    /// The AutoscalingListener's annotations.
    Listener {
        hash: Option<&'a str>,
        values_hash: Option<&'a str>,
    },
    /// The live AutoscalingRunnerSet (the listener itself is not among the inputs).
    LiveScaleSet {
        spec_json: &'a str,
        values_hash: Option<&'a str>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_set_names_its_mechanism_revision_fields_first() {
        let none = BTreeMap::new();
        let hash = map(&[(ANNOTATION_RUNNER_SPEC_HASH, "595bdbd674")]);
        let integrity = map(&[(ANNOTATION_INTEGRITY_HASH, "1234")]);
        assert_eq!(
            set_mechanism(&hash, &none, false),
            Some(Mechanism::RunnerSpecHash)
        );
        assert_eq!(
            set_mechanism(&none, &hash, false),
            Some(Mechanism::RunnerSpecHash)
        );
        assert_eq!(
            set_mechanism(&integrity, &none, false),
            Some(Mechanism::IntegrityHash)
        );
        assert_eq!(
            set_mechanism(&integrity, &none, true),
            Some(Mechanism::ActionableRevision)
        );
        assert_eq!(set_mechanism(&none, &none, false), None);
    }

    #[test]
    fn consecutive_releases_read_as_a_range() {
        assert_eq!(
            versions_text(&["0.14.0", "0.14.1", "0.14.2"]),
            "0.14.0-0.14.2"
        );
        assert_eq!(
            versions_text(&["0.9.0", "0.10.0", "0.10.1"]),
            "0.9.0, 0.10.0-0.10.1"
        );
        assert_eq!(versions_text(&["0.12.1"]), "0.12.1");
        assert_eq!(versions_text(&[]), "");
    }
}
