//! Every row of the recorded nil/empty/quantity table (../shared/reference/verified/
//! equality_table.txt, produced by ARC's Go code): our three equalities and both legacy hashes.

use std::collections::BTreeMap;

use kubectl_arc::core::equality::compare;
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::integrity_hash;
use kubectl_arc::core::value::{Value, decode};

/// The documents behind each row. Base: a runner container `runner` with image `img`.
fn cases() -> BTreeMap<&'static str, (String, String)> {
    let doc = |container: &str, spec: &str, top: &str| {
        format!(
            r#"{{"githubConfigUrl":"https://github.com/o"{top},"spec":{{"containers":[{{"name":"runner","image":"img"{container}}}]{spec}}}}}"#
        )
    };
    let c = |x: &str| doc(x, "", "");
    let s = |x: &str| doc("", x, "");
    let t = |x: &str| doc("", "", x);
    let base = doc("", "", "");
    let limits = |q: &str| c(&format!(r#","resources":{{"limits":{q}}}"#));
    BTreeMap::from([
        ("env: [] vs absent", (c(r#","env":[]"#), base.clone())),
        ("env: null vs absent", (c(r#","env":null"#), base.clone())),
        (
            "command: [] vs absent",
            (c(r#","command":[]"#), base.clone()),
        ),
        (
            r#"limits.cpu "1" vs "1000m""#,
            (limits(r#"{"cpu":"1"}"#), limits(r#"{"cpu":"1000m"}"#)),
        ),
        (
            r#"limits.cpu "1" vs 1 (number)"#,
            (limits(r#"{"cpu":"1"}"#), limits(r#"{"cpu":1}"#)),
        ),
        (
            r#"limits.cpu "1" vs "1.0""#,
            (limits(r#"{"cpu":"1"}"#), limits(r#"{"cpu":"1.0"}"#)),
        ),
        (
            r#"limits.cpu "500m" vs "0.5""#,
            (limits(r#"{"cpu":"500m"}"#), limits(r#"{"cpu":"0.5"}"#)),
        ),
        (
            r#"limits.memory "1Gi" vs "1024Mi""#,
            (
                limits(r#"{"memory":"1Gi"}"#),
                limits(r#"{"memory":"1024Mi"}"#),
            ),
        ),
        ("limits: {} vs absent", (limits("{}"), base.clone())),
        (
            "resources: {} vs absent",
            (c(r#","resources":{}"#), base.clone()),
        ),
        (
            "securityContext: {} vs absent",
            (c(r#","securityContext":{}"#), base.clone()),
        ),
        (
            "securityContext: null vs absent",
            (c(r#","securityContext":null"#), base.clone()),
        ),
        (
            "nodeSelector: {} vs absent",
            (s(r#","nodeSelector":{}"#), base.clone()),
        ),
        (
            r#"serviceAccountName "" vs absent"#,
            (s(r#","serviceAccountName":"""#), base.clone()),
        ),
        (
            "runnerScaleSetId 0 vs absent",
            (t(r#","runnerScaleSetId":0"#), base.clone()),
        ),
        (
            "automountSAToken false vs absent",
            (s(r#","automountServiceAccountToken":false"#), base.clone()),
        ),
        (
            "automountSAToken false vs true",
            (
                s(r#","automountServiceAccountToken":false"#),
                s(r#","automountServiceAccountToken":true"#),
            ),
        ),
        (
            "terminationGracePeriodSeconds 30 vs absent",
            (s(r#","terminationGracePeriodSeconds":30"#), base.clone()),
        ),
        ("proxy: {} vs absent", (t(r#","proxy":{}"#), base.clone())),
        (
            "metadata: {} vs absent",
            (t(r#","metadata":{}"#), base.clone()),
        ),
        (
            "metadata.labels {} vs absent",
            (t(r#","metadata":{"labels":{}}"#), base.clone()),
        ),
        (
            "metadata.creationTimestamp null vs absent",
            (t(r#","metadata":{"creationTimestamp":null}"#), base.clone()),
        ),
        (
            "labels key order",
            (
                t(r#","metadata":{"labels":{"a":"1","b":"2"}}"#),
                t(r#","metadata":{"labels":{"b":"2","a":"1"}}"#),
            ),
        ),
        ("ports: [] vs absent", (c(r#","ports":[]"#), base.clone())),
        (
            "containerPort 0 vs absent (in port obj)",
            (
                c(r#","ports":[{"containerPort":0}]"#),
                c(r#","ports":[{}]"#),
            ),
        ),
        (
            r#"probe port 8080 vs "8080""#,
            (
                c(r#","livenessProbe":{"httpGet":{"port":8080}}"#),
                c(r#","livenessProbe":{"httpGet":{"port":"8080"}}"#),
            ),
        ),
        (
            "unknown field vs absent",
            (t(r#","bogus":1"#), base.clone()),
        ),
        (
            "case-mismatch key (Image) vs absent",
            (c(r#","Image":"x""#), base.clone()),
        ),
        (
            "creationTimestamp Z vs +01:00 same instant",
            (
                t(r#","metadata":{"creationTimestamp":"2024-01-01T00:00:00Z"}"#),
                t(r#","metadata":{"creationTimestamp":"2024-01-01T01:00:00+01:00"}"#),
            ),
        ),
        (
            "volumes emptyDir {} vs absent",
            (
                s(r#","volumes":[{"name":"w","emptyDir":{}}]"#),
                s(r#","volumes":[{"name":"w"}]"#),
            ),
        ),
    ])
}

#[test]
fn every_recorded_row_reproduces() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/reference/verified/equality_table.txt"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases = cases();
    let l = Layout::arc();
    let ty = l.ephemeral_runner_spec;
    let mut rows = 0;
    for line in text.lines().skip(2) {
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        if cols.len() != 6 {
            continue;
        }
        let (a, b) = cases
            .get(cols[0])
            .unwrap_or_else(|| panic!("no documents for row {:?}", cols[0]));
        let (va, vb) = (decode(l, ty, a).unwrap(), decode(l, ty, b).unwrap());
        let c = compare(l, ty, &va, &vb);
        let want: Vec<bool> = cols[1..4].iter().map(|s| s.parse().unwrap()).collect();
        assert_eq!(
            vec![c.reflect_equal(), c.cmp_equal(), c.semantic_equal()],
            want,
            "{}: {:?}",
            cols[0],
            c.differences
        );
        let hashes: Vec<&str> = cols[5].split_whitespace().collect();
        match (integrity_hash(l, &va), integrity_hash(l, &vb)) {
            (Ok(ha), Ok(hb)) => {
                assert_eq!(
                    [ha.as_str(), hb.as_str()],
                    [hashes[0], hashes[1]],
                    "{}",
                    cols[0]
                );
                assert_eq!(ha == hb, cols[4] == "true", "{}", cols[0]);
            }
            // A set timestamp prints Go's process-local zone: not reproducible, and said so.
            _ => assert_eq!(cols[0], "creationTimestamp Z vs +01:00 same instant"),
        }
        rows += 1;
    }
    assert_eq!(rows, cases.len(), "every row of the table was checked");
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
