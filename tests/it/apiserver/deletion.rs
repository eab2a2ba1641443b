//! Finalizers, garbage collection in its three propagation modes, namespace termination.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, PropagationPolicy};
use kube::runtime::{conditions, wait::await_condition};
use serde_json::json;

use crate::support::cluster::TestCluster;

/// Long enough for a namespace's 5 s deletion grace.
const WAIT: Duration = Duration::from_secs(10);

async fn owner(c: &TestCluster) -> Deployment {
    let api: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let d: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "owner"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}
    }))
    .expect("deployment");
    api.create(&PostParams::default(), &d).await.expect("owner")
}

async fn dependent(c: &TestCluster, name: &str, owner: &Deployment, extra: serde_json::Value) -> ConfigMap {
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let mut meta = json!({"name": name, "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "owner",
        "uid": owner.metadata.uid, "blockOwnerDeletion": true}]});
    if let Some(map) = extra.as_object() {
        for (k, v) in map {
            meta[k] = v.clone();
        }
    }
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": meta})).expect("cm");
    api.create(&PostParams::default(), &cm).await.expect("dependent")
}

async fn gone<K>(api: Api<K>, object: &K)
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
{
    let uid = object.meta().uid.clone().expect("uid");
    let name = object.meta().name.clone().expect("name");
    tokio::time::timeout(WAIT, await_condition(api, &name, conditions::is_deleted(&uid)))
        .await
        .expect("deleted in time")
        .expect("watch");
}

#[tokio::test]
async fn finalizers_hold_an_object_until_they_are_removed() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})).expect("cm");
    let created = api.create(&PostParams::default(), &cm).await.expect("create");
    let pending = api.delete("held", &DeleteParams::default()).await.expect("delete");
    let marked = pending.left().expect("the object comes back while finalizers remain");
    assert!(marked.metadata.deletion_timestamp.is_some());
    let kube::Error::Api(refused) = api
        .patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/hold", "example.com/new"]}})),
        )
        .await
        .expect_err("no new finalizers while deleting")
    else {
        panic!("refused by the server")
    };
    assert_eq!((refused.code, refused.reason.as_str()), (422, "Invalid"), "{refused:?}");
    assert!(refused.message.contains("no new finalizers"), "{}", refused.message);
    api.patch("held", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}})))
        .await
        .expect("release");
    gone(api, &created).await;
}

#[tokio::test]
async fn background_deletion_removes_dependents_after_the_owner() {
    let c = TestCluster::start().await;
    let owner = owner(&c).await;
    let dep = dependent(&c, "dep", &owner, json!({})).await;
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let dp = DeleteParams { propagation_policy: Some(PropagationPolicy::Background), ..Default::default() };
    let reply = deployments.delete("owner", &dp).await.expect("delete");
    assert!(reply.is_right(), "a plain delete answers with a Status");
    gone(Api::namespaced(c.client.clone(), "default"), &dep).await;
}

#[tokio::test]
async fn foreground_deletion_removes_dependents_before_the_owner() {
    let c = TestCluster::start().await;
    let owner = owner(&c).await;
    let held = dependent(&c, "held", &owner, json!({"finalizers": ["example.com/hold"]})).await;
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let reply = deployments.delete("owner", &DeleteParams::foreground()).await.expect("delete");
    let marked = reply.left().expect("the owner waits for its dependents");
    assert!(marked.metadata.finalizers.expect("finalizers").contains(&"foregroundDeletion".to_string()));
    let configmaps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let dependent = configmaps.get("held").await.expect("held by its finalizer");
    assert!(dependent.metadata.deletion_timestamp.is_some());
    assert!(deployments.get_opt("owner").await.expect("get").is_some(), "the owner stays while a dependent blocks it");
    configmaps
        .patch("held", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}})))
        .await
        .expect("release");
    gone(configmaps, &held).await;
    gone(deployments, &owner).await;
}

#[tokio::test]
async fn orphan_deletion_keeps_dependents_and_drops_their_owner_reference() {
    let c = TestCluster::start().await;
    let owner = owner(&c).await;
    dependent(&c, "kept", &owner, json!({})).await;
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    deployments.delete("owner", &DeleteParams::orphan()).await.expect("delete");
    gone(deployments, &owner).await;
    let configmaps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let kept = configmaps.get("kept").await.expect("kept");
    assert!(kept.metadata.owner_references.is_none(), "{:?}", kept.metadata.owner_references);
}

/// A new namespace, and the API of its ConfigMaps.
async fn namespace(c: &TestCluster, name: &str) -> (Api<Namespace>, Namespace, Api<ConfigMap>) {
    let namespaces: Api<Namespace> = Api::all(c.client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).expect("ns");
    let ns = namespaces.create(&PostParams::default(), &ns).await.expect("ns");
    (namespaces, ns, Api::namespaced(c.client.clone(), name))
}

/// A ConfigMap of `metadata`, created.
async fn configmap(api: &Api<ConfigMap>, metadata: serde_json::Value) -> ConfigMap {
    let cm: ConfigMap = serde_json::from_value(json!({ "metadata": metadata })).expect("cm");
    api.create(&PostParams::default(), &cm).await.expect("cm")
}

#[tokio::test]
async fn deleting_a_namespace_removes_its_content_then_the_namespace() {
    let c = TestCluster::start().await;
    let (namespaces, ns, configmaps) = namespace(&c, "doomed").await;
    configmap(&configmaps, json!({"name": "held", "finalizers": ["example.com/hold"]})).await;
    let plain = configmap(&configmaps, json!({"name": "plain"})).await;
    let marked =
        namespaces.delete("doomed", &DeleteParams::default()).await.expect("delete").left().expect("namespace object");
    assert_eq!(marked.status.and_then(|s| s.phase).as_deref(), Some("Terminating"));
    assert_eq!(marked.spec.and_then(|s| s.finalizers), Some(vec!["kubernetes".to_string()]));
    gone(configmaps.clone(), &plain).await;
    let kube::Error::Api(refused) = configmaps
        .create(&PostParams::default(), &serde_json::from_value(json!({"metadata": {"name": "late"}})).expect("cm"))
        .await
        .expect_err("terminating")
    else {
        panic!()
    };
    assert_eq!(refused.code, 403);
    assert!(
        refused.message.contains("unable to create new content in namespace doomed because it is being terminated"),
        "{}",
        refused.message
    );
    assert!(namespaces.get_opt("doomed").await.expect("get").is_some(), "held content keeps the namespace");
    configmaps
        .patch("held", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}})))
        .await
        .expect("release");
    gone(namespaces, &ns).await;
}

/// kube-controller-manager's namespace controller takes up a deleted namespace after its
/// `namespaceDeletionGracePeriod` (5 s): until then what runs there keeps running, so an
/// operator whose cleanup ends by deleting its own namespace can still release its finalizer.
#[tokio::test]
async fn a_deleted_namespace_keeps_its_content_for_kube_controller_managers_5_s_deletion_grace() {
    let c = TestCluster::start().await;
    let (namespaces, ns, configmaps) = namespace(&c, "operator").await;
    let cm = configmap(&configmaps, json!({"name": "state"})).await;
    let deleted = std::time::Instant::now();
    namespaces.delete("operator", &DeleteParams::default()).await.expect("delete");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let kept = configmaps.get("state").await.expect("still there during the grace");
    assert!(kept.metadata.deletion_timestamp.is_none(), "not yet being deleted");
    gone(configmaps, &cm).await;
    // The deletion timestamp has whole seconds: the grace ends 4 to 5 s after the deletion.
    assert!(deleted.elapsed() >= Duration::from_secs(4), "{:?}", deleted.elapsed());
    gone(namespaces, &ns).await;
}

fn pod(name: &str, node: Option<&str>) -> Pod {
    let mut spec = json!({"containers": [{"name": "c", "image": "i"}]});
    if let Some(node) = node {
        spec["nodeName"] = json!(node);
    }
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": spec})).expect("pod")
}

fn grace(seconds: i64) -> DeleteParams {
    DeleteParams { grace_period_seconds: Some(u32::try_from(seconds).expect("seconds")), ..DeleteParams::default() }
}

/// kube-apiserver's pod `CheckGracefulDelete` and `BeforeDelete`: a Pod bound to a node is
/// marked with its grace period (`terminationGracePeriodSeconds`, 30 by default, or the
/// request's) and stays until deleted with 0, as its kubelet does once the containers have
/// stopped; a later request may only shorten the period. A Pod bound to no node, or one
/// that has finished, goes at once.
#[tokio::test]
async fn a_pod_on_a_node_is_deleted_gracefully_and_only_a_shorter_grace_period_changes_that() {
    let c = TestCluster::start().await;
    let api: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let bound = api.create(&PostParams::default(), &pod("bound", Some("node1"))).await.expect("create");
    let marked = api.delete("bound", &DeleteParams::default()).await.expect("delete").left().expect("still there");
    assert_eq!(marked.metadata.deletion_grace_period_seconds, Some(30));
    let at = marked.metadata.deletion_timestamp.expect("marked").0;
    let ahead = at.duration_since(jiff::Timestamp::now()).as_secs();
    assert!((28..=30).contains(&ahead), "the deletion is due when the grace period ends: {ahead}s ahead");

    let shortened = api.delete("bound", &grace(10)).await.expect("delete").left().expect("still there");
    assert_eq!(shortened.metadata.deletion_grace_period_seconds, Some(10));
    let again = api.delete("bound", &DeleteParams::default()).await.expect("delete").left().expect("still there");
    assert_eq!(again.metadata.deletion_grace_period_seconds, Some(10), "a longer period does not extend it");
    assert!(api.delete("bound", &grace(0)).await.expect("delete").is_right(), "0 ends it");
    gone(api.clone(), &bound).await;

    let unbound = api.create(&PostParams::default(), &pod("unbound", None)).await.expect("create");
    assert!(api.delete("unbound", &DeleteParams::default()).await.expect("delete").is_right());
    gone(api.clone(), &unbound).await;

    api.create(&PostParams::default(), &pod("done", Some("node1"))).await.expect("create");
    let status = Patch::Merge(json!({"status": {"phase": "Succeeded"}}));
    api.patch_status("done", &PatchParams::default(), &status).await.expect("finished");
    assert!(api.delete("done", &DeleteParams::default()).await.expect("delete").is_right(), "a finished pod goes");

    // A finalizer still holds a Pod deleted with 0.
    let mut held = pod("held", Some("node1"));
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    let held = api.create(&PostParams::default(), &held).await.expect("create");
    let marked = api.delete("held", &grace(0)).await.expect("delete").left().expect("held");
    assert_eq!(marked.metadata.deletion_grace_period_seconds, Some(0));
    api.patch("held", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}})))
        .await
        .expect("release");
    gone(api, &held).await;
}

/// The first object of `api` (as its watch shows them) that satisfies `cond`.
async fn first<K>(api: &Api<K>, what: &str, cond: impl Fn(&K) -> bool) -> K
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
{
    use futures::StreamExt;
    use kube::runtime::{WatchStreamExt, watcher};
    let mut objects = watcher(api.clone(), watcher::Config::default()).applied_objects().boxed();
    let found = async {
        loop {
            let object = objects.next().await.expect("watch goes on").expect("watch event");
            if cond(&object) {
                return object;
            }
        }
    };
    tokio::time::timeout(WAIT, found).await.unwrap_or_else(|_| panic!("timed out waiting: {what}"))
}

/// The garbage collector's `attemptToDeleteItem`: a dependent that has dependents of its
/// own, of an owner deleted in foreground, is deleted in foreground too — so a Deployment
/// deleted in foreground goes only once its ReplicaSet's Pods are gone (here a finalizer
/// holds the Pod).
#[tokio::test]
async fn foreground_deletion_waits_for_the_whole_tree_deployment_replicaset_pod() {
    use k8s_openapi::api::apps::v1::ReplicaSet;
    let c = TestCluster::start().await;
    let deployment = owner(&c).await;
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let sets: Api<ReplicaSet> = Api::namespaced(c.client.clone(), "default");
    let pod = first(&pods, "the ReplicaSet's pod", |_| true).await;
    let name = pod.metadata.name.clone().expect("name");
    let hold = Patch::Merge(json!({"metadata": {"finalizers": ["example.com/hold"]}}));
    pods.patch(&name, &PatchParams::default(), &hold).await.expect("hold the pod");

    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let foreground =
        DeleteParams { propagation_policy: Some(PropagationPolicy::Foreground), ..DeleteParams::default() };
    deployments.delete("owner", &foreground).await.expect("delete");
    let set = first(&sets, "the set marked", |s: &ReplicaSet| s.metadata.deletion_timestamp.is_some()).await;
    assert!(set.metadata.finalizers.iter().flatten().any(|f| f == "foregroundDeletion"), "{:?}", set.metadata);
    assert!(deployments.get_opt("owner").await.expect("read").is_some(), "the Deployment waits for its tree");

    pods.patch(&name, &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}})))
        .await
        .expect("release");
    gone(deployments, &deployment).await;
    gone(sets, &set).await;
}
