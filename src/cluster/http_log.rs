//! kubectl's request log at `-v 6` and up, as client-go's debugging round tripper writes it
//! (kubernetes/client-go `transport/round_trippers.go`):
//!
//! - `-v 6`: one line per request once the answer's headers are in,
//!   `GET https://127.0.0.1:6443/apis/actions.github.com/v1alpha1/... 200 OK in 12 milliseconds`;
//! - `-v 7`: the method and URL before the request, the headers kubectl-arc set on it (kube adds
//!   its own, credentials included, further in), then `Response Status: 200 OK in 12 milliseconds`;
//! - `-v 8` and `-v 9`: also the response headers and the request body (kubectl-arc's own JSON
//!   patches and access reviews). Response bodies are not logged: lists and watches stream them.
//!
//! Cluster layer: a tower layer wrapped around kube's client. It sits outside kube's auth layer,
//! so the `Authorization` header and client certificates do not exist where it looks; a header
//! that carries credentials is masked all the same, as client-go masks it.
//!
//! Events go to the `kubectl_arc::http` target at INFO (`-v 6`), DEBUG (`-v 7`) and TRACE
//! (`-v 8`); `main` maps kubectl's levels onto them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures::FutureExt as _;
use http::{HeaderMap, Request, Response};
use kube::client::Body;
use tracing::Level;

/// The tracing target of the request log.
pub const TARGET: &str = "kubectl_arc::http";

/// Logs each request against `base` (the cluster URL kube prefixes to every request's path).
#[derive(Debug, Clone)]
pub(crate) struct HttpLogLayer {
    base: Arc<str>,
}

impl HttpLogLayer {
    pub(crate) fn new(cluster_url: &http::Uri) -> HttpLogLayer {
        HttpLogLayer {
            base: cluster_url.to_string().trim_end_matches('/').into(),
        }
    }
}

impl<S> tower::Layer<S> for HttpLogLayer {
    type Service = HttpLog<S>;

    fn layer(&self, inner: S) -> HttpLog<S> {
        HttpLog {
            inner,
            base: Arc::clone(&self.base),
        }
    }
}

/// The service [`HttpLogLayer`] makes.
#[derive(Debug, Clone)]
pub(crate) struct HttpLog<S> {
    inner: S,
    base: Arc<str>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower::Service<Request<Body>> for HttpLog<S>
where
    S: tower::Service<Request<Body>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display + 'static,
    B: 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        if !tracing::enabled!(target: TARGET, Level::INFO) {
            return Box::pin(self.inner.call(request));
        }
        let method = request.method().clone();
        let url = format!(
            "{}{}",
            self.base,
            shown_path_and_query(
                request
                    .uri()
                    .path_and_query()
                    .map_or("/", http::uri::PathAndQuery::as_str)
            )
        );
        // -v 7 (DEBUG) writes the request before it goes, and the status apart.
        let detailed = tracing::enabled!(target: TARGET, Level::DEBUG);
        if detailed {
            tracing::debug!(target: TARGET, "{method} {url}");
            // Only what kubectl-arc sets (kube adds the rest, credentials included, further in).
            if !request.headers().is_empty() {
                tracing::debug!(target: TARGET, "Request Headers:");
                for line in header_lines(request.headers()) {
                    tracing::debug!(target: TARGET, "    {line}");
                }
            }
        }
        if tracing::enabled!(target: TARGET, Level::TRACE)
            && let Some(body) = request_body(request.body())
        {
            tracing::trace!(target: TARGET, "Request Body: {body}");
        }
        let start = Instant::now();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let result = answer.await;
            let ms = start.elapsed().as_millis();
            match &result {
                Ok(response) if detailed => {
                    tracing::debug!(
                        target: TARGET,
                        "Response Status: {} in {ms} milliseconds",
                        response.status()
                    );
                    if tracing::enabled!(target: TARGET, Level::TRACE) {
                        tracing::trace!(target: TARGET, "Response Headers:");
                        for line in header_lines(response.headers()) {
                            tracing::trace!(target: TARGET, "    {line}");
                        }
                    }
                }
                Ok(response) => tracing::info!(
                    target: TARGET,
                    "{method} {url} {} in {ms} milliseconds",
                    response.status()
                ),
                Err(e) => tracing::info!(
                    target: TARGET,
                    "{method} {url} failed in {ms} milliseconds: {e}"
                ),
            }
            result
        })
    }
}

/// `Name: value` for each header, credentials masked as client-go masks them
/// (`Authorization: Bearer <masked>`).
fn header_lines(headers: &HeaderMap) -> Vec<String> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = value.to_str().unwrap_or("<not text>");
            let value = if is_credential(name) {
                mask(value)
            } else {
                value.to_string()
            };
            format!("{}: {value}", title_case(name.as_str()))
        })
        .collect()
}

fn is_credential(name: &http::HeaderName) -> bool {
    name == http::header::AUTHORIZATION
        || name == http::header::PROXY_AUTHORIZATION
        || name == http::header::COOKIE
}

/// Keep the scheme (`Bearer`, `Basic`), mask the rest.
fn mask(value: &str) -> String {
    match value.split_once(' ') {
        Some((scheme, _)) => format!("{scheme} <masked>"),
        None => "<masked>".to_string(),
    }
}

/// A request's path and query as kubectl writes it: kube-rs builds a list's query with an empty
/// first pair (`?&limit=500`), which the API server ignores; the log leaves it out
/// (`?limit=500`), so the lines read like kubectl's `-v 6`.
fn shown_path_and_query(pq: &str) -> std::borrow::Cow<'_, str> {
    match pq.split_once('?') {
        Some((path, query)) if query.split('&').any(str::is_empty) => {
            let pairs: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
            if pairs.is_empty() {
                std::borrow::Cow::Borrowed(path)
            } else {
                std::borrow::Cow::Owned(format!("{path}?{}", pairs.join("&")))
            }
        }
        _ => std::borrow::Cow::Borrowed(pq),
    }
}

/// `content-type` as kubectl prints it: `Content-Type`.
fn title_case(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join("-")
}

/// The request body when it is a buffer already (kube's requests are), as text.
fn request_body(body: &Body) -> Option<String> {
    let bytes = body.try_clone()?.collect_bytes().now_or_never()?.ok()?;
    if bytes.is_empty() {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_have_no_empty_query_pair() {
        let shown = |pq| shown_path_and_query(pq).into_owned();
        assert_eq!(
            shown("/apis/actions.github.com/v1alpha1/ephemeralrunnersets?&limit=500"),
            "/apis/actions.github.com/v1alpha1/ephemeralrunnersets?limit=500"
        );
        assert_eq!(shown("/api/v1/pods?&"), "/api/v1/pods");
        assert_eq!(shown("/a?x=1&&y=2"), "/a?x=1&y=2");
        assert_eq!(shown("/a?x=1&y=2"), "/a?x=1&y=2");
        assert_eq!(shown("/version"), "/version");
    }

    #[test]
    fn credentials_are_masked_and_names_title_cased() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", "Bearer abc.def".parse().unwrap());
        headers.insert("content-type", "application/json".parse().unwrap());
        headers.insert("cookie", "session=1".parse().unwrap());
        let lines = header_lines(&headers);
        assert_eq!(
            lines,
            [
                "Authorization: Bearer <masked>",
                "Content-Type: application/json",
                "Cookie: <masked>"
            ]
        );
    }

    #[test]
    fn a_buffered_body_is_read_without_consuming_it() {
        let body = Body::from(b"{\"a\":1}".to_vec());
        assert_eq!(request_body(&body).as_deref(), Some("{\"a\":1}"));
        assert_eq!(request_body(&body).as_deref(), Some("{\"a\":1}"));
        assert_eq!(request_body(&Body::empty()), None);
    }
}
