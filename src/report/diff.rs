//! `diff`'s report: per scale set, the verdict, the differences and what each side wrote. Its
//! JSON and YAML shape is documented in docs/diff.md; the text and `-o github` renderers read it.

use serde::Serialize;

use crate::core::drift::{Drift, DriftError};
use crate::core::equality::{Difference, Reason};
use crate::core::layout::Layout;
use crate::core::quantity::Format;
use crate::core::recycle_loop::{Cause, Change, RecycleLoopError, RoundTrip};
use crate::core::release::Mechanism;
use crate::core::value::Value;
use crate::core::written::{Paths, Written};
use crate::report::display::{self, Line};

/// The whole report of one `diff` run. Its JSON and YAML shape is documented in docs/diff.md.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The k8s.io/api layout the comparison used.
    pub layout: String,
    /// The ARC release the scale sets are under, when known: `--arc-version`, the controller
    /// Deployment's `app.kubernetes.io/version`, or the objects' own label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arc_version: Option<String>,
    /// Where `arcVersion` was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arc_version_from: Option<String>,
    /// Whose CRD defaults completed the scale sets of `-f` as the API server stores them: the
    /// cluster's CRD, one among the files, or the one kubectl-arc ships (docs/diff.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defaults_from: Option<String>,
    /// Scale sets only the live side holds (not in the change given with `-f`): not judged.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_in_change: usize,
    pub items: Vec<ScaleSetDiff>,
    /// The totals of the items' `impact` (absent when no item has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<crate::core::impact::ImpactTotals>,
    /// Runners of the namespaces with an impact that no set in view controls (`ns/name (why)`):
    /// no forecast counts them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runners_outside: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The drift of one scale set.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetDiff {
    pub(crate) namespace: String,
    pub(crate) name: String,
    /// A scale set without an EphemeralRunnerSet: ARC will create one, so nothing is recycled.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) new: bool,
    /// What decides for this scale set: the release's mechanism (`RunnerSpecHash` up to 0.14.2,
    /// `IntegrityHash`, `ActionableRevision`). Absent when the comparison could not be made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mechanism: Option<Mechanism>,
    /// Applying the desired side makes this release recycle idle or pending runners: the set is
    /// replaced (`RunnerSpecHash`), cleaned up (`IntegrityHash`) or its revision bumped
    /// (`ActionableRevision`). The exit code is 1 exactly where this is true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) recycle: Option<bool>,
    /// The release whose rule judged this scale set (runner-spec-hash era), and why that one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) release: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) release_from: Option<String>,
    /// The newest set's `actions.github.com/runner-spec-hash` and the release's
    /// `RunnerSetSpecHash()` of the desired AutoscalingRunnerSet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) runner_spec_hash: Option<HashPair>,
    /// ARC up to 0.14: what changed between the live and the desired AutoscalingRunnerSet in the
    /// fields `RunnerSetSpecHash()` hashes (every one replaces the set), with paths from the
    /// object. `differences` stays the revision era's comparison with the set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) scale_set_differences: Vec<ScaleSetDifference>,
    /// The release's `RunnerSetSpecHash()` of the live AutoscalingRunnerSet, given when it is not
    /// the set's annotation: the set was not made from the live scale set as it is (it changed
    /// since, or another release made the set), so `scaleSetDifferences` are not all there is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) live_runner_spec_hash: Option<String>,
    /// ARC up to 0.14, a set kept: fields that reach the runners but are not hashed
    /// (`spec.vaultConfig`, `spec.ephemeralRunnerMetadata`,
    /// `spec.ephemeralRunnerConfigSecretMetadata`) that changed; their change reaches runners
    /// only when the set is next replaced (`kubectl arc bump` replaces it now).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) unhashed_changes: Vec<String>,
    /// The live and desired AutoscalingRunnerSet specs over the hashed fields, for the text diff.
    #[serde(skip)]
    pub(crate) scale_set_specs: Option<Box<Specs>>,
    /// The judging release's version check refuses the AutoscalingRunnerSet's
    /// `app.kubernetes.io/version`: its controller deletes the scale set (with its sets, runners,
    /// listener and registration) instead of anything the hashes say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) deleted_by_version_check: Option<crate::core::release::VersionCheck>,
    /// The release the sets were made by, when the scale set is judged by its chart label's
    /// and that other release hashes it otherwise: its verdict, if the controller still runs it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) alternative: Option<Alternative>,
    /// The set's `actions.github.com/integrity-hash` and the hash of the desired runner spec as
    /// the AutoscalingRunnerSet controller builds it in memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) integrity_hash: Option<HashPair>,
    /// The listener is recreated (`ListenerSpecHash()` or the values-hash annotation differs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) listener_restart: Option<bool>,
    /// What the change does to the work running now (a set replaced or recycled, a listener
    /// made again): the runners deleted, the jobs that finish first, whether job pickup pauses
    /// and new jobs wait (docs/diff.md, "Impact").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) impact: Option<crate::core::impact::Impact>,
    /// The set the verdict was made against, for the forecast.
    #[serde(skip)]
    pub(crate) set_facts: Option<crate::core::impact::SetFacts>,
    /// The releases whose hash of the live AutoscalingRunnerSet equals the set's annotation: the
    /// releases that can have made the set (empty: none matches, the scale set changed since).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) hash_matches: Option<Vec<&'static str>>,
    /// With `--arc-version`: the upgrade to it replaces the set by itself (the release that made
    /// the set hashes the unchanged AutoscalingRunnerSet to the annotation, this one does not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) upgrade_replaces: Option<bool>,
    /// Whether a revision-era ARC would bump `spec.actionableRevision` and recycle idle and
    /// pending runners (Go's Semantic equality of the runner specs).
    /// Absent when the comparison could not be made (see `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) semantic_drift: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reflect_equal: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cmp_equal: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) semantic_equal: Option<bool>,
    /// How many differences ARC acts on (Semantic equality sees them).
    pub(crate) semantic_differences: usize,
    /// How many differences only a strict comparison sees.
    pub(crate) strict_only_differences: usize,
    pub(crate) differences: Vec<DifferenceReport>,
    /// On an integrity-hash-era ARC, the desired spec does not survive Go's JSON round trip with
    /// the same legacy hash, so the two controllers recycle idle and pending runners forever.
    /// A property of the template alone; absent when no desired spec could be built from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) legacy_recycle_loop: Option<bool>,
    /// The fields that change in that round trip (empty when it does not loop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) legacy_recycle_loop_paths: Option<Vec<String>>,
    /// Each field of the loop with how to write it instead, for the text and GitHub renderers.
    #[serde(skip)]
    pub(crate) legacy_recycle_loop_fixes: Vec<LoopFix>,
    /// What went wrong, naming the object and field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// Where the desired spec came from (`AutoscalingRunnerSet ns/name` or a file).
    pub(crate) desired_from: String,
    /// Where the current spec came from.
    pub(crate) current_from: String,
    /// Where the runner scale set id came from when the desired object lacks the annotation
    /// (`EphemeralRunnerSet`, `LiveAutoscalingRunnerSet`), or `AutoscalingRunnerSet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) scale_set_id_from: Option<&'static str>,
    /// How the EphemeralRunnerSet was found when not by name (`OwnerUid`, `OwnerName`, `Labels`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) paired_by: Option<crate::core::pairing::PairedBy>,
    /// Other EphemeralRunnerSets of the same scale set, which ARC is replacing (ARC up to 0.14).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) replaced: Vec<String>,
    /// What else a reader should know (what ARC waits for, an ambiguous pairing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
    /// The next release, a scale set switched off by the Outdated lifecycle: whether the change
    /// leaves it ([`crate::core::next::corrected_with`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outdated: Option<OutdatedVerdict>,
    /// The file the desired object came from, for annotations.
    #[serde(skip)]
    pub(crate) desired_file: Option<String>,
    /// The two specs compared, for the text diff: rendered as YAML lines only when it is
    /// written (a JSON report, or a scale set without differences, never needs them).
    #[serde(skip)]
    pub(crate) specs: Option<Box<Specs>>,
}

/// One difference between the live and the desired AutoscalingRunnerSet in a hashed field.
/// A scale set switched off by the next release's Outdated lifecycle (ARC #4652/#4660: its
/// AutoscalingRunnerSet or set in phase Outdated, or its listener's `spec.phase` Stopped) and
/// whether the change judged leaves it: `outdatedRunnerSpecCorrected`, a change of the runner
/// spec or its metadata under Semantic equality; `minRunners`/`maxRunners` never do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OutdatedVerdict {
    pub(crate) leaves: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScaleSetDifference {
    /// From the object: `spec.template.spec.containers[0].resources.requests.cpu`.
    pub(crate) path: String,
    pub(crate) reason: Reason,
    /// The live value, as written (`null` when absent).
    pub(crate) from: Option<String>,
    /// The desired value, as written.
    pub(crate) to: Option<String>,
}

/// The verdict of the release the sets were made by, when it is not the one that judges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alternative {
    pub(crate) release: String,
    /// Where that release was read (the set's label, or its hash).
    pub(crate) release_from: String,
    pub(crate) recycle: bool,
    pub(crate) runner_spec_hash: HashPair,
}

/// A hash as the set carries it and as the release computes it of the desired side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HashPair {
    /// The set's annotation; `null` when it has none.
    pub(crate) current: Option<String>,
    pub(crate) desired: String,
    /// The integrity-hash era: the hash of the set's runner spec as stored, which its own
    /// controller compares with the annotation (given when the desired hash equals the
    /// annotation: a value other than `current` is a cleanup still pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stored: Option<String>,
}

/// The desired and current runner specs of a comparison, the layout that reads them, and what
/// each side's input wrote (to show its values as written).
#[derive(Debug, Clone)]
pub(crate) struct Specs {
    pub(crate) layout: &'static Layout,
    /// The type of both values: the runner spec, or an AutoscalingRunnerSet's spec.
    pub(crate) ty: crate::core::layout::TypeId,
    pub(crate) desired: Value,
    pub(crate) current: Value,
    pub(crate) desired_written: Written,
    pub(crate) current_written: Written,
}

impl Specs {
    /// The YAML lines of (current, desired).
    pub(crate) fn lines(&self) -> (Vec<Line>, Vec<Line>) {
        let ty = self.ty;
        let lines = |v, w| {
            display::tree_written(self.layout, ty, v, "", w)
                .map(|n| display::lines(&n))
                .unwrap_or_default()
        };
        (
            lines(&self.current, &self.current_written),
            lines(&self.desired, &self.desired_written),
        )
    }
}

impl ScaleSetDiff {
    /// A scale set whose comparison could not be made, and why.
    pub(crate) fn failed(
        namespace: String,
        name: String,
        desired_from: String,
        current_from: String,
        error: String,
    ) -> ScaleSetDiff {
        ScaleSetDiff {
            namespace,
            name,
            new: false,
            mechanism: None,
            recycle: None,
            release: None,
            release_from: None,
            runner_spec_hash: None,
            scale_set_differences: Vec::new(),
            live_runner_spec_hash: None,
            unhashed_changes: Vec::new(),
            scale_set_specs: None,
            alternative: None,
            deleted_by_version_check: None,
            integrity_hash: None,
            listener_restart: None,
            impact: None,
            set_facts: None,
            hash_matches: None,
            upgrade_replaces: None,
            semantic_drift: None,
            reflect_equal: None,
            cmp_equal: None,
            semantic_equal: None,
            semantic_differences: 0,
            strict_only_differences: 0,
            differences: Vec::new(),
            legacy_recycle_loop: None,
            legacy_recycle_loop_paths: None,
            legacy_recycle_loop_fixes: Vec::new(),
            error: Some(error),
            desired_from,
            current_from,
            scale_set_id_from: None,
            paired_by: None,
            replaced: Vec::new(),
            note: None,
            outdated: None,
            desired_file: None,
            specs: None,
        }
    }

    /// A scale set that has no EphemeralRunnerSet yet: ARC will create one from the desired spec,
    /// so no runner is recycled. `waiting` says what ARC waits for, for a live scale set.
    pub(crate) fn new_scale_set(
        namespace: String,
        name: String,
        desired_from: String,
        waiting: Option<String>,
        desired_file: Option<&str>,
    ) -> ScaleSetDiff {
        ScaleSetDiff {
            new: true,
            recycle: Some(false),
            semantic_drift: Some(false),
            error: None,
            note: waiting,
            desired_file: desired_file.map(str::to_string),
            ..ScaleSetDiff::failed(namespace, name, desired_from, String::new(), String::new())
        }
    }

    /// The report of one scale set from its drift, or from why the drift could not be computed
    /// (the error names the side it came from).
    pub fn from_drift(
        layout: &'static Layout,
        namespace: String,
        name: String,
        desired_from: String,
        current_from: String,
        drift: Result<Drift, DriftError>,
    ) -> ScaleSetDiff {
        let (from, unknown) = ((desired_from, current_from), |_: Option<&Paths>| {
            (Written::Unknown, Written::Unknown)
        });
        Self::from_drift_as_written(layout, namespace, name, from, drift, true, unknown)
    }

    /// [`ScaleSetDiff::from_drift`], each side's values shown as its input wrote them: `written`
    /// gives (desired, current), where desired is what the AutoscalingRunnerSet wrote, laid out
    /// as the runner spec ARC builds from it ([`crate::core::desired::written_runner_spec`]),
    /// `current` what the EphemeralRunnerSet wrote under `spec.ephemeralRunnerSpec`. Each
    /// difference's `from` and `to`, and the text diff when the specs are kept `whole`, use them
    /// where the written value decodes to the value compared. `written` is called only when there
    /// is a difference to show (once): for the `whole` trees (`None`), else only for what lies on
    /// the way to the differences' paths ([`Paths`]), and then the specs keep no written tree
    /// (what else reads one makes its own).
    pub(crate) fn from_drift_as_written(
        layout: &'static Layout,
        namespace: String,
        name: String,
        (desired_from, current_from): (String, String),
        drift: Result<Drift, DriftError>,
        whole: bool,
        written: impl FnOnce(Option<&Paths>) -> (Written, Written),
    ) -> ScaleSetDiff {
        let d = match drift {
            Ok(d) => d,
            Err(e) => {
                let side = match e {
                    DriftError::Desired(_) => &desired_from,
                    DriftError::Current(_) => &current_from,
                };
                let error = format!("{side}: {e}");
                return ScaleSetDiff::failed(namespace, name, desired_from, current_from, error);
            }
        };
        let c = &d.comparison;
        let paths = (!whole).then(|| Paths::parse(c.differences.iter().map(|x| x.path.as_str())));
        let (desired_written, current_written) = if c.differences.is_empty() {
            (Written::Unknown, Written::Unknown)
        } else {
            written(paths.as_ref())
        };
        let differences = (c.differences.iter())
            .map(|x| {
                DifferenceReport::of(
                    layout,
                    x,
                    (&d.current, &current_written),
                    (&d.desired, &desired_written),
                )
            })
            .collect();
        // A tree of a few paths is no spec's written form: the specs keep none.
        let (desired_written, current_written) = match paths {
            Some(_) => (Written::Unknown, Written::Unknown),
            None => (desired_written, current_written),
        };
        ScaleSetDiff {
            semantic_drift: Some(d.semantic_drift()),
            reflect_equal: Some(c.reflect_equal()),
            cmp_equal: Some(c.cmp_equal()),
            semantic_equal: Some(c.semantic_equal()),
            semantic_differences: c
                .differences
                .iter()
                .filter(|x| !x.reason.semantic_equal())
                .count(),
            strict_only_differences: c.strict_only().count(),
            differences,
            error: None,
            specs: Some(Box::new(Specs {
                layout,
                ty: layout.ephemeral_runner_spec,
                desired: d.desired,
                current: d.current,
                desired_written,
                current_written,
            })),
            ..ScaleSetDiff::failed(namespace, name, desired_from, current_from, String::new())
        }
    }
}

impl ScaleSetDiff {
    /// Attach the integrity-hash recycle loop check of the desired spec
    /// ([`crate::core::recycle_loop::round_trip_of_autoscaling_runner_set`]); `None`, or a check
    /// that could not be made, leaves the fields absent.
    pub fn with_legacy_recycle_loop(
        self,
        check: Option<Result<RoundTrip, RecycleLoopError>>,
    ) -> ScaleSetDiff {
        self.with_legacy_recycle_loop_as_written(check, |_| Written::Unknown)
    }

    /// As [`ScaleSetDiff::with_legacy_recycle_loop`], each fix quoting the value as the input wrote
    /// it (`desired`: the runner spec's written tree along the paths given, made only when the
    /// template loops and [`ScaleSetDiff::from_drift_as_written`] has not made it whole already).
    pub(crate) fn with_legacy_recycle_loop_as_written(
        mut self,
        check: Option<Result<impl std::borrow::Borrow<RoundTrip>, RecycleLoopError>>,
        desired: impl FnOnce(Option<&Paths>) -> Written,
    ) -> ScaleSetDiff {
        if let Some(Ok(t)) = &check {
            let t: &RoundTrip = t.borrow();
            let loops = t.loops();
            let changes: &[Change] = if loops { &t.changes } else { &[] };
            let made;
            let written = match self.specs.as_deref() {
                Some(s) if !matches!(s.desired_written, Written::Unknown) => &s.desired_written,
                _ if loops => {
                    made = desired(Some(&Paths::parse(changes.iter().map(|c| c.path.as_str()))));
                    &made
                }
                _ => &Written::Unknown,
            };
            let fixes = changes.iter().map(|c| LoopFix::of(c, written)).collect();
            self.legacy_recycle_loop = Some(loops);
            self.legacy_recycle_loop_paths = Some(changes.iter().map(|c| c.path.clone()).collect());
            self.legacy_recycle_loop_fixes = fixes;
        }
        self
    }
}

/// One field of a recycle loop and how to write it so that it survives Go's round trip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoopFix {
    pub(crate) path: String,
    /// What to do, for people: "drop `env: []`", "write `1`, not `1000m`".
    pub(crate) fix: String,
}

impl LoopFix {
    /// The fix of one change, quoting the value as `spelled` (the runner spec's written tree) has
    /// it, else as Go holds it.
    fn of(c: &Change, spelled: &Written) -> Self {
        let key = last_key(&c.path);
        let fix = match &c.cause {
            Cause::EmptyListOmitted => format!("drop `{key}: []` (Go leaves an empty list out)"),
            Cause::EmptyMapOmitted => format!("drop `{key}: {{}}` (Go leaves an empty map out)"),
            Cause::QuantityRewritten { in_memory, written }
                if in_memory.format == Format::Empty =>
            {
                format!("write `{key}: {written}` (Go writes the missing quantity as {written})")
            }
            Cause::QuantityRewritten { in_memory, written } => {
                let as_written = spelled
                    .at_path(&c.path)
                    .as_written()
                    .unwrap_or_else(|| display::quantity_as_written(in_memory));
                if as_written == *written {
                    format!("write it as `{written}`, the form Go writes")
                } else {
                    format!("write `{written}`, not `{as_written}`")
                }
            }
            Cause::TimeRewritten { written } if written == "null" => {
                format!("drop `{key}` (Go writes the zero time as null)")
            }
            Cause::TimeRewritten { written } => {
                format!("write `{written}` (Go writes whole seconds in UTC)")
            }
            Cause::Other => format!("reads back otherwise ({})", c.reason.explain()),
        };
        LoopFix {
            path: c.path.clone(),
            fix,
        }
    }
}

/// The last step of a path: a field name, or a quoted map key with its brackets.
pub(crate) fn last_key(path: &str) -> &str {
    if path.ends_with(']') {
        let open = path.rfind('[').unwrap_or(0);
        return &path[open..];
    }
    path.rsplit('.').next().unwrap_or(path)
}

/// One difference in the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DifferenceReport {
    pub(crate) path: String,
    pub(crate) reason: Reason,
    /// Whether ARC (Semantic equality) acts on this difference.
    pub(crate) semantic: bool,
    /// The current value (the EphemeralRunnerSet's), as written: a scalar's text, `[]` or `{}` for
    /// an empty list or map, a YAML block for a larger one; `null` when absent (Go's zero value).
    pub(crate) from: Option<String>,
    /// The desired value, likewise.
    pub(crate) to: Option<String>,
}

impl DifferenceReport {
    /// A difference with the values found at its path on both sides, each beside what its input
    /// wrote.
    pub(crate) fn of(
        layout: &Layout,
        d: &Difference,
        current: (&Value, &Written),
        desired: (&Value, &Written),
    ) -> Self {
        let ty = layout.ephemeral_runner_spec;
        let shown = |(v, w): (&Value, &Written), quoted| {
            display::report_text(layout, ty, v, w, &d.path, quoted)
        };
        let (mut from, mut to) = (shown(current, false), shown(desired, false));
        // `"8080"` and `8080` (a string and a number) read alike once unquoted: keep the quotes.
        if from.is_some() && from == to {
            (from, to) = (shown(current, true), shown(desired, true));
        }
        DifferenceReport {
            path: d.path.clone(),
            reason: d.reason,
            semantic: !d.reason.semantic_equal(),
            from,
            to,
        }
    }
}
