//! How a command writes, as a plain parameter every layer can name: the cluster layer obeys it,
//! the reports carry it, the command line reads it.
//!
//! Pure core. Mirrors kubectl's `cmdutil.DryRunStrategy` (k8s.io/kubectl/pkg/cmd/util/helpers.go:
//! `DryRunNone`, `DryRunClient`, `DryRunServer`, read from `--dry-run`), the server's half of which
//! is the API server's `dryRun=All` (`metav1.PatchOptions.DryRun`), as kube-core's `params.rs`
//! holds the request parameters below the client.

use serde::Serialize;

/// How a command writes: for real, not at all, or through the API server's dry run. Serialized
/// as the flag spells it (`dryRun` in the bump and migrate reports: `none`, `client`, `server`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DryRun {
    /// Write.
    #[default]
    None,
    /// Decide and report, send nothing.
    Client,
    /// Send with `dryRun=All`: the API server validates and answers, and persists nothing.
    Server,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialized_as_the_flag_spells_it() {
        let spelled: Vec<String> = [DryRun::None, DryRun::Client, DryRun::Server]
            .iter()
            .map(|d| serde_json::to_string(d).unwrap())
            .collect();
        assert_eq!(spelled, [r#""none""#, r#""client""#, r#""server""#]);
        assert_eq!(DryRun::default(), DryRun::None);
    }
}
