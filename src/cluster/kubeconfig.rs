//! Reading the kubeconfig as kubectl does: client-go's `ClientConfigLoadingRules.Load`
//! (kubernetes/client-go `tools/clientcmd/loader.go`).
//!
//! Cluster layer; reads files only. `--kubeconfig` names one file, which must exist. Otherwise
//! `KUBECONFIG` lists files (`:`-separated, `;` on Windows): empty entries and files that do not
//! exist are skipped, the others are merged, the first file to set a value winning: each context,
//! cluster and user whole from the first file that names it, `current-context` from the first file
//! that sets it. A list whose files are all missing is an error here (kubectl would fall back to
//! `localhost:8080`). Without either, `~/.kube/config`.
//!
//! kube's `Kubeconfig::from_env` fails on the first missing file and refuses files of different
//! `kind` or `apiVersion`, and its read errors quote the path twice (`'"/x/config"'`), so the
//! files are read one by one here and the errors are ours.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::Result;
use kube::config::{KubeconfigError, LoadDataError};

pub(crate) use kube::config::Kubeconfig;

/// Why one kubeconfig file could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The file does not exist: skipped in a `KUBECONFIG` list, as client-go skips it.
    #[error("cannot read {}: {source}", path.display())]
    Missing {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file exists and cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not a kubeconfig.
    #[error("{}: not a valid kubeconfig: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// Read one kubeconfig file, its relative certificate, key and token paths made relative to the
/// file's directory (client-go's `ResolveLocalPaths`).
pub(crate) fn read_file(path: &Path) -> Result<Kubeconfig, ReadError> {
    Kubeconfig::read_from(path).map_err(|e| match e {
        KubeconfigError::ReadConfig(source, _) if source.kind() == ErrorKind::NotFound => {
            ReadError::Missing {
                path: path.to_path_buf(),
                source,
            }
        }
        KubeconfigError::ReadConfig(source, _) => ReadError::Unreadable {
            path: path.to_path_buf(),
            source,
        },
        KubeconfigError::Parse(e) => ReadError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
        other => ReadError::Invalid {
            path: path.to_path_buf(),
            message: describe(&other),
        },
    })
}

/// Merge kubeconfigs in order of precedence, the first to set a value winning: client-go's
/// loading rules. Each named context, cluster and user comes whole from the first file naming it;
/// `current-context` from the first that sets a non-empty one; so do `preferences`, `extensions`,
/// `kind` and `apiVersion` (which client-go never compares).
pub(crate) fn merge(files: impl IntoIterator<Item = Kubeconfig>) -> Kubeconfig {
    let mut merged = Kubeconfig::default();
    for file in files {
        append_new(&mut merged.clusters, file.clusters, |c| &c.name);
        append_new(&mut merged.auth_infos, file.auth_infos, |u| &u.name);
        append_new(&mut merged.contexts, file.contexts, |c| &c.name);
        if merged.current_context.as_deref().is_none_or(str::is_empty) {
            merged.current_context = file.current_context.filter(|c| !c.is_empty());
        }
        merged.preferences = merged.preferences.or(file.preferences);
        merged.extensions = merged.extensions.or(file.extensions);
        merged.kind = merged.kind.or(file.kind);
        merged.api_version = merged.api_version.or(file.api_version);
        for (key, value) in file.other {
            merged.other.entry(key).or_insert(value);
        }
    }
    merged
}

fn append_new<T>(into: &mut Vec<T>, from: Vec<T>, name: impl Fn(&T) -> &String) {
    for item in from {
        if !into.iter().any(|have| name(have) == name(&item)) {
            into.push(item);
        }
    }
}

/// Read and merge the files of a `KUBECONFIG` list: `Ok(None)` when it names no file at all
/// (unset or empty), an error when every file it names is missing or one cannot be used.
pub(crate) fn read_list(value: &OsStr) -> Result<Option<Kubeconfig>> {
    let paths: Vec<PathBuf> = std::env::split_paths(value)
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    if paths.is_empty() {
        return Ok(None);
    }
    let mut found = Vec::new();
    for path in &paths {
        match read_file(path) {
            Ok(k) => found.push(k),
            Err(ReadError::Missing { .. }) => {}
            Err(e) => anyhow::bail!(
                "KUBECONFIG={} (fix the file, or leave it out of KUBECONFIG): {e}",
                value.to_string_lossy()
            ),
        }
    }
    if found.is_empty() {
        anyhow::bail!(
            "KUBECONFIG={}: {} (fix or unset KUBECONFIG, or pass --kubeconfig)",
            value.to_string_lossy(),
            if paths.len() == 1 {
                "the file does not exist".to_string()
            } else {
                format!("none of its {} files exists", paths.len())
            }
        );
    }
    Ok(Some(merge(found)))
}

/// Load the kubeconfig as kubectl would: `--kubeconfig` (`explicit`), else the `KUBECONFIG` list
/// (`env`), else `~/.kube/config` (`home`).
pub(crate) fn load(
    explicit: Option<&Path>,
    env: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<Kubeconfig> {
    if let Some(path) = explicit {
        return read_file(path).map_err(|e| match e {
            ReadError::Missing { source, .. } | ReadError::Unreadable { source, .. } => {
                anyhow::anyhow!(
                    "--kubeconfig {}: cannot read it (check the path and the file): {source}",
                    path.display()
                )
            }
            invalid => anyhow::anyhow!("--kubeconfig {invalid}"),
        });
    }
    if let Some(k) = env.map(read_list).transpose()?.flatten() {
        return Ok(k);
    }
    let Some(home) = home else {
        anyhow::bail!(
            "no kubeconfig: KUBECONFIG is not set and there is no home directory (pass --kubeconfig or set KUBECONFIG)"
        );
    };
    let path = home.join(".kube").join("config");
    read_file(&path).map_err(|e| match e {
        ReadError::Missing { .. } | ReadError::Unreadable { .. } => anyhow::anyhow!(
            "no kubeconfig: KUBECONFIG is not set and ~/.kube/config cannot be read (pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config): {e}"
        ),
        invalid => anyhow::anyhow!("{invalid}"),
    })
}

/// A kubeconfig error kube reports as a sentence, with the paths it quotes twice written once.
pub(crate) fn describe(e: &KubeconfigError) -> String {
    let file = |what: &str, e: &LoadDataError| match e {
        LoadDataError::ReadFile(source, path) => {
            format!("cannot read the {what} {}: {source}", path.display())
        }
        other => format!("the {what}: {other}"),
    };
    match e {
        KubeconfigError::ReadConfig(source, path) => {
            format!("cannot read {}: {source}", path.display())
        }
        KubeconfigError::LoadCertificateAuthority(e) => file("certificate authority", e),
        KubeconfigError::LoadClientCertificate(e) => file("client certificate", e),
        KubeconfigError::LoadClientKey(e) => file("client key", e),
        // kubectl's wording.
        KubeconfigError::LoadContext(name) => format!("context \"{name}\" does not exist"),
        KubeconfigError::LoadClusterOfContext(name) => {
            format!("cluster \"{name}\" does not exist")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Kubeconfig {
        Kubeconfig::from_yaml(yaml).unwrap()
    }

    fn context_namespace(k: &Kubeconfig, name: &str) -> Option<String> {
        k.contexts
            .iter()
            .find(|c| c.name == name)?
            .context
            .as_ref()?
            .namespace
            .clone()
    }

    #[test]
    fn the_first_file_wins_each_entry_and_the_current_context() {
        let first = parse(
            "apiVersion: v1\nkind: Config\ncurrent-context: a\n\
             contexts:\n- name: a\n  context: {cluster: c, user: u, namespace: from-first}\n\
             - name: shared\n  context: {cluster: c, user: u, namespace: first}\n\
             clusters:\n- name: c\n  cluster: {server: 'https://first:6443'}\n",
        );
        let second = parse(
            "apiVersion: v2\nkind: Other\ncurrent-context: b\n\
             contexts:\n- name: b\n  context: {cluster: c, user: u}\n\
             - name: shared\n  context: {cluster: c, user: u, namespace: second}\n\
             clusters:\n- name: c\n  cluster: {server: 'https://second:6443'}\n\
             - name: d\n  cluster: {server: 'https://d:6443'}\n\
             users:\n- name: u\n  user: {token: t}\n",
        );
        let merged = merge([first, second]);
        assert_eq!(merged.current_context.as_deref(), Some("a"));
        let contexts: Vec<_> = merged.contexts.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(contexts, ["a", "shared", "b"]);
        assert_eq!(
            context_namespace(&merged, "shared").as_deref(),
            Some("first")
        );
        let servers: Vec<_> = merged
            .clusters
            .iter()
            .map(|c| c.cluster.as_ref().unwrap().server.clone().unwrap())
            .collect();
        assert_eq!(servers, ["https://first:6443", "https://d:6443"]);
        assert_eq!(merged.auth_infos.len(), 1);
        // client-go never compares kind or apiVersion: the first wins.
        assert_eq!(merged.api_version.as_deref(), Some("v1"));
    }

    #[test]
    fn an_empty_current_context_does_not_win() {
        let first = parse("current-context: ''\n");
        let second = parse("current-context: b\n");
        assert_eq!(merge([first, second]).current_context.as_deref(), Some("b"));
    }

    #[test]
    fn a_missing_file_is_named_once_without_quotes() {
        let e = Kubeconfig::read_from("/nonexistent/kubectl-arc/config").unwrap_err();
        let ours = describe(&e);
        assert_eq!(
            ours,
            "cannot read /nonexistent/kubectl-arc/config: No such file or directory (os error 2)"
        );
        let ours = read_file(Path::new("/nonexistent/kubectl-arc/config")).unwrap_err();
        assert!(matches!(ours, ReadError::Missing { .. }));
        assert!(!ours.to_string().contains('"'), "{ours}");
    }
}
