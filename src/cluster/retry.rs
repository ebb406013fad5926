//! Bounded retries for reads, the way kubectl's client treats transient failures.
//!
//! Cluster layer. kube's built-in retry layer (up to 15 attempts with delays growing towards 1000s)
//! is turned off in [`super::connect`]; reads go through [`read_with_retry`] instead: at most
//! [`ReadRetry::attempts`] tries on 429, 5xx and transport failures (a refused or cut connection:
//! [`super::ApiErrorKind::Transient`]), with doubling delays, a server's `retryAfterSeconds`
//! honoured up to a cap. Writes are retried only by the write guard, which re-reads first (see
//! `write.rs`). With `--request-timeout T`, a read that met no answer (a refused connection, a
//! timeout) is not retried past `T` from its first try ([`no_answer_budget`]): a dead cluster
//! costs the timeout the user chose, not the whole backoff.

use std::cell::Cell;
use std::future::Future;
use std::time::Duration;

thread_local! {
    /// `--request-timeout` of the last client [`super::connect`] made on this thread. The
    /// cluster operations run on a single-threaded runtime ([`crate::ops::runtime`]), so every
    /// read of one command sees its own value (a fleet run gives the same to every context),
    /// and concurrent commands of one process (the in-process tests) do not see each other's.
    static NO_ANSWER_BUDGET: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Bound the retries of reads that meet no answer on this thread by `budget` (`None`: the
/// attempts alone bound them, as without `--request-timeout`).
pub(crate) fn set_no_answer_budget(budget: Option<Duration>) {
    NO_ANSWER_BUDGET.with(|b| b.set(budget));
}

/// How long a read that met no answer may keep trying, from its first try.
pub(crate) fn no_answer_budget() -> Option<Duration> {
    NO_ANSWER_BUDGET.with(Cell::get)
}

/// No answer at all (refused, cut, timed out), as opposed to a 429 or 5xx the server sent.
fn no_answer(err: &kube::Error) -> bool {
    matches!(err, kube::Error::HyperError(_) | kube::Error::Service(_))
}

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
    let budget = no_answer_budget();
    let started = tokio::time::Instant::now();
    loop {
        match read().await {
            Ok(v) => return Ok(v),
            Err(e) if attempt < policy.attempts && transient(&e) => {
                let wait = server_delay(&e).unwrap_or(delay).min(policy.max_delay);
                if let Some(budget) = budget
                    && no_answer(&e)
                    && started.elapsed() + wait > budget
                {
                    tracing::warn!(attempt, ?budget, "no answer within --request-timeout: {e}");
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

    fn refused() -> kube::Error {
        kube::Error::Service(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "tcp connect error: Connection refused (os error 111)",
        )))
    }

    /// Issue 23: a refused connection cost the whole backoff (3 s) even with
    /// `--request-timeout 1s`. Within the budget it is retried (waits of 200 and 400 ms), the
    /// next wait (800 ms) would pass it; without a budget, the five attempts as before; a 503 is
    /// an answer and keeps its retries.
    #[tokio::test(start_paused = true)]
    async fn no_answer_is_not_retried_past_the_request_timeout() {
        let tries = |budget: Option<Duration>, err: fn() -> kube::Error| async move {
            set_no_answer_budget(budget);
            let calls = Cell::new(0);
            let start = tokio::time::Instant::now();
            let r: Result<(), _> = read_with_retry(ReadRetry::default(), || {
                calls.set(calls.get() + 1);
                async move { Err(err()) }
            })
            .await;
            assert!(r.is_err());
            set_no_answer_budget(None);
            (calls.get(), start.elapsed())
        };
        let (calls, waited) = tries(Some(Duration::from_secs(1)), refused).await;
        assert_eq!(calls, 3, "{waited:?}");
        assert_eq!(waited, Duration::from_millis(600));
        assert_eq!(tries(None, refused).await.0, 5);
        assert_eq!(
            tries(Some(Duration::from_secs(1)), || status(503)).await.0,
            5
        );
    }
}
