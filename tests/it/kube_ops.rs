//! `fleetctl_kube`: choosing a kubeconfig, and applying and deleting sets of
//! manifests through discovery, against the dev cluster.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fleetctl_kube::{
    ApplyAction, ApplyError, ApplyOptions, ConfigError, DeleteAction, ParseError, Selection, apply, apply_yaml,
    delete_all, parse_documents,
};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::wait::{await_condition, conditions};

use crate::support::cluster::TestCluster;

/// A namespace, a CRD and a custom resource of it in that namespace: the CR can only
/// be applied once the CRD before it is Established.
const SET: &str = r#"
apiVersion: v1
kind: Namespace
metadata:
  name: gadgets
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
---
apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g1
  namespace: gadgets
spec:
  size: 1
"#;

fn gadgets(c: &TestCluster) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Gadget");
    Api::namespaced_with(c.client.clone(), "gadgets", &ApiResource::from_gvk_with_plural(&gvk, "gadgets"))
}

fn actions(outcomes: &[fleetctl_kube::ApplyOutcome]) -> Vec<(String, ApplyAction)> {
    outcomes.iter().map(|o| (o.object.to_string(), o.action)).collect()
}

#[tokio::test]
async fn a_namespace_a_crd_and_its_custom_resource_apply_in_one_go() {
    let c = TestCluster::start().await;
    let outcomes = apply_yaml(&c.client, SET, &ApplyOptions::default()).await.expect("applied");
    assert_eq!(
        actions(&outcomes),
        [
            ("Namespace gadgets".to_string(), ApplyAction::Created),
            ("CustomResourceDefinition gadgets.example.com".to_string(), ApplyAction::Created),
            ("Gadget gadgets/g1".to_string(), ApplyAction::Created),
        ]
    );
    assert_eq!(outcomes[2].object.api_version, "example.com/v1");
    let gadget = gadgets(&c).get("g1").await.expect("the gadget exists");
    assert_eq!(gadget.data["spec"]["size"], 1);
    let managers: Vec<_> = gadget.metadata.managed_fields.iter().flatten().filter_map(|m| m.manager.clone()).collect();
    assert_eq!(managers, ["fleetctl"]);
}

#[tokio::test]
async fn reapplying_the_same_set_reports_unchanged_and_writes_nothing() {
    let c = TestCluster::start().await;
    let objects = parse_documents(SET).expect("parsed");
    apply(&c.client, &objects, &ApplyOptions::default()).await.expect("first apply");
    let rv = c.server.state().store.rv();
    let outcomes = apply(&c.client, &objects, &ApplyOptions::default()).await.expect("second apply");
    assert!(outcomes.iter().all(|o| o.action == ApplyAction::Unchanged), "{outcomes:?}");
    assert_eq!(c.server.state().store.rv(), rv, "a no-op apply moved the store's resourceVersion");
}

#[tokio::test]
async fn an_edited_object_is_configured_and_the_others_unchanged() {
    let c = TestCluster::start().await;
    apply_yaml(&c.client, SET, &ApplyOptions::default()).await.expect("first apply");
    let edited = SET.replace("size: 1", "size: 2");
    let outcomes = apply_yaml(&c.client, &edited, &ApplyOptions::default()).await.expect("second apply");
    let actions: Vec<_> = outcomes.iter().map(|o| o.action).collect();
    assert_eq!(actions, [ApplyAction::Unchanged, ApplyAction::Unchanged, ApplyAction::Configured]);
    assert_eq!(gadgets(&c).get("g1").await.expect("gadget").data["spec"]["size"], 2);
}

#[tokio::test]
async fn delete_all_removes_the_set_and_then_finds_it_absent() {
    let c = TestCluster::start().await;
    let objects = parse_documents(SET).expect("parsed");
    apply(&c.client, &objects, &ApplyOptions::default()).await.expect("applied");
    let namespaces: Api<Namespace> = Api::all(c.client.clone());
    let uid = namespaces.get("gadgets").await.expect("namespace").metadata.uid.expect("uid");

    let outcomes = delete_all(&c.client, &objects, &ApplyOptions::default()).await.expect("deleted");
    let deleted: Vec<_> = outcomes.iter().map(|o| (o.object.kind.as_str(), o.action)).collect();
    assert_eq!(
        deleted,
        [
            ("Gadget", DeleteAction::Deleted),
            ("CustomResourceDefinition", DeleteAction::Deleted),
            ("Namespace", DeleteAction::Deleted)
        ],
        "reverse order"
    );
    let gone = await_condition(namespaces, "gadgets", conditions::is_deleted(&uid));
    tokio::time::timeout(Duration::from_secs(10), gone).await.expect("namespace gone in time").expect("watch");
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    assert!(crds.get_opt("gadgets.example.com").await.expect("get").is_none());

    // The CRD is gone too, so the gadget's kind is no longer served: absent, not an error.
    let again = delete_all(&c.client, &objects, &ApplyOptions::default()).await.expect("deleted again");
    assert!(again.iter().all(|o| o.action == DeleteAction::Absent), "{again:?}");
}

#[tokio::test]
async fn namespaced_objects_without_a_namespace_go_to_the_default_namespace() {
    let c = TestCluster::start().await;
    let yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n\
                apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n";
    let options = ApplyOptions { default_namespace: "team".into(), ..ApplyOptions::default() };
    let outcomes = apply_yaml(&c.client, yaml, &options).await.expect("applied");
    assert_eq!(outcomes[0].object.namespace, None, "a Namespace is cluster-scoped");
    assert_eq!(outcomes[1].object.namespace.as_deref(), Some("team"));
    let configmaps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "team");
    assert!(configmaps.get_opt("settings").await.expect("get").is_some());
}

#[tokio::test]
async fn bad_yaml_is_reported_with_its_document_number_and_nothing_is_applied() {
    let c = TestCluster::start().await;
    let yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: never}\n---\n---\nkind: [unclosed\n";
    let error = apply_yaml(&c.client, yaml, &ApplyOptions::default()).await.expect_err("bad yaml");
    assert!(matches!(error, ApplyError::Parse(ParseError::Yaml { document: 3, .. })), "{error:?}");
    assert!(error.to_string().starts_with("document 3: not valid YAML"), "{error}");
    let namespaces: Api<Namespace> = Api::all(c.client.clone());
    assert!(namespaces.get_opt("never").await.expect("get").is_none());
}

#[tokio::test]
async fn an_unknown_kind_is_named_in_the_error() {
    let c = TestCluster::start().await;
    for (api_version, kind) in [("example.com/v1", "Gizmo"), ("v1", "Gizmo")] {
        let yaml = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: first}}\n---\n\
             apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: g}}\n"
        );
        let error = apply_yaml(&c.client, &yaml, &ApplyOptions::default()).await.expect_err("unknown kind");
        assert!(matches!(&error, ApplyError::UnknownKind { document: 2, .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            format!(
                "document 2 (Gizmo g): the cluster does not serve kind Gizmo in {api_version} \
                 — install its CRD first or check apiVersion"
            )
        );
    }
}

#[tokio::test]
async fn a_refused_object_reports_the_servers_message() {
    let c = TestCluster::start().await;
    let yaml = SET.replace("size: 1", "size: big");
    let error = apply_yaml(&c.client, &yaml, &ApplyOptions::default()).await.expect_err("invalid gadget");
    let ApplyError::Rejected { document, object, status } = &error else { panic!("{error:?}") };
    assert_eq!((*document, object.to_string().as_str(), status.code), (3, "Gadget gadgets/g1", 422));
    assert!(error.to_string().starts_with("document 3 (Gadget gadgets/g1): "), "{error}");
    assert!(error.to_string().contains("spec.size"), "{error}");
}

/// Writes the dev cluster's admin kubeconfig (context `test`) as YAML.
fn write_kubeconfig(c: &TestCluster, dir: &Path) -> PathBuf {
    let path = dir.join("config");
    std::fs::write(&path, serde_yaml::to_string(&c.server.kubeconfig("test")).expect("yaml")).expect("write");
    path
}

#[tokio::test]
async fn a_kubeconfig_file_and_context_give_a_working_client() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let selection = Selection::new(Some(write_kubeconfig(&c, dir.path())), Some("test".into()));
    let (client, config) = fleetctl_kube::client(&selection).await.expect("client");
    assert_eq!(config.cluster_url.to_string().trim_end_matches('/'), c.server.url().trim_end_matches('/'));
    let namespaces: Api<Namespace> = Api::all(client);
    namespaces.get("default").await.expect("the client talks to the cluster");
}

#[tokio::test]
async fn a_missing_kubeconfig_names_the_file_and_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nope");
    let selection = Selection::new(Some(path.clone()), None).with_flag("--hub-kubeconfig");
    let error = fleetctl_kube::config(&selection).await.expect_err("missing file");
    assert!(matches!(error, ConfigError::MissingFile { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!("kubeconfig {}: no such file — pass --hub-kubeconfig or set KUBECONFIG", path.display())
    );
}

#[tokio::test]
async fn an_unknown_context_lists_the_contexts_there_are() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_kubeconfig(&c, dir.path());
    let selection = Selection::new(Some(path.clone()), Some("foo".into()));
    let error = fleetctl_kube::config(&selection).await.expect_err("unknown context");
    assert_eq!(error.to_string(), format!("context \"foo\" not found in {} (contexts: test)", path.display()));
}

#[tokio::test]
async fn a_file_that_is_not_a_kubeconfig_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config");
    std::fs::write(&path, "clusters: {not: a list}\n").expect("write");
    let error = fleetctl_kube::config(&Selection::new(Some(path.clone()), None)).await.expect_err("not a kubeconfig");
    assert_eq!(error.to_string(), format!("kubeconfig {}: not a valid kubeconfig", path.display()));
}

#[tokio::test]
async fn a_condition_update_from_a_stale_copy_keeps_what_another_writer_set() {
    use fleetctl_api::conditions::{new_condition, set_condition};
    use fleetctl_api::{ManagedClusterAddOn, crds};
    use kube::api::PostParams;

    let c = TestCluster::start().await;
    let definitions: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    for crd in crds::hub() {
        definitions.create(&PostParams::default(), &crd).await.expect("crd");
    }
    for crd in crds::hub() {
        let name = crd.metadata.name.clone().unwrap_or_default();
        await_condition(definitions.clone(), &name, conditions::is_crd_established()).await.expect("established");
    }
    let namespaces: Api<Namespace> = Api::all(c.client.clone());
    let ns: Namespace = serde_json::from_value(serde_json::json!({"metadata": {"name": "c1"}})).expect("ns");
    namespaces.create(&PostParams::default(), &ns).await.expect("namespace");
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(c.client.clone(), "c1");
    let stale =
        addons.create(&PostParams::default(), &ManagedClusterAddOn::for_cluster("c1", "a")).await.expect("addon");

    // One writer sets Available; another, holding the copy from before, sets Progressing.
    let available = new_condition("Available", "True", "R", "up");
    let wrote = fleetctl_kube::update_conditions(&addons, &stale, |cs| set_condition(cs, available.clone())).await;
    assert!(wrote.expect("first write"));
    let progressing = new_condition("Progressing", "False", "Completed", "done");
    let wrote = fleetctl_kube::update_conditions(&addons, &stale, |cs| set_condition(cs, progressing.clone())).await;
    assert!(wrote.expect("write from the stale copy"), "the conflict is resolved on a fresh read");
    let now = addons.get("a").await.expect("addon");
    let types: Vec<&str> = now.conditions().iter().map(|c| c.type_.as_str()).collect();
    assert_eq!(types, ["Available", "Progressing"], "neither writer lost the other's condition");

    // Nothing to change: no write.
    let again = fleetctl_kube::update_conditions(&addons, &now, |cs| set_condition(cs, progressing.clone())).await;
    assert!(!again.expect("no-op"));
    assert_eq!(addons.get("a").await.expect("addon").metadata.resource_version, now.metadata.resource_version);
}
