//! ManifestWorkReplicaSets on the hub, against upstream's manifestworkreplicaset controller:
//! one labelled ManifestWork per decided cluster, gone with the decision and with the set,
//! the status counted from the works' conditions — and a work the set did not make left alone.

use std::time::Duration;

use fleetctl_api::clusterset::CLUSTER_SET_LABEL;
use fleetctl_api::placement::PlacementSpec;
use fleetctl_api::{ManagedCluster, ManifestWork, ManifestWorkReplicaSet};
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::conditions::is_deleted;
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};

use super::Hub;
use super::placement::{bound_set, clusters_in, namespace, placement};

const WAIT: Duration = Duration::from_secs(20);
const SET_LABEL: &str = "work.open-cluster-management.io/manifestworkreplicaset";
const PLACEMENT_NAME_LABEL: &str = "work.open-cluster-management.io/placementname";

/// Two clusters `c1`, `c2` in a set bound into `apps`, with their namespaces, and Placement
/// `p1` in `apps` selecting them.
async fn two_clusters_placed(hub: &Hub) {
    namespace(hub, "apps").await;
    bound_set(hub, "apps-set", "apps").await;
    clusters_in(hub, "apps-set", ["c1".to_owned(), "c2".to_owned()]).await;
    for cluster in ["c1", "c2"] {
        namespace(hub, cluster).await;
    }
    placement(hub, "apps", "p1", PlacementSpec::default()).await;
}

fn replica_set(cascade: &str) -> ManifestWorkReplicaSet {
    serde_json::from_value(json!({
        "apiVersion": "work.open-cluster-management.io/v1alpha1", "kind": "ManifestWorkReplicaSet",
        "metadata": {"name": "app", "namespace": "apps"},
        "spec": {
            "manifestWorkTemplate": {"workload": {"manifests": [{"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "app-config", "namespace": "default"}, "data": {"k": "v"}}]}},
            "placementRefs": [{"name": "p1"}],
            "cascadeDeletionPolicy": cascade
        }
    }))
    .unwrap()
}

fn sets(hub: &Hub) -> Api<ManifestWorkReplicaSet> {
    Api::namespaced(hub.cluster.client.clone(), "apps")
}

/// The works labelled as `apps/app`'s, as (cluster, name), once `check` holds for them.
async fn works_when(hub: &Hub, check: impl Fn(&[ManifestWork]) -> bool) -> Vec<ManifestWork> {
    let api: Api<ManifestWork> = Api::all(hub.cluster.client.clone());
    let params = ListParams::default().labels(&format!("{SET_LABEL}=apps.app"));
    let polled = async {
        loop {
            let mut items = api.list(&params).await.unwrap().items;
            items.sort_by_key(|w| w.namespace());
            if check(&items) {
                return items;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(WAIT, polled).await.expect("the works in time")
}

fn clusters(works: &[ManifestWork]) -> Vec<String> {
    works.iter().filter_map(|w| w.namespace()).collect()
}

/// The set once `check` holds for it.
async fn set_when(hub: &Hub, check: impl Fn(&ManifestWorkReplicaSet) -> bool) -> ManifestWorkReplicaSet {
    let ready = await_condition(sets(hub), "app", move |s: Option<&ManifestWorkReplicaSet>| s.is_some_and(&check));
    tokio::time::timeout(WAIT, ready).await.expect("the set in time").expect("watch").expect("the set")
}

fn condition<'a>(set: &'a ManifestWorkReplicaSet, type_: &str) -> (&'a str, &'a str) {
    set.conditions().iter().find(|c| c.type_ == type_).map_or(("", ""), |c| (c.status.as_str(), c.reason.as_str()))
}

fn summary(set: &ManifestWorkReplicaSet) -> Value {
    set.status.as_ref().map_or(Value::Null, |s| serde_json::to_value(s.summary).unwrap())
}

/// Reports conditions on a work as its agent would, for the work's generation.
async fn report(hub: &Hub, work: &ManifestWork, conditions: &[(&str, &str)]) {
    let generation = work.metadata.generation;
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let list: Vec<Value> = conditions
        .iter()
        .map(|(t, s)| {
            json!({"type": t, "status": s, "reason": "Reported", "message": "",
            "observedGeneration": generation, "lastTransitionTime": now})
        })
        .collect();
    let api: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), &work.namespace().unwrap());
    let patch = Patch::Merge(json!({"status": {"conditions": list}}));
    api.patch_status(&work.name_any(), &PatchParams::default(), &patch).await.unwrap();
}

#[tokio::test]
async fn each_decided_cluster_gets_a_labelled_work_that_goes_with_the_decision_and_the_set_as_upstreams_manifestworkreplicaset_controller()
 {
    let hub = Hub::start().await;
    two_clusters_placed(&hub).await;
    sets(&hub).create(&PostParams::default(), &replica_set("Background")).await.unwrap();

    // One work per decided cluster, named as the set, with upstream's labels and the template.
    let works = works_when(&hub, |w| w.len() == 2).await;
    assert_eq!(clusters(&works), ["c1", "c2"]);
    for work in &works {
        assert_eq!(work.name_any(), "app");
        assert_eq!(work.labels()[SET_LABEL], "apps.app");
        assert_eq!(work.labels()[PLACEMENT_NAME_LABEL], "p1");
        assert_eq!(work.spec, replica_set("Background").spec.manifest_work_template);
    }
    let c1_work = works[0].metadata.uid.clone();
    let set = set_when(&hub, |s| summary(s)["total"] == 2).await;
    assert_eq!(set.finalizers(), ["work.open-cluster-management.io/manifest-work-cleanup"]);
    assert_eq!(condition(&set, "PlacementVerified"), ("True", "AsExpected"));
    assert_eq!(condition(&set, "ManifestworkApplied"), ("False", "NotAsExpected"), "nothing reported yet");
    let placements = serde_json::to_value(&set.status.as_ref().unwrap().placements_summary).unwrap();
    assert_eq!(placements[0]["name"], "p1");
    assert_eq!(placements[0]["availableDecisionGroups"], "1 (2 / 2 clusters applied)");

    // The summary counts the conditions the agents report.
    report(&hub, &works[0], &[("Applied", "True"), ("Available", "True"), ("Progressing", "False")]).await;
    report(&hub, &works[1], &[("Applied", "True"), ("Progressing", "True")]).await;
    let set = set_when(&hub, |s| summary(s)["applied"] == 2).await;
    assert_eq!(
        summary(&set),
        json!({"total": 2, "applied": 2, "available": 1, "progressing": 1, "degraded": 0, "desiredTotal": 0, "updated": 0})
    );
    assert_eq!(condition(&set, "ManifestworkApplied"), ("False", "Processing"));
    assert_eq!(condition(&set, "PlacementRolledOut"), ("False", "Progressing"));
    report(&hub, &works[1], &[("Applied", "True"), ("Available", "True"), ("Progressing", "False")]).await;
    let set = set_when(&hub, |s| summary(s)["available"] == 2).await;
    assert_eq!(condition(&set, "ManifestworkApplied"), ("True", "AsExpected"));
    assert_eq!(condition(&set, "PlacementRolledOut"), ("True", "Complete"));

    // c2 leaves the set the Placement selects from: its work goes, c1's stays.
    let c2_label = Patch::Merge(json!({"metadata": {"labels": {CLUSTER_SET_LABEL: "elsewhere"}}}));
    Api::<ManagedCluster>::all(hub.cluster.client.clone())
        .patch("c2", &PatchParams::default(), &c2_label)
        .await
        .unwrap();
    let works = works_when(&hub, |w| clusters(w) == ["c1"]).await;
    assert_eq!(works[0].metadata.uid, c1_work, "c1's work kept, not made again");
    set_when(&hub, |s| summary(s)["total"] == 1).await;

    // The set deleted: its works go, then the set.
    let uid = set.uid().unwrap();
    sets(&hub).delete("app", &Default::default()).await.unwrap();
    tokio::time::timeout(WAIT, await_condition(sets(&hub), "app", is_deleted(&uid)))
        .await
        .expect("the set gone in time")
        .unwrap();
    works_when(&hub, <[ManifestWork]>::is_empty).await;
}

#[tokio::test]
async fn a_work_of_the_sets_name_without_its_label_is_left_alone_as_upstreams_controller_touches_only_its_labelled_works()
 {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    // A set naming a Placement that is not there yet.
    sets(&hub).create(&PostParams::default(), &replica_set("Foreground")).await.unwrap();
    let set = set_when(&hub, |s| condition(s, "PlacementVerified").0 == "False").await;
    assert_eq!(condition(&set, "PlacementVerified"), ("False", "PlacementDecisionNotFound"));

    // Someone wrote a work of the set's name in c2 by hand.
    bound_set(&hub, "apps-set", "apps").await;
    clusters_in(&hub, "apps-set", ["c1".to_owned(), "c2".to_owned()]).await;
    for cluster in ["c1", "c2"] {
        namespace(&hub, cluster).await;
    }
    let mut by_hand = ManifestWork::for_cluster("c2", "app", Vec::new());
    by_hand.metadata.labels = Some([("owner".to_owned(), "me".to_owned())].into());
    let c2_works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c2");
    let by_hand = c2_works.create(&PostParams::default(), &by_hand).await.unwrap();
    placement(&hub, "apps", "p1", PlacementSpec::default()).await;

    let works = works_when(&hub, |w| !w.is_empty()).await;
    assert_eq!(clusters(&works), ["c1"]);
    let set =
        set_when(&hub, |s| condition(s, "ManifestworkApplied").1 == "NotAsExpected" && summary(s)["total"] == 1).await;
    assert_eq!(condition(&set, "PlacementVerified"), ("True", "AsExpected"));
    let message = &set.conditions().iter().find(|c| c.type_ == "ManifestworkApplied").unwrap().message;
    assert!(message.contains("c2"), "{message}");
    let untouched = c2_works.get("app").await.unwrap();
    assert_eq!(untouched.metadata.resource_version, by_hand.metadata.resource_version, "not overwritten");

    // Deleted (Foreground): the set's own work goes, the hand-written one stays.
    let uid = set.uid().unwrap();
    sets(&hub).delete("app", &Default::default()).await.unwrap();
    tokio::time::timeout(WAIT, await_condition(sets(&hub), "app", is_deleted(&uid)))
        .await
        .expect("the set gone in time")
        .unwrap();
    assert!(works_when(&hub, |_| true).await.is_empty(), "the set's work went before it");
    assert_eq!(c2_works.get("app").await.unwrap().metadata.uid, by_hand.metadata.uid, "the hand-written work stays");
}
