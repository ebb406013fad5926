//! Cluster layer: the only place that talks to a Kubernetes API server (kube-rs).
//!
//! Commands hand it a [`ConnectOptions`] built from kubectl's global flags; it hands back a client
//! and the namespace the context defaults to.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// What kubectl's global flags say about how to reach the cluster.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig`: one file. When absent, `KUBECONFIG` (several files, merged like kubectl) or
    /// `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`
    pub context: Option<String>,
    /// `--cluster`
    pub cluster: Option<String>,
    /// `--user`
    pub user: Option<String>,
    /// `--as`
    pub impersonate: Option<String>,
    /// `--as-group` (repeatable)
    pub impersonate_groups: Vec<String>,
    /// `--request-timeout`: bounds each request (connect, write and read). `None`: no limit.
    pub request_timeout: Option<Duration>,
}

/// A connected client and the context's default namespace.
pub struct Connection {
    pub client: Client,
    pub default_namespace: String,
}

/// Load the kubeconfig as kubectl would and build a client from it.
pub async fn connect(opts: &ConnectOptions) -> Result<Connection> {
    let kubeconfig = match &opts.kubeconfig {
        Some(path) => Kubeconfig::read_from(path)
            .with_context(|| format!("cannot read kubeconfig {}", path.display()))?,
        None => match Kubeconfig::from_env().context("cannot read the files in KUBECONFIG")? {
            Some(k) => k,
            None => Kubeconfig::read().context(
                "no kubeconfig: set --kubeconfig or KUBECONFIG, or create ~/.kube/config",
            )?,
        },
    };
    let options = KubeConfigOptions {
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        user: opts.user.clone(),
    };
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .context("cannot use the kubeconfig")?;
    if let Some(user) = &opts.impersonate {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !opts.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(opts.impersonate_groups.clone());
    }
    if let Some(t) = opts.request_timeout {
        config.connect_timeout = Some(t);
        config.read_timeout = Some(t);
        config.write_timeout = Some(t);
        config.reset_reader_on_write = true;
    }
    let default_namespace = config.default_namespace.clone();
    let client = Client::try_from(config).context("cannot build a Kubernetes client")?;
    Ok(Connection {
        client,
        default_namespace,
    })
}
