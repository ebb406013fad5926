//! Label selectors, for objects read from files (the API server filters cluster lists itself).
//!
//! Pure core. Mirrors the syntax of k8s.io/apimachinery `labels.Parse`: comma-separated
//! requirements `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`.

use std::collections::BTreeMap;

/// One requirement of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selector(Vec<Requirement>);

/// A selector that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid label selector {selector:?}: {reason}")]
pub struct SelectorError {
    pub selector: String,
    pub reason: String,
}

impl Selector {
    pub fn parse(s: &str) -> Result<Selector, SelectorError> {
        let err = |reason: &str| SelectorError {
            selector: s.to_string(),
            reason: reason.to_string(),
        };
        let mut reqs = Vec::new();
        for part in split_top_level(s) {
            let part = part.trim();
            if part.is_empty() {
                if s.trim().is_empty() {
                    continue;
                }
                return Err(err("empty requirement"));
            }
            let valid_key = |k: &str| {
                !k.is_empty()
                    && k.bytes().all(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/')
                    })
            };
            let req = if let Some(k) = part.strip_prefix('!') {
                Requirement::NotExists(k.trim().to_string())
            } else if let Some((k, v)) = part.split_once("!=") {
                Requirement::NotEquals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = part.split_once("==") {
                Requirement::Equals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = part.split_once('=') {
                Requirement::Equals(k.trim().into(), v.trim().into())
            } else if let Some((k, rest)) = split_set_op(part, " notin ") {
                Requirement::NotIn(
                    k,
                    parse_set(rest).ok_or_else(|| err("expected (a,b) after notin"))?,
                )
            } else if let Some((k, rest)) = split_set_op(part, " in ") {
                Requirement::In(
                    k,
                    parse_set(rest).ok_or_else(|| err("expected (a,b) after in"))?,
                )
            } else {
                Requirement::Exists(part.to_string())
            };
            let key = match &req {
                Requirement::Equals(k, _)
                | Requirement::NotEquals(k, _)
                | Requirement::Exists(k)
                | Requirement::NotExists(k)
                | Requirement::In(k, _)
                | Requirement::NotIn(k, _) => k,
            };
            if !valid_key(key) {
                return Err(err(&format!("invalid label key {key:?}")));
            }
            reqs.push(req);
        }
        Ok(Selector(reqs))
    }

    /// Whether a set of labels satisfies every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| match r {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::NotExists(k) => !labels.contains_key(k),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
        })
    }
}

/// Split on commas outside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn split_set_op<'a>(part: &'a str, op: &str) -> Option<(String, &'a str)> {
    let i = part.find(op)?;
    Some((part[..i].trim().to_string(), part[i + op.len()..].trim()))
}

fn parse_set(s: &str) -> Option<Vec<String>> {
    let inner = s.strip_prefix('(')?.strip_suffix(')')?;
    Some(inner.split(',').map(|v| v.trim().to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn selectors_match_like_kubernetes() {
        let l = labels(&[("app", "runners"), ("tier", "gpu")]);
        for (sel, want) in [
            ("", true),
            ("app=runners", true),
            ("app==runners,tier!=cpu", true),
            ("app,!missing", true),
            ("tier in (gpu, cpu)", true),
            ("tier notin (gpu)", false),
            ("app=other", false),
            ("!app", false),
        ] {
            assert_eq!(Selector::parse(sel).unwrap().matches(&l), want, "{sel}");
        }
        assert!(Selector::parse("a b").is_err());
        assert!(Selector::parse("app=x,,").is_err());
    }
}
