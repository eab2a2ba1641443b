//! One Event store under two APIs, as kube-apiserver serves them: an `events.k8s.io/v1`
//! Event is the core/v1 Event with fields renamed (upstream's `pkg/apis/events/v1`
//! conversion), so what one API writes the other reads, lists, watches and patches.

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Event as CoreEvent;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::json;

use crate::support::cluster::{TestCluster, raw};

fn events_v1(name: &str, pod: &str) -> Event {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "eventTime": "2026-12-01T10:00:00.000000Z",
        "regarding": {"kind": "Pod", "name": pod, "namespace": "default"},
        "note": "pulled the image", "reason": "Pulled", "type": "Normal", "action": "Pull",
        "reportingController": "kubelet", "reportingInstance": "node-1",
    }))
    .expect("event")
}

#[tokio::test]
async fn an_events_v1_event_is_the_core_event_with_upstreams_field_names() {
    let c = TestCluster::start().await;
    let new: Api<Event> = Api::namespaced(c.client.clone(), "default");
    let core: Api<CoreEvent> = Api::namespaced(c.client.clone(), "default");
    let created = new.create(&PostParams::default(), &events_v1("e1", "web-0")).await.expect("create");
    assert_eq!(created.note.as_deref(), Some("pulled the image"), "the answer is in the version asked for");

    let stored = core.get("e1").await.expect("the same event through core/v1");
    assert_eq!(stored.involved_object.name.as_deref(), Some("web-0"));
    assert_eq!(stored.message.as_deref(), Some("pulled the image"));
    assert_eq!(stored.reporting_component.as_deref(), Some("kubelet"));
    assert_eq!(stored.metadata.uid, created.metadata.uid);
    assert_eq!(stored.metadata.resource_version, created.metadata.resource_version);

    let (status, body) =
        raw(&c.client, "GET", "/apis/events.k8s.io/v1/namespaces/default/events/e1", "", Vec::new()).await;
    assert_eq!(status, 200);
    assert_eq!(body["apiVersion"], "events.k8s.io/v1");
    assert_eq!(body["regarding"]["name"], "web-0");
    assert!(body.get("involvedObject").is_none() && body.get("message").is_none(), "no core names: {body}");
}

#[tokio::test]
async fn a_core_event_lists_under_events_v1_and_field_selectors_use_its_names() {
    let c = TestCluster::start().await;
    let core: Api<CoreEvent> = Api::namespaced(c.client.clone(), "default");
    for (name, kind) in [("c1", "Pod"), ("c2", "ConfigMap")] {
        let event: CoreEvent = serde_json::from_value(json!({
            "metadata": {"name": name}, "involvedObject": {"kind": kind, "name": "x", "namespace": "default"},
            "reason": "Test", "message": "m", "type": "Warning", "count": 2,
        }))
        .expect("event");
        core.create(&PostParams::default(), &event).await.expect("create");
    }
    let new: Api<Event> = Api::namespaced(c.client.clone(), "default");
    let found = new.list(&ListParams::default().fields("regarding.kind=ConfigMap,type=Warning")).await.expect("list");
    assert_eq!(found.items.len(), 1);
    let event = &found.items[0];
    assert_eq!(event.metadata.name.as_deref(), Some("c2"));
    assert_eq!(event.note.as_deref(), Some("m"));
    assert_eq!(event.deprecated_count, Some(2));
    assert_eq!(new.list(&ListParams::default()).await.expect("list").items.len(), 2, "one store: both events");
}

#[tokio::test]
async fn events_v1_watches_see_core_writes_and_patches_change_the_one_event() {
    let c = TestCluster::start().await;
    let new: Api<Event> = Api::namespaced(c.client.clone(), "default");
    let core: Api<CoreEvent> = Api::namespaced(c.client.clone(), "default");
    let rv = new.list(&ListParams::default()).await.expect("list").metadata.resource_version.expect("rv");
    let mut watch = new.watch(&WatchParams::default().timeout(10), &rv).await.expect("watch").boxed();
    new.create(&PostParams::default(), &events_v1("e1", "web-0")).await.expect("create");
    match watch.try_next().await.expect("watch event") {
        Some(WatchEvent::Added(event)) => assert_eq!(event.regarding.and_then(|r| r.name).as_deref(), Some("web-0")),
        other => panic!("expected ADDED, got {other:?}"),
    }

    // A merge patch in the events.k8s.io shape changes the stored core field.
    let patched = new
        .patch("e1", &PatchParams::default(), &Patch::Merge(json!({"note": "pulled again", "deprecatedCount": 5})))
        .await
        .expect("patch");
    assert_eq!(patched.note.as_deref(), Some("pulled again"));
    let stored = core.get("e1").await.expect("get");
    assert_eq!((stored.message.as_deref(), stored.count), (Some("pulled again"), Some(5)));
    match watch.try_next().await.expect("watch event") {
        Some(WatchEvent::Modified(event)) => assert_eq!(event.note.as_deref(), Some("pulled again")),
        other => panic!("expected MODIFIED, got {other:?}"),
    }

    // Deleted through core/v1, gone from both.
    core.delete("e1", &Default::default()).await.expect("delete");
    assert!(new.get_opt("e1").await.expect("get").is_none());
}

/// A ValidatingAdmissionPolicy and its Deny binding; `group` is the resource rule's
/// group, and `exact` sets matchPolicy Exact (upstream's default is Equivalent).
async fn deny_events(c: &TestCluster, name: &str, group: &str, exact: bool, expression: &str) {
    use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {
            "matchConstraints": {
                "matchPolicy": if exact { "Exact" } else { "Equivalent" },
                "resourceRules": [{"apiGroups": [group], "apiVersions": ["v1"], "operations": ["CREATE"],
                    "resources": ["events"]}]},
            "validations": [{"expression": expression,
                "messageExpression": format!("'{name} saw ' + request.kind.group + '/' + request.kind.kind \
                    + ' requested as ' + request.requestKind.group + '/' + request.requestKind.kind")}]}
    }))
    .expect("policy");
    Api::<ValidatingAdmissionPolicy>::all(c.client.clone())
        .create(&PostParams::default(), &policy)
        .await
        .expect("policy");
    let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}
    }))
    .expect("binding");
    Api::<ValidatingAdmissionPolicyBinding>::all(c.client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .expect("binding");
}

fn denial(result: kube::Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(kube::Error::Api(status)) => status.message,
        other => panic!("expected a denial, got {other:?}"),
    }
}

/// Upstream's admission sees a write under the resource the client named, its object in
/// that version, and — with matchPolicy Equivalent, the default — policies on the equivalent
/// resource (events.k8s.io and core Events share one store) see it too, converted to their
/// version, with `requestKind` still the one named; an Exact policy sees only its own.
#[tokio::test]
async fn admission_sees_an_event_as_the_api_it_was_written_through_and_its_equivalent_unless_exact() {
    let c = TestCluster::start().await;
    deny_events(&c, "on-new", "events.k8s.io", false, "object.note != 'new-refused'").await;
    deny_events(&c, "on-core", "", false, "object.message != 'core-refused'").await;
    deny_events(&c, "on-core-exact", "", true, "object.message != 'exact-refused'").await;
    let new: Api<Event> = Api::namespaced(c.client.clone(), "default");
    let core: Api<CoreEvent> = Api::namespaced(c.client.clone(), "default");
    let with_note = |name: &str, note: &str| {
        let mut event = events_v1(name, "web-0");
        event.note = Some(note.to_string());
        event
    };
    let with_message = |name: &str, message: &str| -> CoreEvent {
        serde_json::from_value(json!({"metadata": {"name": name}, "message": message, "reason": "Test",
            "involvedObject": {"kind": "Pod", "name": "web-0", "namespace": "default"}}))
        .expect("event")
    };

    let message = denial(new.create(&PostParams::default(), &with_note("n1", "new-refused")).await);
    assert!(message.contains("on-new saw events.k8s.io/Event requested as events.k8s.io/Event"), "{message}");
    let message = denial(new.create(&PostParams::default(), &with_note("n2", "core-refused")).await);
    assert!(message.contains("on-core saw /Event requested as events.k8s.io/Event"), "{message}");
    let message = denial(core.create(&PostParams::default(), &with_message("c1", "new-refused")).await);
    assert!(message.contains("on-new saw events.k8s.io/Event requested as /Event"), "{message}");

    new.create(&PostParams::default(), &with_note("n3", "exact-refused"))
        .await
        .expect("an Exact core policy does not see events.k8s.io");
    let message = denial(core.create(&PostParams::default(), &with_message("c2", "exact-refused")).await);
    assert!(message.contains("on-core-exact saw /Event requested as /Event"), "{message}");
}
