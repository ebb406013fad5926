//! The equality table against the live Go oracle: every case's three equalities and both legacy
//! hashes as Go computes them now, our answers, and the copy of Go's recorded answers that the
//! hermetic test uses (`tests/support/equality_cases.rs`), all agree. Where
//! `../shared/reference/verified/equality_table.txt` exists, the copy is checked against it too.

#[path = "../support/equality_cases.rs"]
mod equality_cases;

use equality_cases::{RECORDED, cases, rows};
use kubectl_arc::core::equality::compare;
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::integrity_hash;
use kubectl_arc::core::value::decode;
use serde_json::json;

use crate::common::oracle::Oracle;

/// The one row whose hash prints Go's process-local time zone: not reproducible, so its hashes are
/// compared only between Go's two runs, never with ours.
const LOCAL_ZONE_ROW: &str = "creationTimestamp Z vs +01:00 same instant";

#[test]
fn every_case_agrees_with_the_live_oracle_and_the_recorded_table() {
    let mut oracle = Oracle::spawn("v0.36");
    let cases = cases();
    let l = Layout::arc();
    let ty = l.ephemeral_runner_spec;
    let recorded = rows(RECORDED);
    assert_eq!(recorded.len(), cases.len(), "a recorded row for every case");
    for row in &recorded {
        let (a, b) = &cases[row.case];
        let go = oracle.ask(&json!({"op": "equal", "a": a, "b": b}));
        let go_verdicts = [&go["reflect"], &go["cmp"], &go["semantic"]].map(|v| v.as_bool());
        assert_eq!(
            go_verdicts,
            [Some(row.reflect), Some(row.cmp), Some(row.semantic)],
            "{}: live Go {go}",
            row.case
        );
        let (va, vb) = (decode(l, ty, a).unwrap(), decode(l, ty, b).unwrap());
        let c = compare(l, ty, &va, &vb);
        assert_eq!(
            [c.reflect_equal(), c.cmp_equal(), c.semantic_equal()],
            [row.reflect, row.cmp, row.semantic],
            "{}",
            row.case
        );
        let go_hashes = [go["hashA"].as_str().unwrap(), go["hashB"].as_str().unwrap()];
        assert_eq!(go_hashes[0] == go_hashes[1], row.hash_equal, "{}", row.case);
        if row.case != LOCAL_ZONE_ROW {
            assert_eq!(go_hashes, row.hashes, "{}: live Go", row.case);
            let ours = [
                integrity_hash(l, &va).unwrap(),
                integrity_hash(l, &vb).unwrap(),
            ];
            assert_eq!(ours, go_hashes, "{}: ours", row.case);
        }
    }
}

#[test]
fn the_copied_table_matches_the_shared_reference() {
    let Some(shared) = crate::common::shared_file("reference/verified/equality_table.txt") else {
        return;
    };
    assert_eq!(RECORDED.trim_end(), shared.trim_end());
}
