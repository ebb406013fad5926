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
        recycle: replaces(Verdict::RunnerSpecHash {
            desired: &desired,
            annotation: set_annotation,
        }) == Some(true),
        current: set_annotation.map(str::to_string),
        desired,
    })
}

/// What a release's mechanism compares to decide whether it replaces (or cleans up) the set:
/// the evidence of the verdict ([`replaces`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// ARC up to 0.14.2: `RunnerSetSpecHash()` of the desired AutoscalingRunnerSet and the newest
    /// set's `actions.github.com/runner-spec-hash` annotation (`None`: it has none).
    RunnerSpecHash {
        desired: &'a str,
        annotation: Option<&'a str>,
    },
    /// The integrity-hash era (ARC PR #4516): the hash of the runner spec the AutoscalingRunnerSet
    /// controller builds in memory, the set's `actions.github.com/integrity-hash` annotation, and
    /// `ephemeralRunnerSetIntegrityHash` of the spec as stored (`None`: not computed).
    IntegrityHash {
        desired: &'a str,
        annotation: Option<&'a str>,
        stored: Option<&'a str>,
    },
    /// The revision era (ARC PR #4638): whether the desired runner spec differs semantically from
    /// the set's (`None`: not known).
    ActionableRevision { semantic_drift: Option<bool> },
}

/// The one replacement rule: whether the judging release's mechanism replaces the set (or
/// recycles its idle and pending runners), `None` when its evidence does not say.
///
/// - Runner-spec hash (`(*AutoscalingRunnerSetReconciler).Reconcile` in
///   `autoscalingrunnerset_controller.go`, every tag from gha-runner-scale-set-0.9.0 to 0.14.2):
///   `latestRunnerSet.Annotations[annotationKeyRunnerSpecHash] !=
///   autoscalingRunnerSet.RunnerSetSpecHash()` makes a new EphemeralRunnerSet (a missing
///   annotation is the empty string, which no hash equals).
/// - Integrity hash (ARC 2ee6b3b8): the AutoscalingRunnerSet controller patches the set when the
///   hash of the runner spec it builds differs from the annotation; else the EphemeralRunnerSet
///   controller cleans up when the annotation is not `ephemeralRunnerSetIntegrityHash` of the
///   spec as stored.
/// - Revision (ARC #4638): `spec.actionableRevision` is bumped on Semantic drift
///   (`apiequality.Semantic.DeepEqual` of `newEphemeralRunnerSet`'s spec and the stored one).
pub fn replaces(verdict: Verdict<'_>) -> Option<bool> {
    match verdict {
        Verdict::RunnerSpecHash {
            desired,
            annotation,
        } => Some(annotation != Some(desired)),
        Verdict::IntegrityHash {
            desired,
            annotation,
            stored,
        } => match (annotation, stored) {
            (a, _) if a != Some(desired) => Some(true),
            (Some(a), Some(stored)) => Some(stored != a),
            _ => Some(false),
        },
        Verdict::ActionableRevision { semantic_drift } => semantic_drift,
    }
}

/// What says which release judges a scale set of ARC up to 0.14, each with where it was read:
/// the evidence of the release rule ([`judging`]).
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// `--arc-version`: the release whose rule judges every scale set.
    pub flag: Option<&'static ArcRelease>,
    /// The running controller's release (its Deployment's `app.kubernetes.io/version`).
    pub controller: Option<(&'static ArcRelease, String)>,
    /// The AutoscalingRunnerSet's chart label (`app.kubernetes.io/version`).
    pub scale_set_label: Option<(&'static ArcRelease, String)>,
    /// The release that made the newest set, by its own `app.kubernetes.io/version` label.
    pub set_label: Option<(&'static ArcRelease, String)>,
    /// The release that made the newest set, by its hash: the newest release whose
    /// `RunnerSetSpecHash()` of the live AutoscalingRunnerSet equals its `runner-spec-hash`
    /// ([`detect`]).
    pub set_hash: Option<(&'static ArcRelease, String)>,
}

/// The release whose rule judges a scale set of ARC up to 0.14, where that was read, and the
/// release its sets were made by when that one may still be running instead.
#[derive(Debug, Clone)]
pub struct Judging {
    pub release: &'static ArcRelease,
    pub from: String,
    /// The sets' own release, named when the scale set is judged by its chart label and the
    /// sets say another release made them: the controller may still run that one.
    pub alternative: Option<(&'static ArcRelease, String)>,
}

/// The one release rule, for `diff`, `status`, the forecast and `upgrade-plan`: `--arc-version`;
/// else the running controller's; else the AutoscalingRunnerSet's chart label (the charts move
/// with the controller, and a controller refuses a scale set labelled by another minor release,
/// `v1alpha1.IsVersionAllowed` at the top of `Reconcile`, so the label names the controller that
/// keeps it), with the sets' own release as the alternative when they say another; else the sets'
/// own release (their label, else their hash); else the newest release. `None` when no release of
/// the runner-spec-hash era is known.
pub fn judging(evidence: Evidence) -> Option<Judging> {
    let Evidence {
        flag,
        controller,
        scale_set_label,
        set_label,
        set_hash,
    } = evidence;
    let judging = |release, from| Judging {
        release,
        from,
        alternative: None,
    };
    if let Some(r) = flag {
        return Some(judging(r, "--arc-version".to_string()));
    }
    if let Some((r, from)) = controller {
        return Some(judging(r, from));
    }
    let own = set_label.or(set_hash);
    if let Some((r, from)) = scale_set_label {
        let alternative = own.filter(|(o, _)| o.version != r.version);
        return Some(Judging {
            release: r,
            from,
            alternative,
        });
    }
    if let Some((r, from)) = own {
        return Some(judging(r, from));
    }
    let newest = newest_hash_release()?;
    Some(judging(
        newest,
        "the newest release, as nothing says which".to_string(),
    ))
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

    #[test]
    fn the_release_rule_takes_the_flag_the_controller_the_label_the_set_then_the_newest() {
        let r = |v: &str| release::release(v).unwrap();
        let from = |v: &str| Some((r(v), format!("from {v}")));
        let all = Evidence {
            flag: Some(r("0.9.0")),
            controller: from("0.10.0"),
            scale_set_label: from("0.11.0"),
            set_label: from("0.12.0"),
            set_hash: from("0.13.0"),
        };
        let pick = |e: Evidence| judging(e).map(|j| (j.release.version, j.from));
        assert_eq!(pick(all.clone()), Some(("0.9.0", "--arc-version".into())));
        let e = Evidence { flag: None, ..all };
        assert_eq!(pick(e.clone()), Some(("0.10.0", "from 0.10.0".into())));
        let e = Evidence {
            controller: None,
            ..e
        };
        let j = judging(e.clone()).unwrap();
        assert_eq!(
            (j.release.version, j.from.as_str()),
            ("0.11.0", "from 0.11.0")
        );
        // The set's own label comes before its hash, as the alternative too.
        assert_eq!(j.alternative.map(|(a, _)| a.version), Some("0.12.0"));
        let same = Evidence {
            set_label: from("0.11.0"),
            ..e.clone()
        };
        assert!(judging(same).unwrap().alternative.is_none());
        let e = Evidence {
            scale_set_label: None,
            ..e
        };
        assert_eq!(pick(e.clone()), Some(("0.12.0", "from 0.12.0".into())));
        let e = Evidence {
            set_label: None,
            ..e
        };
        assert_eq!(pick(e), Some(("0.13.0", "from 0.13.0".into())));
        assert_eq!(
            pick(Evidence::default()),
            Some(("0.14.2", "the newest release, as nothing says which".into()))
        );
    }

    #[test]
    fn each_mechanism_replaces_by_its_own_evidence() {
        let hash = |annotation| Verdict::RunnerSpecHash {
            desired: "595bdbd674",
            annotation,
        };
        assert_eq!(replaces(hash(Some("595bdbd674"))), Some(false));
        assert_eq!(replaces(hash(Some("7d9f8b6c5"))), Some(true));
        assert_eq!(replaces(hash(None)), Some(true), "no annotation is \"\"");
        let integrity = |annotation, stored| Verdict::IntegrityHash {
            desired: "1234",
            annotation,
            stored,
        };
        assert_eq!(replaces(integrity(Some("9"), None)), Some(true));
        assert_eq!(replaces(integrity(None, None)), Some(true));
        assert_eq!(replaces(integrity(Some("1234"), None)), Some(false));
        assert_eq!(replaces(integrity(Some("1234"), Some("1234"))), Some(false));
        // The set's own controller has not caught up: it still cleans up.
        assert_eq!(replaces(integrity(Some("1234"), Some("5678"))), Some(true));
        for drift in [None, Some(true), Some(false)] {
            let v = Verdict::ActionableRevision {
                semantic_drift: drift,
            };
            assert_eq!(replaces(v), drift);
        }
    }
}
