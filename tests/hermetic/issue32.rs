//! Issue 32 offline: the impact forecast from files alone (dumps, a render of the controller
//! chart), and what it does with runners ARC sorts in its own way. The tests of record on the real
//! API server are tests/testsuite/impact_cluster.rs.

use serde_json::Value;

use crate::issue20::run;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

const DUMP: &str = "examples/scale-set-dump.yaml";

fn root(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// A phase ARC does not know is pending (its switch's default), a runner without status is pending
/// and not registered; a runner of a set not in the input, and one no set controls, are named and
/// not counted; nothing panics.
#[test]
fn runners_arc_sorts_its_own_way_are_counted_where_it_counts_them_and_named_otherwise() {
    let extra = root("tests/badinput/issue32/runners.yaml");
    let (code, out, err) = run(&["diff", "-f", &root(DUMP), "-f", &extra, "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    let r = json(&out);
    let impact = &r["items"][0]["impact"];
    assert_eq!(
        impact["pending"], 2,
        "the shipped pending one and `Unknown`: {impact:#}"
    );
    assert_eq!(impact["unregistered"], 1, "{impact:#}");
    assert_eq!(impact["idle"], 2);
    assert_eq!(impact["deleted"], 4);
    let outside: Vec<&str> = r["runnersOutside"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        outside,
        [
            "arc-runners/arc-runner-set-old9q-runner-z2k4c (its EphemeralRunnerSet arc-runner-set-old9q is not in view)",
            "arc-runners/stray-runner (no EphemeralRunnerSet controls it)"
        ]
    );
    let (_, text, _) = run(&["diff", "-f", &root(DUMP), "-f", &extra]);
    assert!(
        text.lines().last().unwrap().starts_with(
            "2 runners of those namespaces no set in view controls (not counted): arc-runners/arc-runner-set-old9q-runner-z2k4c"
        ),
        "{text}"
    );
}

/// A render of the controller chart with `--update-strategy=eventual` beside the dump: the
/// strategy is read from it (Go's flag reading of the manager's arguments), the set is drained
/// first and new jobs wait, which `--fail-on jobs` fails on.
#[test]
fn the_strategy_of_a_controller_render_decides_offline_and_fail_on_follows() {
    let controller = root("tests/badinput/issue32/controller-eventual.yaml");
    let args = ["diff", "-f", &root(DUMP), "-f", &controller];
    let (code, out, err) = run(&[&args[..], &["-o", "json"]].concat());
    assert_eq!(code, 1, "{err}");
    let impact = json(&out)["items"][0]["impact"].clone();
    assert_eq!(impact["updateStrategy"]["value"], "eventual", "{impact:#}");
    assert!(
        impact["updateStrategy"]["from"]
            .as_str()
            .unwrap()
            .contains("--update-strategy=eventual"),
        "{impact:#}"
    );
    assert_eq!(impact["waitsForJobs"], true);
    // Scaled to 0: the 2 idle and the pending one go; the busy one holds the new set back.
    assert_eq!(impact["deleted"], 3, "{impact:#}");
    for (fail_on, want) in [("jobs", 1), ("recycle", 1), ("never", 0)] {
        let (code, _, err) = run(&[&args[..], &["--fail-on", fail_on]].concat());
        assert_eq!(code, want, "--fail-on {fail_on}: {err}");
    }
    // Without the render: the release's default, said as such, and nothing waits.
    let (code, out, _) = run(&["diff", "-f", &root(DUMP), "-o", "json"]);
    assert_eq!(code, 1);
    let impact = json(&out)["items"][0]["impact"].clone();
    assert_eq!(impact["updateStrategy"]["value"], "immediate");
    assert!(
        impact["updateStrategy"]["from"]
            .as_str()
            .unwrap()
            .starts_with("the release's default"),
        "{impact:#}"
    );
    let (code, _, _) = run(&["diff", "-f", &root(DUMP), "--fail-on", "jobs"]);
    assert_eq!(code, 0);
}

/// The integrity-hash era, a cleanup pending in the set itself: the set's controller deletes the
/// idle and terminated runners at once, the busy one finishes first, the listener is not touched
/// and nothing waits.
#[test]
fn a_pending_integrity_cleanup_is_the_sets_own() {
    let (code, out, err) = run(&[
        "diff",
        "-f",
        &root("tests/cmd/data/verdicts/pending-cleanup.yaml"),
        "-f",
        &root("tests/badinput/issue32/integrity-runners.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let r = json(&out);
    let item = &r["items"][0];
    assert_eq!(item["mechanism"], "IntegrityHash", "{item:#}");
    let impact = &item["impact"];
    assert_eq!(impact["deleted"], 2, "idle and failed: {impact:#}");
    assert_eq!(impact["busy"][0]["jobDisplayName"], "deploy");
    assert_eq!(impact["jobPickupPauses"], false);
    assert_eq!(impact["waitsForJobs"], false);
    assert!(impact.get("updateStrategy").is_none());
}
