//! Watches: a live one that reconnects, or a dump's listing followed by its end.
//!
//! Cluster layer. (Lists, page by page, are the [`super::api::ArcApi`]'s; the query a list or a
//! watch makes, [`Scope`], is [`super::resource`]'s.) [`Watcher`] is what
//! [`super::api::ArcApi::watch`] gives: a live watch on the API server ([`Live`]), or the objects
//! of a dump then [`Event::End`]. [`Live`] is a `?watch=1` stream (kube-rs `request_events`) that resumes from the last resourceVersion it saw
//! (bookmarks keep it fresh), backs off on transport errors, and tells the caller to list again
//! when the server answers 410 Gone, as client-go's reflector does.

use std::time::Duration;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use kube::Client;
use kube::api::WatchParams;
use serde_json::Value;

use std::collections::VecDeque;

use super::resource::Resource;
pub(crate) use super::resource::Scope;
use super::{ApiError, ApiErrorKind, RawObject, object_of};
use crate::input::Object;

/// What a watch reports: objects as the lists give them ([`super::object_of`]).
#[derive(Debug)]
pub(crate) enum Event {
    /// The object was added or modified: its new state.
    Applied(Object),
    /// The object was deleted: its last state.
    Deleted(Object),
    /// The server no longer has the history to resume from (410 Gone): list again and call
    /// [`Watcher::resume_from`] with the new list's resourceVersion.
    Relist,
    /// The stream broke and is being re-opened (why, for a log line).
    Reconnecting(String),
    /// Nothing more will come: a dump's watch, after its listing (a live watch never ends).
    End,
}

/// A watch as [`super::api::ArcApi::watch`] gives it: live on the API server, or a dump's
/// listing then [`Event::End`].
pub(crate) struct Watcher(Source);

enum Source {
    Live(Box<Live>),
    /// The objects still to give, as [`Event::Applied`].
    Listing(VecDeque<Object>),
}

impl Watcher {
    /// A live watch of `resource` in `scope` from `resource_version` ([`Live::new`]).
    pub(crate) fn new(
        client: Client,
        resource: Resource,
        scope: Scope,
        resource_version: String,
    ) -> Watcher {
        Watcher(Source::Live(Box::new(Live::new(
            client,
            resource,
            scope,
            resource_version,
        ))))
    }

    /// A watch that gives `objects` (a listing), each as [`Event::Applied`], then
    /// [`Event::End`] (again at every later call).
    pub(crate) fn of_listing(objects: Vec<Object>) -> Watcher {
        Watcher(Source::Listing(objects.into()))
    }

    /// Resume after a relist (a listing never asks for one: nothing to do).
    pub(crate) fn resume_from(&mut self, resource_version: String) {
        match &mut self.0 {
            Source::Live(live) => live.resume_from(resource_version),
            Source::Listing(_) => {}
        }
    }

    /// The next event ([`Live::next`]; a listing's next object, else [`Event::End`]).
    /// Cancel-safe.
    pub(crate) async fn next(&mut self) -> Result<Event, ApiError> {
        match &mut self.0 {
            Source::Live(live) => live.next().await,
            Source::Listing(left) => Ok(left.pop_front().map_or(Event::End, Event::Applied)),
        }
    }
}

type EventStream = BoxStream<'static, Result<kube::core::WatchEvent<Value>, kube::Error>>;

/// A watch on one resource of the API server that survives disconnections.
///
/// [`Live::next`] is cancel-safe, so two watchers can share a `tokio::select!`: the request
/// that opens the stream and the back-off before a reconnection are kept in the watcher, not in
/// the `next` future, so an event on the other watcher never aborts an open half-way (which, on a
/// busy cluster, could keep this one from ever opening) or skips the back-off.
pub(crate) struct Live {
    client: Client,
    resource: Resource,
    plural: &'static str,
    scope: Scope,
    resource_version: String,
    stream: Option<EventStream>,
    /// The request opening the stream, while it is in flight.
    opening: Option<BoxFuture<'static, Result<EventStream, kube::Error>>>,
    /// No reconnection before this instant (the back-off after a failure).
    retry_at: Option<tokio::time::Instant>,
    /// When the current stream was opened.
    opened_at: Option<tokio::time::Instant>,
    failures: u32,
}

impl Live {
    /// Watch `resource` in `scope` from `resource_version` (from a list; empty: the current state
    /// of every object first). Through [`super::api::ArcApi::watch`].
    fn new(client: Client, resource: Resource, scope: Scope, resource_version: String) -> Live {
        Live {
            client,
            resource,
            plural: resource.plural,
            scope,
            resource_version,
            stream: None,
            opening: None,
            retry_at: None,
            opened_at: None,
            failures: 0,
        }
    }

    /// Resume after a relist.
    fn resume_from(&mut self, resource_version: String) {
        self.resource_version = resource_version;
        self.stream = None;
        self.opening = None;
    }

    /// The request that opens the stream from the current resourceVersion, as a future that
    /// owns everything it needs.
    fn open(&self) -> BoxFuture<'static, Result<EventStream, kube::Error>> {
        let mut params = WatchParams::default().timeout(290);
        if let Some(s) = &self.scope.label_selector {
            params = params.labels(s);
        }
        if let Some(f) = &self.scope.field_selector {
            params = params.fields(f);
        }
        let req = kube::core::Request::new(self.resource.path(self.scope.namespace.as_deref()))
            .watch(&params, &self.resource_version)
            .map_err(kube::Error::BuildRequest);
        tracing::debug!(plural = self.plural, resource_version = %self.resource_version, "watching");
        let client = self.client.clone();
        Box::pin(async move {
            let events = client.request_events::<Value>(req?).await?;
            Ok(events.boxed())
        })
    }

    /// After a failure: wait before the next reconnection, longer after each failure in a row.
    fn back_off(&mut self) {
        self.failures += 1;
        let secs = 1u64 << self.failures.min(5);
        self.retry_at = Some(tokio::time::Instant::now() + Duration::from_secs(secs.min(30)));
    }

    /// The next event. Errors are final (Forbidden, a missing CRD); transport errors reconnect
    /// (after a back-off, reported as [`Event::Reconnecting`] when they happen).
    /// Cancel-safe: the open request and the back-off deadline live in `self`.
    async fn next(&mut self) -> Result<Event, ApiError> {
        loop {
            if let Some(at) = self.retry_at {
                tokio::time::sleep_until(at).await;
                self.retry_at = None;
            }
            let Some(stream) = self.stream.as_mut() else {
                let opening = match &mut self.opening {
                    Some(f) => f,
                    None => self.opening.insert(self.open()),
                };
                let opened = opening.await;
                self.opening = None;
                match opened {
                    Ok(s) => {
                        self.stream = Some(s);
                        self.opened_at = Some(tokio::time::Instant::now());
                        continue;
                    }
                    Err(e) => {
                        let e = ApiError::new(
                            e,
                            "watch",
                            self.plural,
                            self.scope.namespace.as_deref(),
                            None,
                        );
                        match e.kind() {
                            ApiErrorKind::Gone => return Ok(Event::Relist),
                            // An answer that trying again will not change.
                            kind if kind != ApiErrorKind::Transient && e.status().is_some() => {
                                return Err(e);
                            }
                            // No answer, 429 or 5xx, or a failure in the client: open again.
                            _ => {
                                let why = format!(
                                    "watch of {} interrupted: {}; reconnecting",
                                    self.plural,
                                    e.kube_error()
                                );
                                self.back_off();
                                return Ok(Event::Reconnecting(why));
                            }
                        }
                    }
                }
            };
            match stream.next().await {
                None => {
                    // The server ended the watch (its timeout, or a connection closed cleanly):
                    // resume where we are, at once after a long watch, after a back-off when
                    // it ended within a second (as client-go's reflector does), so a server
                    // that keeps closing watches is not hammered.
                    self.stream = None;
                    if self
                        .opened_at
                        .is_some_and(|t| t.elapsed() < Duration::from_secs(1))
                    {
                        self.back_off();
                    }
                }
                Some(Ok(kube::core::WatchEvent::Added(v)))
                | Some(Ok(kube::core::WatchEvent::Modified(v))) => {
                    return Ok(Event::Applied(self.saw(v)?));
                }
                Some(Ok(kube::core::WatchEvent::Deleted(v))) => {
                    return Ok(Event::Deleted(self.saw(v)?));
                }
                Some(Ok(kube::core::WatchEvent::Bookmark(b))) => {
                    self.failures = 0;
                    self.resource_version = b.metadata.resource_version;
                }
                Some(Ok(kube::core::WatchEvent::Error(s)))
                    if ApiErrorKind::of_status(&s) == ApiErrorKind::Gone =>
                {
                    self.stream = None;
                    return Ok(Event::Relist);
                }
                Some(Ok(kube::core::WatchEvent::Error(s))) => {
                    self.stream = None;
                    let why = format!(
                        "watch of {} reported an error: {} ({}); reconnecting",
                        self.plural, s.message, s.code
                    );
                    self.back_off();
                    return Ok(Event::Reconnecting(why));
                }
                Some(Err(e)) => {
                    self.stream = None;
                    let why = format!("watch of {} interrupted: {e}; reconnecting", self.plural);
                    self.back_off();
                    return Ok(Event::Reconnecting(why));
                }
            }
        }
    }

    /// An event's object, as the lists give it; the watch resumes after it.
    fn saw(&mut self, object: Value) -> Result<Object, ApiError> {
        self.failures = 0;
        let raw: RawObject = serde_json::from_value(object).map_err(|e| {
            let namespace = self.scope.namespace.as_deref();
            ApiError::new(
                kube::Error::SerdeError(e),
                "watch",
                self.plural,
                namespace,
                None,
            )
        })?;
        let object = object_of(self.resource, raw);
        if let Some(rv) = &object.meta.resource_version {
            self.resource_version = rv.clone();
        }
        Ok(object)
    }
}
