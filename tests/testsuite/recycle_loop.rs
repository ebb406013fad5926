//! Differential test of the integrity-hash recycle loop (`core::recycle_loop`) against the real Go
//! code: for generated runner templates, the JSON `encoding/json.Marshal` writes, the loop verdict
//! (the two integrity hashes differ), the hashes themselves and the paths that change must all be
//! what the oracle's `roundTrip` op computes, for every supported k8s.io/api layout. One template
//! in ten goes in as an AutoscalingRunnerSet, so ARC's desired-spec builder is on the path too.

use crate::common::oracle::Oracle;
use crate::common::specgen;
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::recycle_loop::{
    Cause, RecycleLoopError, RoundTrip, RoundTripError, round_trip,
    round_trip_of_autoscaling_runner_set,
};
use kubectl_arc::core::value::decode;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const TEMPLATES_PER_LAYOUT: usize = 10_000;
/// At most one template in this many may be compared only in part (each kind counted apart).
const PARTIAL_AT_MOST: usize = 4;

/// One generated case: the runner spec, and the AutoscalingRunnerSet built around it when the
/// case goes in that way.
struct Case {
    spec: String,
    ars: Option<(Value, String)>,
}

/// An AutoscalingRunnerSet whose settings and template are those of `runner`.
fn ars_around(runner: &Value, id: &str) -> Value {
    let mut spec = json!({"minRunners": 0, "maxRunners": 3, "runnerScaleSetName": "arc"});
    for key in [
        "githubConfigUrl",
        "githubConfigSecret",
        "proxy",
        "githubServerTLS",
        "vaultConfig",
        "ephemeralRunnerConfigSecretMetadata",
    ] {
        if let Some(v) = runner.get(key) {
            spec[key] = v.clone();
        }
    }
    let mut template = json!({});
    for key in ["metadata", "spec"] {
        if let Some(v) = runner.get(key) {
            template[key] = v.clone();
        }
    }
    spec["template"] = template;
    json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
           "metadata": {"name": "arc", "namespace": "arc-runners", "annotations": {"runner-scale-set-id": id}},
           "spec": spec})
}

/// What we compute for a case, kept small (10,000 full values would not be).
struct Ours {
    written: String,
    loops: bool,
    paths: Vec<String>,
    /// Both hashes, when they can be reproduced.
    hashes: Option<(String, String)>,
    /// The kind of each change, for the summary.
    causes: Vec<&'static str>,
}

fn ours(layout: &Layout, case: &Case) -> Result<Ours, RoundTripError> {
    let t: RoundTrip = match &case.ars {
        Some((ars, id)) => {
            match round_trip_of_autoscaling_runner_set(layout, &ars["spec"].to_string(), Some(id)) {
                Ok(t) => t,
                Err(RecycleLoopError::RoundTrip(e)) => return Err(e),
                Err(e) => panic!("we failed ({e}) on {ars}"),
            }
        }
        None => {
            let v = decode(layout, layout.ephemeral_runner_spec, &case.spec)
                .unwrap_or_else(|e| panic!("we failed to decode ({e}): {}", case.spec));
            round_trip(layout, &v)?
        }
    };
    Ok(Ours {
        causes: t
            .changes
            .iter()
            .map(|c| match c.cause {
                Cause::EmptyListOmitted => "empty list",
                Cause::EmptyMapOmitted => "empty map",
                Cause::QuantityRewritten { .. } => "quantity",
                Cause::TimeRewritten { .. } => "time",
                Cause::Other => "other",
            })
            .collect(),
        loops: t.loops(),
        paths: t.paths().map(str::to_string).collect(),
        hashes: match (&t.hash_in_memory, &t.hash_read_back) {
            (Ok(a), Ok(b)) => Some((a.clone(), b.clone())),
            _ => None,
        },
        written: t.written,
    })
}

/// Counts for the summary line.
#[derive(Default)]
struct Counts {
    agreed: usize,
    loops: usize,
    read_back_errors: usize,
    unverifiable_hashes: usize,
    through_ars: usize,
    /// Changed fields by kind.
    causes: BTreeMap<&'static str, usize>,
}

fn run(layout_name: &str) {
    let layout = Layout::find(layout_name).unwrap_or_else(|| panic!("layout {layout_name}"));
    let mut oracle = Oracle::spawn(layout_name);
    let seed = specgen::seed()
        ^ 0x1009
        ^ layout_name
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let mut rng = specgen::Rng::new(seed);
    let base = specgen::realistic_spec();
    let cases: Vec<Case> = (0..TEMPLATES_PER_LAYOUT)
        .map(|_| {
            let spec = specgen::round_trip_template(&mut rng, &base);
            let ars = rng.chance(10).then(|| {
                let runner: Value = serde_json::from_str(&spec).unwrap();
                let id = runner["runnerScaleSetId"].as_i64().unwrap_or(0).to_string();
                (ars_around(&runner, &id), id)
            });
            Case { spec, ars }
        })
        .collect();
    let requests: Vec<Value> = cases
        .iter()
        .map(|c| match &c.ars {
            Some((ars, _)) => json!({"op": "roundTrip", "ars": ars.to_string()}),
            None => json!({"op": "roundTrip", "spec": c.spec}),
        })
        .collect();
    // Ours while Go works: the oracle answers from its own thread.
    let (ours, answers) = std::thread::scope(|scope| {
        let go = scope.spawn(|| oracle.ask_all(&requests));
        let ours: Vec<Result<Ours, RoundTripError>> =
            cases.iter().map(|c| ours(layout, c)).collect();
        (ours, go.join().expect("oracle thread"))
    });

    let mut n = Counts::default();
    for (i, ((case, ours), go)) in cases.iter().zip(&ours).zip(&answers).enumerate() {
        let ctx = || {
            format!(
                "layout {layout_name}, seed {seed}, case {i}:\nspec = {}\nars = {:?}\nGo: {go}",
                case.spec,
                case.ars.as_ref().map(|a| a.0.to_string())
            )
        };
        assert!(go.get("error").is_none(), "Go failed: {}", ctx());
        n.through_ars += case.ars.is_some() as usize;
        let t = match ours {
            Err(RoundTripError::ReadBack(e)) => {
                assert!(
                    go.get("readBackError").is_some(),
                    "our read-back failed ({e}) where Go's did not: {}",
                    ctx()
                );
                n.read_back_errors += 1;
                n.agreed += 1;
                continue;
            }
            Err(e) => panic!("our round trip failed ({e}): {}", ctx()),
            Ok(t) => t,
        };
        assert!(
            go.get("readBackError").is_none(),
            "Go's read-back failed where ours did not: {}",
            ctx()
        );
        assert_eq!(
            t.written,
            go["json"].as_str().unwrap(),
            "json.Marshal: {}",
            ctx()
        );
        assert_eq!(t.loops, go["loop"] == true, "loop verdict: {}", ctx());
        let go_paths: Vec<&str> = go["paths"]
            .as_array()
            .expect("paths")
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(t.paths, go_paths, "paths: {}", ctx());
        match &t.hashes {
            Some((a, b)) => {
                assert_eq!(a, go["hashInMemory"].as_str().unwrap(), "{}", ctx());
                assert_eq!(b, go["hashReadBack"].as_str().unwrap(), "{}", ctx());
            }
            // A set time prints Go's local zone: only the verdict and paths compare.
            None => n.unverifiable_hashes += 1,
        }
        n.agreed += 1;
        n.loops += t.loops as usize;
        for c in &t.causes {
            *n.causes.entry(c).or_default() += 1;
        }
    }
    eprintln!(
        "{layout_name}: {TEMPLATES_PER_LAYOUT} templates, {} agree with Go ({} through an AutoscalingRunnerSet): \
         {} loop, {} do not read back, {} with hashes over a set time (verdict and paths compared only); \
         changed fields by kind {:?}",
        n.agreed, n.through_ars, n.loops, n.read_back_errors, n.unverifiable_hashes, n.causes
    );
    assert_eq!(n.agreed, TEMPLATES_PER_LAYOUT);
    // The generator must give both verdicts in quantity, or the test proves little.
    assert!(
        n.loops > TEMPLATES_PER_LAYOUT / 5 && n.loops < TEMPLATES_PER_LAYOUT * 4 / 5,
        "{} loops",
        n.loops
    );
    assert!(n.read_back_errors > 0 && n.through_ars > 0);
    // The cases compared only in part are counted and bounded: the read-back failures (compared as
    // an error only) and the hashes over a set time (verdict and paths only) stay a small share,
    // and the hashes are compared on most templates.
    assert!(
        n.read_back_errors * PARTIAL_AT_MOST < TEMPLATES_PER_LAYOUT,
        "{} of {TEMPLATES_PER_LAYOUT} do not read back (at most 1 in {PARTIAL_AT_MOST})",
        n.read_back_errors
    );
    assert!(
        n.unverifiable_hashes * PARTIAL_AT_MOST < TEMPLATES_PER_LAYOUT,
        "{} of {TEMPLATES_PER_LAYOUT} with hashes not compared (at most 1 in {PARTIAL_AT_MOST})",
        n.unverifiable_hashes
    );
    let hashed = n.agreed - n.read_back_errors - n.unverifiable_hashes;
    assert!(
        hashed > TEMPLATES_PER_LAYOUT / 2,
        "hashes compared on {hashed}"
    );
    for kind in ["empty list", "empty map", "quantity", "time"] {
        assert!(
            n.causes.get(kind).is_some_and(|&k| k > 100),
            "{kind}: {:?}",
            n.causes
        );
    }
}

#[test]
fn recycle_loop_agrees_with_go_on_k8s_api_v0_36() {
    run("v0.36");
}

#[test]
fn recycle_loop_agrees_with_go_on_k8s_api_v0_35() {
    run("v0.35");
}

#[test]
fn recycle_loop_agrees_with_go_on_k8s_api_v0_37() {
    run("v0.37");
}
