//! Client-side rate limiting (`--qps`, `--burst`), a token bucket like client-go's
//! `flowcontrol.NewTokenBucketRateLimiter`.
//!
//! Cluster layer: callers `acquire()` before each request.

use std::time::Duration;

use tokio::time::Instant;

/// A token bucket: `burst` requests at once, refilled at `qps` per second.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    qps: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimiter {
    /// `qps <= 0` (or NaN) means unlimited.
    pub(crate) fn new(qps: f64, burst: u32) -> RateLimiter {
        let burst = f64::from(burst.max(1));
        RateLimiter {
            qps,
            burst,
            tokens: burst,
            last: Instant::now(),
        }
    }

    /// Wait until a request may be sent.
    pub(crate) async fn acquire(&mut self) {
        if self.qps.is_nan() || self.qps <= 0.0 {
            return;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.qps).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return;
        }
        let wait = (1.0 - self.tokens) / self.qps;
        // `--qps` is validated; should `wait` still not fit, tokio sleeps until its far future.
        tokio::time::sleep(Duration::try_from_secs_f64(wait).unwrap_or(Duration::MAX)).await;
        self.last = Instant::now();
        self.tokens = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn bursts_then_paces() {
        let mut rl = RateLimiter::new(10.0, 3);
        let start = Instant::now();
        for _ in 0..3 {
            rl.acquire().await;
        }
        assert_eq!(start.elapsed(), Duration::ZERO, "the burst is free");
        for _ in 0..5 {
            rl.acquire().await;
        }
        // Five more at 10 per second take half a second of (virtual) time.
        let e = start.elapsed().as_secs_f64();
        assert!((0.49..0.51).contains(&e), "{e}");
    }
}
