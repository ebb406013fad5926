//! Typed failures of requests about ARC's resources: what was asked (verb, resource, namespace,
//! name), what kind of failure it was, and the `kube::Error` it came from.
//!
//! Cluster layer. [`ApiErrorKind::of`] classifies a `kube::Error` the way
//! `k8s.io/apimachinery/pkg/api/errors`' `Is*` functions (and client-go's rest client, for what is
//! worth retrying) classify a Go error, so callers match a kind instead of comparing codes; the
//! English a user reads is written in one place, [`ApiError`]'s `Display`.

use std::fmt;

use kube::core::Status;

use crate::core::arc;

/// What kind of failure a request met.
///
/// Classified by the HTTP code the API server sets on every `Status` it sends; apimachinery's `Is*`
/// functions look at the `reason` first and fall back to the code when the reason is unknown,
/// which gives the same answer for every `Status` the API server sends. The one place the reason
/// decides is a 404 ([`ApiErrorKind::NotFound`] against [`ApiErrorKind::CrdMissing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ApiErrorKind {
    /// 401: the credentials are not accepted (apimachinery `IsUnauthorized`).
    Unauthorized,
    /// 403: the caller may not do this (apimachinery `IsForbidden`).
    Forbidden,
    /// 404 without a `Status` whose reason is `NotFound`: the API server does not serve the
    /// resource at all (a plain-text "404 page not found"); for ARC's resources, the CRDs are not
    /// installed. apimachinery's `IsNotFound` says true here too (the reason is unknown and the code
    /// 404, and client-go's `newUnstructuredResponseError` even sets reason `NotFound`); this kind
    /// keeps a missing CRD from passing for a missing object.
    CrdMissing,
    /// 404 with reason `NotFound`: the object does not exist (apimachinery `IsNotFound`).
    NotFound,
    /// 409: the object changed since it was read, a resourceVersion precondition failed
    /// (apimachinery `IsConflict`; also `IsAlreadyExists`, which a patch never meets).
    Conflict,
    /// 410: the history a watch asked to resume from is gone; list again (apimachinery `IsGone`,
    /// `IsResourceExpired`).
    Gone,
    /// May succeed when tried again: 429 (apimachinery `IsTooManyRequests`), any 5xx (`IsInternalError`,
    /// `IsServerTimeout`, `IsServiceUnavailable`, `IsTimeout` for 504; client-go's rest client
    /// `checkWait`: "any 500 error code and 429 can trigger a wait"), or no answer at all: a refused
    /// or cut connection or a client-side timeout (apimachinery `util/net` `IsConnectionRefused`,
    /// `IsConnectionReset`, `IsProbableEOF`; kube's `HyperError` and `Service` errors).
    Transient,
    /// Anything else: another answer (400, 422...), or a failure in the client (a response that
    /// does not decode, a request that cannot be built).
    Other,
}

impl ApiErrorKind {
    /// The kind of a failed request.
    pub(crate) fn of(err: &kube::Error) -> ApiErrorKind {
        match err {
            kube::Error::Api(s) => ApiErrorKind::of_status(s),
            kube::Error::HyperError(_) | kube::Error::Service(_) => ApiErrorKind::Transient,
            _ => ApiErrorKind::Other,
        }
    }

    /// The kind of a failure the API server answered with (also what a watch stream sends as an
    /// `ERROR` event).
    pub(crate) fn of_status(s: &Status) -> ApiErrorKind {
        match s.code {
            401 => ApiErrorKind::Unauthorized,
            403 => ApiErrorKind::Forbidden,
            404 if s.reason == kube::core::response::reason::NOT_FOUND => ApiErrorKind::NotFound,
            404 => ApiErrorKind::CrdMissing,
            409 => ApiErrorKind::Conflict,
            410 => ApiErrorKind::Gone,
            429 => ApiErrorKind::Transient,
            code if code >= 500 => ApiErrorKind::Transient,
            _ => ApiErrorKind::Other,
        }
    }
}

/// The first failure of a request in `e`'s chain: its kind, and whether it met no answer at all
/// (connection refused or reset, `--request-timeout` passed). An [`ApiError`], or a bare
/// `kube::Error` of a request outside ARC's resources (an access review, discovery).
pub(crate) fn failure_in(e: &anyhow::Error) -> Option<(ApiErrorKind, bool)> {
    e.chain().find_map(|c| {
        if let Some(a) = c.downcast_ref::<ApiError>() {
            return Some((a.kind(), a.unreachable()));
        }
        let k = c.downcast_ref::<kube::Error>()?;
        let kind = ApiErrorKind::of(k);
        Some((
            kind,
            kind == ApiErrorKind::Transient && !matches!(k, kube::Error::Api(_)),
        ))
    })
}

/// A request about one of ARC's resources (`RESOURCE.actions.github.com`) that failed.
///
/// `Display` is the sentence a user reads: it names the verb and the object and says what to do.
/// When the API server answered, its message and code are in that sentence and
/// [`std::error::Error::source`] is `None` (kube's own text for a `Status` would only repeat
/// them); when it did not (a transport failure, a response that does not decode), the
/// `kube::Error` is the source, and `{:#}` appends the chain of causes as anyhow's `{:#}` does.
///
/// Boxed, so a `Result` carrying it stays a pointer wide.
#[derive(Debug)]
pub struct ApiError(Box<Request>);

/// What an [`ApiError`] holds.
#[derive(Debug)]
struct Request {
    kind: ApiErrorKind,
    verb: &'static str,
    resource: String,
    namespace: Option<String>,
    name: Option<String>,
    error: kube::Error,
}

impl ApiError {
    /// `error` met when trying to `verb` the `resource` (plural) objects in `namespace` (all
    /// namespaces when `None`), or the one called `name`.
    pub(crate) fn new(
        error: kube::Error,
        verb: &'static str,
        resource: &str,
        namespace: Option<&str>,
        name: Option<&str>,
    ) -> ApiError {
        ApiError(Box::new(Request {
            kind: ApiErrorKind::of(&error),
            verb,
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            name: name.map(str::to_string),
            error,
        }))
    }

    /// A request refused as the API server refuses a malformed one (400 Bad Request, `message`),
    /// for a source that answers in its stead (a dump's list with a selector it cannot read).
    pub(crate) fn invalid(
        verb: &'static str,
        resource: &str,
        namespace: Option<&str>,
        message: String,
    ) -> ApiError {
        let status = Status {
            code: 400,
            reason: "BadRequest".into(),
            message,
            ..Default::default()
        };
        ApiError::new(
            kube::Error::Api(Box::new(status)),
            verb,
            resource,
            namespace,
            None,
        )
    }

    pub(crate) fn kind(&self) -> ApiErrorKind {
        self.0.kind
    }

    /// The server's answer, when there was one.
    pub(crate) fn status(&self) -> Option<&Status> {
        match &self.0.error {
            kube::Error::Api(s) => Some(s),
            _ => None,
        }
    }

    /// The HTTP code the server answered with.
    pub(crate) fn code(&self) -> Option<u16> {
        self.status().map(|s| s.code)
    }

    /// The server's message.
    #[cfg(test)]
    pub(crate) fn message(&self) -> Option<&str> {
        self.status().map(|s| s.message.as_str())
    }

    /// The error from kube, for what only it carries.
    pub(crate) fn kube_error(&self) -> &kube::Error {
        &self.0.error
    }

    /// No answer came back (a refused or cut connection, a timeout): the next request will most
    /// likely meet the same.
    pub(crate) fn unreachable(&self) -> bool {
        self.0.kind == ApiErrorKind::Transient && self.status().is_none()
    }

    /// 429 Too Many Requests: the API server's flow control turned the request away before
    /// handling it, so it was certainly not applied (apimachinery `IsTooManyRequests`).
    pub(crate) fn too_many_requests(&self) -> bool {
        self.code() == Some(429)
    }

    /// The objects concerned, as the sentences name them.
    fn what(&self) -> String {
        let plural = &self.0.resource;
        match (&self.0.namespace, &self.0.name) {
            (Some(ns), Some(n)) => format!("{plural} {ns}/{n}"),
            (Some(ns), None) => format!("{plural} in namespace {ns}"),
            (None, _) => format!("{plural} in all namespaces"),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = self.0.verb;
        let plural = &self.0.resource;
        let group = arc::GROUP;
        let what = self.what();
        let Some(s) = self.status() else {
            write!(f, "cannot {verb} {what}")?;
            if f.alternate() {
                let mut cause: Option<&dyn std::error::Error> = Some(&self.0.error);
                while let Some(c) = cause {
                    write!(f, ": {c}")?;
                    cause = c.source();
                }
            }
            return Ok(());
        };
        match self.0.kind {
            ApiErrorKind::Unauthorized => write!(
                f,
                "unauthorized: the server does not accept these credentials to {verb} {what} (an expired or revoked token?): log in again or refresh the kubeconfig"
            ),
            ApiErrorKind::Forbidden => write!(
                f,
                "forbidden: cannot {verb} {what}: {} (ask for RBAC permission to {verb} {plural}.{group})",
                s.message
            ),
            ApiErrorKind::CrdMissing => write!(
                f,
                "the server does not know {plural}.{group}: are ARC's CRDs installed? ({})",
                s.message
            ),
            _ => write!(f, "cannot {verb} {what}: {} ({})", s.message, s.code),
        }
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.0.error {
            kube::Error::Api(_) => None,
            _ => Some(&self.0.error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_found_through_context_wrapped_or_bare() {
        let refused = || {
            kube::Error::Service(Box::new(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "tcp connect error: Connection refused",
            )))
        };
        // A request outside ARC's resources (an access review) keeps the bare kube::Error.
        let bare = anyhow::Error::new(refused()).context("cannot ask the API server");
        assert_eq!(failure_in(&bare), Some((ApiErrorKind::Transient, true)));
        let api = anyhow::Error::new(ApiError::new(
            refused(),
            "list",
            "ephemeralrunnersets",
            None,
            None,
        ))
        .context("listing");
        assert_eq!(failure_in(&api), Some((ApiErrorKind::Transient, true)));
        // A 503 was answered: transient, but not unreachable.
        let busy = anyhow::Error::new(answer(503, "ServiceUnavailable", "try later"));
        assert_eq!(failure_in(&busy), Some((ApiErrorKind::Transient, false)));
        let denied = anyhow::Error::new(answer(403, "Forbidden", "no"));
        assert_eq!(failure_in(&denied), Some((ApiErrorKind::Forbidden, false)));
        assert_eq!(failure_in(&anyhow::anyhow!("no request")), None);
    }

    /// An answer as the API server sends it.
    fn answer(code: u16, reason: &str, message: &str) -> kube::Error {
        kube::Error::Api(Box::new(Status {
            status: Some(kube::core::response::StatusSummary::Failure),
            code,
            message: message.into(),
            reason: reason.into(),
            ..Default::default()
        }))
    }

    /// No answer: what kube reports when the connection is refused.
    fn refused() -> kube::Error {
        kube::Error::Service(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "tcp connect error: Connection refused (os error 111)",
        )))
    }

    fn list(e: kube::Error) -> ApiError {
        ApiError::new(e, "list", "ephemeralrunnersets", Some("ci"), None)
    }

    fn get(e: kube::Error) -> ApiError {
        ApiError::new(
            e,
            "get",
            "autoscalingrunnersets",
            Some("ci"),
            Some("arc-runners"),
        )
    }

    #[test]
    fn unauthorized() {
        let e = list(answer(401, "Unauthorized", "Unauthorized"));
        assert_eq!(e.kind(), ApiErrorKind::Unauthorized);
        assert_eq!(
            e.to_string(),
            "unauthorized: the server does not accept these credentials to list ephemeralrunnersets in namespace ci (an expired or revoked token?): log in again or refresh the kubeconfig"
        );
    }

    #[test]
    fn forbidden() {
        let message = "ephemeralrunnersets.actions.github.com is forbidden: User \"system:serviceaccount:ci:reader\" cannot list resource \"ephemeralrunnersets\" in API group \"actions.github.com\" at the cluster scope";
        let e = ApiError::new(
            answer(403, "Forbidden", message),
            "list",
            "ephemeralrunnersets",
            None,
            None,
        );
        assert_eq!(e.kind(), ApiErrorKind::Forbidden);
        assert_eq!(
            e.to_string(),
            format!(
                "forbidden: cannot list ephemeralrunnersets in all namespaces: {message} (ask for RBAC permission to list ephemeralrunnersets.actions.github.com)"
            )
        );
        assert_eq!((e.code(), e.message()), (Some(403), Some(message)));
    }

    /// kube-apiserver answers a path it does not serve with a plain-text "404 page not found",
    /// which kube turns into a `Status` with that message and no `NotFound` reason.
    #[test]
    fn a_404_without_a_not_found_status_is_a_missing_crd() {
        let e = list(answer(
            404,
            "Failed to parse error data",
            "404 page not found",
        ));
        assert_eq!(e.kind(), ApiErrorKind::CrdMissing);
        assert_eq!(
            e.to_string(),
            "the server does not know ephemeralrunnersets.actions.github.com: are ARC's CRDs installed? (404 page not found)"
        );
    }

    #[test]
    fn a_404_with_a_not_found_status_is_a_missing_object() {
        let message = "autoscalingrunnersets.actions.github.com \"arc-runners\" not found";
        let e = get(answer(404, "NotFound", message));
        assert_eq!(e.kind(), ApiErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            format!("cannot get autoscalingrunnersets ci/arc-runners: {message} (404)")
        );
    }

    #[test]
    fn conflict_and_gone() {
        let message = "Operation cannot be fulfilled on ephemeralrunnersets.actions.github.com \"set\": the object has been modified; please apply your changes to the latest version and try again";
        let e = ApiError::new(
            answer(409, "Conflict", message),
            "patch",
            "ephemeralrunnersets",
            Some("ci"),
            Some("set"),
        );
        assert_eq!(e.kind(), ApiErrorKind::Conflict);
        assert_eq!(
            e.to_string(),
            format!("cannot patch ephemeralrunnersets ci/set: {message} (409)")
        );
        let e = list(answer(410, "Expired", "too old resource version: 1 (2)"));
        assert_eq!(e.kind(), ApiErrorKind::Gone);
    }

    #[test]
    fn load_and_server_errors_are_transient_answers() {
        for (code, reason, message) in [
            (
                429,
                "TooManyRequests",
                "Too many requests, please try again later.",
            ),
            (
                500,
                "InternalError",
                "Internal error occurred: etcdserver: leader changed",
            ),
            (
                500,
                "ServerTimeout",
                "The list operation against ephemeralrunnersets could not be completed at this time, please try again.",
            ),
            (502, "", "Bad Gateway"),
            (
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request",
            ),
            (
                504,
                "Timeout",
                "Timeout: request did not complete within requested timeout",
            ),
        ] {
            let e = list(answer(code, reason, message));
            assert_eq!(e.kind(), ApiErrorKind::Transient, "{code}");
            assert!(!e.unreachable(), "{code}: the server answered");
            assert_eq!(e.too_many_requests(), code == 429);
            assert_eq!(
                e.to_string(),
                format!("cannot list ephemeralrunnersets in namespace ci: {message} ({code})")
            );
            assert!(std::error::Error::source(&e).is_none());
        }
    }

    #[test]
    fn no_answer_is_transient_and_unreachable() {
        let e = get(refused());
        assert_eq!(e.kind(), ApiErrorKind::Transient);
        assert!(e.unreachable());
        assert_eq!(e.code(), None);
        assert_eq!(
            e.to_string(),
            "cannot get autoscalingrunnersets ci/arc-runners"
        );
        let full = "cannot get autoscalingrunnersets ci/arc-runners: ServiceError: tcp connect error: Connection refused (os error 111): tcp connect error: Connection refused (os error 111)";
        assert_eq!(format!("{e:#}"), full);
        // Read as the command layer reads it, through anyhow: the same sentence.
        assert_eq!(format!("{:#}", anyhow::Error::from(e)), full);
    }

    #[test]
    fn other_answers_and_client_failures() {
        let e = get(answer(422, "Invalid", "spec.replicas: Invalid value"));
        assert_eq!(e.kind(), ApiErrorKind::Other);
        assert_eq!(
            e.to_string(),
            "cannot get autoscalingrunnersets ci/arc-runners: spec.replicas: Invalid value (422)"
        );
        let decode = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let e = get(kube::Error::SerdeError(decode));
        assert_eq!(e.kind(), ApiErrorKind::Other);
        assert!(!e.unreachable());
        assert_eq!(
            format!("{e:#}"),
            "cannot get autoscalingrunnersets ci/arc-runners: Error deserializing response: EOF while parsing an object at line 1 column 1: EOF while parsing an object at line 1 column 1"
        );
    }
}
