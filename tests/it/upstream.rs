//! Upstream OCM's own code against the dev cluster: what its operators and CLI do here
//! must work as on a kube-apiserver (protobuf bodies for CRDs and DeleteOptions, RBAC
//! escalation checks, NetworkPolicies and the other built-in APIs they apply).

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::wait::{await_condition, conditions};

use crate::support::cluster::TestCluster;
use crate::support::upstream::{self, Running};

/// The hub CRDs the cluster-manager operator installs, a few of each API group.
const HUB_CRDS: [&str; 6] = [
    "managedclusters.cluster.open-cluster-management.io",
    "managedclustersets.cluster.open-cluster-management.io",
    "placements.cluster.open-cluster-management.io",
    "manifestworks.work.open-cluster-management.io",
    "clustermanagementaddons.addon.open-cluster-management.io",
    "managedclusteraddons.addon.open-cluster-management.io",
];

/// `clusteradm init` applies the cluster-manager operator's CRD, RBAC, Deployment and
/// ClusterManager; the operator (upstream's `registration-operator hub`, run here as a
/// process since this test runs no node simulator) then applies the whole hub — CRDs sent
/// as protobuf, roles it must hold to grant, webhooks, NetworkPolicies — and says Applied.
#[tokio::test]
async fn upstreams_cluster_manager_operator_applies_the_ocm_hub_on_the_dev_api_server() {
    let Some(bin) = upstream::executables() else { return };
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("kubeconfig");
    let text = fleetctl_kube::kubeconfig::to_yaml(&c.server.kubeconfig("hub"));
    std::fs::write(&kubeconfig, text).expect("kubeconfig");
    let kubeconfig = kubeconfig.to_str().expect("utf-8 path");

    // Awaited, not waited for: the server under test runs on this test's runtime.
    let init = tokio::process::Command::new(bin.join("clusteradm"))
        .args(["init", "--context", "hub", "--kubeconfig", kubeconfig])
        .output()
        .await
        .expect("clusteradm");
    let said = String::from_utf8_lossy(&init.stdout);
    assert!(init.status.success(), "clusteradm init: {said}{}", String::from_utf8_lossy(&init.stderr));
    assert!(said.contains("has been initialized successfully"), "{said}");

    // Its own port for its metrics and health, in library-go's operator configuration
    // (its `--listen` flag alone crashes it; 0 is not a port it takes).
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let config = dir.path().join("operator.yaml");
    let serving = format!(
        "apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\nservingInfo:\n  bindAddress: 127.0.0.1:{port}\n"
    );
    std::fs::write(&config, serving).expect("operator configuration");
    let config = config.to_str().expect("utf-8 path");
    let operator = Running::start(
        &bin.join("registration-operator"),
        &[
            "hub",
            "--kubeconfig",
            kubeconfig,
            "--namespace",
            "open-cluster-management",
            "--disable-leader-election",
            "--config",
            config,
        ],
        dir.path().join("operator.log"),
    );
    let gvk = GroupVersionKind::gvk("operator.open-cluster-management.io", "v1", "ClusterManager");
    let managers: Api<DynamicObject> = Api::all_with(c.client.clone(), &ApiResource::from_gvk(&gvk));
    let applied = await_condition(managers, "cluster-manager", |manager: Option<&DynamicObject>| {
        manager
            .and_then(|m| m.data["status"]["conditions"].as_array())
            .is_some_and(|conditions| conditions.iter().any(|c| c["type"] == "Applied" && c["status"] == "True"))
    });
    if tokio::time::timeout(Duration::from_secs(90), applied).await.is_err() {
        panic!("the ClusterManager was not Applied in 90 s; the operator said:\n{}", operator.output());
    }
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    for name in HUB_CRDS {
        let established = await_condition(crds.clone(), name, conditions::is_crd_established());
        tokio::time::timeout(Duration::from_secs(10), established).await.expect(name).expect(name);
    }
    let hub: Api<Deployment> = Api::namespaced(c.client.clone(), "open-cluster-management-hub");
    let deployments: Vec<String> =
        hub.list(&Default::default()).await.expect("list").items.into_iter().filter_map(|d| d.metadata.name).collect();
    for expected in ["cluster-manager-registration-controller", "cluster-manager-placement-controller"] {
        assert!(deployments.iter().any(|d| d == expected), "{expected} not among {deployments:?}");
    }
    let said = operator.output();
    // Whole phrases: a bare "415" is also in the log's timestamps.
    for refusal in
        ["not valid JSON", "UnsupportedMediaType", "code 415", "the server could not find the requested resource"]
    {
        assert!(!said.contains(refusal), "the operator met {refusal:?}:\n{said}");
    }
}
