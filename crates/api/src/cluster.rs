//! `ManagedCluster` (`cluster.open-cluster-management.io/v1`, cluster-scoped): the hub's record
//! of one managed cluster — whether the hub accepts it, and what its agent reports.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fields::{self, string_enum};
use super::{conditions, names};

/// The lease period an agent uses when `leaseDurationSeconds` is unset or zero.
pub const DEFAULT_LEASE_DURATION_SECONDS: i32 = 60;

/// Desired state of a managed cluster, written on the hub.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1",
    kind = "ManagedCluster",
    plural = "managedclusters",
    shortname = "mcl",
    shortname = "mcls",
    status = "ManagedClusterStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "A cluster managed from this hub (cluster-scoped; the name is the cluster name). Joining is a \
           double opt-in: the agent registers, and the hub admin accepts with `spec.hubAcceptsClient`.",
    printcolumn = r#"{"name": "Hub Accepted", "type": "boolean", "jsonPath": ".spec.hubAcceptsClient"}"#,
    printcolumn = r#"{"name": "Managed Cluster URLs", "type": "string", "jsonPath": ".spec.managedClusterClientConfigs[*].url"}"#,
    printcolumn = r#"{"name": "Joined", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"ManagedClusterJoined\")].status"}"#,
    printcolumn = r#"{"name": "Available", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"ManagedClusterConditionAvailable\")].status"}"#,
    printcolumn = r#"{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSpec {
    /// API server addresses of the managed cluster; empty when the hub cannot reach it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub managed_cluster_client_configs: Vec<ClientConfig>,

    /// Whether the hub accepts the cluster's agent. Setting it to true needs `update` on the
    /// `managedclusters/accept` subresource.
    #[serde(default)]
    pub hub_accepts_client: bool,

    /// How often the agent renews its lease, in seconds; zero means 60.
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 60))]
    pub lease_duration_seconds: i32,

    /// Taints that keep placements from selecting the cluster unless tolerated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
}

/// One API server address of the managed cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    /// URL of the API server.
    pub url: String,

    /// CA bundle to verify the API server with; the system roots when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::byte_string")]
    pub ca_bundle: Option<ByteString>,
}

/// A taint on a managed cluster: placements that do not tolerate it are affected by its effect.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    /// Taint key, such as `bar` or `foo.example.com/bar`.
    #[schemars(
        length(max = 316),
        pattern(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
    )]
    pub key: String,

    /// Taint value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 1024))]
    pub value: String,

    /// What the taint does to placements that do not tolerate it.
    pub effect: TaintEffect,

    /// When the taint was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::nullable_date_time")]
    pub time_added: Option<Time>,
}

string_enum! {
    /// The effect of a cluster taint on placements.
    pub enum TaintEffect(closed) {
        /// Placements must not select the cluster, and drop it if they had.
        NoSelect = "NoSelect",
        /// Placements avoid the cluster when they can.
        PreferNoSelect = "PreferNoSelect",
        /// Placements must not newly select the cluster; existing selections stay.
        NoSelectIfNew = "NoSelectIfNew",
    }
    default = NoSelect;
}

/// What the agent and the hub report about a managed cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterStatus {
    /// Conditions of the cluster: HubAcceptedManagedCluster, ManagedClusterJoined,
    /// ManagedClusterConditionAvailable and others.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// Total resources of the cluster's nodes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "fields::resource_list")]
    pub capacity: BTreeMap<String, Quantity>,

    /// Allocatable resources of the cluster's schedulable nodes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "fields::resource_list")]
    pub allocatable: BTreeMap<String, Quantity>,

    /// Kubernetes version of the cluster.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub version: ManagedClusterVersion,

    /// Claims the cluster makes about itself, such as `id.k8s.io`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_claims: Vec<ManagedClusterClaim>,

    /// Namespaces managed on the cluster by the cluster sets it belongs to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["clusterSet", "name"]))]
    pub managed_namespaces: Vec<ClusterSetManagedNamespaceConfig>,
}

/// Version information of a managed cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterVersion {
    /// Kubernetes version, such as `v1.33.1`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kubernetes: String,
}

/// A claim reported by the managed cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterClaim {
    /// Claim name, a well-known one such as `id.k8s.io` or a custom one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 253))]
    pub name: String,

    /// Claim value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 1024))]
    pub value: String,
}

/// A namespace a cluster set manages on its clusters.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSetManagedNamespaceConfig {
    /// Namespace name.
    #[schemars(length(max = 63), pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"))]
    pub name: String,

    /// The cluster set that manages it.
    pub cluster_set: String,

    /// Conditions of the namespace on this cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,
}

impl conditions::HasConditions for ManagedCluster {
    fn status_conditions(&self) -> &[Condition] {
        self.conditions()
    }
}

impl ManagedCluster {
    /// A cluster the hub accepts (`hubAcceptsClient: true`), as `fleetctl import` writes it.
    pub fn accepted(name: &str) -> Self {
        Self::new(name, ManagedClusterSpec { hub_accepts_client: true, ..ManagedClusterSpec::default() })
    }

    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }

    /// Whether the hub has accepted the cluster (the condition, not the spec field).
    pub fn is_hub_accepted(&self) -> bool {
        conditions::is_true(self.conditions(), conditions::MANAGED_CLUSTER_HUB_ACCEPTED)
    }

    /// Whether the agent has joined.
    pub fn is_joined(&self) -> bool {
        conditions::is_true(self.conditions(), conditions::MANAGED_CLUSTER_JOINED)
    }

    /// Whether the cluster is available.
    pub fn is_available(&self) -> bool {
        conditions::is_true(self.conditions(), conditions::MANAGED_CLUSTER_AVAILABLE)
    }

    /// Whether the cluster asks for Hosted mode (ACM's deploy-mode annotation): its agents
    /// run on another managed cluster, [`Self::hosting_cluster`].
    pub fn is_hosted(&self) -> bool {
        self.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(conditions::ANNOTATION_KLUSTERLET_DEPLOY_MODE))
            .is_some_and(|mode| mode == "Hosted")
    }

    /// The managed cluster a Hosted-mode cluster's agents run on, as its annotation names it.
    pub fn hosting_cluster(&self) -> Option<&str> {
        let annotations = self.metadata.annotations.as_ref().filter(|_| self.is_hosted())?;
        annotations.get(names::ANNOTATION_HOSTING_CLUSTER).map(String::as_str).filter(|name| !name.is_empty())
    }

    /// The namespace and name of the work that carries the cluster's klusterlet: the
    /// hosting cluster's `<c>-hosted-klusterlet` in Hosted mode, else its own `<c>-klusterlet`.
    pub fn klusterlet_work(&self) -> Option<(String, String)> {
        let name = self.metadata.name.as_deref()?;
        Some(match self.hosting_cluster() {
            Some(hosting) => (hosting.to_string(), names::hosted_klusterlet_work(name)),
            None => (name.to_string(), names::klusterlet_work(name)),
        })
    }
}

impl ManagedClusterSpec {
    /// The lease period the agent uses (zero means the default).
    pub fn lease_duration(&self) -> Duration {
        let seconds =
            if self.lease_duration_seconds > 0 { self.lease_duration_seconds } else { DEFAULT_LEASE_DURATION_SECONDS };
        Duration::from_secs(seconds.unsigned_abs().into())
    }
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;

    /// A ManagedCluster as an ACM hub serves it once the cluster is imported.
    fn upstream_sample() -> serde_json::Value {
        json!({
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {
                "name": "cluster1",
                "labels": {"name": "cluster1", "vendor": "OpenShift"},
                "annotations": {"open-cluster-management/created-via": "other"},
                "finalizers": [
                    "managedcluster-import-controller.open-cluster-management.io/cleanup",
                    "cluster.open-cluster-management.io/api-resource-cleanup"
                ]
            },
            "spec": {
                "hubAcceptsClient": true,
                "leaseDurationSeconds": 60,
                "managedClusterClientConfigs": [
                    {"url": "https://cluster1.example.com:6443", "caBundle": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}
                ],
                "taints": [{
                    "key": "cluster.open-cluster-management.io/unreachable",
                    "effect": "NoSelect",
                    "timeAdded": "2025-10-17T00:04:11Z"
                }]
            },
            "status": {
                "conditions": [
                    {
                        "type": "HubAcceptedManagedCluster",
                        "status": "True",
                        "reason": "HubClusterAdminAccepted",
                        "message": "Accepted by hub cluster admin",
                        "lastTransitionTime": "2025-10-17T00:05:11Z"
                    },
                    {
                        "type": "ManagedClusterConditionAvailable",
                        "status": "True",
                        "reason": "ManagedClusterAvailable",
                        "message": "Managed cluster is available",
                        "lastTransitionTime": "2025-10-17T00:05:21Z",
                        "observedGeneration": 2
                    },
                    {
                        "type": "ManagedClusterJoined",
                        "status": "True",
                        "reason": "ManagedClusterJoined",
                        "message": "Managed cluster joined",
                        "lastTransitionTime": "2025-10-17T00:05:21Z"
                    }
                ],
                "capacity": {"cpu": "16", "memory": "64551700Ki", "pods": "250"},
                "allocatable": {"cpu": "15500m", "memory": "63400724Ki", "pods": "250"},
                "version": {"kubernetes": "v1.33.2"},
                "clusterClaims": [
                    {"name": "id.k8s.io", "value": "0c2d7a43-6b1c-4d0e-9d7f-0c1b1f1d2e3f"},
                    {"name": "kubeversion.open-cluster-management.io", "value": "v1.33.2"}
                ],
                "managedNamespaces": [{"name": "apps", "clusterSet": "default"}]
            }
        })
    }

    #[test]
    fn an_upstream_managed_cluster_round_trips() {
        let sample = upstream_sample();
        let cluster: ManagedCluster = serde_json::from_value(sample.clone()).unwrap();
        assert!(cluster.spec.hub_accepts_client);
        assert_eq!(cluster.spec.taints[0].effect, TaintEffect::NoSelect);
        assert_eq!(cluster.spec.managed_cluster_client_configs[0].ca_bundle.as_ref().unwrap().0.len(), 28);
        assert!(cluster.is_hub_accepted() && cluster.is_joined() && cluster.is_available());
        let status = cluster.status.as_ref().unwrap();
        assert_eq!(status.allocatable["cpu"], Quantity("15500m".into()));
        assert_eq!(serde_json::to_value(&cluster).unwrap(), sample);
    }

    #[test]
    fn go_zero_values_and_nulls_are_read() {
        let cluster: ManagedCluster = serde_json::from_value(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": "c1"},
            "spec": {"taints": [{"key": "k", "effect": "PreferNoSelect", "timeAdded": null}]},
            "status": {"conditions": null, "version": {}}
        }))
        .unwrap();
        assert!(!cluster.spec.hub_accepts_client);
        assert_eq!(cluster.spec.taints[0].time_added, None);
        assert_eq!(cluster.spec.lease_duration(), Duration::from_secs(60));
        assert!(cluster.conditions().is_empty());
    }

    #[test]
    fn accepted_builds_what_import_writes() {
        let cluster = ManagedCluster::accepted("c1");
        assert_eq!(
            serde_json::to_value(&cluster).unwrap(),
            json!({
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": "c1"},
                "spec": {"hubAcceptsClient": true}
            })
        );
        assert!(!cluster.is_available());
    }

    #[test]
    fn the_crd_matches_upstream_names() {
        let crd = ManagedCluster::crd();
        assert_eq!(crd.metadata.name.as_deref(), Some("managedclusters.cluster.open-cluster-management.io"));
        assert_eq!(crd.spec.scope, "Cluster");
        assert_eq!(crd.spec.names.short_names, Some(vec!["mcl".into(), "mcls".into()]));
        assert_eq!(ManagedCluster::group(&()), super::super::CLUSTER_GROUP);
        let version = &crd.spec.versions[0];
        let columns: Vec<_> = version.additional_printer_columns.iter().flatten().map(|c| c.name.as_str()).collect();
        assert_eq!(columns, ["Hub Accepted", "Managed Cluster URLs", "Joined", "Available", "Age"]);
        assert!(version.subresources.as_ref().unwrap().status.is_some());
        let schema = serde_json::to_value(version.schema.as_ref().unwrap()).unwrap();
        let spec = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"];
        assert_eq!(spec["leaseDurationSeconds"]["default"], 60);
        assert_eq!(
            spec["taints"]["items"]["properties"]["effect"]["enum"],
            json!(["NoSelect", "PreferNoSelect", "NoSelectIfNew"])
        );
        let conditions = &schema["openAPIV3Schema"]["properties"]["status"]["properties"]["conditions"];
        assert_eq!(conditions["x-kubernetes-list-type"], "map");
        assert_eq!(conditions["x-kubernetes-list-map-keys"], json!(["type"]));
    }
}
