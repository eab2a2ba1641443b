//! Object semantics: uid, timestamps, resourceVersions, generation, conflicts, dry runs,
//! status subresources.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::support::cluster::TestCluster;

fn cm(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"a": "1"}})).expect("cm")
}

fn deployment(name: &str) -> Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}
    }))
    .expect("deployment")
}

#[tokio::test]
async fn created_objects_get_uid_timestamp_and_increasing_resource_versions() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let a = api.create(&PostParams::default(), &cm("a")).await.expect("create a");
    let b = api.create(&PostParams::default(), &cm("b")).await.expect("create b");
    assert_eq!(a.metadata.uid.as_ref().expect("uid").len(), 36);
    assert!(a.metadata.creation_timestamp.is_some());
    let rv = |o: &ConfigMap| o.metadata.resource_version.as_deref().expect("rv").parse::<u64>().expect("number");
    assert!(rv(&b) > rv(&a));
    assert_eq!(a.metadata.generation, None, "configmaps carry no generation");
    let got = api.get("a").await.expect("get");
    assert_eq!(got.metadata.uid, a.metadata.uid);
}

#[tokio::test]
async fn the_seeded_namespaces_exist() {
    let c = TestCluster::start().await;
    let api: Api<Namespace> = Api::all(c.client.clone());
    let names: Vec<String> =
        api.list(&Default::default()).await.expect("list").items.into_iter().filter_map(|n| n.metadata.name).collect();
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        assert!(names.contains(&ns.to_string()), "{ns} missing from {names:?}");
    }
    let default = api.get("default").await.expect("default");
    assert_eq!(default.status.and_then(|s| s.phase).as_deref(), Some("Active"));
    assert_eq!(default.metadata.labels.expect("labels")["kubernetes.io/metadata.name"], "default");
}

#[tokio::test]
async fn generate_name_gets_a_random_suffix() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let mut object = cm("");
    object.metadata.name = None;
    object.metadata.generate_name = Some("gen-".into());
    let created = api.create(&PostParams::default(), &object).await.expect("create");
    let name = created.metadata.name.expect("name");
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
}

#[tokio::test]
async fn a_stale_resource_version_is_a_conflict() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let first = api.create(&PostParams::default(), &cm("x")).await.expect("create");
    let mut newer = first.clone();
    newer.data = Some([("a".to_string(), "2".to_string())].into());
    api.replace("x", &PostParams::default(), &newer).await.expect("first update");
    let mut stale = first;
    stale.data = Some([("a".to_string(), "3".to_string())].into());
    let err = api.replace("x", &PostParams::default(), &stale).await.expect_err("conflict");
    let kube::Error::Api(status) = err else { panic!("not an API error: {err}") };
    assert_eq!(status.code, 409);
    assert_eq!(status.reason, "Conflict");
    assert_eq!(
        status.message,
        "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again"
    );
}

#[tokio::test]
async fn not_found_and_already_exists_are_shaped_as_upstream() {
    let c = TestCluster::start().await;
    let api: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let kube::Error::Api(missing) = api.get("nope").await.expect_err("missing") else { panic!() };
    assert_eq!((missing.code, missing.reason.as_str()), (404, "NotFound"));
    assert_eq!(missing.message, "deployments.apps \"nope\" not found");
    api.create(&PostParams::default(), &deployment("web")).await.expect("create");
    let kube::Error::Api(taken) = api.create(&PostParams::default(), &deployment("web")).await.expect_err("taken")
    else {
        panic!()
    };
    assert_eq!((taken.code, taken.reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(taken.message, "deployments.apps \"web\" already exists");
}

#[tokio::test]
async fn generation_moves_only_with_the_spec() {
    let c = TestCluster::start().await;
    let api: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let created = api.create(&PostParams::default(), &deployment("web")).await.expect("create");
    assert_eq!(created.metadata.generation, Some(1));
    let labelled = api
        .patch("web", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"labels": {"x": "y"}}})))
        .await
        .expect("label");
    assert_eq!(labelled.metadata.generation, Some(1));
    let status = api
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"observedGeneration": 1, "replicas": 1}})),
        )
        .await
        .expect("status");
    assert_eq!(status.metadata.generation, Some(1));
    let scaled = api
        .patch("web", &PatchParams::default(), &Patch::Merge(json!({"spec": {"replicas": 4}})))
        .await
        .expect("scale");
    assert_eq!(scaled.metadata.generation, Some(2));
}

#[tokio::test]
async fn status_is_written_only_through_the_status_subresource() {
    // No deployment controller writing the status meanwhile.
    let settings = fleetctl_apiserver::Settings { workload_controllers: false, ..Default::default() };
    let c = TestCluster::with_settings(settings).await;
    let api: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    api.create(&PostParams::default(), &deployment("web")).await.expect("create");
    let main = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 9}, "spec": {"paused": true}})),
        )
        .await
        .expect("main patch");
    assert_eq!(main.status.and_then(|s| s.replicas), None, "status ignored on the main resource");
    assert_eq!(main.spec.and_then(|s| s.paused), Some(true));
    let sub = api
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 2}, "spec": {"paused": false}})),
        )
        .await
        .expect("status patch");
    assert_eq!(sub.status.and_then(|s| s.replicas), Some(2));
    assert_eq!(sub.spec.and_then(|s| s.paused), Some(true), "spec ignored on /status");
}

#[tokio::test]
async fn an_unchanged_update_writes_nothing() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let created = api.create(&PostParams::default(), &cm("same")).await.expect("create");
    let before = c.server.state().store.rv();
    let again = api.replace("same", &PostParams::default(), &created).await.expect("replace");
    assert_eq!(again.metadata.resource_version, created.metadata.resource_version);
    assert_eq!(c.server.state().store.rv(), before);
}

#[tokio::test]
async fn dry_run_persists_nothing() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let before = c.server.state().store.rv();
    let params = PostParams { dry_run: true, ..Default::default() };
    let would_be = api.create(&params, &cm("ghost")).await.expect("dry-run create");
    assert!(would_be.metadata.uid.is_some());
    assert!(api.get_opt("ghost").await.expect("get").is_none());
    api.create(&PostParams::default(), &cm("real")).await.expect("create");
    let dp = DeleteParams { dry_run: true, ..Default::default() };
    api.delete("real", &dp).await.expect("dry-run delete");
    assert!(api.get_opt("real").await.expect("get").is_some());
    assert_eq!(c.server.state().store.rv(), before + 1, "only the real create was written");
}

#[tokio::test]
async fn invalid_names_are_rejected_with_causes() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let kube::Error::Api(status) = api.create(&PostParams::default(), &cm("Bad_Name")).await.expect_err("invalid")
    else {
        panic!()
    };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
    assert!(
        status.message.starts_with("ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value"),
        "{}",
        status.message
    );
}

/// A Pod as kube-apiserver stores it: `SetDefaults_Pod`, the ServiceAccount and
/// DefaultTolerationSeconds admission plugins, a Pending status with its QoS class; and
/// `ValidatePodUpdate`, which lets an update change the image but not the environment.
#[tokio::test]
async fn a_pod_is_stored_as_admission_fills_it_and_its_spec_changes_only_where_upstream_allows() {
    let c = TestCluster::start().await;
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(c.client.clone(), "default");
    let pod = serde_json::from_value(json!({
        "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}
    }))
    .expect("pod");
    let created = pods.create(&PostParams::default(), &pod).await.expect("create");
    let spec = created.spec.clone().expect("spec");
    assert_eq!(spec.service_account_name.as_deref(), Some("default"));
    assert_eq!(spec.enable_service_links, Some(true));
    let volume = &spec.volumes.as_ref().expect("volumes")[0];
    assert!(volume.name.starts_with("kube-api-access-"), "{}", volume.name);
    let mounts = spec.containers[0].volume_mounts.clone().expect("mounts");
    assert_eq!(mounts[0].mount_path, "/var/run/secrets/kubernetes.io/serviceaccount");
    let tolerated: Vec<_> = spec.tolerations.iter().flatten().filter_map(|t| t.key.as_deref()).collect();
    assert_eq!(tolerated, ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);
    assert_eq!(created.status.and_then(|s| s.qos_class).as_deref(), Some("BestEffort"));

    let image = json!({"spec": {"containers": [{"name": "c", "image": "nginx:1.28"}]}});
    pods.patch("p", &PatchParams::default(), &Patch::Strategic(image)).await.expect("a new image is allowed");
    let env = json!({"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "1"}]}]}});
    match pods.patch("p", &PatchParams::default(), &Patch::Strategic(env)).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 422);
            assert!(status.message.contains("pod updates may not change fields other than"), "{}", status.message);
        }
        other => panic!("expected 422, got {other:?}"),
    }
}
