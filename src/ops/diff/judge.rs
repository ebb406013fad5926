//! Judging what `diff` read: each desired scale set paired with its set as ARC pairs them,
//! compared (drift), given its release's verdict ([`crate::ops::release::judge`]) and gathered
//! into the report, one item per scale set.

use std::collections::{BTreeSet, HashMap};

use anyhow::Result;
use serde_json::value::RawValue;

use crate::core::arc;
use crate::core::desired::{Built, DesiredError, build_once};
use crate::core::drift::{DriftError, drift_of};
use crate::core::layout::Layout;
use crate::core::pairing::{self, PairedBy, Pairing};
use crate::core::recycle_loop::RoundTrips;
use crate::core::revision::RevisionError;
use crate::core::value::DecodeError;
use crate::core::written::Paths;
use crate::input::Object;
use crate::ops::impact;
use crate::report::diff::{DiffReport, ScaleSetDiff};

use super::gather::{World, failed_keys, scale_set_name};
use super::{Diff, Plan};

/// The live sets indexed by what ARC's pairing looks at, built once: each scale set's candidates
/// are the sets of its namespace that name it by owner uid, owner name, scale-set label or own
/// name, and [`pairing::pair`] applies ARC's rules to those alone (any set a rule can take is a
/// candidate, so the answer is the one over all sets, at a cost linear in the sets).
pub(super) struct SetIndex<'a> {
    /// (namespace, what names the scale set, the name or uid) to the sets, in list order.
    by_key: HashMap<(&'a str, By, &'a str), Vec<usize>>,
}

/// What in a set names its scale set.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum By {
    OwnName,
    OwnerName,
    OwnerUid,
    Label,
}

impl<'a> SetIndex<'a> {
    fn new(sets: &'a [Object]) -> SetIndex<'a> {
        let mut by_key: HashMap<(&str, By, &str), Vec<usize>> = HashMap::new();
        for (i, set) in sets.iter().enumerate() {
            let p = set.pairing_set();
            let mut add = |by, key| by_key.entry((p.namespace, by, key)).or_default().push(i);
            add(By::OwnName, p.name);
            if let Some((_, _, name, uid)) = p.owner {
                add(By::OwnerName, name);
                if !uid.is_empty() {
                    add(By::OwnerUid, uid);
                }
            }
            if let Some(label) = p.label_name {
                add(By::Label, label);
            }
        }
        SetIndex { by_key }
    }

    /// The indexes of the sets that may belong to the scale set, in list order.
    fn candidates(&self, scale_set: &pairing::ScaleSet<'_>) -> Vec<usize> {
        let (ns, name) = (scale_set.namespace, scale_set.name);
        let keys = [
            (By::OwnName, name),
            (By::OwnerName, name),
            (By::Label, name),
        ]
        .into_iter()
        .chain(scale_set.uid.map(|uid| (By::OwnerUid, uid)));
        let mut found: Vec<usize> = keys
            .into_iter()
            .filter_map(|(by, key)| self.by_key.get(&(ns, by, key)))
            .flatten()
            .copied()
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// Each desired scale set's pairing (by its index in `world.desired`), computed once.
/// Under the next release (`next`), each scale set's set is the one named like it
/// ([`Pairing::named_like`]).
pub(super) fn pair_all(world: &World, next: bool) -> Vec<Option<Pairing>> {
    let index = SetIndex::new(&world.live_sets);
    let name_of = |i: usize| world.live_sets[i].name().to_string();
    world
        .desired
        .iter()
        .map(|ars| {
            let p = pair_of(world, &index, ars)?;
            Some(if next {
                p.named_like(ars.name(), name_of)
            } else {
                p
            })
        })
        .collect()
}

/// Pair, compare and judge the completed world; the scale sets of `-f` first completed as the
/// API server stores them (`crate::ops::defaults`).
pub(super) fn judge(plan: &Plan, world: &mut World) -> Diff {
    let defaults_from = (!plan.files.is_empty()).then(|| stored_as_the_server_would(plan, world));
    let mut report = report_of(plan, world, !plan.files.is_empty());
    report.defaults_from = defaults_from.flatten();
    Diff {
        report,
        errors: std::mem::take(&mut world.errors),
        fail_on: plan.fail_on,
    }
}

/// The desired scale sets with the CRD's defaults, those the API server refuses moved to the
/// failed ones; where the defaults came from (`None`: no schema could be read, said as an error).
pub(super) fn stored_as_the_server_would(plan: &Plan, world: &mut World) -> Option<String> {
    let stated = match (plan.arc_release, &world.arc_version) {
        (Some(t), _) => t.release().map(|r| (r, "--arc-version".to_string())),
        (None, Some((v, from))) => crate::core::release::release(v).map(|r| (r, from.clone())),
        (None, None) => None,
    };
    let source = match crate::ops::defaults::source(&world.crds, stated) {
        Ok(found) => found,
        Err(e) => {
            world.errors.push(e);
            return None;
        }
    };
    let desired = std::mem::take(&mut world.desired);
    let (kept, mut refused, froms) = crate::ops::defaults::complete(&source, desired);
    world.desired = kept;
    world.failed.append(&mut refused);
    (!froms.is_empty()).then(|| froms.join("; "))
}

/// Pair, compare and judge every scale set of the world: the report, one item per scale set.
pub(super) fn report_of(plan: &Plan, world: &mut World, files_given: bool) -> DiffReport {
    if !files_given {
        // No change to judge: every scale set of the live side is judged, broken ones included.
        let mut failed_live = std::mem::take(&mut world.failed_live);
        world.failed.append(&mut failed_live);
    }
    let stated = crate::ops::release::Stated {
        flag: plan.arc_release,
        controller: world
            .arc_version
            .as_ref()
            .and_then(|(v, from)| Some((crate::core::upgrade::Target::parse(v)?, from.clone()))),
    };
    let pairings = pair_all(world, stated.next().is_some());
    let (mut items, not_in_change) = compare_all(plan, world, &pairings, !files_given, &stated);
    items.append(&mut world.failed);
    let judged: BTreeSet<(String, String)> = (items.iter())
        .map(|i| (i.namespace.clone(), i.name.clone()))
        .chain(world.desired.iter().map(Object::key))
        .collect();
    items.extend(
        std::mem::take(&mut world.failed_live)
            .into_iter()
            .filter(|f| judged.contains(&(f.namespace.clone(), f.name.clone()))),
    );
    let items = one_per_scale_set(items);
    let (arc_version, arc_version_from) = match (&plan.arc_version, &world.arc_version) {
        (Some(v), _) => (
            Some(plan.arc_release.map_or(v.clone(), |t| t.name().to_string())),
            Some("--arc-version".to_string()),
        ),
        (None, Some((v, from))) => (Some(v.clone()), Some(from.clone())),
        (None, None) => match labelled_version(world) {
            Some((v, from)) => (Some(v), Some(from)),
            None => (None, None),
        },
    };
    DiffReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "DiffReport",
        layout: plan.layout.k8s_api.clone(),
        arc_version,
        arc_version_from,
        defaults_from: None,
        not_in_change,
        impact: None,
        runners_outside: Vec::new(),
        items,
    }
}

/// One item per scale set, whatever the inputs gave: an error about a scale set replaces its
/// verdict (a verdict next to an error about the same set would be both answers at once), and
/// several errors are one item saying each.
pub(super) fn one_per_scale_set(mut items: Vec<ScaleSetDiff>) -> Vec<ScaleSetDiff> {
    // By namespace and name; a scale set's items in the order given (a stable sort, of their
    // places: a report is large, and a sort of the reports themselves copies them into a buffer
    // as large), each folded into the one kept before it.
    let key = |i: usize| (&items[i].namespace, &items[i].name);
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| key(a).cmp(&key(b)));
    put_in_order(&mut items, order);
    items.dedup_by(|item, kept| {
        if (&item.namespace, &item.name) != (&kept.namespace, &kept.name) {
            return false;
        }
        match (&mut kept.error, &item.error) {
            (Some(a), Some(b)) => {
                if !a.split("; ").any(|e| e == b) {
                    a.push_str("; ");
                    a.push_str(b);
                }
            }
            (None, Some(_)) => std::mem::swap(kept, item),
            (_, None) => {}
        }
        true
    });
    items
}

/// Move `items[order[i]]` to place `i`, in place: each cycle of the permutation followed once.
fn put_in_order<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// The ARC release the objects say they are under (`app.kubernetes.io/version`, which ARC and
/// its chart set on all three kinds), in the order of the one release rule
/// ([`crate::ops::release::judging_release`]): a scale set's chart label (a desired one's, else a
/// live one's), else a live set's.
pub(super) fn labelled_version(world: &World) -> Option<(String, String)> {
    let scale_sets = world.desired.iter().chain(world.live_scale_sets.values());
    scale_sets.chain(&world.live_sets).find_map(|o| {
        let v = o.meta.labels.get("app.kubernetes.io/version")?;
        Some((
            v.clone(),
            format!("label app.kubernetes.io/version of {}", o.describe()),
        ))
    })
}

/// The pairing of `ars` among the live sets, with the uid of the live scale set when known.
pub(super) fn pair_of(world: &World, index: &SetIndex, ars: &Object) -> Option<Pairing> {
    let live_uid = world
        .live_scale_sets
        .get(&ars.key())
        .and_then(|l| l.meta.uid.as_deref());
    let scale_set = pairing::ScaleSet {
        namespace: ars.namespace(),
        name: ars.name(),
        uid: ars.meta.uid.as_deref().or(live_uid),
    };
    let candidates = index.candidates(&scale_set);
    let sets: Vec<_> = candidates
        .iter()
        .map(|&i| world.live_sets[i].pairing_set())
        .collect();
    let mut pairing = pairing::pair(scale_set, &sets)?;
    pairing.chosen = candidates[pairing.chosen];
    for i in &mut pairing.replaced {
        *i = candidates[*i];
    }
    Some(pairing)
}

/// Where the runner scale set id of a desired scale set comes from, and the id.
pub(super) fn scale_set_id<'a>(
    ars: &'a Object,
    set: Option<&'a Object>,
    live: Option<&'a Object>,
) -> Result<Option<(String, &'static str)>, String> {
    if let Some(id) = ars
        .meta
        .annotations
        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
    {
        return Ok(Some((id.clone(), "AutoscalingRunnerSet")));
    }
    if let Some(set) = set {
        let runner_spec = set
            .spec_field("ephemeralRunnerSpec")
            .map_err(|e| format!("{}: {e}", set.describe()))?;
        if let Some(runner_spec) = runner_spec {
            #[derive(serde::Deserialize)]
            struct Id {
                #[serde(rename = "runnerScaleSetId")]
                id: Option<serde_json::Number>,
            }
            if let Ok(Id { id: Some(id) }) = serde_json::from_str::<Id>(runner_spec.get())
                && id.as_i64().is_some_and(|n| n != 0)
            {
                return Ok(Some((id.to_string(), "EphemeralRunnerSet")));
            }
        }
    }
    if let Some(id) = live.and_then(|l| l.meta.annotations.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
    {
        return Ok(Some((id.clone(), "LiveAutoscalingRunnerSet")));
    }
    Ok(None)
}

/// Compare every desired scale set with its set; and how many scale sets are only live (not in
/// the change: not judged).
pub(super) fn compare_all(
    plan: &Plan,
    world: &World,
    pairings: &[Option<Pairing>],
    live_desired: bool,
    stated: &crate::ops::release::Stated,
) -> (Vec<ScaleSetDiff>, usize) {
    let failed = failed_keys(world);
    let listeners = listeners_by_scale_set(&world.listeners);
    let judged: Vec<(&Object, &Option<Pairing>)> = (world.desired.iter().zip(pairings))
        // A scale set whose set could not be read is reported with it.
        .filter(|(ars, p)| p.is_some() || !failed.contains(&(ars.namespace(), ars.name())))
        .collect();
    let run = Run {
        live_desired,
        stated,
        round_trips: RoundTrips::default(),
    };
    // Each scale set on its own (no comparison reads another's): on the machine's cores, in order.
    let items = crate::ops::parallel::map(&judged, |&(ars, pairing)| {
        let listener = listeners.get(&ars.key()).copied();
        let mut item = compare_one(plan, world, ars, pairing.as_ref(), listener, &run);
        // The text diff is the only reader of the specs, and only of an item with differences.
        if !plan.keep_specs {
            item.scale_set_specs = None;
        }
        if !plan.keep_specs || item.differences.is_empty() {
            item.specs = None;
        }
        item
    });
    let claimed: BTreeSet<usize> = pairings
        .iter()
        .flatten()
        .flat_map(|p| std::iter::once(p.chosen).chain(p.replaced.iter().copied()))
        .collect();
    let desired: BTreeSet<(&str, &str)> = world
        .desired
        .iter()
        .map(|a| (a.namespace(), a.name()))
        .collect();
    let mut only_live: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (ns, name) in world.live_scale_sets.keys() {
        only_live.insert((ns, name));
    }
    for (i, set) in world.live_sets.iter().enumerate() {
        if !claimed.contains(&i) {
            only_live.insert((set.namespace(), scale_set_name(set)));
        }
    }
    let not_in_change = only_live
        .iter()
        .filter(|k| !desired.contains(k) && !failed.contains(k))
        .count();
    (items, not_in_change)
}

/// The AutoscalingListeners by the scale set they name (`spec.autoscalingRunnerSetNamespace` and
/// `-Name`), indexed once; the first of each scale set, in input order.
pub(super) fn listeners_by_scale_set(listeners: &[Object]) -> HashMap<(String, String), &Object> {
    let mut by = HashMap::new();
    for l in listeners {
        let field = |f: &str| {
            l.spec_field(f)
                .ok()
                .flatten()
                .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
        };
        if let (Some(ns), Some(name)) = (
            field("autoscalingRunnerSetNamespace"),
            field("autoscalingRunnerSetName"),
        ) {
            by.entry((ns, name)).or_insert(l);
        }
    }
    by
}

/// What every comparison of one run shares.
pub(super) struct Run<'a> {
    /// The desired side is the live one (no `-f`).
    live_desired: bool,
    /// The release that judges, as the run knows it.
    stated: &'a crate::ops::release::Stated,
    /// The recycle loop's round trips, made once per distinct runner spec (scale sets sharing a
    /// template share one).
    round_trips: RoundTrips,
}

/// One scale set's report, with the integrity-hash recycle loop verdict of its template (a
/// property of the template, so given whenever there is one, even when the drift is not).
pub(super) fn compare_one(
    plan: &Plan,
    world: &World,
    ars: &Object,
    pairing: Option<&Pairing>,
    listener: Option<&Object>,
    run: &Run<'_>,
) -> ScaleSetDiff {
    let (live_desired, stated) = (run.live_desired, run.stated);
    let layout = plan.layout;
    let set = pairing.map(|p| &world.live_sets[p.chosen]);
    let live = world.live_scale_sets.get(&ars.key());
    // The id ARC reads is the one diff resolves (the render's, else the set's, else the live
    // scale set's): the in-memory hash depends on it, the loop's verdict does not.
    let id = scale_set_id(ars, set, live)
        .ok()
        .flatten()
        .map(|(id, _)| id);
    // Decoded and built once: the recycle loop's round trip reads it, the drift takes it.
    let built = (ars.spec.as_ref()).map(|spec| build_once(layout, spec.get(), id.as_deref()));
    let recycle_loop = built.as_ref().map(|b| run.round_trips.of_built(layout, b));
    let in_memory: Option<Result<String, String>> = match &recycle_loop {
        Some(Ok(t)) => Some(t.hash_in_memory.clone().map_err(|e| {
            let value = built
                .as_ref()
                .and_then(|b| b.as_ref().ok())
                .map(|b| &b.value);
            crate::ops::release::integrity_unverifiable(layout, value, &e.to_string())
        })),
        _ => None,
    };
    let whole_specs = plan.keep_specs;
    let mut item = compare_one_drift(
        layout,
        world,
        ars,
        pairing,
        live_desired,
        built,
        whole_specs,
    )
    .with_legacy_recycle_loop_as_written(recycle_loop, |paths| {
        crate::core::desired::written_runner_spec_reaching(layout, ars, paths)
    });
    let sides = crate::ops::release::Sides {
        desired: ars,
        set,
        live,
        listener,
        integrity_hash_in_memory: in_memory.as_ref(),
        layout,
    };
    crate::ops::release::judge(&mut item, stated, &sides);
    item
}

pub(super) fn compare_one_drift(
    layout: &'static Layout,
    world: &World,
    ars: &Object,
    pairing: Option<&Pairing>,
    live_desired: bool,
    built: Option<Result<Built, DecodeError>>,
    whole_specs: bool,
) -> ScaleSetDiff {
    let (ns, name) = ars.key();
    let desired_from = ars.describe();
    let set = pairing.map(|p| &world.live_sets[p.chosen]);
    let live = world.live_scale_sets.get(&ars.key());
    let Some(set) = set else {
        return without_a_set(layout, world, ars, live, live_desired);
    };
    let current_from = set.describe();
    let fail = |error: String| {
        ScaleSetDiff::failed(
            ns.clone(),
            name.clone(),
            desired_from.clone(),
            current_from.clone(),
            error,
        )
    };
    if set.spec.is_none() {
        return fail(format!("{current_from}: {}", RevisionError::MissingSpec));
    }
    let id = match scale_set_id(ars, Some(set), live) {
        Ok(id) => id,
        Err(e) => return fail(e),
    };
    let runner_spec = match set.spec_field("ephemeralRunnerSpec") {
        Ok(r) => r.map(RawValue::get),
        Err(e) => return fail(format!("{current_from}: {e}")),
    };
    let id_text = id.as_ref().map(|(id, _)| id.as_str());
    // `built` was made with the same id (the one [`scale_set_id`] resolves); a scale set without
    // a spec is built from `{}`, as `drift` would.
    let desired = match built {
        Some(built) => Built::for_drift(built, id_text),
        None => crate::core::desired::desired_runner_spec(layout, "{}", id_text),
    };
    let result = drift_of(layout, desired, runner_spec);
    let result = match result {
        Err(DriftError::Desired(DesiredError::MissingScaleSetId)) => {
            return fail(format!(
                "{desired_from}: annotation {} is missing, and neither its EphemeralRunnerSet nor a live AutoscalingRunnerSet carries the scale set's id",
                arc::ANNOTATION_RUNNER_SCALE_SET_ID
            ));
        }
        other => other,
    };
    // What each side wrote: whole for the text diff, else only on the way to the differences.
    let written = |paths: Option<&Paths>| {
        let desired = crate::core::desired::written_runner_spec_reaching(layout, ars, paths);
        (
            desired,
            set.written_spec_reaching(Some("ephemeralRunnerSpec"), paths),
        )
    };
    let mut item = ScaleSetDiff::from_drift_as_written(
        layout,
        ns,
        name,
        (desired_from, current_from),
        result,
        whole_specs,
        written,
    );
    item.desired_file = ars.origin.file().map(str::to_string);
    item.scale_set_id_from = id.map(|(_, from)| from);
    item.set_facts = Some(impact::set_facts(set));
    if let Some(p) = pairing {
        with_pairing(&mut item, p, world);
    }
    item
}

/// A scale set none of whose sets is known: unknown where its namespace's sets were not all
/// read; else new (ARC builds its first set with the same `newEphemeralRunnerSet` as a
/// replacement, so what stops it there stops it here: the id ARC will read is the render's, else
/// the one the live scale set keeps), waiting for ARC when it exists already.
pub(super) fn without_a_set(
    layout: &'static Layout,
    world: &World,
    ars: &Object,
    live: Option<&Object>,
    live_desired: bool,
) -> ScaleSetDiff {
    let (ns, name) = ars.key();
    let desired_from = ars.describe();
    if !world.complete_everywhere && !world.complete.contains(&ns) {
        return ScaleSetDiff::failed(
            ns.clone(),
            name.clone(),
            desired_from,
            String::new(),
            format!("EphemeralRunnerSet of AutoscalingRunnerSet {ns}/{name} not found"),
        );
    }
    let id = (ars
        .meta
        .annotations
        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
    .or_else(|| live.and_then(|l| l.meta.annotations.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)));
    let spec = ars.spec.as_ref().map_or("{}", |s| s.get());
    if let Err(e) = crate::core::desired::check_builds(layout, spec, id.map(String::as_str)) {
        return ScaleSetDiff::failed(
            ns,
            name,
            desired_from.clone(),
            String::new(),
            format!("{desired_from}: {e}"),
        );
    }
    let waiting = (live_desired || live.is_some()).then(|| {
        waiting_for_arc(
            live.unwrap_or(ars)
                .meta
                .annotations
                .contains_key(arc::ANNOTATION_RUNNER_SCALE_SET_ID),
        )
    });
    ScaleSetDiff::new_scale_set(ns, name, desired_from, waiting, ars.origin.file())
}

/// What a scale set that exists without a set waits for: the set, once ARC has registered the
/// scale set with GitHub (its id annotation), else the registration.
pub(super) fn waiting_for_arc(registered: bool) -> String {
    if registered {
        "ARC has registered the scale set but not created its EphemeralRunnerSet yet (is the controller running?)".to_string()
    } else {
        format!(
            "ARC has not registered the scale set with GitHub yet (no {} annotation): it creates the EphemeralRunnerSet once it has (is the controller running, and is the GitHub secret valid?)",
            arc::ANNOTATION_RUNNER_SCALE_SET_ID
        )
    }
}

/// What the pairing adds to a comparison: how the set was found when not by its name, the sets
/// ARC is replacing, and a tie ARC may break either way.
pub(super) fn with_pairing(item: &mut ScaleSetDiff, p: &Pairing, world: &World) {
    if p.by != PairedBy::Name {
        item.paired_by = Some(p.by);
    }
    item.replaced = p
        .replaced
        .iter()
        .map(|&i| world.live_sets[i].name().to_string())
        .collect();
    if p.ambiguous {
        item.note = Some(format!(
            "{} sets share the newest creation time; ARC may use either",
            1 + p.replaced.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation of five places is put in order in place.
    #[test]
    fn a_permutation_is_put_in_order() {
        fn permutations(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![vec![]];
            }
            let mut out = Vec::new();
            for p in permutations(n - 1) {
                for at in 0..n {
                    let mut q = p.clone();
                    q.insert(at, n - 1);
                    out.push(q);
                }
            }
            out
        }
        for order in permutations(5) {
            let mut items: Vec<char> = "abcde".chars().collect();
            let want: Vec<char> = order.iter().map(|&i| items[i]).collect();
            put_in_order(&mut items, order.clone());
            assert_eq!(items, want, "{order:?}");
        }
    }

    /// One item per scale set, sorted by namespace and name: a scale set's errors joined in the
    /// order given (each once), an error taking the place of a report without one.
    #[test]
    fn one_item_per_scale_set_its_errors_joined() {
        let item = |ns: &str, name: &str, error: Option<&str>| {
            let mut i = ScaleSetDiff::failed(
                ns.into(),
                name.into(),
                String::new(),
                String::new(),
                error.unwrap_or("").into(),
            );
            i.error = error.map(str::to_string);
            i
        };
        let items = vec![
            item("ns", "b", None),
            item("ns", "a", None),
            item("ns", "a", Some("e1")),
            item("a", "z", Some("x")),
            item("ns", "a", Some("e2")),
            item("ns", "a", Some("e1")),
            item("ns", "a", None),
            item("ns", "b", Some("f")),
        ];
        let got: Vec<(String, String, Option<String>)> = one_per_scale_set(items)
            .into_iter()
            .map(|i| (i.namespace, i.name, i.error))
            .collect();
        let want = [
            ("a", "z", Some("x")),
            ("ns", "a", Some("e1; e2")),
            ("ns", "b", Some("f")),
        ];
        let want: Vec<(String, String, Option<String>)> = want
            .iter()
            .map(|(n, m, e)| (n.to_string(), m.to_string(), e.map(str::to_string)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_scale_set_without_a_set_waits_for_its_registration_or_its_set() {
        assert!(waiting_for_arc(true).contains("not created its EphemeralRunnerSet yet"));
        assert!(waiting_for_arc(false).contains(&format!(
            "no {} annotation",
            arc::ANNOTATION_RUNNER_SCALE_SET_ID
        )));
    }
}
