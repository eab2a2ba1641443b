//! The four patch types through kube-rs.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::support::cluster::{TestCluster, raw};

fn deployment() -> Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "a", "env": [{"name": "A", "value": "1"}]}]}}}
    }))
    .expect("deployment")
}

#[tokio::test]
async fn a_strategic_patch_merges_containers_and_env_by_name() {
    let c = TestCluster::start().await;
    let api: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    api.create(&PostParams::default(), &deployment()).await.expect("create");
    let patch =
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "env": [{"name": "B", "value": "2"}]}]}}}});
    let patched = api.patch("web", &PatchParams::default(), &Patch::Strategic(patch)).await.expect("patch");
    let container = &patched.spec.expect("spec").template.spec.expect("pod").containers[0];
    let env: Vec<&str> = container.env.iter().flatten().map(|e| e.name.as_str()).collect();
    assert_eq!(container.image.as_deref(), Some("a"));
    assert_eq!(env, ["B", "A"]);
}

#[tokio::test]
async fn a_json_patch_test_of_null_passes_on_a_missing_path() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let object: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "x"}})).expect("cm");
    api.create(&PostParams::default(), &object).await.expect("create");
    let ops = json!([
        {"op": "test", "path": "/metadata/finalizers", "value": null},
        {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/f"]}
    ]);
    let path = "/api/v1/namespaces/default/configmaps/x";
    let (status, body) =
        raw(&c.client, "PATCH", path, "application/json-patch+json", ops.to_string().into_bytes()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["metadata"]["finalizers"], json!(["example.com/f"]));
    let failing = json!([{"op": "test", "path": "/metadata/name", "value": "other"}]);
    let (status, body) =
        raw(&c.client, "PATCH", path, "application/json-patch+json", failing.to_string().into_bytes()).await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn server_side_apply_creates_then_updates_and_reports_conflicts() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let intent =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}});
    let created = api.patch("cfg", &PatchParams::apply("alice"), &Patch::Apply(&intent)).await.expect("apply creates");
    assert_eq!(created.data.as_ref().expect("data").len(), 2);
    let managers: Vec<String> =
        created.metadata.managed_fields.iter().flatten().filter_map(|m| m.manager.clone()).collect();
    assert_eq!(managers, ["alice"]);
    let smaller = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}});
    let updated = api.patch("cfg", &PatchParams::apply("alice"), &Patch::Apply(&smaller)).await.expect("apply again");
    assert_eq!(updated.data.expect("data").keys().collect::<Vec<_>>(), ["a"], "b was alice's and she dropped it");
    let rival = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "9"}});
    let kube::Error::Api(status) =
        api.patch("cfg", &PatchParams::apply("bob"), &Patch::Apply(&rival)).await.expect_err("conflict")
    else {
        panic!()
    };
    assert_eq!(status.code, 409);
    assert!(status.message.contains("conflict with \"alice\""), "{}", status.message);
    let forced = api.patch("cfg", &PatchParams::apply("bob").force(), &Patch::Apply(&rival)).await.expect("forced");
    assert_eq!(forced.data.expect("data")["a"], "9");
}

#[tokio::test]
async fn a_strategic_patch_of_a_custom_resource_is_unsupported_media_type() {
    let c = TestCluster::start().await;
    crate::apiserver::crd::install_widgets(&c).await;
    let body =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}});
    let (status, _) = raw(
        &c.client,
        "POST",
        "/apis/example.com/v1/namespaces/default/widgets",
        "application/json",
        body.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 201);
    let path = "/apis/example.com/v1/namespaces/default/widgets/w";
    let (status, body) = raw(&c.client, "PATCH", path, "application/strategic-merge-patch+json", b"{}".to_vec()).await;
    assert_eq!(status, 415);
    assert_eq!(body["reason"], "UnsupportedMediaType");
}
