//! `ManagedClusterAddOn` in v1alpha1 (in the cluster namespace): one addon on one cluster —
//! where its agent goes, its configurations, and the state its agent and the hub report — and
//! the configuration types the addon kinds share.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::conditions;
use crate::fields::{self, string_enum};

/// How an addon is installed on one cluster.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "addon.open-cluster-management.io",
    version = "v1alpha1",
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
    /// Deprecated: namespace of the addon agent on the managed cluster.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(
        extend("default" = "open-cluster-management-agent-addon"),
        length(max = 63),
        pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    )]
    pub install_namespace: String,

    /// Configuration objects of the addon on this cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<AddOnConfig>,
}

/// A configuration object of an addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnConfig {
    /// API group of the configuration.
    #[serde(default)]
    pub group: String,

    /// Resource (plural) of the configuration.
    #[schemars(length(min = 1))]
    pub resource: String,

    /// Namespace of the configuration; cluster-scoped when unset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,

    /// Name of the configuration.
    #[schemars(length(min = 1))]
    pub name: String,
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

    /// Deprecated: the configuration CRD and CR of the addon.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub add_on_configuration: ConfigCoordinates,

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

    /// The driver of the addon's kube client registration: csr or token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "KubeClientDriver")]
    pub kube_client_driver: Option<KubeClientDriver>,
}

string_enum! {
    /// How an addon's kube client authenticates to the hub.
    pub enum KubeClientDriver(closed) {
        /// A client certificate.
        Csr = "csr",
        /// A service account token.
        Token = "token",
    }
    default = Csr;
}

/// A reference to an object related to an addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    /// API group.
    pub group: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace, empty for a cluster-scoped object.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Name.
    pub name: String,
}

/// Display information of an addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnMeta {
    /// Name shown to people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display_name: String,

    /// What the addon does.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// Deprecated: where an addon's configuration lives.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigCoordinates {
    /// Name of the configuration CRD.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub crd_name: String,

    /// Name of the configuration CR.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cr_name: String,

    /// Generation of the configuration CR last observed.
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    pub last_observed_generation: i64,
}

/// A configuration kind of addons.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigGroupResource {
    /// API group.
    #[serde(default)]
    pub group: String,

    /// Resource (plural).
    #[schemars(length(min = 1))]
    pub resource: String,
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

    /// Deprecated (see `desiredConfig`): namespace of the configuration.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,

    /// Deprecated (see `desiredConfig`): name of the configuration.
    #[schemars(length(min = 1))]
    pub name: String,

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

/// A configuration and the hash of its spec.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigSpecHash {
    /// Namespace; cluster-scoped when unset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,

    /// Name.
    #[schemars(length(min = 1))]
    pub name: String,

    /// Hash of the configuration's spec.
    #[serde(default)]
    pub spec_hash: String,
}

/// How an addon agent registers with the hub.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistrationConfig {
    /// Signer of the addon's CSR, such as `kubernetes.io/kube-apiserver-client`.
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
    pub organization_unit: Vec<String>,
}

/// How an addon's health is checked.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthCheck {
    /// Lease (the agent renews a lease) or Customized (the addon reports itself).
    #[serde(default)]
    pub mode: HealthCheckMode,
}

string_enum! {
    /// How an addon's health is checked.
    pub enum HealthCheckMode(closed) {
        /// The addon agent renews a lease in its namespace.
        Lease = "Lease",
        /// The addon maintains its conditions itself.
        Customized = "Customized",
    }
    default = Lease;
}

impl ManagedClusterAddOn {
    /// The addon `name` of `cluster`, in the cluster namespace.
    pub fn for_cluster(cluster: &str, name: &str) -> Self {
        let mut addon = Self::new(name, ManagedClusterAddOnSpec::default());
        addon.metadata.namespace = Some(cluster.to_owned());
        addon
    }

    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }

    /// Whether the addon is available.
    pub fn is_available(&self) -> bool {
        conditions::is_true(self.conditions(), conditions::ADDON_AVAILABLE)
    }
}

impl conditions::HasConditions for ManagedClusterAddOn {
    fn status_conditions(&self) -> &[Condition] {
        self.conditions()
    }
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;
    use crate::addon::{DEFAULT_ADDON_INSTALL_NAMESPACE, SEARCH_COLLECTOR};

    #[test]
    fn an_upstream_managed_cluster_addon_round_trips() {
        let sample = json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ManagedClusterAddOn",
            "metadata": {
                "name": "application-manager",
                "namespace": "cluster1",
                "annotations": {"addon.open-cluster-management.io/values": "{\"global\":{}}"}
            },
            "spec": {
                "installNamespace": "open-cluster-management-agent-addon",
                "configs": [{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                             "namespace": "cluster1", "name": "app-config"}]
            },
            "status": {
                "conditions": [{
                    "type": "Available", "status": "True", "reason": "ManagedClusterAddOnLeaseUpdated",
                    "message": "application-manager add-on is available.", "lastTransitionTime": "2025-10-17T00:07:00Z"
                }],
                "relatedObjects": [{"group": "addon.open-cluster-management.io",
                                    "resource": "clustermanagementaddons", "name": "application-manager"}],
                "addOnMeta": {"displayName": "Application Manager", "description": "Processes events for applications"},
                "addOnConfiguration": {
                    "crdName": "klusterletaddonconfigs.agent.open-cluster-management.io",
                    "crName": "cluster1"
                },
                "supportedConfigs": [
                    {"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs"}
                ],
                "configReferences": [{
                    "group": "addon.open-cluster-management.io",
                    "resource": "addondeploymentconfigs",
                    "namespace": "cluster1",
                    "name": "app-config",
                    "lastObservedGeneration": 1,
                    "desiredConfig": {"namespace": "cluster1", "name": "app-config", "specHash": "a1b2c3"},
                    "lastAppliedConfig": {"namespace": "cluster1", "name": "app-config", "specHash": "a1b2c3"}
                }],
                "namespace": "open-cluster-management-agent-addon",
                "registrations": [{
                    "signerName": "kubernetes.io/kube-apiserver-client",
                    "subject": {
                        "user": concat!(
                            "system:open-cluster-management:cluster:cluster1:addon:application-manager:",
                            "agent:application-manager"
                        ),
                        "groups": ["system:open-cluster-management:cluster:cluster1:addon:application-manager"]
                    }
                }],
                "healthCheck": {"mode": "Customized"},
                "kubeClientDriver": "csr"
            }
        });
        let addon: ManagedClusterAddOn = serde_json::from_value(sample.clone()).unwrap();
        assert!(addon.is_available());
        let status = addon.status.as_ref().unwrap();
        assert_eq!(status.health_check.mode, HealthCheckMode::Customized);
        assert_eq!(status.kube_client_driver, Some(KubeClientDriver::Csr));
        assert_eq!(serde_json::to_value(&addon).unwrap(), sample);
    }

    #[test]
    fn go_nulls_in_an_addon_status_are_read() {
        let addon: ManagedClusterAddOn = serde_json::from_value(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "search-collector", "namespace": "c1"},
            "spec": {},
            "status": {
                "addOnMeta": {},
                "addOnConfiguration": {},
                "healthCheck": {"mode": "Lease"},
                "configReferences": [{"group": "", "resource": "configmaps", "name": "c", "lastObservedGeneration": 0,
                                      "desiredConfig": null, "lastAppliedConfig": null}]
            }
        }))
        .unwrap();
        assert_eq!(addon.status.as_ref().unwrap().config_references[0].desired_config, None);
        assert!(!addon.is_available());
    }

    #[test]
    fn for_cluster_names_the_addon_in_the_cluster_namespace() {
        let addon = ManagedClusterAddOn::for_cluster("c1", SEARCH_COLLECTOR);
        assert_eq!(
            serde_json::to_value(&addon).unwrap(),
            json!({
                "apiVersion": "addon.open-cluster-management.io/v1alpha1",
                "kind": "ManagedClusterAddOn",
                "metadata": {"name": "search-collector", "namespace": "c1"},
                "spec": {}
            })
        );
    }

    #[test]
    fn the_crd_matches_upstream_names() {
        let addon = ManagedClusterAddOn::crd();
        assert_eq!(addon.metadata.name.as_deref(), Some("managedclusteraddons.addon.open-cluster-management.io"));
        assert_eq!(addon.spec.scope, "Namespaced");
        assert_eq!(addon.spec.names.short_names, Some(vec!["mca".into(), "mcas".into()]));
        assert_eq!(ManagedClusterAddOn::group(&()), crate::ADDON_GROUP);
        assert_eq!(addon.spec.versions[0].name, "v1alpha1");
        let schema = serde_json::to_value(addon.spec.versions[0].schema.as_ref().unwrap()).unwrap();
        let install = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"]["installNamespace"];
        assert_eq!(install["default"], DEFAULT_ADDON_INSTALL_NAMESPACE);
        let required = &schema["openAPIV3Schema"]["properties"]["spec"]["required"];
        assert!(required.is_null(), "{required}");
    }
}
