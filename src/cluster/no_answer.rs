//! `--request-timeout` for a server that does not answer at all: from a client's first request
//! that met no answer (a refused connection, a timeout), its requests may keep trying for the
//! timeout and no longer, over however many reads the command makes.
//!
//! Cluster layer: a tower layer around kube's client stack (beside `http_log.rs`), added by
//! [`super::connect`] when `--request-timeout` is given. Every failure it sees is one without an
//! answer (an answer, even a 5xx, is a response at this level). It marks each such failure with
//! the instant its client's time is up ([`NoAnswer`]), so the read retries (`retry.rs`) do not
//! sleep past it: past that instant each read tries once. An answer starts the count afresh (a
//! `--watch` that outlives an outage keeps reconnecting: every request is still dialled). kubectl gives the same bound per request (client-go's
//! `Timeout`); a dead cluster in a fleet then costs the timeout, not five tries of every read.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http::{Request, Response};
use kube::client::Body;
use tokio::time::Instant;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A request that met no answer, and when its client stops retrying.
#[derive(Debug)]
pub(crate) struct NoAnswer {
    /// The first failure without an answer (since the last answer) plus `--request-timeout`.
    pub(crate) give_up_at: Instant,
    /// The transport's error.
    cause: BoxError,
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The transport's own words ("client error (Connect)"), its causes in `source`: the
        // messages read as without the layer.
        write!(f, "{}", self.cause)
    }
}

impl std::error::Error for NoAnswer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.source()
    }
}

/// When the first failure without an answer since the last answer came.
type Since = Arc<Mutex<Option<Instant>>>;

/// Bounds a client's requests without an answer by `budget` from the first.
#[derive(Debug, Clone)]
pub(crate) struct NoAnswerLayer {
    budget: Duration,
}

impl NoAnswerLayer {
    pub(crate) fn new(budget: Duration) -> NoAnswerLayer {
        NoAnswerLayer { budget }
    }
}

impl<S> tower::Layer<S> for NoAnswerLayer {
    type Service = NoAnswerService<S>;

    fn layer(&self, inner: S) -> NoAnswerService<S> {
        NoAnswerService {
            inner,
            budget: self.budget,
            since: Since::default(),
        }
    }
}

/// The service [`NoAnswerLayer`] makes.
#[derive(Debug, Clone)]
pub(crate) struct NoAnswerService<S> {
    inner: S,
    budget: Duration,
    since: Since,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower::Service<Request<Body>> for NoAnswerService<S>
where
    S: tower::Service<Request<Body>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<S::Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let budget = self.budget;
        let since = Arc::clone(&self.since);
        let answer = self.inner.call(request);
        Box::pin(async move {
            match answer.await {
                Ok(response) => {
                    if let Ok(mut s) = since.lock() {
                        *s = None;
                    }
                    Ok(response)
                }
                Err(e) => {
                    let at = match since.lock() {
                        Ok(mut s) => *s.get_or_insert_with(Instant::now),
                        Err(_) => Instant::now(),
                    };
                    Err(Box::new(NoAnswer {
                        give_up_at: at + budget,
                        cause: e.into(),
                    }) as BoxError)
                }
            }
        })
    }
}

/// When the client of a failed request stops trying (`None`: it got an answer, or no
/// `--request-timeout` was given).
pub(crate) fn give_up_at(err: &kube::Error) -> Option<Instant> {
    match err {
        kube::Error::Service(e) => e.downcast_ref::<NoAnswer>().map(|n| n.give_up_at),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tower::{Layer as _, Service as _};

    /// A server that answers the requests whose number `answers` holds (from 0), and refuses
    /// the connection to the others.
    #[derive(Clone)]
    struct Flaky {
        calls: Arc<AtomicUsize>,
        answers: &'static [usize],
    }

    impl tower::Service<Request<Body>> for Flaky {
        type Response = Response<()>;
        type Error = BoxError;
        type Future = BoxFuture<Result<Response<()>, BoxError>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: Request<Body>) -> Self::Future {
            let n = self.calls.fetch_add(1, Ordering::SeqCst);
            let answered = self.answers.contains(&n);
            Box::pin(async move {
                if answered {
                    Ok(Response::new(()))
                } else {
                    Err(Box::new(std::io::Error::new(
                        std::io::ErrorKind::ConnectionRefused,
                        "tcp connect error: Connection refused (os error 111)",
                    )) as BoxError)
                }
            })
        }
    }

    fn get() -> Request<Body> {
        Request::get("/api").body(Body::empty()).unwrap()
    }

    fn give_up(e: &BoxError) -> Instant {
        e.downcast_ref::<NoAnswer>().unwrap().give_up_at
    }

    /// Issue 23: every request of a client counts against one `--request-timeout` from its
    /// first failure without an answer (the retries stop there); an answer resets the count.
    #[tokio::test(start_paused = true)]
    async fn requests_without_an_answer_count_from_the_first() {
        let calls = Arc::new(AtomicUsize::new(0));
        let flaky = Flaky {
            calls: Arc::clone(&calls),
            answers: &[3],
        };
        let mut svc = NoAnswerLayer::new(Duration::from_secs(1)).layer(flaky);
        let start = Instant::now();
        let e = svc.call(get()).await.unwrap_err();
        assert_eq!(give_up(&e), start + Duration::from_secs(1));
        assert_eq!(
            e.to_string(),
            "tcp connect error: Connection refused (os error 111)"
        );
        tokio::time::advance(Duration::from_millis(600)).await;
        let e = svc.call(get()).await.unwrap_err();
        assert_eq!(give_up(&e), start + Duration::from_secs(1));
        // Past the time: still dialled (a watch reconnects), the same instant.
        tokio::time::advance(Duration::from_millis(900)).await;
        let e = svc.call(get()).await.unwrap_err();
        assert_eq!(give_up(&e), start + Duration::from_secs(1));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        // An answer; the next failure counts afresh.
        assert!(svc.call(get()).await.is_ok());
        let e = svc.call(get()).await.unwrap_err();
        assert_eq!(give_up(&e), Instant::now() + Duration::from_secs(1));
    }
}
