//! Watches: one JSON event per line, resumable by resourceVersion, with bookmarks,
//! streaming initial lists, and a 410 ERROR event when the history no longer reaches
//! back far enough (so kube-runtime relists).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use futures::Stream;
use serde_json::json;
use tokio::sync::{broadcast, mpsc};

use super::encoding;
use super::list::Filter;
use super::registry::ResourceType;
use super::request::Query;
use super::state::{ApiState, Shared};
use super::status::ApiError;
use super::store::{Event, EventType, Scope, Subscription};
use super::view::{self, View};

/// Upper bound of one write when events queue up.
const MAX_BATCH: usize = 256 * 1024;

/// Watches without `timeoutSeconds` end after this long, as upstream's do eventually.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// What a watch request asks for.
struct Plan {
    rt: Arc<ResourceType>,
    namespace: Option<String>,
    filter: Filter,
    from: Option<u64>,
    initial_events: bool,
    bookmarks: bool,
    timeout: Duration,
    /// Events carry a one-row Table instead of the object (`kubectl get -w`).
    view: Option<View>,
}

/// Starts a watch; the stream is the response body.
pub fn start(
    state: Shared,
    rt: Arc<ResourceType>,
    namespace: Option<String>,
    query: &Query,
    view: Option<View>,
) -> Result<impl Stream<Item = Result<Bytes, Infallible>> + use<>, ApiError> {
    let filter = Filter::from_query(&rt, query)?;
    let initial_events = query.flag("sendInitialEvents");
    if query.get("sendInitialEvents").is_some() && query.get("resourceVersionMatch") != Some("NotOlderThan") {
        return Err(ApiError::invalid(
            &rt.kind,
            &rt.group,
            "",
            vec![super::status::Cause::new(
                "FieldValueForbidden",
                "resourceVersionMatch",
                "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            )],
        ));
    }
    let from = match query.non_empty("resourceVersion") {
        None | Some("0") => None,
        Some(rv) => Some(rv.parse::<u64>().map_err(|_| {
            ApiError::bad_request(format!("invalid resourceVersion {rv:?}: it must be one this server returned"))
        })?),
    };
    let timeout = query.number("timeoutSeconds")?.map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    let bookmarks = query.flag("allowWatchBookmarks");
    let plan = Plan { rt, namespace, filter, from, initial_events, bookmarks, timeout, view };
    let (tx, rx) = mpsc::channel::<Bytes>(256);
    tokio::spawn(run(state, plan, tx));
    Ok(futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (Ok(b), rx)) }))
}

async fn run(state: Shared, plan: Plan, tx: mpsc::Sender<Bytes>) {
    let gr = plan.rt.group_resource();
    let mut last_rv;
    let scope = scope(&plan);
    let mut sub: Subscription = if plan.from.is_none() || plan.initial_events {
        let (items, sub) = state.store.snapshot(&gr, &scope);
        for json in items.iter().map(|item| item.packed.to_bytes()).filter(|json| plan.filter.matches_json(json)) {
            if tx.send(event_line(&state, &plan, "ADDED", &json)).await.is_err() {
                return;
            }
        }
        last_rv = sub.rv;
        if plan.initial_events {
            let end = bookmark(&plan, sub.rv, true);
            if tx.send(end).await.is_err() {
                return;
            }
        }
        sub
    } else {
        let from = plan.from.unwrap_or_default();
        match state.store.subscribe(&gr, Some(from), &scope) {
            Ok(sub) => {
                last_rv = from;
                sub
            }
            Err(oldest) => {
                let _ = tx.send(expired(from, oldest)).await;
                return;
            }
        }
    };
    for event in std::mem::take(&mut sub.replay) {
        last_rv = event.rv;
        if !deliver(&state, &plan, &event, &tx).await {
            return;
        }
    }
    let deadline = tokio::time::sleep(plan.timeout);
    tokio::pin!(deadline);
    let mut ticks = tokio::time::interval(state.settings.bookmark_interval);
    ticks.tick().await;
    loop {
        tokio::select! {
            () = &mut deadline => return,
            () = tx.closed() => return,
            _ = ticks.tick(), if plan.bookmarks => {
                // As the watch cache's bookmarks: the server's resourceVersion once nothing
                // is queued for this watch, so a watch whose objects do not change resumes
                // from a recent version instead of one the history has let go. Read before
                // the feed is looked at: a change at or below it was sent already.
                let now = state.store.rv();
                if sub.feed.is_empty() {
                    last_rv = last_rv.max(now);
                }
                if tx.send(bookmark(&plan, last_rv, false)).await.is_err() {
                    return;
                }
            }
            received = sub.feed.recv() => {
                // Events that queued up meanwhile leave in the same write.
                let mut batch = BytesMut::new();
                let mut next = Some(received);
                while let Some(received) = next.take() {
                    let event = match received {
                        Ok(event) => event.upgrade(),
                        Err(broadcast::error::RecvError::Lagged(_)) => None,
                        Err(broadcast::error::RecvError::Closed) => return,
                    };
                    // Behind the broadcast, or behind the history that owns the events.
                    let Some(event) = event else {
                        batch.put_slice(&expired(last_rv, state.store.rv()));
                        let _ = tx.send(batch.freeze()).await;
                        return;
                    };
                    if event.rv > last_rv {
                        last_rv = event.rv;
                        if let Some(line) = render(&state, &plan, &event) {
                            batch.put_slice(&line);
                        }
                    }
                    if batch.len() < MAX_BATCH {
                        next = match sub.feed.try_recv() {
                            Ok(event) => Some(Ok(event)),
                            Err(broadcast::error::TryRecvError::Lagged(n)) => Some(Err(broadcast::error::RecvError::Lagged(n))),
                            Err(_) => None,
                        };
                    }
                }
                if !batch.is_empty() && tx.send(batch.freeze()).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// The events a watch needs from the store: those of its namespace, or of the one
/// cluster-scoped object it selects by name (a hub's agents each watch their own
/// ManagedCluster so), else all.
fn scope(plan: &Plan) -> Scope {
    match (&plan.namespace, plan.filter.fields.exact_name()) {
        (Some(namespace), _) => Scope::Namespace(namespace.clone()),
        (None, Some(name)) if !plan.rt.namespaced => Scope::Name(name.to_string()),
        (None, _) => Scope::All,
    }
}

/// Sends one event if it concerns this watch; `false` once the client is gone.
async fn deliver(state: &ApiState, plan: &Plan, event: &Event, tx: &mpsc::Sender<Bytes>) -> bool {
    match render(state, plan, event) {
        Some(line) => tx.send(line).await.is_ok(),
        None => true,
    }
}

/// The event's line for this watch, if the event concerns it.
fn render(state: &ApiState, plan: &Plan, event: &Event) -> Option<Bytes> {
    if plan.namespace.as_deref().is_some_and(|ns| event.namespace() != Some(ns)) {
        return None;
    }
    let json = event.packed.to_bytes();
    let kind = visible_as(plan, event, &json)?;
    Some(event_line(state, plan, kind.as_str(), &json))
}

/// An event's line: its object as this watch shows it (in the watched version, as a Table
/// of it, or its metadata), or an ERROR when it cannot be converted to the watched
/// version (a failing conversion webhook).
fn event_line(state: &ApiState, plan: &Plan, kind: &str, json: &Bytes) -> Bytes {
    match state.resource(&plan.rt).presented(json) {
        Ok(object) => match &plan.view {
            None => line(kind, &object),
            Some(view) => line(kind, &encoding::to_bytes(&view.object(&object, jiff::Timestamp::now()))),
        },
        Err(e) => line("ERROR", e.to_status().to_string().as_bytes()),
    }
}

/// How a change looks through the watch's selectors: an object that starts matching
/// is ADDED, one that stops matching is DELETED.
fn visible_as(plan: &Plan, event: &Event, json: &[u8]) -> Option<EventType> {
    if plan.filter.is_empty() {
        return Some(event.kind);
    }
    let now = plan.filter.matches_json(json);
    match event.kind {
        EventType::Modified => {
            let before = event.prev.as_ref().is_some_and(|p| plan.filter.matches_json(&p.json()));
            match (before, now) {
                (true, true) => Some(EventType::Modified),
                (false, true) => Some(EventType::Added),
                (true, false) => Some(EventType::Deleted),
                (false, false) => None,
            }
        }
        kind => now.then_some(kind),
    }
}

fn line(kind: &str, object: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(object.len() + 32);
    out.put_slice(b"{\"type\":\"");
    out.put_slice(kind.as_bytes());
    out.put_slice(b"\",\"object\":");
    out.put_slice(object);
    out.put_slice(b"}\n");
    out.freeze()
}

/// A bookmark: an object of the watched kind carrying only a resourceVersion — a
/// `PartialObjectMetadata` for a watch of metadata only, as every other event of it.
fn bookmark(plan: &Plan, rv: u64, initial_events_end: bool) -> Bytes {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    let object = match plan.view {
        Some(View::Metadata) => view::partial(metadata),
        _ => json!({"kind": plan.rt.kind, "apiVersion": plan.rt.api_version(), "metadata": metadata}),
    };
    line("BOOKMARK", object.to_string().as_bytes())
}

fn expired(requested: u64, oldest: u64) -> Bytes {
    let status = ApiError::expired(format!("too old resource version: {requested} ({oldest})")).to_status();
    line("ERROR", status.to_string().as_bytes())
}
