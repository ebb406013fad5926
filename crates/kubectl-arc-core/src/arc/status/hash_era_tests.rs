use super::*;
use serde_json::json;

use crate::runners::RunnerState;

fn hash_era_set(replicas: i64) -> SetFacts {
    let obj = json!({
        "metadata": {"name": "runners-x7k2p", "namespace": "arc",
            "annotations": {"actions.github.com/runner-spec-hash": "84cffb96c6"}},
        "spec": {"replicas": replicas, "ephemeralRunnerSpec": {"spec": {"containers": []}}},
    });
    SetFacts::from_json(&obj.to_string()).unwrap()
}

fn judged(desired: Result<&str, &str>) -> Replacement {
    Replacement::Judged {
        scale_set: "arc/runners".into(),
        release: "0.14.2".into(),
        desired: desired.map(str::to_string).map_err(str::to_string),
    }
}

fn state(facts: &SetFacts, tally: &Tally, r: Option<&Replacement>) -> SetStatus {
    let context = Context {
        replacement: r,
        ..Context::default()
    };
    classify(facts, tally, None, context, None)
}

#[test]
fn a_hash_era_set_is_synced_when_the_hashes_agree_and_replacing_when_not() {
    let facts = hash_era_set(1);
    assert_eq!(facts.runner_spec_hash.as_deref(), Some("84cffb96c6"));
    let tally = Tally::default();
    let synced = state(&facts, &tally, Some(&judged(Ok("84cffb96c6"))));
    assert_eq!(synced.state, State::Synced);
    assert_eq!(synced.reasons[0].code(), "SpecHashMatches");
    let replacing = state(&facts, &tally, Some(&judged(Ok("595bdbd674"))));
    assert_eq!(replacing.state, State::Replacing);
    assert_eq!(replacing.reasons.len(), 1);
    assert_eq!(replacing.reasons[0].code(), "ReplacementPending");
    assert_eq!(
        (replacing.spec_revision, replacing.applied_revision),
        (None, None)
    );
}

#[test]
fn a_set_scaled_to_zero_with_runners_waits_for_jobs_under_eventual() {
    let facts = hash_era_set(0);
    let mut tally = Tally::default();
    tally.add("r1", RunnerState::Busy, 3, Ok(true), None);
    let s = state(&facts, &tally, Some(&judged(Ok("595bdbd674"))));
    assert_eq!(s.state, State::Replacing);
    let codes: Vec<_> = s.reasons.iter().map(StatusReason::code).collect();
    assert_eq!(codes, ["ReplacementPending", "ReplacementWaitsForJobs"]);
}

#[test]
fn an_old_set_is_draining_and_an_unknown_scale_set_stays_spec_hash() {
    let facts = hash_era_set(0);
    let tally = Tally::default();
    let old = Replacement::Old {
        newest: "runners-q9z4m".into(),
    };
    assert_eq!(state(&facts, &tally, Some(&old)).state, State::Draining);
    assert_eq!(state(&facts, &tally, None).state, State::SpecHash);
    let unknown = state(&facts, &tally, Some(&judged(Err("no engine"))));
    assert_eq!(unknown.state, State::SpecHash);
    assert_eq!(unknown.reasons[0].code(), "SpecHashUnknown");
}
