//! Issue 33, "the same rule outside the plan": ARC's version check. A scale set whose
//! `app.kubernetes.io/version` the judging release does not allow is deleted by that release's
//! controller, so diff says deleted (exit 1), not replaced.

use serde_json::Value;

use crate::issue20::run;

const DUMP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scale-set-dump.yaml");

fn item(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(&[args, &["-o", "json"]].concat());
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, r["items"][0].clone())
}

/// The shipped dump's scale set is labelled 0.14.2: ARC 0.13.1 (`IsVersionAllowed`: another
/// minor) and 0.11.0 (exact `build.Version`) delete it; 0.14.0 (the same minor) replaces its set.
#[test]
fn a_release_that_does_not_allow_the_label_deletes_the_scale_set() {
    for (release, rule) in [
        ("0.13.1", "v1alpha1.IsVersionAllowed"),
        ("0.11.0", "!= build.Version"),
    ] {
        let (code, item) = item(&["diff", "-f", DUMP, "--arc-version", release]);
        assert_eq!(code, 1, "{item:#}");
        let check = &item["deletedByVersionCheck"];
        assert_eq!(check["release"], release, "{item:#}");
        assert_eq!(check["label"], "0.14.2");
        assert_eq!(check["allowed"], false);
        assert!(check["rule"].as_str().unwrap().contains(rule), "{check:#}");
        assert_eq!(item["recycle"], true);
        let impact = &item["impact"];
        assert_eq!(impact["scaleSetDeleted"], true, "{impact:#}");
        assert_eq!(impact["listenerRecreated"], false);
        // Every set goes through cleanUpEphemeralRunners: idle and pending now, busy first.
        assert_eq!(impact["deleted"], 3);
        assert_eq!(impact["busy"].as_array().unwrap().len(), 1);
        assert!(impact.get("updateStrategy").is_none(), "{impact:#}");
        let (code, text, _) = run(&["diff", "-f", DUMP, "--arc-version", release]);
        assert_eq!(code, 1);
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with(&format!(
                "arc-runners/arc-runner-set: deleted: ARC {release} deletes AutoscalingRunnerSet arc-runners/arc-runner-set: its app.kubernetes.io/version label 0.14.2 is not allowed"
            )),
            "{text}"
        );
        assert!(first.contains("job pickup stops"), "{text}");
        // Work in flight is hit: nothing picks up the scale set's jobs any more.
        let (code, _, _) = run(&[
            "diff",
            "-f",
            DUMP,
            "--arc-version",
            release,
            "--fail-on",
            "jobs",
        ]);
        assert_eq!(code, 1);
        let (_, github, _) = run(&["diff", "-f", DUMP, "--arc-version", release, "-o", "github"]);
        assert!(
            github.starts_with(&format!(
                "::warning file={DUMP},title=ARC {release} deletes scale set arc-runners/arc-runner-set::Impact: "
            )),
            "{github}"
        );
    }
    let (code, item) = item(&["diff", "-f", DUMP, "--arc-version", "0.14.0"]);
    assert_eq!(code, 1);
    assert!(item.get("deletedByVersionCheck").is_none(), "{item:#}");
    assert_eq!(item["runnerSpecHash"]["desired"], "595bdbd674");
}

/// `status --arc-version` judges the set by the release `diff --arc-version` judges it by, and
/// says the same of the version check: VersionRejected where diff says deleted, the release's
/// own hash where diff says replaced; the run itself succeeds (exit 0: `status` fails only with
/// `--wait`, which stops at once on it).
#[test]
fn status_and_diff_agree_on_the_release_and_the_deletion_under_arc_version() {
    for (release, rejected) in [("0.13.1", true), ("0.11.0", true), ("0.14.0", false)] {
        let (code, d) = item(&["diff", "-f", DUMP, "--arc-version", release]);
        assert_eq!(code, 1);
        let (code, out, err) = run(&["status", "-f", DUMP, "--arc-version", release, "-o", "json"]);
        assert_eq!(code, 0, "{err}");
        let r: Value = serde_json::from_str(&out).unwrap();
        let row = &r["items"][0];
        assert_eq!(row["release"], d["release"], "{row:#}\n{d:#}");
        assert_eq!(row["release"], release);
        assert_eq!(d.get("deletedByVersionCheck").is_some(), rejected, "{d:#}");
        let first = &row["reasons"][0];
        if rejected {
            assert_eq!(row["state"], "VersionRejected", "{row:#}");
            assert_eq!(first["reason"], "DeletedByVersionCheck");
            let rule = d["deletedByVersionCheck"]["rule"].as_str().unwrap();
            assert!(
                first["message"].as_str().unwrap().contains(rule),
                "{first:#}"
            );
        } else {
            assert_eq!(row["state"], "Replacing", "{row:#}");
            assert_eq!(row["desiredRunnerSpecHash"], d["runnerSpecHash"]["desired"]);
        }
    }
}

/// A controller Deployment among the files (a 0.13.1 render of the controller chart) says the
/// release for `diff` as it does for `status`: both judge the dump's 0.14.2-labelled scale set by
/// 0.13.1, whose version check deletes it.
#[test]
fn a_controller_render_in_the_files_judges_diff_as_it_judges_status() {
    let controller = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cmd/data/status/controller-0.13.1.yaml"
    );
    let (code, d) = item(&["diff", "-f", DUMP, "-f", controller]);
    assert_eq!(code, 1);
    assert_eq!(d["release"], "0.13.1", "{d:#}");
    assert!(
        (d["releaseFrom"].as_str().unwrap()).starts_with("controller Deployment"),
        "{d:#}"
    );
    assert_eq!(d["deletedByVersionCheck"]["label"], "0.14.2", "{d:#}");
    let (_, out, err) = run(&["status", "-f", DUMP, "-f", controller, "-o", "json"]);
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(r["items"][0]["release"], d["release"], "{r:#}");
    assert_eq!(r["items"][0]["state"], "VersionRejected", "{r:#}");
}

const REVISION_DUMP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/actionable-revision/scale-set-dump.yaml"
);

/// `--arc-version next` (ARC's master after 0.14.2) is taken by diff and status: diff judges the
/// set named like its scale set by the revision rule and says so; a 0.14 set (`<scale set>-xxxxx`)
/// is not the one the next release uses; status judges by the next release's version check (its
/// `build.Version` taken as 0.15.0), which refuses a scale set without a version label.
#[test]
fn next_is_an_arc_version_of_diff_and_status() {
    let (code, it) = item(&["diff", "--live", REVISION_DUMP, "--arc-version", "next"]);
    assert!(code == 0 || code == 1, "{it:#}");
    assert_eq!(it["mechanism"], "ActionableRevision", "{it:#}");
    assert_eq!(it["release"], "next", "{it:#}");
    assert_eq!(it["releaseFrom"], "--arc-version next", "{it:#}");
    assert!(it.get("outdated").is_none(), "{it:#}");

    // The shipped 0.14.2 dump: the next release's version check comes first in `Reconcile`, so
    // diff says the scale set is deleted, as status does below.
    let (code, it) = item(&["diff", "-f", DUMP, "--arc-version", "next"]);
    assert_eq!(code, 1, "{it:#}");
    assert_eq!(it["deletedByVersionCheck"]["label"], "0.14.2", "{it:#}");
    assert_eq!(it["deletedByVersionCheck"]["release"], "next", "{it:#}");
    assert!(it.get("error").is_none(), "{it:#}");
    // Relabelled as the next release's chart labels it (0.15.0): kept, and its 0.14 set
    // (`<scale set>-xxxxx`) is not the one the next release uses.
    let relabelled = std::env::temp_dir().join(format!("issue33-next-{}.yaml", std::process::id()));
    let text = std::fs::read_to_string(DUMP).unwrap();
    std::fs::write(
        &relabelled,
        text.replace(
            "app.kubernetes.io/version: 0.14.2",
            "app.kubernetes.io/version: 0.15.0",
        ),
    )
    .unwrap();
    let (code, it) = item(&[
        "diff",
        "-f",
        relabelled.to_str().unwrap(),
        "--arc-version",
        "next",
    ]);
    std::fs::remove_file(&relabelled).unwrap();
    assert_eq!(code, 2, "{it:#}");
    assert!(it.get("deletedByVersionCheck").is_none(), "{it:#}");
    let error = it["error"].as_str().unwrap();
    assert!(
        error.contains("the next release gets the EphemeralRunnerSet named arc-runner-set"),
        "{error}"
    );

    let (code, out, err) = run(&[
        "status",
        "-f",
        REVISION_DUMP,
        "--arc-version",
        "next",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let row = &r["items"][0];
    assert_eq!(row["state"], "VersionRejected", "{row:#}");
    assert_eq!(row["release"], "next", "{row:#}");
    assert_eq!(row["releaseFrom"], "--arc-version next", "{row:#}");
    let message = row["reasons"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("ARC next (--arc-version)"), "{message}");

    // The shipped 0.14.2 dump: its set arc-runner-set-x7k2p is left behind (and its 0.14.2 label
    // refused by the next release's version check, which comes first).
    let (code, out, err) = run(&["status", "-f", DUMP, "--arc-version", "next", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let row = &r["items"][0];
    assert_eq!(row["name"], "arc-runner-set-x7k2p", "{row:#}");
    let codes: Vec<&str> = (row["reasons"].as_array().unwrap().iter())
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes[..2],
        ["DeletedByVersionCheck", "LeftBehindByNext"],
        "{row:#}"
    );
    assert!(
        row["reasons"][1]["message"]
            .as_str()
            .unwrap()
            .contains("the next release gets the EphemeralRunnerSet named like AutoscalingRunnerSet arc-runners/arc-runner-set"),
        "{row:#}"
    );
}
