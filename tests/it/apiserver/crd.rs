//! CRDs: served at once, conditions, scope, status subresource, defaults,
//! validation, pruning, and cleanup of custom resources with the CRD.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams};
use kube::runtime::{conditions, wait::await_condition};
use serde_json::json;

use crate::support::cluster::{TestCluster, raw};

/// `widgets.example.com`: namespaced, with a status subresource, a default, a typed
/// field and a preserved map.
pub async fn install_widgets(c: &TestCluster) -> Api<DynamicObject> {
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "required": ["size"], "properties": {
                        "size": {"type": "integer"}, "color": {"type": "string", "default": "blue"},
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]}
    }))
    .expect("crd");
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    crds.create(&PostParams::default(), &crd).await.expect("create crd");
    widgets(c)
}

fn widgets(c: &TestCluster) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Widget");
    Api::namespaced_with(c.client.clone(), "default", &ApiResource::from_gvk_with_plural(&gvk, "widgets"))
}

fn widget(name: &str, spec: serde_json::Value) -> DynamicObject {
    serde_json::from_value(
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}),
    )
    .expect("widget")
}

#[tokio::test]
async fn a_crd_is_established_and_served_in_the_same_request() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    let established = await_condition(crds, "widgets.example.com", conditions::is_crd_established());
    tokio::time::timeout(Duration::from_secs(5), established).await.expect("in time").expect("established");
    let created = api.create(&PostParams::default(), &widget("w", json!({"size": 2}))).await.expect("served at once");
    assert_eq!(created.metadata.generation, Some(1));
}

#[tokio::test]
async fn schema_defaults_are_applied_and_unknown_fields_pruned() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    let spec = json!({"size": 2, "bogus": true, "extra": {"anything": {"goes": 1}}});
    let created = api.create(&PostParams::default(), &widget("w", spec)).await.expect("create");
    assert_eq!(created.data["spec"], json!({"size": 2, "color": "blue", "extra": {"anything": {"goes": 1}}}));
}

#[tokio::test]
async fn a_field_of_the_wrong_type_is_invalid() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    let kube::Error::Api(status) =
        api.create(&PostParams::default(), &widget("w", json!({"size": "big"}))).await.expect_err("invalid")
    else {
        panic!()
    };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
    assert!(status.message.contains("spec.size"), "{}", status.message);
    let kube::Error::Api(status) =
        api.create(&PostParams::default(), &widget("w", json!({}))).await.expect_err("required")
    else {
        panic!()
    };
    assert!(status.message.contains("spec.size: Required value"), "{}", status.message);
}

#[tokio::test]
async fn an_update_of_a_custom_resource_needs_a_resource_version() {
    let c = TestCluster::start().await;
    install_widgets(&c).await;
    let body =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}});
    let path = "/apis/example.com/v1/namespaces/default/widgets";
    assert_eq!(raw(&c.client, "POST", path, "application/json", body.to_string().into_bytes()).await.0, 201);
    let (status, reply) =
        raw(&c.client, "PUT", &format!("{path}/w"), "application/json", body.to_string().into_bytes()).await;
    assert_eq!(status, 422);
    assert!(reply["message"].as_str().expect("message").contains("must be specified for an update"));
}

#[tokio::test]
async fn the_status_subresource_of_a_crd_separates_spec_and_status() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    api.create(&PostParams::default(), &widget("w", json!({"size": 1}))).await.expect("create");
    let main = api
        .patch("w", &PatchParams::default(), &Patch::Merge(json!({"status": {"ready": true}, "spec": {"size": 3}})))
        .await
        .expect("main");
    assert!(main.data.get("status").is_none());
    assert_eq!(main.metadata.generation, Some(2));
    let status = api
        .patch_status(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"ready": true}, "spec": {"size": 9}})),
        )
        .await
        .expect("status");
    assert_eq!(status.data["status"]["ready"], true);
    assert_eq!(status.data["spec"]["size"], 3);
    assert_eq!(status.metadata.generation, Some(2));
}

/// The widgets CRD goes within 5 s, and its resources are no longer served.
async fn assert_widgets_crd_gone(c: &TestCluster, crds: Api<CustomResourceDefinition>, uid: &str) {
    let gone = await_condition(crds, "widgets.example.com", conditions::is_deleted(uid));
    tokio::time::timeout(Duration::from_secs(5), gone).await.expect("in time").expect("deleted");
    let (status, _) = raw(&c.client, "GET", "/apis/example.com/v1/namespaces/default/widgets", "", Vec::new()).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn deleting_a_crd_deletes_its_custom_resources_and_stops_serving_them() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    api.create(&PostParams::default(), &widget("w", json!({"size": 1}))).await.expect("create");
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    let crd = crds.get("widgets.example.com").await.expect("crd");
    crds.delete("widgets.example.com", &Default::default()).await.expect("delete");
    assert_widgets_crd_gone(&c, crds, &crd.metadata.uid.expect("uid")).await;
}

#[tokio::test]
async fn a_foreground_deletion_of_a_crd_deletes_its_custom_resources_and_the_crd() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    api.create(&PostParams::default(), &widget("w", json!({"size": 1}))).await.expect("create");
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    let crd = crds.get("widgets.example.com").await.expect("crd");
    assert_eq!(crd.metadata.finalizers, None, "a CRD gains its cleanup finalizer only when deleted, as upstream");
    crds.delete("widgets.example.com", &kube::api::DeleteParams::foreground()).await.expect("delete");
    assert_widgets_crd_gone(&c, crds, &crd.metadata.uid.expect("uid")).await;
}

/// apiextensions-apiserver's crdHandler: while a CRD is terminating (an instance's
/// finalizer holds it here), a create of its custom resources is refused with 405.
#[tokio::test]
async fn a_terminating_crd_refuses_new_custom_resources() {
    let c = TestCluster::start().await;
    let api = install_widgets(&c).await;
    let mut held = widget("held", json!({"size": 1}));
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    api.create(&PostParams::default(), &held).await.expect("create");
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    crds.delete("widgets.example.com", &Default::default()).await.expect("delete");
    match api.create(&PostParams::default(), &widget("late", json!({"size": 2}))).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 405, "{status:?}");
            assert_eq!(status.message, "create not allowed while custom resource definition is terminating");
        }
        other => panic!("a create while the CRD terminates: {other:?}"),
    }
    let crd = crds.get("widgets.example.com").await.expect("still terminating");
    api.patch("held", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}})))
        .await
        .expect("release");
    assert_widgets_crd_gone(&c, crds, &crd.metadata.uid.expect("uid")).await;
}

#[tokio::test]
async fn a_cluster_scoped_crd_serves_cluster_scoped_objects() {
    let c = TestCluster::start().await;
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Cluster", "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .expect("crd");
    Api::<CustomResourceDefinition>::all(c.client.clone()).create(&PostParams::default(), &crd).await.expect("crd");
    let body = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"x": 1}});
    let (status, created) =
        raw(&c.client, "POST", "/apis/example.com/v1/gadgets", "application/json", body.to_string().into_bytes()).await;
    assert_eq!(status, 201, "{created}");
    assert!(created["metadata"].get("namespace").is_none());
    assert_eq!(created["spec"]["x"], 1);
    let (status, _) = raw(&c.client, "GET", "/apis/example.com/v1/namespaces/default/gadgets", "", Vec::new()).await;
    assert_eq!(status, 404, "a cluster-scoped resource has no namespaced path");
}
