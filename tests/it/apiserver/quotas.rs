//! ResourceQuotas against an in-process server: the quota controller's status, quota
//! admission's refusals, and `ValidateResourceQuota`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ConfigMap, Pod, ResourceQuota};
use kube::api::{Api, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::json;

use crate::support::PATIENCE;
use crate::support::cluster::TestCluster;

fn quota(name: &str, hard: serde_json::Value) -> ResourceQuota {
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": {"hard": hard}})).expect("a quota")
}

fn pod(name: &str, resources: serde_json::Value) -> Pod {
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": {"containers": [
        {"name": "main", "image": "busybox:1.36", "resources": resources}]}}))
    .expect("a pod")
}

/// Waits until the quota's `status.used` is `wanted`.
async fn used(api: &Api<ResourceQuota>, name: &str, wanted: &[(&str, &str)]) {
    let wanted: BTreeMap<String, String> = wanted.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let matches = |q: Option<&ResourceQuota>| {
        let used = q.and_then(|q| q.status.as_ref()).and_then(|s| s.used.as_ref());
        used.is_some_and(|u| u.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect::<BTreeMap<_, _>>() == wanted)
    };
    let waited = tokio::time::timeout(PATIENCE, await_condition(api.clone(), name, matches)).await;
    let last = api.get(name).await.ok().and_then(|q| q.status);
    assert!(waited.is_ok(), "{name}: status.used never became {wanted:?}; last {last:?}");
}

fn refusal(result: Result<Pod, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The quota controller: `status.hard` is the spec's, `status.used` counts the
/// namespace's objects (`configmaps` includes `kube-root-ca.crt`, `count/<resource>`) and
/// the compute resources of its Pods that have not finished (`cpu` is `requests.cpu`).
#[tokio::test]
async fn the_quota_controller_counts_objects_and_the_compute_resources_of_pods() {
    let c = TestCluster::start().await;
    let quotas: Api<ResourceQuota> = Api::namespaced(c.client.clone(), "default");
    let hard = json!({"pods": "5", "configmaps": "10", "count/configmaps": "10", "requests.cpu": "2",
        "cpu": "2", "requests.memory": "1Gi", "limits.memory": "2Gi"});
    quotas.create(&PostParams::default(), &quota("q", hard)).await.expect("quota");
    used(
        &quotas,
        "q",
        &[
            ("pods", "0"),
            ("configmaps", "1"),
            ("count/configmaps", "1"),
            ("requests.cpu", "0"),
            ("cpu", "0"),
            ("requests.memory", "0"),
            ("limits.memory", "0"),
        ],
    )
    .await;

    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let resources = json!({"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}});
    for name in ["a", "b"] {
        pods.create(&PostParams::default(), &pod(name, resources.clone())).await.expect("pod");
    }
    let cms: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "settings"}})).expect("cm");
    cms.create(&PostParams::default(), &cm).await.expect("configmap");
    used(
        &quotas,
        "q",
        &[
            ("pods", "2"),
            ("configmaps", "2"),
            ("count/configmaps", "2"),
            ("requests.cpu", "500m"),
            ("cpu", "500m"),
            ("requests.memory", "128Mi"),
            ("limits.memory", "256Mi"),
        ],
    )
    .await;
    let status = quotas.get("q").await.expect("quota").status.expect("status");
    assert_eq!(status.hard.expect("hard")["requests.memory"].0, "1Gi");

    // A finished Pod counts no more.
    let finished = kube::api::Patch::Merge(json!({"status": {"phase": "Succeeded"}}));
    pods.patch_status("b", &kube::api::PatchParams::default(), &finished).await.expect("status");
    used(
        &quotas,
        "q",
        &[
            ("pods", "1"),
            ("configmaps", "2"),
            ("count/configmaps", "2"),
            ("requests.cpu", "250m"),
            ("cpu", "250m"),
            ("requests.memory", "64Mi"),
            ("limits.memory", "128Mi"),
        ],
    )
    .await;
}

/// Quota admission (`CheckRequest`): a create that would pass a hard limit is 403
/// `exceeded quota: NAME, requested: …, used: …, limited: …` naming only what is exceeded.
#[tokio::test]
async fn a_create_past_a_quota_is_forbidden_with_what_it_asked_what_is_used_and_the_limit() {
    let c = TestCluster::start().await;
    let quotas: Api<ResourceQuota> = Api::namespaced(c.client.clone(), "default");
    quotas
        .create(&PostParams::default(), &quota("compute", json!({"pods": "3", "requests.cpu": "500m"})))
        .await
        .expect("quota");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let cpu = |amount: &str| json!({"requests": {"cpu": amount}});
    pods.create(&PostParams::default(), &pod("first", cpu("300m"))).await.expect("within the quota");
    let (code, message) = refusal(pods.create(&PostParams::default(), &pod("second", cpu("300m"))).await);
    assert_eq!(code, 403);
    assert_eq!(
        message,
        r#"pods "second" is forbidden: exceeded quota: compute, requested: requests.cpu=300m, used: requests.cpu=300m, limited: requests.cpu=500m"#
    );
    pods.create(&PostParams::default(), &pod("small", cpu("200m"))).await.expect("exactly at the limit");

    let counted: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    quotas.create(&PostParams::default(), &quota("objects", json!({"count/configmaps": "1"}))).await.expect("quota");
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "one-too-many"}})).expect("cm");
    match counted.create(&PostParams::default(), &cm).await {
        Err(kube::Error::Api(status)) => assert_eq!(
            status.message,
            r#"configmaps "one-too-many" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1"#
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The pod evaluator's `Constraints`: when a quota limits compute resources every
/// container must state them (requests default to limits).
#[tokio::test]
async fn a_pod_that_does_not_state_the_compute_resources_a_quota_limits_is_forbidden() {
    let c = TestCluster::start().await;
    let quotas: Api<ResourceQuota> = Api::namespaced(c.client.clone(), "default");
    quotas
        .create(&PostParams::default(), &quota("compute", json!({"requests.memory": "1Gi", "limits.cpu": "1"})))
        .await
        .expect("quota");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let (code, message) = refusal(pods.create(&PostParams::default(), &pod("bare", json!({}))).await);
    assert_eq!(code, 403);
    assert_eq!(
        message,
        r#"pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: main; requests.memory for: main"#
    );
    let limits = json!({"limits": {"cpu": "500m", "memory": "256Mi"}});
    pods.create(&PostParams::default(), &pod("stated", limits)).await.expect("limits stand for requests");
}

/// `ValidateResourceQuota`: names a quota may limit, amounts not below zero.
#[tokio::test]
async fn a_quota_with_an_unknown_name_or_a_negative_amount_is_invalid() {
    let c = TestCluster::start().await;
    let quotas: Api<ResourceQuota> = Api::namespaced(c.client.clone(), "default");
    match quotas.create(&PostParams::default(), &quota("bad", json!({"widgets": "1", "pods": "-1"}))).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 422);
            assert!(
                status.message.contains(r#"spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0"#),
                "{}",
                status.message
            );
            assert!(
                status
                    .message
                    .contains(r#"spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota"#),
                "{}",
                status.message
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }
}
