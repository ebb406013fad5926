//! A fault-injecting proxy on 127.0.0.1 in front of the real API server, for tests.
//!
//! Clients speak plain HTTP to the proxy (a kubeconfig with `server: http://127.0.0.1:PORT`); the
//! proxy forwards each request to the test bed's API server as the admin user and, when a rule
//! matches, answers with a fault instead: a status code (429, 500, 503), a delay longer than the
//! client's timeout, a response cut in the middle of its body, a write forwarded but its answer
//! dropped (the write landed, the client does not know), a watch stream cut after a while, a watch
//! whose history is gone (410, before or inside the stream), or a refused connection (as during an
//! API-server restart). Every injected fault is counted. Responses stream through unbuffered, so
//! watches work through the proxy.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// What to do instead of (or around) forwarding.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this status and a Kubernetes Status body; nothing is forwarded.
    Status(u16),
    /// Wait this long, then forward.
    Delay(Duration),
    /// Forward, then send only the first half of the body and cut the connection.
    CutBody,
    /// Forward (the server applies it), then drop the connection without answering.
    DropAnswer,
    /// Forward and stream the answer (a watch) for this long, then cut the connection.
    CutStream(Duration),
    /// Answer a watch with 200 and one in-stream `ERROR` event carrying a 410 Expired Status, as
    /// the API server does when the requested resourceVersion has been compacted away; nothing is
    /// forwarded.
    WatchGone,
}

/// A rule: requests whose method and path match get `fault`, `times` times (then pass through).
#[derive(Debug, Clone)]
pub struct Rule {
    pub method: Option<&'static str>,
    /// Substrings of the path and query, separated by `*`: all must occur.
    pub path_contains: String,
    pub fault: Fault,
    pub times: usize,
}

type Upstream = BoxedResult;
type BoxedResult = Result<Response<BoxBody>, Infallible>;
type BoxBody = http_body_util::combinators::UnsyncBoxBody<Bytes, std::io::Error>;

/// A running proxy.
pub struct FaultProxy {
    pub port: u16,
    restart: tokio::sync::watch::Sender<u64>,
    rules: Arc<Mutex<Vec<Rule>>>,
    refusing: Arc<AtomicBool>,
    injected: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
    cuts: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<String>>>,
    dir: PathBuf,
}

impl FaultProxy {
    /// Start a proxy in front of the API server of `admin_kubeconfig`.
    pub async fn start(admin_kubeconfig: &std::path::Path) -> FaultProxy {
        let upstream = super::client(&admin_kubeconfig.to_path_buf()).await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let rules: Arc<Mutex<Vec<Rule>>> = Arc::default();
        let refusing = Arc::new(AtomicBool::new(false));
        let injected = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(AtomicUsize::new(0));
        let cuts = Arc::new(AtomicUsize::new(0));
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, f, inj, reqs) = (
            rules.clone(),
            refusing.clone(),
            injected.clone(),
            requests.clone(),
        );
        let (c, l) = (cuts.clone(), log.clone());
        let (restart_tx, restart_rx) = tokio::sync::watch::channel(0u64);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                if f.load(Ordering::SeqCst) {
                    // As during a restart: the connection is dropped at once.
                    inj.fetch_add(1, Ordering::SeqCst);
                    drop(stream);
                    continue;
                }
                let (upstream, rules, inj, reqs) =
                    (upstream.clone(), r.clone(), inj.clone(), reqs.clone());
                let (cuts, log) = (c.clone(), l.clone());
                let mut restarted = restart_rx.clone();
                // Only restarts after this connection was accepted close it.
                restarted.borrow_and_update();
                tokio::spawn(async move {
                    let svc = service_fn(move |req| {
                        handle(
                            req,
                            upstream.clone(),
                            rules.clone(),
                            Counters {
                                injected: inj.clone(),
                                requests: reqs.clone(),
                                cuts: cuts.clone(),
                                log: log.clone(),
                            },
                        )
                    });
                    let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), svc);
                    // A restart closes every open connection, kept-alive ones included.
                    tokio::select! {
                        _ = conn => {}
                        _ = restarted.changed() => {}
                    }
                });
            }
        });
        let dir = std::env::temp_dir().join(super::unique_name("arc-proxy"));
        std::fs::create_dir_all(&dir).unwrap();
        FaultProxy {
            port,
            restart: restart_tx,
            rules,
            refusing,
            injected,
            requests,
            cuts,
            log,
            dir,
        }
    }

    /// A kubeconfig that reaches the API server through this proxy.
    pub fn kubeconfig(&self, namespace: &str) -> PathBuf {
        let path = self.dir.join("kubeconfig");
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster: {{server: \"http://127.0.0.1:{}\"}}\n\
                 users:\n- name: u\n  user: {{}}\ncontexts:\n- name: proxy\n  context: {{cluster: proxy, user: u, namespace: {namespace}}}\n\
                 current-context: proxy\n",
                self.port
            ),
        )
        .unwrap();
        path
    }

    pub fn add(&self, rule: Rule) {
        self.rules.lock().unwrap().push(rule);
    }

    pub fn clear(&self) {
        self.rules.lock().unwrap().clear();
    }

    /// As an API-server restart: close every open connection, and refuse (drop) every new one
    /// until [`FaultProxy::resume`].
    pub fn refuse(&self) {
        self.refusing.store(true, Ordering::SeqCst);
        self.restart.send_modify(|n| *n += 1);
    }

    pub fn resume(&self) {
        self.refusing.store(false, Ordering::SeqCst);
    }

    /// Faults injected so far.
    pub fn injected(&self) -> usize {
        self.injected.load(Ordering::SeqCst)
    }

    /// Requests seen so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// Streams cut so far by [`Fault::CutStream`] (counted when the cut happens, not when the
    /// request arrives).
    pub fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }

    /// Every request so far, as `METHOD path?query`, in arrival order.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

/// What the handler records.
#[derive(Clone)]
struct Counters {
    injected: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
    cuts: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<String>>>,
}

fn full(bytes: impl Into<Bytes>) -> BoxBody {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

fn status_body(code: u16) -> Response<BoxBody> {
    let body = format!(
        r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected fault {code}","reason":"InjectedFault","code":{code}}}"#
    );
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(full(body))
        .unwrap()
}

/// The answer to a watch whose resourceVersion is too old.
fn watch_gone() -> Response<BoxBody> {
    let event = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected: too old resource version","reason":"Expired","code":410}}"#;
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(full(format!("{event}\n")))
        .unwrap()
}

async fn handle(
    req: Request<Incoming>,
    upstream: kube::Client,
    rules: Arc<Mutex<Vec<Rule>>>,
    counters: Counters,
) -> Upstream {
    let Counters {
        injected,
        requests,
        cuts,
        log,
    } = counters;
    requests.fetch_add(1, Ordering::SeqCst);
    let target = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    log.lock()
        .unwrap()
        .push(format!("{} {target}", req.method()));
    let fault = {
        let mut rules = rules.lock().unwrap();
        let found = rules.iter_mut().find(|r| {
            r.times > 0
                && r.method.is_none_or(|m| m == req.method().as_str())
                && r.path_contains.split('*').all(|p| target.contains(p))
        });
        found.map(|r| {
            r.times -= 1;
            r.fault.clone()
        })
    };
    if fault.is_some() {
        injected.fetch_add(1, Ordering::SeqCst);
    }
    if let Some(Fault::Status(code)) = fault {
        return Ok(status_body(code));
    }
    if let Some(Fault::WatchGone) = fault {
        return Ok(watch_gone());
    }
    if let Some(Fault::Delay(d)) = &fault {
        tokio::time::sleep(*d).await;
    }
    // Forward.
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let mut out = http::Request::builder().method(parts.method).uri(target);
    for (k, v) in parts.headers.iter() {
        if k != "host" && k != "authorization" {
            out = out.header(k, v);
        }
    }
    let out = out.body(kube::client::Body::from(body.to_vec())).unwrap();
    let resp = match upstream.send(out).await {
        Ok(r) => r,
        Err(e) => {
            return Ok(Response::builder()
                .status(StatusCode::BAD_GATEWAY)
                .body(full(format!("proxy: {e}")))
                .unwrap());
        }
    };
    let (mut parts, body) = resp.into_parts();
    parts.headers.remove("transfer-encoding");
    match fault {
        Some(Fault::CutStream(after)) => {
            // Pass the stream through until `after`, then fail it (the connection is cut).
            parts.headers.remove("content-length");
            let deadline = tokio::time::Instant::now() + after;
            let frames = futures::stream::unfold(Some(body), move |body| {
                let cuts = cuts.clone();
                async move {
                    let mut body = body?;
                    tokio::select! {
                        frame = body.frame() => match frame? {
                            Ok(f) => Some((Ok(f), Some(body))),
                            Err(e) => Some((Err(std::io::Error::other(e)), None)),
                        },
                        _ = tokio::time::sleep_until(deadline) => {
                            cuts.fetch_add(1, Ordering::SeqCst);
                            Some((Err(std::io::Error::other("injected: stream cut")), None))
                        }
                    }
                }
            });
            return Ok(Response::from_parts(
                parts,
                BodyExt::boxed_unsync(StreamBody::new(frames)),
            ));
        }
        Some(Fault::DropAnswer) | Some(Fault::CutBody) => {}
        _ => {
            // Pass through as it streams (watches never end on their own).
            return Ok(Response::from_parts(
                parts,
                BodyExt::boxed_unsync(body.map_err(std::io::Error::other)),
            ));
        }
    }
    let bytes = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    match fault {
        Some(Fault::DropAnswer) => {
            // The server applied the request; the client gets a broken connection.
            let stream = futures::stream::iter(vec![Err::<Frame<Bytes>, _>(
                std::io::Error::other("injected: answer dropped"),
            )]);
            Ok(Response::from_parts(
                parts,
                BodyExt::boxed_unsync(StreamBody::new(stream)),
            ))
        }
        Some(Fault::CutBody) => {
            let half = bytes.slice(..bytes.len() / 2);
            let stream = futures::stream::iter(vec![
                Ok(Frame::data(half)),
                Err(std::io::Error::other("injected: connection cut")),
            ]);
            parts.headers.remove("content-length");
            Ok(Response::from_parts(
                parts,
                BodyExt::boxed_unsync(StreamBody::new(stream)),
            ))
        }
        _ => Ok(Response::from_parts(parts, full(bytes))),
    }
}
