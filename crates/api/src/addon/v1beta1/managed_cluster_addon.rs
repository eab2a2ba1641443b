//! `ManagedClusterAddOn` in v1beta1: v1alpha1's without the install namespace (an annotation
//! carries it, see [`crate::addon::conversion`]) and the deprecated `addOnConfiguration`, with
//! configuration references by their desired configuration only, and registrations typed as
//! a kube client (with its driver) or a custom signer.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fields::{self, string_enum};

use super::{
    AddOnConfig, AddOnMeta, ConfigGroupResource, ConfigSpecHash, HealthCheck, KubeClientDriver, ObjectReference,
};

/// How an addon is installed on one cluster.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "addon.open-cluster-management.io",
    version = "v1beta1",
    kind = "ManagedClusterAddOn",
    plural = "managedclusteraddons",
    shortname = "mca",
    shortname = "mcas",
    namespaced,
    status = "ManagedClusterAddOnStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "One addon on one managed cluster, in the cluster namespace on the hub, named after the addon.",
    printcolumn = r#"{"name": "Available", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Available\")].status"}"#,
    printcolumn = r#"{"name": "Degraded", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Degraded\")].status"}"#,
    printcolumn = r#"{"name": "Progressing", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Progressing\")].status"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterAddOnSpec {
    /// Configuration objects of the addon on this cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<AddOnConfig>,
}

/// The state of an addon on one cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterAddOnStatus {
    /// Available, Degraded, Progressing, ManifestApplied, RegistrationApplied and others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// Objects related to the addon.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_objects: Vec<ObjectReference>,

    /// Display name and description of the addon.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub add_on_meta: AddOnMeta,

    /// Configuration kinds that may override the addon's defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["group", "resource"]))]
    pub supported_configs: Vec<ConfigGroupResource>,

    /// The configurations in effect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_references: Vec<ConfigReference>,

    /// Namespace on the managed cluster of the addon's registration secret and lease.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,

    /// How the addon agent registers with the hub (one CSR each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registrations: Vec<RegistrationConfig>,

    /// How the addon's health is checked.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub health_check: HealthCheck,
}

/// A configuration in effect for an addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigReference {
    /// API group of the configuration.
    #[serde(default)]
    pub group: String,

    /// Resource (plural) of the configuration.
    #[schemars(length(min = 1))]
    pub resource: String,

    /// Generation of the configuration last observed.
    #[serde(default)]
    pub last_observed_generation: i64,

    /// The configuration wanted, with its spec hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_config: Option<ConfigSpecHash>,

    /// The configuration last applied, with its spec hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_applied_config: Option<ConfigSpecHash>,
}

string_enum! {
    /// What an addon agent registers for.
    pub enum RegistrationType(closed) {
        /// A client of the hub's kube-apiserver.
        KubeClient = "kubeClient",
        /// A client certificate of another signer, for endpoints of the hub other than its API.
        CustomSigner = "customSigner",
    }
    default = KubeClient;
}

/// How an addon agent registers with the hub.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistrationConfig {
    /// kubeClient or customSigner.
    #[serde(rename = "type")]
    pub type_: RegistrationType,

    /// With kubeClient: its subject and driver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube_client: Option<KubeClientConfig>,

    /// With customSigner: the signer and subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_signer: Option<CustomSignerConfig>,
}

/// A kube client registration of an addon agent.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeClientConfig {
    /// The agent's user and groups; a default per cluster and addon when unset.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub subject: KubeClientSubject,

    /// How the agent authenticates (csr or token), as the agent declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "KubeClientDriver")]
    pub driver: Option<KubeClientDriver>,
}

/// The user and groups of an addon agent's kube client.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeClientSubject {
    /// User name.
    #[serde(default)]
    pub user: String,

    /// Groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
}

/// A custom signer registration of an addon agent.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomSignerConfig {
    /// Signer of the addon's CSR.
    #[schemars(length(min = 5, max = 571), pattern(r"^([a-z0-9][a-z0-9-]*[a-z0-9]\.)+[a-z]+\/[a-z0-9-\.]+$"))]
    pub signer_name: String,

    /// Subject of the addon's certificate; a default per cluster and addon when unset.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub subject: Subject,
}

/// The subject of an addon agent's certificate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subject {
    /// User name.
    #[serde(default)]
    pub user: String,

    /// Groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,

    /// Organizational units.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub organization_units: Vec<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_upstream_v1beta1_addon_reads_and_writes_as_upstream_writes_it() {
        let upstream = json!({
            "apiVersion": "addon.open-cluster-management.io/v1beta1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "managed-serviceaccount", "namespace": "cluster1"},
            "spec": {"configs": [{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                                  "namespace": "cluster1", "name": "msa"}]},
            "status": {
                "configReferences": [{
                    "group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                    "lastObservedGeneration": 2,
                    "desiredConfig": {"namespace": "cluster1", "name": "msa", "specHash": "h2"}
                }],
                "namespace": "open-cluster-management-agent-addon",
                "registrations": [
                    {"type": "kubeClient", "kubeClient": {"subject": {"user": "u", "groups": ["g"]}, "driver": "token"}},
                    {"type": "customSigner", "customSigner": {"signerName": "example.io/signer",
                                                              "subject": {"user": "u", "organizationUnits": ["ou"]}}}
                ],
                "healthCheck": {"mode": "Customized"}
            }
        });
        let addon: ManagedClusterAddOn = serde_json::from_value(upstream.clone()).unwrap();
        let status = addon.status.as_ref().unwrap();
        assert_eq!(status.registrations[0].type_, RegistrationType::KubeClient);
        assert_eq!(status.registrations[1].type_, RegistrationType::CustomSigner);
        assert_eq!(serde_json::to_value(&addon).unwrap(), upstream);
    }
}
