//! Lists: kinds, resourceVersions, pages and selectors.

use k8s_openapi::api::core::v1::{ConfigMap, Event};
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;

use crate::support::cluster::{TestCluster, raw};

async fn seed(api: &Api<ConfigMap>, name: &str, labels: serde_json::Value) {
    let object: ConfigMap = serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).expect("cm");
    api.create(&PostParams::default(), &object).await.expect("create");
}

/// Names in a list, leaving out the `kube-root-ca.crt` every namespace has.
fn names(list: kube::core::ObjectList<ConfigMap>) -> Vec<String> {
    list.items.into_iter().filter_map(|o| o.metadata.name).filter(|n| n != ROOT_CA).collect()
}

const ROOT_CA: &str = "kube-root-ca.crt";

#[tokio::test]
async fn a_list_has_its_kind_a_resource_version_and_never_null_items() {
    let c = TestCluster::start().await;
    let (status, body) = raw(&c.client, "GET", "/api/v1/namespaces/default/secrets", "", Vec::new()).await;
    assert_eq!(status, 200);
    assert_eq!(body["kind"], "SecretList");
    assert_eq!(body["apiVersion"], "v1");
    assert_eq!(body["items"], json!([]));
    assert!(body["metadata"]["resourceVersion"].as_str().expect("rv").parse::<u64>().is_ok());
}

#[tokio::test]
async fn pages_with_limit_and_continue_cover_every_object_once() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    for i in 0..7 {
        seed(&api, &format!("cm-{i}"), json!({})).await;
    }
    let mut seen = Vec::new();
    let mut params = ListParams::default().limit(3);
    let mut pages = 0;
    loop {
        let page = api.list(&params).await.expect("page");
        pages += 1;
        let token = page.metadata.continue_.clone().filter(|t| !t.is_empty());
        seen.extend(names(page));
        match token {
            Some(t) => params = params.continue_token(&t),
            None => break,
        }
    }
    assert_eq!(pages, 3, "seven ConfigMaps and kube-root-ca.crt in pages of three");
    assert_eq!(seen, (0..7).map(|i| format!("cm-{i}")).collect::<Vec<_>>());
}

#[tokio::test]
async fn label_selectors_support_every_operator() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    seed(&api, "a", json!({"app": "web", "tier": "front"})).await;
    seed(&api, "b", json!({"app": "db", "tier": "back"})).await;
    seed(&api, "c", json!({"app": "web"})).await;
    let select = |s: &str| {
        let api = api.clone();
        let s = s.to_string();
        async move { names(api.list(&ListParams::default().labels(&s)).await.expect("list")) }
    };
    assert_eq!(select("app=web").await, ["a", "c"]);
    assert_eq!(select("app==web").await, ["a", "c"]);
    assert_eq!(select("app!=web").await, ["b"]);
    assert_eq!(select("tier in (front,back)").await, ["a", "b"]);
    assert_eq!(select("tier notin (front)").await, ["b", "c"]);
    assert_eq!(select("tier").await, ["a", "b"]);
    assert_eq!(select("!tier").await, ["c"]);
    assert_eq!(select("app=web,tier").await, ["a"]);
}

#[tokio::test]
async fn field_selectors_match_name_namespace_and_event_fields() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    seed(&api, "one", json!({})).await;
    seed(&api, "two", json!({})).await;
    assert_eq!(names(api.list(&ListParams::default().fields("metadata.name=two")).await.expect("list")), ["two"]);
    assert_eq!(names(api.list(&ListParams::default().fields("metadata.name!=two")).await.expect("list")), ["one"]);
    let all: Api<ConfigMap> = Api::all(c.client.clone());
    assert_eq!(
        names(all.list(&ListParams::default().fields("metadata.namespace=default")).await.expect("list")).len(),
        2
    );
    let events: Api<Event> = Api::namespaced(c.client.clone(), "default");
    for (name, kind) in [("e1", "Pod"), ("e2", "ConfigMap")] {
        let event: Event = serde_json::from_value(json!({
            "metadata": {"name": name}, "involvedObject": {"kind": kind, "name": "x", "namespace": "default"},
            "reason": "Test", "message": "m", "type": "Normal"
        }))
        .expect("event");
        events.create(&PostParams::default(), &event).await.expect("event");
    }
    let found = events
        .list(&ListParams::default().fields("involvedObject.kind=ConfigMap,involvedObject.name=x"))
        .await
        .expect("events");
    assert_eq!(found.items.len(), 1);
    assert_eq!(found.items[0].metadata.name.as_deref(), Some("e2"));
}

/// Metadata-only informers (client-go's metadata client, kube-rs `metadata_watcher`) ask for
/// `as=PartialObjectMetadataList` / `as=PartialObjectMetadata` and decode those kinds: a built-in
/// kind answers in that form for lists, gets and watch events alike.
#[tokio::test]
async fn metadata_only_reads_of_a_built_in_kind_answer_partial_object_metadata() {
    use futures::{StreamExt, TryStreamExt};
    use kube::api::{WatchEvent, WatchParams};
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    seed(&api, "meta-only", json!({"tier": "web"})).await;

    let list = api.list_metadata(&ListParams::default().labels("tier=web")).await.expect("list");
    assert_eq!(
        (list.types.api_version.as_str(), list.types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadataList")
    );
    let item = &list.items[0];
    assert_eq!(item.types.as_ref().map(|t| t.kind.as_str()), Some("PartialObjectMetadata"));
    assert_eq!(item.metadata.name.as_deref(), Some("meta-only"));

    let one = api.get_metadata("meta-only").await.expect("get");
    assert_eq!(one.types.as_ref().map(|t| t.kind.as_str()), Some("PartialObjectMetadata"));

    let rv = list.metadata.resource_version.expect("rv");
    let mut events = api.watch_metadata(&WatchParams::default().timeout(5), &rv).await.expect("watch").boxed();
    let patch = json!({"metadata": {"labels": {"seen": "yes"}}});
    api.patch("meta-only", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(&patch)).await.expect("patch");
    match events.try_next().await.expect("event") {
        Some(WatchEvent::Modified(object)) => {
            assert_eq!(object.types.as_ref().map(|t| t.kind.as_str()), Some("PartialObjectMetadata"));
            assert_eq!(object.metadata.labels.expect("labels")["seen"], "yes");
        }
        other => panic!("expected MODIFIED, got {other:?}"),
    }
}

/// A continue token is a snapshot at the first page's resourceVersion (etcd reads the later pages
/// at that revision): an object deleted after the first page still shows on the next, one created
/// after it does not, one changed shows as it was.
#[tokio::test]
async fn later_pages_show_the_snapshot_of_the_first_page() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    for name in ["a", "b", "c"] {
        seed(&api, name, json!({"v": "1"})).await;
    }
    let first = api.list(&ListParams::default().limit(1)).await.expect("page 1");
    assert_eq!(names(first.clone()), ["a"]);
    let token = first.metadata.continue_.clone().expect("continue");
    api.delete("b", &Default::default()).await.expect("delete b");
    seed(&api, "bb", json!({})).await;
    let patch = json!({"metadata": {"labels": {"v": "2"}}});
    api.patch("c", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(&patch)).await.expect("patch c");

    let rest = api.list(&ListParams::default().continue_token(&token)).await.expect("page 2");
    assert_eq!(rest.metadata.resource_version, first.metadata.resource_version);
    let labels: Vec<(String, String)> = rest
        .items
        .iter()
        .filter(|cm| cm.metadata.name.as_deref() != Some(ROOT_CA))
        .map(|cm| {
            (cm.metadata.name.clone().unwrap_or_default(), cm.metadata.labels.clone().unwrap_or_default()["v"].clone())
        })
        .collect();
    assert_eq!(labels, [("b".to_string(), "1".to_string()), ("c".to_string(), "1".to_string())]);
}

/// When the history no longer reaches the snapshot, the next page is 410 Expired, as upstream
/// answers a continue token whose revision etcd compacted.
#[tokio::test]
async fn a_continue_token_older_than_the_history_is_expired() {
    use fleetctl_apiserver::Settings;
    let c = TestCluster::with_settings(Settings { history: 2, ..Settings::default() }).await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    for name in ["a", "b"] {
        seed(&api, name, json!({})).await;
    }
    let first = api.list(&ListParams::default().limit(1)).await.expect("page 1");
    let token = first.metadata.continue_.clone().expect("continue");
    for name in ["c", "d", "e"] {
        seed(&api, name, json!({})).await;
    }
    match api.list(&ListParams::default().continue_token(&token)).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (410, "Expired"));
            assert!(status.message.contains("continue parameter is too old"), "{}", status.message);
        }
        other => panic!("expected 410 Expired, got {other:?}"),
    }
}
