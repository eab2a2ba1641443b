use serde_json::{Value, json};

use super::super::crd;
use super::*;

fn json(bytes: &Bytes) -> Value {
    serde_json::from_slice(bytes).expect("a JSON document")
}

fn root(documents: &Documents, registry: &Registry) -> Value {
    json(&documents.root(registry).expect("the root"))
}

fn group_version(documents: &Documents, registry: &Registry, group: &str, version: &str) -> Value {
    json(&documents.group_version(registry, group, version).expect("serializes").expect("served"))
}

fn url(root: &Value, path: &str) -> String {
    root["paths"][path]["serverRelativeURL"].as_str().unwrap_or_else(|| panic!("{path} in {root}")).to_string()
}

fn widgets(description: &str) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "description": "A widget.",
                "properties": {
                    "metadata": {"type": "object"},
                    "spec": {"type": "object", "description": description,
                        "properties": {"size": {"type": "integer", "description": "How big."}}},
                },
            }}}]}
    })
}

/// The schemas of a document whose GVK extension names `kind`.
fn schemas_of_kind<'a>(doc: &'a Value, group: &str, version: &str, kind: &str) -> Vec<&'a str> {
    let gvk = json!({"group": group, "kind": kind, "version": version});
    let schemas = doc["components"]["schemas"].as_object().expect("components.schemas");
    schemas
        .iter()
        .filter(|(_, s)| s["x-kubernetes-group-version-kind"].as_array().is_some_and(|l| l.contains(&gvk)))
        .map(|(name, _)| name.as_str())
        .collect()
}

#[test]
fn the_root_points_at_a_hashed_url_per_group_version() {
    let registry = Registry::with_builtins();
    let documents = Documents::default();
    let root = root(&documents, &registry);
    assert!(url(&root, "apis/apps/v1").starts_with("/openapi/v3/apis/apps/v1?hash="));
    assert!(url(&root, "api/v1").starts_with("/openapi/v3/api/v1?hash="));
    assert!(documents.group_version(&registry, "apps", "v9").expect("serializes").is_none());
}

#[test]
fn a_builtin_kind_has_its_upstream_schema_marked_with_its_group_version_kind() {
    let registry = Registry::with_builtins();
    let doc = group_version(&Documents::default(), &registry, "apps", "v1");
    assert_eq!(schemas_of_kind(&doc, "apps", "v1", "Deployment"), ["io.k8s.api.apps.v1.Deployment"]);
    let schemas = &doc["components"]["schemas"];
    // A reference beside a description is an allOf in OpenAPI 3.0, as kube-apiserver writes it.
    let spec = &schemas["io.k8s.api.apps.v1.Deployment"]["properties"]["spec"];
    assert_eq!(spec["allOf"], json!([{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}]));
    assert!(spec["description"].as_str().is_some_and(|d| !d.is_empty()), "{spec}");
    let strategy = &schemas["io.k8s.api.apps.v1.DeploymentStrategy"];
    assert!(strategy["properties"]["rollingUpdate"].is_object(), "{strategy}");
    assert!(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].is_object());
}

#[test]
fn every_builtin_kind_has_a_schema_in_its_group_version_document() {
    let registry = Registry::with_builtins();
    let documents = Documents::default();
    for rt in super::super::kinds::BUILTIN.iter().map(|kind| kind.resource_type()) {
        let doc = group_version(&documents, &registry, &rt.group, &rt.version);
        assert_eq!(
            schemas_of_kind(&doc, &rt.group, &rt.version, &rt.kind).len(),
            1,
            "{}/{}",
            rt.api_version(),
            rt.kind
        );
    }
}

/// Every `$ref` below `value`.
fn references<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r);
            }
            map.values().for_each(|v| references(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}

#[test]
fn every_reference_in_every_document_resolves_within_that_document() {
    let registry = Registry::with_builtins();
    let mut crd = widgets("The spec.");
    crd::prepare(&mut crd).expect("a valid CRD");
    crd::register(&registry, &crd);
    let documents = Documents::default();
    let root = root(&documents, &registry);
    for path in root["paths"].as_object().expect("paths").keys() {
        let (group, version) = match path.split('/').collect::<Vec<_>>()[..] {
            ["api", version] => ("", version),
            ["apis", group, version] => (group, version),
            _ => panic!("{path}"),
        };
        let doc = group_version(&documents, &registry, group, version);
        let mut found = Vec::new();
        references(&doc, &mut found);
        assert!(!found.is_empty(), "{path}");
        for r in found {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{path}: {r}"));
            assert!(doc["components"]["schemas"][name].is_object(), "{path}: {r} is not in the document");
        }
    }
}

#[test]
fn a_custom_kind_is_its_crd_schema_with_object_meta_as_metadata() {
    let registry = Registry::with_builtins();
    let mut crd = widgets("The spec.");
    crd::prepare(&mut crd).expect("a valid CRD");
    crd::register(&registry, &crd);
    let doc = group_version(&Documents::default(), &registry, "example.com", "v1");
    assert_eq!(schemas_of_kind(&doc, "example.com", "v1", "Widget"), ["com.example.v1.Widget"]);
    let widget = &doc["components"]["schemas"]["com.example.v1.Widget"];
    assert_eq!(widget["description"], "A widget.");
    assert_eq!(widget["properties"]["spec"]["properties"]["size"]["description"], "How big.");
    assert_eq!(
        widget["properties"]["metadata"]["allOf"],
        json!([{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}])
    );
    assert_eq!(widget["properties"]["apiVersion"]["type"], "string");
    assert_eq!(widget["properties"]["kind"]["type"], "string");
}

#[test]
fn every_patch_names_its_kind_and_declares_field_validation_as_kubectl_checks() {
    let registry = Registry::with_builtins();
    let doc = group_version(&Documents::default(), &registry, "apps", "v1");
    let patch = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        json!({"group": "apps", "kind": "Deployment", "version": "v1"})
    );
    let scale = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["patch"];
    assert_eq!(scale["x-kubernetes-group-version-kind"]["kind"], "Scale");
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let Some(patch) = item.get("patch") else { continue };
        let names: Vec<&Value> =
            patch["parameters"].as_array().expect("parameters").iter().map(|p| &p["name"]).collect();
        assert!(names.contains(&&json!("fieldValidation")), "{path}");
    }
    assert!(doc["components"]["schemas"]["io.k8s.api.autoscaling.v1.Scale"].is_object());
}

#[test]
fn a_hash_stays_while_its_document_is_unchanged_and_changes_with_its_crd() {
    let registry = Registry::with_builtins();
    let documents = Documents::default();
    let mut crd = widgets("The spec.");
    crd::prepare(&mut crd).expect("a valid CRD");
    crd::register(&registry, &crd);
    let first = root(&documents, &registry);
    // Registering the same CRD again changes the registry's revision, not the document.
    crd::register(&registry, &crd);
    let again = root(&documents, &registry);
    assert_eq!(url(&first, "apis/example.com/v1"), url(&again, "apis/example.com/v1"));

    let mut changed = widgets("The changed spec.");
    crd::prepare(&mut changed).expect("a valid CRD");
    crd::register(&registry, &changed);
    let after = root(&documents, &registry);
    assert_ne!(url(&first, "apis/example.com/v1"), url(&after, "apis/example.com/v1"));
    assert_eq!(url(&first, "apis/apps/v1"), url(&after, "apis/apps/v1"), "other documents keep theirs");
    let doc = group_version(&documents, &registry, "example.com", "v1");
    assert_eq!(
        doc["components"]["schemas"]["com.example.v1.Widget"]["properties"]["spec"]["description"],
        "The changed spec."
    );
}

#[test]
fn a_document_holds_only_the_schemas_its_resources_refer_to() {
    let registry = Registry::with_builtins();
    let documents = Documents::default();
    let apps = group_version(&documents, &registry, "apps", "v1");
    assert!(apps["components"]["schemas"]["io.k8s.api.autoscaling.v1.Scale"].is_object(), "deployments/scale");
    assert!(apps["components"]["schemas"]["io.k8s.api.core.v1.Secret"].is_null());
    let rbac = group_version(&documents, &registry, "rbac.authorization.k8s.io", "v1");
    assert!(rbac["components"]["schemas"]["io.k8s.api.autoscaling.v1.Scale"].is_null(), "no scale subresource");
    assert!(rbac["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"].is_null());
}
