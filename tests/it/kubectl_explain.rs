//! `kubectl explain` against `fleetctl dev serve`: kubectl 1.32 reads a resource's group/
//! version document from `/openapi/v3`, finds the kind's schema by its
//! `x-kubernetes-group-version-kind` and follows the field path through `$ref`s, `allOf`s
//! and array items.

use fleetctl_api::cluster::ManagedCluster;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;

use crate::support::kubectl::{DevServe, kubectl_available};

fn cluster() -> Option<DevServe> {
    if !kubectl_available() {
        return None;
    }
    Some(DevServe::start())
}

/// Applies a CRD of fleetctl's API and waits until it is established.
fn install(k: &DevServe, crd: &CustomResourceDefinition) {
    k.apply(&serde_yaml::to_string(crd).expect("the CRD as YAML"));
    let name = crd.metadata.name.as_deref().expect("a named CRD");
    k.ok(&["wait", "--for=condition=Established", &format!("crd/{name}"), "--timeout=10s"]);
}

#[test]
fn explain_of_a_builtin_field_prints_its_kind_type_description_and_fields_from_the_upstream_schema() {
    let Some(k) = cluster() else { return };
    let out = k.ok(&["explain", "deployment.spec.strategy"]);
    assert!(out.starts_with("GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\n"), "{out}");
    assert!(out.contains("FIELD: strategy <DeploymentStrategy>\n"), "{out}");
    assert!(
        out.contains("DESCRIPTION:\n    The deployment strategy to use to replace existing pods with new ones."),
        "{out}"
    );
    assert!(out.contains("FIELDS:\n  rollingUpdate\t<RollingUpdateDeployment>\n"), "{out}");
    assert!(out.contains("\n  type\t<string>\n"), "{out}");
}

#[test]
fn explain_follows_a_list_field_into_its_items_schema() {
    let Some(k) = cluster() else { return };
    let out = k.ok(&["explain", "pods.spec.containers.image"]);
    assert!(out.starts_with("KIND:       Pod\nVERSION:    v1\n\n"), "the core group is not printed: {out}");
    assert!(out.contains("FIELD: image <string>\n"), "{out}");
    assert!(out.contains("Container image name."), "{out}");
}

#[test]
fn explain_recursive_prints_the_nested_field_tree_without_descriptions() {
    let Some(k) = cluster() else { return };
    let out = k.ok(&["explain", "deployment.spec.strategy", "--recursive"]);
    let fields = out.split_once("FIELDS:\n").map(|(_, f)| f).unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        fields.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect::<Vec<_>>(),
        [
            "  rollingUpdate\t<RollingUpdateDeployment>",
            "    maxSurge\t<IntOrString>",
            "    maxUnavailable\t<IntOrString>",
            "  type\t<string>"
        ],
        "{out}"
    );
}

#[test]
fn explain_of_a_custom_resource_field_prints_the_description_its_crd_declares() {
    let Some(k) = cluster() else { return };
    install(&k, &ManagedCluster::crd());
    install(&k, &fleetctl_api::crds::klusterlet());

    let out = k.ok(&["explain", "managedclusters.spec.hubAcceptsClient"]);
    assert!(
        out.starts_with(
            "GROUP:      cluster.open-cluster-management.io\nKIND:       ManagedCluster\nVERSION:    v1\n\n"
        ),
        "{out}"
    );
    assert!(out.contains("FIELD: hubAcceptsClient <boolean>\n"), "{out}");
    assert!(out.contains("Whether the hub accepts the cluster's agent."), "{out}");

    let out = k.ok(&["explain", "klusterlet.spec"]);
    assert!(out.contains("KIND:       Klusterlet\n"), "{out}");
    assert!(out.contains("FIELD: spec <Object>\n"), "{out}");
    assert!(out.contains("FIELDS:\n"), "{out}");

    // metadata is ObjectMeta, as on every kind.
    let out = k.ok(&["explain", "managedclusters.metadata.labels"]);
    assert!(out.contains("FIELD: labels <map[string]string>\n"), "{out}");
}
