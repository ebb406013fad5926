//! Differential test of ARC's refusal of a `githubConfigUrl` (issue 15, class 1): generated URLs,
//! our [`github_config_error`] against the oracle's mirror of ARC's `applyGitHubURLLabels` over
//! Go's `net/url`, message for message; and whole AutoscalingRunnerSets through the desired-spec
//! builder against the oracle's `desired` op.

use crate::common::oracle::Oracle;
use crate::common::specgen::{self, Rng};
use kubectl_arc::core::desired::{DesiredError, desired_runner_spec};
use kubectl_arc::core::gourl::github_config_error;
use kubectl_arc::core::layout::Layout;
use serde_json::{Value, json};

const CASES: usize = 5_000;

/// A URL from parts ARC sees in practice and parts Go's parser refuses.
pub fn config_url(rng: &mut Rng) -> String {
    const SCHEMES: &[&str] = &[
        "https://",
        "https://",
        "https://",
        "http://",
        "HTTPS://",
        "",
        "//",
        "ht+tp://",
        "1http://",
        "://",
        "https:",
        "https:/",
        "https:///",
        "mailto:",
        "a_b://",
    ];
    const USERS: &[&str] = &[
        "", "", "", "", "user@", "u:p@", "u%zz@", "u ser@", "a@b@", "%41:%42@", "é@", ":@",
    ];
    const HOSTS: &[&str] = &[
        "github.com",
        "github.com",
        "github.com",
        "www.github.com",
        "ghe.example.com:8443",
        "ghe.example.com:",
        "github.com:x",
        "git hub.com",
        "h:1:2",
        "[::1]",
        "[::1]:80",
        "[1.2.3.4]",
        "[fe80::1%25en0]",
        "[::g]",
        "[",
        "a]b",
        "gïthub.com",
        "%41.com",
        "%c3%a9.com",
        "[::1]x",
        "[1:2:3:4:5:6:7:8:9]",
        "[::ffff:1.2.3.4]",
        "[1::2::3]",
        "[12345::]",
        "[%25]",
        "x[::1]",
        "",
        "a{b}",
        "host%2",
        "[::1%25]",
        "[1.2.3]",
        "[::1.2.3.04]",
        "[fe80::1%25%41]",
    ];
    const SEGMENTS: &[&str] = &[
        "org",
        "org",
        "repo",
        "my-org",
        "enterprises",
        "ENTERPRISES",
        "Enterprises",
        "",
        "%2F",
        "%zz",
        "%e2%8",
        "a b",
        "é",
        "\t",
        "a?b",
        "a#b",
        "a:b",
        "%",
        "..",
        "🙂",
        "%41",
        "a%2fb",
        "x\u{7f}",
        "a\u{2028}b",
        "[x]",
        "%c3%a9",
        "a+b",
        "a;b",
        "*",
        "a@b",
        "İ",
        "ENTERPRİSES",
    ];
    let mut url = String::new();
    if rng.chance(3) {
        url.push('/');
    }
    url.push_str(pick_str(rng, SCHEMES));
    url.push_str(pick_str(rng, USERS));
    url.push_str(pick_str(rng, HOSTS));
    let n = *rng.pick(&[0usize, 1, 1, 1, 2, 2, 2, 3, 4]);
    for _ in 0..n {
        url.push('/');
        url.push_str(pick_str(rng, SEGMENTS));
    }
    if rng.chance(10) {
        url.push('/');
    }
    if rng.chance(8) {
        url.push_str(pick_str(rng, &["?", "?a=b", "?a?b", "??"]));
    }
    if rng.chance(8) {
        url.push_str(pick_str(
            rng,
            &["#", "#f", "#%zz", "#a b", "#%41", "#!", "#'"],
        ));
    }
    url
}

#[test]
fn github_config_url_errors_agree_with_go() {
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0c0f_1600;
    let mut rng = Rng::new(seed);
    let urls: Vec<String> = (0..CASES).map(|_| config_url(&mut rng)).collect();
    let requests: Vec<Value> = urls
        .iter()
        .map(|u| json!({"op": "githubConfigUrl", "url": u}))
        .collect();
    let answers = oracle.ask_all(&requests);
    let mut refused = 0;
    for (url, go) in urls.iter().zip(&answers) {
        assert!(go.get("error").is_none(), "oracle failed on {url:?}: {go}");
        let go_error = go.get("arcError").and_then(Value::as_str);
        assert_eq!(
            github_config_error(url).as_deref(),
            go_error,
            "seed {seed} url {url:?}"
        );
        refused += go_error.is_some() as usize;
    }
    eprintln!(
        "githubConfigUrl: {CASES} generated URLs agree with Go ({refused} refused by ARC, {} accepted)",
        CASES - refused
    );
    assert!(refused > CASES / 10 && refused < CASES * 9 / 10);
}

/// Whole AutoscalingRunnerSets through the builder: ARC's error, ARC's panic (set metadata
/// without annotations) or a spec, the same as Go's.
#[test]
fn desired_set_refusals_and_panics_agree_with_go() {
    let layout = Layout::arc();
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0c0f_1601;
    let mut rng = Rng::new(seed);
    const METADATA: &[&str] = &[
        "absent",
        "null",
        "{}",
        r#"{"labels":{"team":"ci"}}"#,
        r#"{"labels":{"team":"ci"},"annotations":null}"#,
        r#"{"annotations":{}}"#,
        r#"{"labels":{"team":"ci"},"annotations":{"a":"b"}}"#,
        r#"{"labels":null}"#,
    ];
    let mut cases = Vec::new();
    for _ in 0..CASES / 5 {
        let url = if rng.chance(50) {
            "https://github.com/my-org".to_string()
        } else {
            config_url(&mut rng)
        };
        let meta = *rng.pick(METADATA);
        let mut spec = json!({"githubConfigUrl": url, "githubConfigSecret": "s",
            "template": {"spec": {"containers": [{"name": "runner", "image": "img"}]}}});
        if meta != "absent" {
            spec["ephemeralRunnerSetMetadata"] = serde_json::from_str(meta).unwrap();
        }
        let id = if rng.chance(5) { "x" } else { "7" };
        let ars = json!({"metadata": {"name": "a", "annotations": {"runner-scale-set-id": id}}, "spec": spec});
        cases.push((ars, id));
    }
    let requests: Vec<Value> = cases
        .iter()
        .map(|(ars, _)| json!({"op": "desired", "ars": ars.to_string()}))
        .collect();
    let answers = oracle.ask_all(&requests);
    let (mut errors, mut panics, mut built) = (0, 0, 0);
    for ((ars, id), go) in cases.iter().zip(&answers) {
        let ours = desired_runner_spec(layout, &ars["spec"].to_string(), Some(id));
        let ctx = || format!("seed {seed} ARS {ars}\nGo {go}\nours {ours:?}");
        match &ours {
            Ok(_) => {
                assert!(go.get("error").is_none(), "{}", ctx());
                built += 1;
            }
            Err(DesiredError::GitHubConfigUrl(message)) => {
                assert_eq!(Some(message.as_str()), go["arcError"].as_str(), "{}", ctx());
                errors += 1;
            }
            Err(DesiredError::MergeAnnotationsPanic) => {
                assert_eq!(
                    go["arcPanic"],
                    "assignment to entry in nil map",
                    "{}",
                    ctx()
                );
                panics += 1;
            }
            Err(DesiredError::BadScaleSetId(_)) => {
                assert!(
                    go["arcError"]
                        .as_str()
                        .is_some_and(|e| e.starts_with("strconv.Atoi")),
                    "{}",
                    ctx()
                );
            }
            Err(e) => panic!("unexpected {e}: {}", ctx()),
        }
    }
    eprintln!(
        "desired set: {} ARSs agree with Go ({errors} refused for the URL, {panics} panics, {built} built)",
        cases.len()
    );
    assert!(errors > 0 && panics > 0 && built > 0);
}

/// One of `items`, as a `&str`.
fn pick_str<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}
