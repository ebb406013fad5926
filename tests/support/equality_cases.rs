//! The equality table's cases, shared by the hermetic test (our answers against the recorded Go
//! answers) and the test suite (the same cases against the live Go oracle). Included with `#[path]`.

use std::collections::BTreeMap;

/// What ARC's Go code answered for each case (reflect.DeepEqual, cmp.Equal, Semantic.DeepEqual, hash
/// equality, both legacy hashes), recorded with go-spew d8f796af33cc and k8s.io/api v0.36.2 and
/// checked again against the live oracle by the test suite (`equality_oracle`). Where
/// `../shared/reference/verified/equality_table.txt` exists, the suite also checks this copy
/// against it.
pub const RECORDED: &str = r#"=== D. equality table (A vs B decoded with sigs.k8s.io/json UnmarshalCaseSensitivePreserveInts)
case                                           | reflect.Deep  | cmp.Equal | Semantic | hashEq   | hashes
env: [] vs absent                              | false         | false     | true     | false    | 5bc55484d6 655d8d8c85
env: null vs absent                            | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
command: [] vs absent                          | false         | false     | true     | false    | 784459d6c6 655d8d8c85
limits.cpu "1" vs "1000m"                      | false         | true      | true     | false    | 75bddcff6c 598fd56bd4
limits.cpu "1" vs 1 (number)                   | true          | true      | true     | true     | 75bddcff6c 75bddcff6c
limits.cpu "1" vs "1.0"                        | false         | true      | true     | false    | 75bddcff6c 7dd677b7d6
limits.cpu "500m" vs "0.5"                     | false         | true      | true     | false    | 55dcc699d 6485d67f7d
limits.memory "1Gi" vs "1024Mi"                | false         | true      | true     | false    | 7bc85f9868 5dd68d4577
limits: {} vs absent                           | false         | false     | true     | false    | 76c5bd4f46 655d8d8c85
resources: {} vs absent                        | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
securityContext: {} vs absent                  | false         | false     | false    | false    | 6cbb5469b4 655d8d8c85
securityContext: null vs absent                | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
nodeSelector: {} vs absent                     | false         | false     | true     | false    | 845f6cb4cd 655d8d8c85
serviceAccountName "" vs absent                | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
runnerScaleSetId 0 vs absent                   | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
automountSAToken false vs absent               | false         | false     | false    | false    | 68dc54bb77 655d8d8c85
automountSAToken false vs true                 | false         | false     | false    | false    | 68dc54bb77 554554b488
terminationGracePeriodSeconds 30 vs absent     | false         | false     | false    | false    | 7b6b9978b9 655d8d8c85
proxy: {} vs absent                            | false         | false     | false    | false    | 7f8bbb9569 655d8d8c85
metadata: {} vs absent                         | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
metadata.labels {} vs absent                   | false         | false     | true     | false    | 599c7b74d6 655d8d8c85
metadata.creationTimestamp null vs absent      | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
labels key order                               | true          | true      | true     | true     | 75d89c778d 75d89c778d
ports: [] vs absent                            | false         | false     | true     | false    | 97fd7c7dd 655d8d8c85
containerPort 0 vs absent (in port obj)        | true          | true      | true     | true     | dd68758b5 dd68758b5
probe port 8080 vs "8080"                      | false         | false     | false    | false    | 55fd94d886 5dd6b594b9
unknown field vs absent                        | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
case-mismatch key (Image) vs absent            | true          | true      | true     | true     | 655d8d8c85 655d8d8c85
creationTimestamp Z vs +01:00 same instant     | true          | true      | true     | true     | 5d85d86748 5d85d86748
volumes emptyDir {} vs absent                  | false         | false     | false    | false    | 854f77fc9 7445c97cdb"#;

/// One recorded row: the case name and Go's answers.
pub struct Row<'a> {
    pub case: &'a str,
    pub reflect: bool,
    pub cmp: bool,
    pub semantic: bool,
    pub hash_equal: bool,
    pub hashes: [&'a str; 2],
}

/// The rows of a table in the recorded format (a title and a header line, then `|`-separated rows).
pub fn rows(text: &str) -> Vec<Row<'_>> {
    text.lines()
        .skip(2)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('|').map(str::trim).collect();
            if cols.len() != 6 {
                return None;
            }
            let hashes: Vec<&str> = cols[5].split_whitespace().collect();
            Some(Row {
                case: cols[0],
                reflect: cols[1].parse().unwrap(),
                cmp: cols[2].parse().unwrap(),
                semantic: cols[3].parse().unwrap(),
                hash_equal: cols[4].parse().unwrap(),
                hashes: [hashes[0], hashes[1]],
            })
        })
        .collect()
}

/// The documents behind each row. Base: a runner container `runner` with image `img`.
pub fn cases() -> BTreeMap<&'static str, (String, String)> {
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
