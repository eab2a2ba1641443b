//! Addons installed by their ClusterManagementAddOn's Placements, as upstream's addon manager
//! installs them (`installStrategy.type: Placements`).

use fleetctl_api::ManagedClusterAddOn;
use fleetctl_api::addon_management::ClusterManagementAddOn;
use fleetctl_api::placement::{Placement, PlacementSpec};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use kube::runtime::wait::await_condition;

use super::placement::{bound_set, clusters_in, decided, decisions_when, namespace, placement};
use super::{Hub, WAIT};

/// Waits until cluster `cluster` has (or has not) the ManagedClusterAddOn `hello`.
async fn wait_addon(hub: &Hub, cluster: &str, present: bool) {
    let api = Api::<ManagedClusterAddOn>::namespaced(hub.cluster.client.clone(), cluster);
    let done = await_condition(api, "hello", move |a: Option<&ManagedClusterAddOn>| a.is_some() == present);
    tokio::time::timeout(WAIT, done).await.unwrap_or_else(|_| panic!("hello on {cluster}: present {present}")).unwrap();
}

/// The clusters whose namespace holds ManagedClusterAddOn `hello` made by the addon.
async fn placed(hub: &Hub) -> Vec<String> {
    let all = Api::<ManagedClusterAddOn>::all(hub.cluster.client.clone()).list(&Default::default()).await.unwrap();
    let mut clusters: Vec<String> = all
        .items
        .into_iter()
        .filter(|a| a.metadata.name.as_deref() == Some("hello"))
        .filter(|a| a.metadata.owner_references.iter().flatten().any(|o| o.kind == "ClusterManagementAddOn"))
        .filter_map(|a| a.metadata.namespace)
        .collect();
    clusters.sort();
    clusters
}

#[tokio::test]
async fn an_addon_installed_by_placements_follows_their_decisions_and_leaves_one_written_by_hand() {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    bound_set(&hub, "prod", "apps").await;
    clusters_in(&hub, "prod", ["p1".to_owned(), "p2".to_owned()]).await;
    let namespaces = Api::<Namespace>::all(hub.cluster.client.clone());
    for cluster in ["p1", "p2", "p3"] {
        let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": cluster}})).unwrap();
        // The hub may have made the cluster's namespace already.
        let _ = namespaces.create(&PostParams::default(), &ns).await;
    }
    placement(&hub, "apps", "canary", PlacementSpec { number_of_clusters: Some(1), ..PlacementSpec::default() }).await;
    let first = decided(&decisions_when(&hub, "apps", "canary", |d| decided(d).len() == 1).await);

    let addon: ClusterManagementAddOn = serde_json::from_value(json!({
        "metadata": {"name": "hello"},
        "spec": {"addOnMeta": {"displayName": "Hello"},
                 "installStrategy": {"type": "Placements", "placements": [{"namespace": "apps", "name": "canary"}]}},
    }))
    .unwrap();
    let addons = Api::<ClusterManagementAddOn>::all(hub.cluster.client.clone());
    addons.create(&PostParams::default(), &addon).await.unwrap();
    wait_addon(&hub, &first[0], true).await;
    assert_eq!(placed(&hub).await, first, "the decided cluster alone gets the addon, made by it");

    // One written by hand on a cluster no Placement decides.
    let by_hand: ManagedClusterAddOn =
        serde_json::from_value(json!({"metadata": {"name": "hello", "namespace": "p3"}, "spec": {}})).unwrap();
    Api::<ManagedClusterAddOn>::namespaced(hub.cluster.client.clone(), "p3")
        .create(&PostParams::default(), &by_hand)
        .await
        .unwrap();

    let both = json!({"spec": {"numberOfClusters": 2}});
    Api::<Placement>::namespaced(hub.cluster.client.clone(), "apps")
        .patch("canary", &PatchParams::default(), &Patch::Merge(&both))
        .await
        .unwrap();
    for cluster in ["p1", "p2"] {
        wait_addon(&hub, cluster, true).await;
    }
    assert_eq!(placed(&hub).await, ["p1", "p2"]);

    let none = json!({"spec": {"installStrategy": {"type": "Placements", "placements": []}}});
    addons.patch("hello", &PatchParams::default(), &Patch::Merge(&none)).await.unwrap();
    for cluster in ["p1", "p2"] {
        wait_addon(&hub, cluster, false).await;
    }
    let kept = Api::<ManagedClusterAddOn>::namespaced(hub.cluster.client.clone(), "p3").get_opt("hello").await.unwrap();
    assert!(kept.is_some(), "the one written by hand stays");
}
