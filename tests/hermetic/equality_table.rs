//! Every row of the equality table (nil vs empty, quantities, times; recorded from ARC's Go code in
//! `tests/support/equality_cases.rs`): our three equalities and both legacy hashes.

#[path = "../support/equality_cases.rs"]
mod equality_cases;

use equality_cases::{RECORDED, cases, rows};
use kubectl_arc::core::equality::compare;
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::integrity_hash;
use kubectl_arc::core::value::{Value, decode};

#[test]
fn every_recorded_row_reproduces() {
    let cases = cases();
    let l = Layout::arc();
    let ty = l.ephemeral_runner_spec;
    let rows = rows(RECORDED);
    for row in &rows {
        let (a, b) = cases
            .get(row.case)
            .unwrap_or_else(|| panic!("no documents for row {:?}", row.case));
        let (va, vb) = (decode(l, ty, a).unwrap(), decode(l, ty, b).unwrap());
        let c = compare(l, ty, &va, &vb);
        assert_eq!(
            [c.reflect_equal(), c.cmp_equal(), c.semantic_equal()],
            [row.reflect, row.cmp, row.semantic],
            "{}: {:?}",
            row.case,
            c.differences
        );
        match (integrity_hash(l, &va), integrity_hash(l, &vb)) {
            (Ok(ha), Ok(hb)) => {
                assert_eq!([ha.as_str(), hb.as_str()], row.hashes, "{}", row.case);
                assert_eq!(ha == hb, row.hash_equal, "{}", row.case);
            }
            // A set timestamp prints Go's process-local zone: not reproducible, and said so.
            _ => assert_eq!(row.case, "creationTimestamp Z vs +01:00 same instant"),
        }
    }
    assert_eq!(
        rows.len(),
        cases.len(),
        "every row of the table was checked"
    );
}

#[test]
fn value_level_rows() {
    // metav1.Time from null vs from "0001-01-01T00:00:00Z": reflect false, cmp true, Semantic true.
    let l = Layout::arc();
    let ty = l.ephemeral_runner_spec;
    let a = decode(l, ty, r#"{"metadata":{"creationTimestamp":null}}"#).unwrap();
    let b = decode(
        l,
        ty,
        r#"{"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z"}}"#,
    )
    .unwrap();
    let c = compare(l, ty, &a, &b);
    assert_eq!(
        (c.reflect_equal(), c.cmp_equal(), c.semantic_equal()),
        (false, true, true)
    );
    // A zero Quantity (absent divisor) vs "0": reflect false, cmp true, Semantic true.
    let env = |d: &str| {
        format!(
            r#"{{"spec":{{"containers":[{{"name":"r","env":[{{"name":"X","valueFrom":{{"resourceFieldRef":{{"resource":"limits.cpu"{d}}}}}}}]}}]}}}}"#
        )
    };
    let a = decode(l, ty, &env("")).unwrap();
    let b = decode(l, ty, &env(r#","divisor":"0""#)).unwrap();
    assert!(matches!(a, Value::Struct(_)));
    let c = compare(l, ty, &a, &b);
    assert_eq!(
        (c.reflect_equal(), c.cmp_equal(), c.semantic_equal()),
        (false, true, true)
    );
}
