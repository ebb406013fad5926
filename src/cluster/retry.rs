//! Bounded retries for reads, the way kubectl's client treats transient failures.
//!
//! Cluster layer. kube's built-in retry layer (up to 15 attempts with delays growing towards 1000s)
//! is turned off in [`super::connect`]; reads go through [`read_with_retry`] instead: at most
//! [`ReadRetry::attempts`] tries on 429, 5xx and transport failures (a refused or cut connection:
//! [`super::ApiErrorKind::Transient`]), with doubling delays, a server's `retryAfterSeconds`
//! honoured up to a cap. Writes are retried only by the write guard, which re-reads first (see
//! `write.rs`). With `--request-timeout T`, a read that met no answer (a refused connection, a
//! timeout) is not retried past `T` from its client's first such failure
//! ([`super::no_answer`]): a dead cluster costs the timeout the user chose, not the whole backoff
//! of every read.

use std::future::Future;
use std::time::Duration;

/// How reads retry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadRetry {
    pub(crate) attempts: u32,
    pub(crate) initial: Duration,
    pub(crate) max_delay: Duration,
}

impl Default for ReadRetry {
    fn default() -> Self {
        ReadRetry {
            attempts: 5,
            initial: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
        }
    }
}

/// Whether a failed read may succeed when tried again: 429, 5xx, or no answer.
fn transient(err: &kube::Error) -> bool {
    super::ApiErrorKind::of(err) == super::ApiErrorKind::Transient
}

fn server_delay(err: &kube::Error) -> Option<Duration> {
    match err {
        kube::Error::Api(s) => s
            .details
            .as_ref()
            .map(|d| d.retry_after_seconds)
            .filter(|&secs| secs > 0)
            .map(|secs| Duration::from_secs(u64::from(secs))),
        _ => None,
    }
}

/// Run `read` until it succeeds, fails for good, or the attempts are used up.
pub(crate) async fn read_with_retry<T, F, Fut>(
    policy: ReadRetry,
    mut read: F,
) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let mut delay = policy.initial;
    let mut attempt = 1;
    loop {
        match read().await {
            Ok(v) => return Ok(v),
            Err(e) if attempt < policy.attempts && transient(&e) => {
                let wait = server_delay(&e).unwrap_or(delay).min(policy.max_delay);
                if let Some(at) = super::no_answer::give_up_at(&e)
                    && tokio::time::Instant::now() + wait > at
                {
                    tracing::warn!(attempt, "no answer within --request-timeout: {e}");
                    return Err(e);
                }
                tracing::warn!(attempt, ?wait, "transient failure, retrying the read: {e}");
                tokio::time::sleep(wait).await;
                delay = (delay * 2).min(policy.max_delay);
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn status(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            ..Default::default()
        }))
    }

    #[tokio::test(start_paused = true)]
    async fn retries_transient_failures_a_bounded_number_of_times() {
        let calls = Cell::new(0);
        let r: Result<(), _> = read_with_retry(ReadRetry::default(), || {
            calls.set(calls.get() + 1);
            async { Err(status(503)) }
        })
        .await;
        assert!(r.is_err());
        assert_eq!(calls.get(), 5);

        let calls = Cell::new(0);
        let r = read_with_retry(ReadRetry::default(), || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move { if n < 3 { Err(status(429)) } else { Ok(n) } }
        })
        .await;
        assert_eq!(r.unwrap(), 3);

        let calls = Cell::new(0);
        let r: Result<(), _> = read_with_retry(ReadRetry::default(), || {
            calls.set(calls.get() + 1);
            async { Err(status(403)) }
        })
        .await;
        assert!(r.is_err());
        assert_eq!(calls.get(), 1, "a 403 is final");
    }

    /// A refused connection, through a client with `--request-timeout`: it gives up at
    /// `give_up_at`.
    fn refused_until(give_up_at: tokio::time::Instant) -> kube::Error {
        use tower::{Layer as _, Service as _};
        let svc = tower::service_fn(|_: http::Request<kube::client::Body>| async {
            Err::<http::Response<()>, _>(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "tcp connect error: Connection refused (os error 111)",
            ))
        });
        let budget = give_up_at - tokio::time::Instant::now();
        let mut svc = super::super::no_answer::NoAnswerLayer::new(budget).layer(svc);
        let req = http::Request::get("/")
            .body(kube::client::Body::empty())
            .unwrap();
        let e = futures::executor::block_on(svc.call(req)).unwrap_err();
        kube::Error::Service(e)
    }

    /// Issue 23: a refused connection cost the whole backoff (3 s) even with
    /// `--request-timeout 1s`. It is retried while the next try starts before its client gives
    /// up (waits of 200 and 400 ms; the next, 800 ms, would pass 1 s); without the timeout, five
    /// tries; a 503 is an answer and keeps its five.
    #[tokio::test(start_paused = true)]
    async fn no_answer_is_not_retried_past_the_request_timeout() {
        let start = tokio::time::Instant::now();
        let give_up_at = start + Duration::from_secs(1);
        let calls = Cell::new(0);
        let r: Result<(), _> = read_with_retry(ReadRetry::default(), || {
            calls.set(calls.get() + 1);
            let e = refused_until(give_up_at);
            async move { Err(e) }
        })
        .await;
        assert!(r.is_err());
        assert_eq!(calls.get(), 3);
        assert_eq!(start.elapsed(), Duration::from_millis(600));
        // Without a timeout (no layer): five tries, as a 503 always gets.
        let calls = Cell::new(0);
        let r: Result<(), _> = read_with_retry(ReadRetry::default(), || {
            calls.set(calls.get() + 1);
            async { Err(status(503)) }
        })
        .await;
        assert!(r.is_err());
        assert_eq!(calls.get(), 5);
    }
}
