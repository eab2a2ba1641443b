//! Watches: resourceVersion semantics, bookmarks, timeouts, streaming lists, 410s and
//! kube-runtime's watcher/reflector.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::runtime::{reflector, watcher};
use serde_json::json;

use fleetctl_apiserver::Settings;

use crate::support::cluster::TestCluster;

async fn put(api: &Api<ConfigMap>, name: &str, labels: serde_json::Value) -> ConfigMap {
    let object: ConfigMap = serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).expect("cm");
    api.create(&PostParams::default(), &object).await.expect("create")
}

fn kind(event: &WatchEvent<ConfigMap>) -> String {
    match event {
        WatchEvent::Added(o) => format!("ADDED {}", o.metadata.name.as_deref().unwrap_or("")),
        WatchEvent::Modified(o) => format!("MODIFIED {}", o.metadata.name.as_deref().unwrap_or("")),
        WatchEvent::Deleted(o) => format!("DELETED {}", o.metadata.name.as_deref().unwrap_or("")),
        WatchEvent::Bookmark(b) => format!("BOOKMARK {}", b.metadata.resource_version),
        WatchEvent::Error(e) => format!("ERROR {} {}", e.code, e.reason),
    }
}

/// The next event, leaving out the `kube-root-ca.crt` every namespace has.
async fn next(stream: &mut (impl futures::Stream<Item = kube::Result<WatchEvent<ConfigMap>>> + Unpin)) -> String {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.expect("an event in time");
        let text = kind(&event.expect("stream open").expect("event"));
        if !text.ends_with(ROOT_CA) {
            return text;
        }
    }
}

const ROOT_CA: &str = "kube-root-ca.crt";

#[tokio::test]
async fn a_watch_from_zero_starts_with_the_current_state_then_follows_changes() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    put(&api, "before", json!({})).await;
    let mut stream = api.watch(&WatchParams::default().timeout(10), "0").await.expect("watch").boxed();
    assert_eq!(next(&mut stream).await, "ADDED before");
    put(&api, "after", json!({})).await;
    assert_eq!(next(&mut stream).await, "ADDED after");
    api.patch("after", &PatchParams::default(), &Patch::Merge(json!({"data": {"k": "v"}}))).await.expect("patch");
    assert_eq!(next(&mut stream).await, "MODIFIED after");
    api.delete("after", &Default::default()).await.expect("delete");
    assert_eq!(next(&mut stream).await, "DELETED after");
}

#[tokio::test]
async fn a_watch_from_a_resource_version_sees_only_later_changes() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let first = put(&api, "one", json!({})).await;
    put(&api, "two", json!({})).await;
    let rv = first.metadata.resource_version.expect("rv");
    let mut stream = api.watch(&WatchParams::default().timeout(10), &rv).await.expect("watch").boxed();
    assert_eq!(next(&mut stream).await, "ADDED two");
}

#[tokio::test]
async fn a_resource_version_older_than_the_history_is_an_expired_error_event() {
    let c = TestCluster::with_settings(Settings { history: 3, ..Settings::default() }).await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let first = put(&api, "a0", json!({})).await;
    for i in 1..10 {
        put(&api, &format!("a{i}"), json!({})).await;
    }
    let rv = first.metadata.resource_version.expect("rv");
    let mut stream =
        api.watch(&WatchParams::default().timeout(10), &rv).await.expect("a 200 stream, not an HTTP 410").boxed();
    assert_eq!(next(&mut stream).await, "ERROR 410 Expired");
}

/// A watch with `timeoutSeconds` ends by itself, and only it: a twin opened with it but
/// without the short timeout is still open afterwards and hears the next change.
#[tokio::test]
async fn timeout_seconds_ends_the_stream() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let from = put(&api, "before", json!({})).await.metadata.resource_version.expect("rv");
    let short = api.watch(&WatchParams::default().timeout(1), &from).await.expect("watch");
    let mut long = api.watch(&WatchParams::default().timeout(3600), &from).await.expect("watch").boxed();
    let events: Vec<_> = tokio::time::timeout(crate::support::PATIENCE, short.collect::<Vec<_>>())
        .await
        .expect("the stream with timeoutSeconds=1 ends");
    assert!(events.is_empty(), "nothing happened while it was open: {events:?}");
    put(&api, "after", json!({})).await;
    assert_eq!(next(&mut long).await, "ADDED after", "the stream without that timeout is still open");
}

/// A watch from `rv` that asks for bookmarks.
async fn bookmarked(
    api: &Api<ConfigMap>,
    rv: &str,
) -> impl futures::Stream<Item = kube::Result<WatchEvent<ConfigMap>>> + Unpin + use<> {
    api.watch(&WatchParams { bookmarks: true, ..WatchParams::default().timeout(10) }, rv).await.expect("watch").boxed()
}

#[tokio::test]
async fn bookmarks_carry_kind_api_version_and_resource_version() {
    let settings = Settings { bookmark_interval: Duration::from_millis(100), ..Settings::default() };
    let c = TestCluster::with_settings(settings).await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let created = put(&api, "x", json!({})).await;
    let rv = created.metadata.resource_version.expect("rv");
    let mut stream = bookmarked(&api, &rv).await;
    assert_eq!(next(&mut stream).await, format!("BOOKMARK {rv}"));
}

/// kube-apiserver's watch cache bookmarks every watcher at its own latest resourceVersion,
/// so a watcher of one quiet namespace resumes from a recent version, not from its last
/// event's, which the history may have let go (a 410 and a relist).
#[tokio::test]
async fn bookmarks_of_a_quiet_watch_advance_with_changes_it_does_not_see() {
    let settings = Settings { bookmark_interval: Duration::from_millis(100), ..Settings::default() };
    let c = TestCluster::with_settings(settings).await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let rv = put(&api, "x", json!({})).await.metadata.resource_version.expect("rv");
    let mut stream = bookmarked(&api, &rv).await;
    assert_eq!(next(&mut stream).await, format!("BOOKMARK {rv}"));
    let elsewhere = put(&Api::namespaced(c.client.clone(), "kube-public"), "y", json!({})).await;
    let later = elsewhere.metadata.resource_version.expect("rv");
    let bookmarks: Vec<String> = futures::stream::unfold(&mut stream, |s| async { Some((next(s).await, s)) })
        .take_while(|event| std::future::ready(*event != format!("BOOKMARK {later}")))
        .take(20)
        .collect()
        .await;
    assert!(bookmarks.len() < 20, "no bookmark at {later}: {bookmarks:?}");
    assert!(bookmarks.iter().all(|b| b.starts_with("BOOKMARK")), "nothing of default changed: {bookmarks:?}");
}

#[tokio::test]
async fn an_object_leaving_the_selector_is_deleted_from_the_watch() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    put(&api, "x", json!({"app": "web"})).await;
    let mut stream =
        api.watch(&WatchParams::default().labels("app=web").timeout(10), "0").await.expect("watch").boxed();
    assert_eq!(next(&mut stream).await, "ADDED x");
    api.patch("x", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"labels": {"app": "db"}}})))
        .await
        .expect("relabel");
    assert_eq!(next(&mut stream).await, "DELETED x");
    api.patch("x", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"labels": {"app": "web"}}})))
        .await
        .expect("relabel");
    assert_eq!(next(&mut stream).await, "ADDED x");
}

#[tokio::test]
async fn streaming_lists_end_the_initial_events_with_the_annotated_bookmark() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    put(&api, "a", json!({})).await;
    put(&api, "b", json!({})).await;
    let config = watcher::Config::default().streaming_lists();
    let mut stream = watcher(api.clone(), config).boxed();
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), stream.try_next())
            .await
            .expect("in time")
            .expect("ok")
            .expect("open");
        match event {
            watcher::Event::InitApply(o) => seen.extend(o.metadata.name.filter(|n| n != ROOT_CA)),
            watcher::Event::InitDone => break,
            _ => {}
        }
    }
    assert_eq!(seen, ["a", "b"]);
}

#[tokio::test]
async fn a_reflector_converges_after_its_resource_version_expires() {
    // Few events kept, no bookmarks in time, short watches: the watcher resumes from a
    // resourceVersion the server no longer holds, is told 410, and must relist.
    let settings = Settings { history: 4, bookmark_interval: Duration::from_secs(3600), ..Settings::default() };
    let c = TestCluster::with_settings(settings).await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    put(&api, "watched", json!({"app": "x"})).await;
    let (reader, writer) = reflector::store::<ConfigMap>();
    let config = watcher::Config::default().labels("app=x").timeout(1);
    let mut inits = 0;
    let mut stream = reflector(writer, watcher(api.clone(), config)).boxed();
    while inits == 0 {
        if let watcher::Event::InitDone = stream.try_next().await.expect("ok").expect("open") {
            inits += 1;
        }
    }
    for i in 0..20 {
        put(&api, &format!("noise-{i}"), json!({"app": "other"})).await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut expired = false;
    while inits < 2 {
        match tokio::time::timeout_at(deadline, stream.next()).await.expect("relists in time").expect("open") {
            Ok(watcher::Event::InitDone) => inits += 1,
            Err(watcher::Error::WatchError(status)) if status.code == 410 => expired = true,
            Err(other) => panic!("unexpected watcher error: {other}"),
            Ok(_) => {}
        }
    }
    assert!(expired, "the watcher was told its resourceVersion expired");
    put(&api, "late", json!({"app": "x"})).await;
    while reader.state().len() < 2 {
        tokio::time::timeout_at(deadline, stream.try_next())
            .await
            .expect("converges in time")
            .expect("ok")
            .expect("open");
    }
    let mut names: Vec<String> = reader.state().iter().filter_map(|o| o.metadata.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["late", "watched"]);
}
