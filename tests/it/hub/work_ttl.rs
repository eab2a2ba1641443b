//! Completed ManifestWorks deleted by the hub their TTL after they completed, as upstream's
//! hub work manager deletes them (`deleteOption.ttlSecondsAfterFinished`).

use std::time::Instant;

use fleetctl_api::ManifestWork;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::conditions::is_deleted;
use kube::runtime::wait::await_condition;
use serde_json::json;

use super::{Hub, WAIT};

fn work(name: &str, ttl: Option<i64>) -> ManifestWork {
    serde_json::from_value(json!({
        "apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
        "metadata": {"name": name, "namespace": "cluster1"},
        "spec": {"workload": {"manifests": []}, "deleteOption": {"propagationPolicy": "Foreground", "ttlSecondsAfterFinished": ttl}},
    }))
    .unwrap()
}

#[tokio::test]
async fn a_work_complete_for_its_ttl_is_deleted_and_works_not_complete_or_without_a_ttl_stay() {
    let hub = Hub::start().await;
    let client = hub.cluster.client.clone();
    let namespace: Namespace = serde_json::from_value(json!({"metadata": {"name": "cluster1"}})).unwrap();
    Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &namespace).await.unwrap();
    let works = Api::<ManifestWork>::namespaced(client, "cluster1");
    for (name, ttl) in [("done", Some(1)), ("running", Some(1)), ("kept", None)] {
        let created = works.create(&PostParams::default(), &work(name, ttl)).await.unwrap();
        assert!(created.metadata.uid.is_some());
    }
    // The work agent reports two of them Complete.
    let completed_at = Instant::now();
    let now = jiff::Timestamp::now().to_string();
    let complete = json!({"status": {"conditions": [{"type": "Complete", "status": "True", "reason": "ConditionRulesAggregated",
                                                       "message": "done", "lastTransitionTime": now}]}});
    for name in ["done", "kept"] {
        works.patch_status(name, &PatchParams::default(), &Patch::Merge(&complete)).await.unwrap();
    }
    let uid = works.get("done").await.unwrap().metadata.uid;
    tokio::time::timeout(WAIT, await_condition(works.clone(), "done", is_deleted(uid.as_deref().unwrap())))
        .await
        .expect("the completed work goes after its TTL")
        .unwrap();
    // Its TTL counts from the condition's transition time (whole seconds).
    assert!(completed_at.elapsed().as_millis() >= 500, "not before its TTL: {:?}", completed_at.elapsed());
    for name in ["running", "kept"] {
        assert!(works.get_opt(name).await.unwrap().is_some(), "{name} stays");
    }
}
