//! Kubernetes name rules, so a bad name is refused before anything is asked of the server.
//!
//! Pure core. Mirrors k8s.io/apimachinery `validation.IsDNS1123Subdomain` (object names) and
//! `IsDNS1123Label` (namespaces).

/// Why a name is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {name:?} is not valid: {rule}")]
pub struct NameError {
    pub what: &'static str,
    pub name: String,
    pub rule: &'static str,
}

fn label_ok(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// `IsDNS1123Label`: a namespace.
pub fn check_namespace(name: &str) -> Result<(), NameError> {
    if label_ok(name) {
        Ok(())
    } else {
        Err(NameError {
            what: "namespace",
            name: name.to_string(),
            rule: "a namespace is at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit",
        })
    }
}

/// `IsDNS1123Subdomain`: an object name.
pub fn check_object_name(what: &'static str, name: &str) -> Result<(), NameError> {
    if name.len() <= 253 && name.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(NameError {
            what,
            name: name.to_string(),
            rule: "a name is at most 253 lower-case letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_1123() {
        assert!(check_namespace("arc-runners").is_ok());
        assert!(check_namespace("Arc").is_err());
        assert!(check_namespace("a.b").is_err());
        assert!(check_namespace(&"a".repeat(64)).is_err());
        assert!(check_object_name("x", "arc-runner-set.v2").is_ok());
        assert!(check_object_name("x", "bad_name").is_err());
        assert!(check_object_name("x", "-a").is_err());
        assert!(check_object_name("x", "").is_err());
        assert!(check_object_name("x", "a..b").is_err());
    }
}
