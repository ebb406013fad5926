//! A kube-apiserver process of the test's own, for real restarts.
//!
//! It serves the revision API server's storage (the test bed's etcd, the same prefix), so the two
//! are replicas of one control plane, as in a highly available cluster: objects written through
//! one are read through the other. A test points kubectl-arc at the replica, kills it with SIGKILL
//! (a crash: open connections die, new ones are refused) and starts it again on the same port,
//! while checking the objects through the test bed's own API server. The binary, etcd and the
//! certificates are the test bed's (`scripts/testbed.sh up` exports where they are).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::env_path;

pub struct Replica {
    port: u16,
    args: Vec<String>,
    bin: PathBuf,
    log: PathBuf,
    child: Option<Child>,
    /// A kubeconfig of the admin user that reaches this replica.
    pub kubeconfig: PathBuf,
    /// How many times it was started.
    pub starts: usize,
}

impl Replica {
    /// Start a replica of the revision API server on a free port and wait until it is ready.
    pub async fn start() -> Replica {
        Replica::start_with_prefix("/revision").await
    }

    /// Start an API server of its own on empty storage (a fresh etcd prefix): a cluster where
    /// none of ARC's CRDs is installed.
    pub async fn start_empty() -> Replica {
        Replica::start_with_prefix(&format!("/{}", super::unique_name("empty"))).await
    }

    async fn start_with_prefix(prefix: &str) -> Replica {
        let testbed = env_path("KUBECTL_ARC_TESTBED");
        let bin = env_path("KUBECTL_ARC_TEST_APISERVER_BIN");
        let etcd = std::env::var("KUBECTL_ARC_TEST_ETCD").expect(
            "KUBECTL_ARC_TEST_ETCD is not set: start the test bed with scripts/testbed.sh up",
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(super::unique_name("arc-replica"));
        std::fs::create_dir_all(&dir).unwrap();
        let pki = testbed.join("pki");
        let p = |f: &str| pki.join(f).to_str().unwrap().to_string();
        // The flags of the test bed's revision API server (scripts/testbed.sh start_apiserver).
        let args = vec![
            format!("--etcd-servers={etcd}"),
            format!("--etcd-prefix={prefix}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            format!("--secure-port={port}"),
            format!("--tls-cert-file={}", p("server.crt")),
            format!("--tls-private-key-file={}", p("server.key")),
            format!("--client-ca-file={}", p("ca.crt")),
            "--authorization-mode=RBAC".into(),
            "--service-account-issuer=https://kubernetes.default.svc".into(),
            format!("--service-account-key-file={}", p("sa.pub")),
            format!("--service-account-signing-key-file={}", p("sa.key")),
            "--service-cluster-ip-range=10.96.0.0/24".into(),
            "--endpoint-reconciler-type=none".into(),
            format!("--cert-dir={}", dir.join("certs").display()),
            "--profiling=false".into(),
        ];
        let admin = std::fs::read_to_string(testbed.join("revision-admin.kubeconfig")).unwrap();
        let url = std::fs::read_to_string(testbed.join("revision.url")).unwrap();
        let kubeconfig = dir.join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            admin.replace(url.trim(), &format!("https://127.0.0.1:{port}")),
        )
        .unwrap();
        let mut replica = Replica {
            port,
            args,
            bin,
            log: dir.join("kube-apiserver.log"),
            child: None,
            kubeconfig,
            starts: 0,
        };
        replica.restart().await;
        replica
    }

    /// SIGKILL, as a crash; waits until the process is gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start the process again on the same port and wait until it is ready (`/readyz`).
    pub async fn restart(&mut self) {
        self.kill();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new(&self.bin)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.bin.display()));
        self.child = Some(child);
        self.starts += 1;
        let client = super::client(&self.kubeconfig).await;
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!(
                    "the replica API server on port {} exited during start ({status}):\n{}",
                    self.port,
                    self.log_tail()
                );
            }
            let req = http::Request::get("/readyz").body(Vec::new()).unwrap();
            if client
                .request_text(req)
                .await
                .is_ok_and(|t| t.trim() == "ok")
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the replica API server on port {} was not ready after 120 s:\n{}",
                self.port,
                self.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}
