//! Detach on the hub, normal and forced: nothing of the cluster remains.

use std::time::Duration;

use fleetctl_api::{ManagedCluster, ManifestWork};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::runtime::conditions;
use kube::runtime::wait::await_condition;
use serde_json::json;

use super::{Hub, report};

const AVAILABLE: &str = "ManagedClusterConditionAvailable";

async fn joined_and_available(hub: &Hub, name: &str) {
    hub.create_cluster(name, true).await;
    hub.import_secret(name).await;
    hub.wait_cluster(name, |c| c.is_hub_accepted()).await;
    report(
        hub,
        name,
        json!([
            {"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"},
            {"type": AVAILABLE, "status": "True", "reason": "ManagedClusterAvailable", "message": "available"},
        ]),
    )
    .await;
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), name);
    let work_name = format!("{name}-klusterlet-crds");
    let ready = await_condition(works, &work_name, |w: Option<&ManifestWork>| w.is_some());
    tokio::time::timeout(Duration::from_secs(10), ready).await.expect("works in time").expect("watch");
}

/// Asserts no object of `name` is left on the hub.
async fn nothing_left(hub: &Hub, name: &str, uid: &str, namespace_uid: &str) {
    let gone = await_condition(hub.clusters(), name, conditions::is_deleted(uid));
    tokio::time::timeout(Duration::from_secs(10), gone).await.expect("cluster gone in time").expect("watch");
    let namespaces: Api<Namespace> = Api::all(hub.cluster.client.clone());
    let ns_gone = await_condition(namespaces, name, conditions::is_deleted(namespace_uid));
    tokio::time::timeout(Duration::from_secs(10), ns_gone).await.expect("namespace gone in time").expect("watch");
    let roles = Api::<ClusterRole>::all(hub.cluster.client.clone()).list(&ListParams::default()).await.expect("roles");
    let bindings = Api::<ClusterRoleBinding>::all(hub.cluster.client.clone())
        .list(&ListParams::default())
        .await
        .expect("bindings");
    let leftovers: Vec<String> = roles
        .items
        .iter()
        .map(|r| r.name_any())
        .chain(bindings.items.iter().map(|b| b.name_any()))
        .filter(|n| n.ends_with(&format!(":{name}")))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn a_detach_with_the_agent_present_removes_works_in_order_then_everything() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    let cluster = hub.clusters().get("c1").await.expect("cluster");
    let ns_uid = Api::<Namespace>::all(hub.cluster.client.clone()).get("c1").await.expect("ns").uid().expect("uid");
    hub.clusters().delete("c1", &DeleteParams::default()).await.expect("delete");
    let detaching = hub
        .wait_cluster("c1", |c| {
            fleetctl_api::conditions::find(c.conditions(), "ManagedClusterImportSucceeded")
                .is_some_and(|c| c.reason == "ManagedClusterDetaching")
        })
        .await;
    assert!(fleetctl_api::conditions::find(detaching.conditions(), "Deleting").is_some());
    // The klusterlet work goes first; the CRD work stays until then.
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let klusterlet = works.get_opt("c1-klusterlet").await.expect("get");
    if let Some(work) = klusterlet {
        let uid = work.uid().expect("uid");
        let gone = await_condition(works.clone(), "c1-klusterlet", conditions::is_deleted(&uid));
        tokio::time::timeout(Duration::from_secs(10), gone).await.expect("klusterlet work deleted").expect("watch");
    }
    // The agent tells the hub it is going.
    report(
        &hub,
        "c1",
        json!([{"type": AVAILABLE, "status": "False", "reason": "Detached", "message": "klusterlet removed"}]),
    )
    .await;
    nothing_left(&hub, "c1", &cluster.uid().expect("uid"), &ns_uid).await;
}

#[tokio::test]
async fn a_forced_detach_of_an_unavailable_cluster_cleans_the_hub_at_once() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    // The work agent's finalizer would hold the works; the force path strips it.
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let finalizer = json!({"metadata": {"finalizers": ["cluster.open-cluster-management.io/manifest-work-cleanup"]}});
    works.patch("c1-klusterlet", &PatchParams::default(), &Patch::Merge(finalizer)).await.expect("finalizer");
    report(&hub, "c1", json!([{"type": AVAILABLE, "status": "Unknown", "reason": "ManagedClusterLeaseUpdateStopped", "message": "gone"}])).await;
    let cluster: ManagedCluster = hub.clusters().get("c1").await.expect("cluster");
    let ns_uid = Api::<Namespace>::all(hub.cluster.client.clone()).get("c1").await.expect("ns").uid().expect("uid");
    hub.clusters().delete("c1", &DeleteParams::default()).await.expect("delete");
    nothing_left(&hub, "c1", &cluster.uid().expect("uid"), &ns_uid).await;
}

#[tokio::test]
async fn a_silent_lease_turns_the_cluster_unknown() {
    let hub = Hub::with(|config| config.lease_grace = 1).await;
    hub.create_cluster("c1", true).await;
    hub.clusters()
        .patch("c1", &PatchParams::default(), &Patch::Merge(json!({"spec": {"leaseDurationSeconds": 1}})))
        .await
        .expect("lease");
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    report(
        &hub,
        "c1",
        json!([
            {"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"},
            {"type": AVAILABLE, "status": "True", "reason": "ManagedClusterAvailable", "message": "available"},
        ]),
    )
    .await;
    let started = std::time::Instant::now();
    let unknown =
        hub.wait_cluster("c1", |c| fleetctl_api::conditions::has_status(c.conditions(), AVAILABLE, "Unknown")).await;
    let condition = fleetctl_api::conditions::find(unknown.conditions(), AVAILABLE).expect("available");
    assert_eq!(condition.reason, "ManagedClusterLeaseUpdateStopped");
    assert_eq!(condition.message, "Registration agent stopped updating its lease.");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}
