//! Rules only a fleet can apply: which kubeconfig contexts `--contexts` selects, the same scale set
//! registered from two contexts, and ARC releases that differ across the fleet.
//!
//! Core layer (pure): names and facts in, decisions out. The scale set's identity follows ARC's
//! `ParseGitHubConfigFromURL` (github/actions/actions.go: `url.Parse` of the URL trimmed of '/',
//! the path split into organization, repository or enterprise) and `AutoscalingRunnerSet`'s
//! default name (`autoscalingrunnerset_controller.go` `createRunnerScaleSet`:
//! `spec.runnerScaleSetName` empty means the AutoscalingRunnerSet's name).

use std::collections::{BTreeMap, BTreeSet};

use crate::gourl;

/// Why `--contexts` cannot select.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// A pattern (an exclusion or not) matches no context of the kubeconfig.
    #[error("--contexts {pattern:?}: no kubeconfig context matches it (known: {known})")]
    NoMatch { pattern: String, known: String },
    /// An empty pattern (`--contexts a,,b`, or `!` alone).
    #[error("--contexts: an empty pattern (give context names or globs, comma-separated)")]
    Empty,
    /// The exclusions left no context.
    #[error("--contexts {patterns}: every context is excluded")]
    NothingLeft { patterns: String },
}

/// Whether `name` matches the glob `pattern`: `*` any run of characters, `?` one character, all
/// else literal (kubeconfig context names hold no path separators to stop at).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // The classic two-pointer walk with one backtrack point (the last `*`).
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// The contexts `patterns` select among the kubeconfig's `available` ones, in the order they are
/// read and merged: each inclusion in the order given, a glob's matches sorted by name, a context
/// named twice once (where first named); then every exclusion (`!PATTERN`) removes what it
/// matches. Only exclusions: every context, sorted, less those. A pattern that matches nothing is
/// an error naming it, so a typo never silently shrinks the fleet.
pub fn select_contexts(
    available: &[String],
    patterns: &[String],
) -> Result<Vec<String>, SelectError> {
    let known = || {
        let mut all: Vec<&str> = available.iter().map(String::as_str).collect();
        all.sort_unstable();
        if all.is_empty() {
            "none".to_string()
        } else {
            all.join(", ")
        }
    };
    let no_match = |pattern: &str| SelectError::NoMatch {
        pattern: pattern.to_string(),
        known: known(),
    };
    let mut chosen: Vec<String> = Vec::new();
    let mut excluded: Vec<&str> = Vec::new();
    for pattern in patterns {
        if let Some(ex) = pattern.strip_prefix('!') {
            if ex.is_empty() {
                return Err(SelectError::Empty);
            }
            if !available.iter().any(|c| glob_match(ex, c)) {
                return Err(no_match(pattern));
            }
            excluded.push(ex);
            continue;
        }
        if pattern.is_empty() {
            return Err(SelectError::Empty);
        }
        let mut matched: Vec<&String> = if is_glob(pattern) {
            available
                .iter()
                .filter(|c| glob_match(pattern, c))
                .collect()
        } else {
            available.iter().filter(|c| *c == pattern).collect()
        };
        if matched.is_empty() {
            return Err(no_match(pattern));
        }
        matched.sort();
        for c in matched {
            if !chosen.contains(c) {
                chosen.push(c.clone());
            }
        }
    }
    if chosen.is_empty() {
        chosen = available.to_vec();
        chosen.sort();
        chosen.dedup();
    }
    chosen.retain(|c| !excluded.iter().any(|ex| glob_match(ex, c)));
    if chosen.is_empty() {
        return Err(SelectError::NothingLeft {
            patterns: patterns.join(","),
        });
    }
    Ok(chosen)
}

/// One AutoscalingRunnerSet as a registration with GitHub, from one context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub context: String,
    pub namespace: String,
    /// The AutoscalingRunnerSet's name.
    pub name: String,
    /// `spec.githubConfigUrl`.
    pub config_url: Option<String>,
    /// `spec.runnerScaleSetName` (empty or absent: the AutoscalingRunnerSet's name, as ARC).
    pub scale_set_name: Option<String>,
    /// The `runner-scale-set-id` annotation ARC writes once it registered the scale set.
    pub scale_set_id: Option<String>,
    /// `metadata.uid`: two contexts on one cluster see the same object, which is no duplicate.
    pub uid: Option<String>,
}

impl Registration {
    /// The scale-set name ARC registers: `spec.runnerScaleSetName`, else the
    /// AutoscalingRunnerSet's name (`createRunnerScaleSet`).
    pub fn registered_name(&self) -> &str {
        self.scale_set_name
            .as_deref()
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.name)
    }
}

/// What a `githubConfigUrl` points at, as ARC's `ParseGitHubConfigFromURL` reads it, spelled so
/// that two URLs of one GitHub scope compare equal: the host in lower case (hosts are
/// case-insensitive; ARC compares them with `strings.EqualFold`), the organization, repository or
/// enterprise in lower case (GitHub's names are), trailing and leading '/' dropped as ARC's
/// `strings.Trim(in, "/")` does. `None` for a URL ARC refuses.
pub fn config_scope(config_url: &str) -> Option<String> {
    let url = gourl::parse(config_url.trim_matches('/')).ok()?;
    let path = String::from_utf8_lossy(&url.path).into_owned();
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let host = String::from_utf8_lossy(&url.host).to_lowercase();
    let scope = match parts.as_slice() {
        [org] if !org.is_empty() => format!("org/{}", org.to_lowercase()),
        [first, name] if first.eq_ignore_ascii_case("enterprises") => {
            format!("enterprise/{}", name.to_lowercase())
        }
        [owner, repo] => format!("repo/{}/{}", owner.to_lowercase(), repo.to_lowercase()),
        _ => return None,
    };
    Some(format!("{host}/{scope}"))
}

/// How two registrations were found to be one scale set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SameBy {
    /// The same GitHub scope (`githubConfigUrl`) and scale-set name.
    ConfigUrlAndName { config_url: String, name: String },
    /// The same `runner-scale-set-id` on the same GitHub host.
    ScaleSetId(String),
}

/// A registration that another context registers too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The registration this is said of (index into the input).
    pub index: usize,
    pub other_context: String,
    /// The other AutoscalingRunnerSet, `namespace/name`.
    pub other_scale_set: String,
    pub by: SameBy,
}

/// Every registration that another context also registers (same scope and name, or same
/// scale-set id on the same host), each side told of the other: the listeners of both would share
/// one message session, which GitHub gives to one of them at a time (ARC issues 3351, 3209,
/// 3382). Registrations within one context are ARC's own business and not compared here, nor
/// one object seen through two contexts of the same cluster (the same `metadata.uid`).
pub fn duplicate_registrations(registrations: &[Registration]) -> Vec<Duplicate> {
    let host = |r: &Registration| {
        r.config_url
            .as_deref()
            .and_then(|u| gourl::parse(u.trim_matches('/')).ok())
            .map(|u| String::from_utf8_lossy(&u.host).to_lowercase())
    };
    let keyed: Vec<(Option<String>, Option<String>)> = registrations
        .iter()
        .map(|r| {
            let by_name = r
                .config_url
                .as_deref()
                .and_then(config_scope)
                .map(|scope| format!("{scope}#{}", r.registered_name().to_lowercase()));
            let by_id = r
                .scale_set_id
                .as_deref()
                .filter(|id| !id.is_empty() && *id != "0")
                .map(|id| format!("{}#{id}", host(r).unwrap_or_default()));
            (by_name, by_id)
        })
        .collect();
    let mut out = Vec::new();
    for (i, a) in registrations.iter().enumerate() {
        for (j, b) in registrations.iter().enumerate() {
            if i == j || a.context == b.context || (a.uid.is_some() && a.uid == b.uid) {
                continue;
            }
            let by = if keyed[i].0.is_some() && keyed[i].0 == keyed[j].0 {
                SameBy::ConfigUrlAndName {
                    config_url: a.config_url.clone().unwrap_or_default(),
                    name: a.registered_name().to_string(),
                }
            } else if keyed[i].1.is_some() && keyed[i].1 == keyed[j].1 {
                SameBy::ScaleSetId(a.scale_set_id.clone().unwrap_or_default())
            } else {
                continue;
            };
            out.push(Duplicate {
                index: i,
                other_context: b.context.clone(),
                other_scale_set: format!("{}/{}", b.namespace, b.name),
                by,
            });
        }
    }
    out
}

/// Versions (ARC releases, listener images) that differ across the fleet: each value with the
/// contexts that run it, sorted, or `None` when the contexts that say agree. Contexts that say
/// nothing (no scale set, or one that failed) are left out.
pub fn differing(
    per_context: &[(String, BTreeSet<String>)],
) -> Option<BTreeMap<String, Vec<String>>> {
    let mut by_value: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (context, values) in per_context {
        for v in values {
            by_value.entry(v.clone()).or_default().push(context.clone());
        }
    }
    (by_value.len() > 1).then_some(by_value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn globs_match_like_a_shell() {
        for (p, n, want) in [
            ("prod-*", "prod-eu", true),
            ("prod-*", "prod-", true),
            ("prod-*", "staging-eu", false),
            ("*-eu", "prod-eu", true),
            ("p?od", "prod", true),
            ("p?od", "prd", false),
            ("*", "", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob_match(p, n), want, "{p} {n}");
        }
    }

    #[test]
    fn inclusions_keep_their_order_globs_sort_and_exclusions_remove() {
        let all = names(&["staging", "prod-us", "prod-eu", "dev", "prod-ap"]);
        assert_eq!(
            select_contexts(&all, &names(&["staging", "prod-*"])).unwrap(),
            ["staging", "prod-ap", "prod-eu", "prod-us"]
        );
        assert_eq!(
            select_contexts(&all, &names(&["prod-*", "!prod-us"])).unwrap(),
            ["prod-ap", "prod-eu"]
        );
        // Only exclusions: every context, sorted, less those.
        assert_eq!(
            select_contexts(&all, &names(&["!prod-*"])).unwrap(),
            ["dev", "staging"]
        );
        // Named twice: once, where first named.
        assert_eq!(
            select_contexts(&all, &names(&["dev", "*", "dev"])).unwrap(),
            ["dev", "prod-ap", "prod-eu", "prod-us", "staging"]
        );
    }

    #[test]
    fn a_pattern_that_matches_nothing_is_an_error_naming_it() {
        let all = names(&["a", "b"]);
        let e = select_contexts(&all, &names(&["a", "prod-*"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--contexts \"prod-*\": no kubeconfig context matches it (known: a, b)"
        );
        let e = select_contexts(&all, &names(&["!c"])).unwrap_err();
        assert!(e.to_string().contains("\"!c\""), "{e}");
        assert_eq!(
            select_contexts(&all, &names(&["a", ""])).unwrap_err(),
            SelectError::Empty
        );
        assert!(matches!(
            select_contexts(&all, &names(&["!*"])).unwrap_err(),
            SelectError::NothingLeft { .. }
        ));
    }

    fn reg(
        context: &str,
        name: &str,
        url: &str,
        set: Option<&str>,
        id: Option<&str>,
    ) -> Registration {
        Registration {
            context: context.into(),
            namespace: "arc-runners".into(),
            name: name.into(),
            config_url: Some(url.into()),
            scale_set_name: set.map(Into::into),
            scale_set_id: id.map(Into::into),
            uid: Some(format!("{context}/{name}")),
        }
    }

    #[test]
    fn config_urls_compare_as_arc_parses_them() {
        let same = [
            "https://github.com/my-org",
            "https://github.com/my-org/",
            "https://GitHub.com/My-Org",
            "/https://github.com/my-org//",
        ];
        let first = config_scope(same[0]).unwrap();
        for u in same {
            assert_eq!(config_scope(u).as_deref(), Some(first.as_str()), "{u}");
        }
        assert_ne!(
            config_scope("https://github.com/other"),
            Some(first.clone())
        );
        assert_ne!(config_scope("https://ghe.example.com/my-org"), Some(first));
        assert_eq!(
            config_scope("https://github.com/enterprises/Acme").as_deref(),
            Some("github.com/enterprise/acme")
        );
        assert_eq!(
            config_scope("https://github.com/o/r").as_deref(),
            Some("github.com/repo/o/r")
        );
        // What ARC refuses registers nothing.
        assert_eq!(config_scope("https://github.com"), None);
        assert_eq!(config_scope("https://github.com/a/b/c"), None);
    }

    #[test]
    fn one_scale_set_from_two_contexts_is_said_on_both_sides() {
        let regs = [
            reg(
                "east",
                "arc-runner-set",
                "https://github.com/acme/",
                None,
                None,
            ),
            reg(
                "west",
                "runners",
                "https://GITHUB.com/acme",
                Some("arc-runner-set"),
                None,
            ),
            // Same name, another organization: another scale set.
            reg(
                "west",
                "arc-runner-set",
                "https://github.com/other",
                None,
                None,
            ),
            // Same context twice: ARC's business.
            reg(
                "east",
                "copy",
                "https://github.com/acme",
                Some("arc-runner-set"),
                None,
            ),
        ];
        let d = duplicate_registrations(&regs);
        let pairs: Vec<(usize, &str, &str)> = d
            .iter()
            .map(|d| {
                (
                    d.index,
                    d.other_context.as_str(),
                    d.other_scale_set.as_str(),
                )
            })
            .collect();
        assert_eq!(
            pairs,
            [
                (0, "west", "arc-runners/runners"),
                (1, "east", "arc-runners/arc-runner-set"),
                (1, "east", "arc-runners/copy"),
                (3, "west", "arc-runners/runners"),
            ]
        );
        assert_eq!(
            d[0].by,
            SameBy::ConfigUrlAndName {
                config_url: "https://github.com/acme/".into(),
                name: "arc-runner-set".into()
            }
        );
    }

    #[test]
    fn one_object_seen_through_two_contexts_of_one_cluster_is_no_duplicate() {
        let mut a = reg("a", "x", "https://github.com/acme", None, Some("7"));
        let mut b = reg("b", "x", "https://github.com/acme", None, Some("7"));
        a.uid = Some("5f3c".into());
        b.uid = Some("5f3c".into());
        assert_eq!(duplicate_registrations(&[a.clone(), b.clone()]), []);
        b.uid = Some("9e1d".into());
        assert_eq!(duplicate_registrations(&[a, b]).len(), 2);
    }

    #[test]
    fn the_same_scale_set_id_on_one_host_is_one_scale_set() {
        let regs = [
            reg("a", "x", "https://github.com/acme", None, Some("42")),
            reg("b", "y", "https://github.com/acme/repo", None, Some("42")),
            // Another GitHub: its ids are its own.
            reg("c", "z", "https://ghe.example.com/acme", None, Some("42")),
            reg("d", "w", "https://github.com/acme/other", None, Some("0")),
        ];
        let d = duplicate_registrations(&regs);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].by, SameBy::ScaleSetId("42".into()));
        assert_eq!((d[0].index, d[1].index), (0, 1));
    }

    #[test]
    fn versions_differ_only_across_contexts_that_say() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(
            differing(&[
                ("a".into(), set(&["0.14.2"])),
                ("b".into(), set(&[])),
                ("c".into(), set(&["0.14.2"]))
            ]),
            None
        );
        let d = differing(&[
            ("a".into(), set(&["0.14.2"])),
            ("b".into(), set(&["0.13.0", "0.14.2"])),
        ])
        .unwrap();
        assert_eq!(d["0.13.0"], ["b"]);
        assert_eq!(d["0.14.2"], ["a", "b"]);
    }
}
