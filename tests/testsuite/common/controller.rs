//! A (fake) ARC controller Deployment for a test, and the lock that keeps it from the others.
//!
//! migrate refuses while a controller Deployment runs anywhere in the cluster, diff reads the
//! release of the one it finds, and status shows it and checks its CRDs: all list Deployments
//! cluster-wide, by the chart's labels, so a
//! controller one test makes would change what every other test's migrate or diff does meanwhile.
//! The tests that run a command against a cluster hold [`shared`] for the run ([`super::cli`] takes
//! it for every command that lists Deployments); a test that makes a controller holds the lock
//! alone for as long as its [`ControllerDeployment`] exists, and the Deployment is deleted when that
//! guard drops, a failing test's unwinding included.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DeleteParams, PostParams};

static CONTROLLERS: RwLock<()> = RwLock::new(());

thread_local! {
    /// Whether this thread holds [`CONTROLLERS`] alone (its own commands need no shared hold).
    static HOLDS_ALONE: Cell<bool> = const { Cell::new(false) };
}

/// Whether a command with these arguments lists Deployments cluster-wide (migrate's preflight,
/// diff's release, status's controller, bump's update strategy, repair's controller): such a run must not meet another
/// test's controller.
pub fn lists_deployments(args: &[&str]) -> bool {
    args.iter().find(|a| !a.starts_with('-')).is_some_and(|c| {
        matches!(
            *c,
            "migrate" | "diff" | "status" | "bump" | "upgrade-plan" | "repair"
        )
    })
}

/// Hold the lock shared (no test's controller exists meanwhile); `None` on the thread of the test
/// that holds it alone (its commands are meant to meet its controller).
pub fn shared() -> Option<RwLockReadGuard<'static, ()>> {
    if HOLDS_ALONE.with(Cell::get) {
        return None;
    }
    Some(CONTROLLERS.read().unwrap_or_else(|e| e.into_inner()))
}

/// A controller Deployment that exists while this guard does, and the lock held alone meanwhile.
/// Commands of the test must run on the thread that made it (`cli::exe`, not its `_async` forms).
pub struct ControllerDeployment {
    kubeconfig: PathBuf,
    namespace: String,
    pub name: String,
    _alone: RwLockWriteGuard<'static, ()>,
}

impl ControllerDeployment {
    /// Wait until no other test runs a command that lists Deployments, then create `deploy` in
    /// `namespace` of the cluster of `kubeconfig`.
    pub async fn create(
        kubeconfig: &Path,
        client: &kube::Client,
        namespace: &str,
        deploy: &Deployment,
    ) -> Self {
        let alone = CONTROLLERS.write().unwrap_or_else(|e| e.into_inner());
        HOLDS_ALONE.with(|h| h.set(true));
        let guard = ControllerDeployment {
            kubeconfig: kubeconfig.to_path_buf(),
            namespace: namespace.to_string(),
            name: deploy.metadata.name.clone().expect("a named Deployment"),
            _alone: alone,
        };
        Api::<Deployment>::namespaced(client.clone(), namespace)
            .create(&PostParams::default(), deploy)
            .await
            .expect("create the controller Deployment");
        guard
    }

    pub fn api(&self, client: &kube::Client) -> Api<Deployment> {
        Api::namespaced(client.clone(), &self.namespace)
    }
}

impl Drop for ControllerDeployment {
    /// Delete the Deployment (gone already is fine) before the lock is released. On a thread of its
    /// own with its own runtime: a drop cannot await, and a failing test's runtime may be unwinding.
    fn drop(&mut self) {
        let (kubeconfig, namespace, name) = (
            self.kubeconfig.clone(),
            self.namespace.clone(),
            self.name.clone(),
        );
        let deleted = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            rt.block_on(async {
                let client = super::client(&kubeconfig).await;
                let api = Api::<Deployment>::namespaced(client, &namespace);
                match api.delete(&name, &DeleteParams::background()).await {
                    Ok(_) => Ok(()),
                    Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
                    Err(e) => Err(format!("{namespace}/{name}: {e}")),
                }
            })
        })
        .join();
        HOLDS_ALONE.with(|h| h.set(false));
        match deleted {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("warning: cannot delete the controller Deployment {e}"),
            Err(_) => eprintln!("warning: deleting the controller Deployment panicked"),
        }
    }
}
