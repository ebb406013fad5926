//! `kubectl arc version`: kubectl-arc's version, the ARC resources it understands and the
//! k8s.io/api layouts it ships and what it was built from, as five lines or (`-o json|yaml`) the same fields in a stable
//! shape, `clientVersion` as in `kubectl version -o json`.
//!
//! Command layer; reads nothing (no kubeconfig, no cluster), so it takes none of kubectl's global
//! flags.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::EXIT_OK;
use crate::core::arc;
use crate::core::layout::Layout;
use crate::core::release::{self, Mechanism};

#[derive(Debug, Args)]
#[command(
    long_about = "Print kubectl-arc's version, the ARC resources it understands and the k8s.io/api \
type layouts it can compare with.\n\n\
Reads nothing (no kubeconfig, no cluster); writes five lines to stdout, or with -o json|yaml the \
same fields as a Version object (clientVersion: version, arc with the ARC releases known, layouts, \
defaultLayout, and what the binary was built from: commit, target, profile, rustc).",
    after_help = "Examples:\n  \
kubectl arc version\n\n  \
# For scripts\n  \
kubectl arc version -o json | jq -r .clientVersion.version"
)]
pub(crate) struct VersionArgs {
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = VersionOutput::Text)]
    pub(crate) output: VersionOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum VersionOutput {
    Text,
    Json,
    Yaml,
}

/// What `-o json|yaml` writes. The fields are the text's, and only ever added to.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VersionReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) client_version: ClientVersion,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClientVersion {
    /// kubectl-arc's version (the crate's).
    pub(crate) version: &'static str,
    pub(crate) arc: ArcResources,
    /// The shipped k8s.io/api layouts, ARC's pin first.
    pub(crate) layouts: Vec<&'static str>,
    /// The layout used without `--layout`: ARC's pin.
    pub(crate) default_layout: &'static str,
    /// The git commit built from (`build.rs`: git's, else the release workflow's
    /// `KUBECTL_ARC_COMMIT`, else `unknown`).
    pub(crate) commit: &'static str,
    /// The target triple built for (`x86_64-unknown-linux-musl`).
    pub(crate) target: &'static str,
    /// Cargo's profile (`release`, `debug`).
    pub(crate) profile: &'static str,
    /// The compiler (`rustc -V`).
    pub(crate) rustc: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArcResources {
    /// actions-runner-controller's mode.
    pub(crate) mode: &'static str,
    pub(crate) api_version: &'static str,
    /// The runner-spec eras understood.
    pub(crate) eras: [&'static str; 2],
    /// The ARC releases known, oldest first, each with what makes it recycle runners and the
    /// k8s.io/api it pins.
    pub(crate) releases: Vec<KnownRelease>,
}

/// One released ARC in `arc.releases` (`core::release::releases()`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KnownRelease {
    /// The gha-runner-scale-set release: `0.14.2`.
    pub(crate) version: &'static str,
    /// What decides that it recycles runners: `RunnerSpecHash` for every release so far.
    pub(crate) mechanism: Mechanism,
    /// The k8s.io/api its go.mod pins (the layout its hashes are computed over).
    pub(crate) k8s_api: &'static str,
}

/// Every ARC release the core knows, oldest first.
fn known_releases() -> Vec<KnownRelease> {
    release::releases()
        .iter()
        .map(|r| KnownRelease {
            version: r.version,
            mechanism: r.mechanism,
            k8s_api: r.k8s_api,
        })
        .collect()
}

impl VersionReport {
    pub(crate) fn new() -> VersionReport {
        let layouts: Vec<&'static str> = Layout::shipped_versions().collect();
        VersionReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "Version",
            client_version: ClientVersion {
                version: env!("CARGO_PKG_VERSION"),
                arc: ArcResources {
                    mode: "scale-set",
                    api_version: arc::API_VERSION,
                    eras: ["integrity-hash", "actionable-revision"],
                    releases: known_releases(),
                },
                default_layout: layouts[0],
                layouts,
                commit: env!("KUBECTL_ARC_BUILD_COMMIT"),
                target: env!("KUBECTL_ARC_BUILD_TARGET"),
                profile: env!("KUBECTL_ARC_BUILD_PROFILE"),
                rustc: env!("KUBECTL_ARC_BUILD_RUSTC"),
            },
        }
    }
}

impl Default for VersionReport {
    fn default() -> Self {
        Self::new()
    }
}

pub(crate) fn run(args: VersionArgs, out: &mut dyn Write) -> Result<u8> {
    let report = VersionReport::new();
    match args.output {
        VersionOutput::Text => {
            let v = &report.client_version;
            writeln!(out, "kubectl-arc {}", v.version)?;
            writeln!(
                out,
                "ARC: actions-runner-controller {} mode, {}",
                v.arc.mode, v.arc.api_version
            )?;
            let (first, last) = (v.arc.releases.first(), v.arc.releases.last());
            if let (Some(first), Some(last)) = (first, last) {
                writeln!(
                    out,
                    "ARC releases: {} to {} ({} releases), each judged by its own runner-spec hash",
                    first.version,
                    last.version,
                    v.arc.releases.len()
                )?;
            }
            writeln!(
                out,
                "ARC's master: the {} and {} eras, on k8s.io/api layouts {} (default {}, ARC's pin)",
                v.arc.eras[0],
                v.arc.eras[1],
                v.layouts.join(", "),
                v.default_layout
            )?;
            let commit = v.commit.get(..12).unwrap_or(v.commit);
            writeln!(
                out,
                "Built from {commit} for {} ({}, {})",
                v.target, v.profile, v.rustc
            )?;
        }
        VersionOutput::Json => {
            serde_json::to_writer_pretty(&mut *out, &report)?;
            writeln!(out)?;
        }
        VersionOutput::Yaml => write!(out, "{}", crate::render::emit::to_yaml(&report)?)?,
    }
    Ok(EXIT_OK)
}
