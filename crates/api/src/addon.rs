//! Addons: ACM's `KlusterletAddonConfig` (`agent.open-cluster-management.io/v1`, in the cluster
//! namespace) says which addons a cluster gets; OCM's `ManagedClusterAddOn`
//! (`addon.open-cluster-management.io/v1alpha1`, in the cluster namespace) is one addon on one
//! cluster and its state.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::conditions;
use super::fields::{self, string_enum};

/// The namespace addon agents are installed in on a managed cluster by default.
pub const DEFAULT_ADDON_INSTALL_NAMESPACE: &str = "open-cluster-management-agent-addon";

/// ManagedClusterAddOn of the application manager.
pub const APPLICATION_MANAGER: &str = "application-manager";
/// ManagedClusterAddOn of the certificate policy controller.
pub const CERT_POLICY_CONTROLLER: &str = "cert-policy-controller";
/// ManagedClusterAddOn of the configuration policy controller.
pub const CONFIG_POLICY_CONTROLLER: &str = "config-policy-controller";
/// ManagedClusterAddOn of the governance policy framework.
pub const GOVERNANCE_POLICY_FRAMEWORK: &str = "governance-policy-framework";
/// ManagedClusterAddOn of the search collector.
pub const SEARCH_COLLECTOR: &str = "search-collector";
/// ManagedClusterAddOn of the IAM policy controller (not among upstream's current addon
/// names, which dropped it in ACM 2.11; the KlusterletAddonConfig still has its field).
pub const IAM_POLICY_CONTROLLER: &str = "iam-policy-controller";

/// The addons with an agent in this project.
pub const AGENTS: [&str; 3] = [SEARCH_COLLECTOR, CERT_POLICY_CONTROLLER, IAM_POLICY_CONTROLLER];

/// The kinds the search collector counts: `(group, version, kind, plural)`. Its ClusterRole
/// grants `list` on exactly these.
pub const SEARCH_KINDS: [(&str, &str, &str, &str); 8] = [
    ("", "v1", "Namespace", "namespaces"),
    ("", "v1", "Pod", "pods"),
    ("", "v1", "ConfigMap", "configmaps"),
    ("", "v1", "ServiceAccount", "serviceaccounts"),
    ("", "v1", "Service", "services"),
    ("apps", "v1", "Deployment", "deployments"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings"),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
];

/// The ConfigMap in which an addon agent keeps its report, beside its Lease `<addon>`.
pub fn status_name(addon: &str) -> String {
    format!("{addon}-status")
}

// ---------------------------------------------------------------------------------------------
// KlusterletAddonConfig
// ---------------------------------------------------------------------------------------------

/// Which ACM addons a managed cluster gets, and their proxy settings.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "agent.open-cluster-management.io",
    version = "v1",
    kind = "KlusterletAddonConfig",
    plural = "klusterletaddonconfigs",
    namespaced,
    status = "KlusterletAddonConfigStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "The ACM addons of one managed cluster, named after the cluster in its namespace on the hub."
)]
#[serde(rename_all = "camelCase")]
pub struct KlusterletAddonConfigSpec {
    /// Unused since ACM 2.4.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,

    /// Unused since ACM 2.4.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1))]
    pub cluster_name: String,

    /// Unused since ACM 2.4.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1))]
    pub cluster_namespace: String,

    /// Unused since ACM 2.4.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cluster_labels: BTreeMap<String, String>,

    /// Proxy for the addon agents that use CustomProxy.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub proxy_config: ProxyConfig,

    /// The search collector addon.
    pub search_collector: KlusterletAddonAgentConfigSpec,

    /// The policy controller addons (configuration policy and governance framework).
    pub policy_controller: KlusterletAddonAgentConfigSpec,

    /// The application manager addon.
    pub application_manager: KlusterletAddonAgentConfigSpec,

    /// The certificate policy controller addon.
    pub cert_policy_controller: KlusterletAddonAgentConfigSpec,

    /// Unused since ACM 2.11.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub iam_policy_controller: KlusterletAddonAgentConfigSpec,
}

/// Proxy environment of addon agents.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProxyConfig {
    /// Proxy URL for HTTP requests.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub http_proxy: String,

    /// Proxy URL for HTTPS requests.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub https_proxy: String,

    /// Comma-separated hosts and CIDRs reached without the proxy (include the hub API server).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub no_proxy: String,
}

/// Whether one addon is on, and its proxy policy.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KlusterletAddonAgentConfigSpec {
    /// Whether the addon is installed.
    #[serde(default)]
    pub enabled: bool,

    /// Which proxy settings the addon agent gets.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub proxy_policy: ProxyPolicy,
}

string_enum! {
    /// Which proxy settings an addon agent gets.
    pub enum ProxyPolicy(closed) {
        /// None.
        Disabled = "Disabled",
        /// The cluster-wide proxy of the OpenShift cluster.
        OcpGlobalProxy = "OCPGlobalProxy",
        /// `spec.proxyConfig`.
        CustomProxy = "CustomProxy",
    }
    default = Disabled;
}

/// What the addon controller reports.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KlusterletAddonConfigStatus {
    /// The cluster-wide proxy of the OpenShift cluster.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub ocp_global_proxy: ProxyConfig,

    /// Conditions, such as OCPGlobalProxyDetected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::condition_list")]
    pub conditions: Vec<Condition>,
}

impl KlusterletAddonAgentConfigSpec {
    /// An addon that is on, without a proxy.
    pub fn enabled() -> Self {
        Self { enabled: true, ..Self::default() }
    }
}

impl KlusterletAddonConfig {
    /// The config of `cluster` (in its namespace) with the four current addons on, as the ACM
    /// console creates it.
    pub fn all_enabled(cluster: &str) -> Self {
        let mut config = Self::new(
            cluster,
            KlusterletAddonConfigSpec {
                search_collector: KlusterletAddonAgentConfigSpec::enabled(),
                policy_controller: KlusterletAddonAgentConfigSpec::enabled(),
                application_manager: KlusterletAddonAgentConfigSpec::enabled(),
                cert_policy_controller: KlusterletAddonAgentConfigSpec::enabled(),
                ..KlusterletAddonConfigSpec::default()
            },
        );
        config.metadata.namespace = Some(cluster.to_owned());
        config
    }
}

// ---------------------------------------------------------------------------------------------
// ManagedClusterAddOn
// ---------------------------------------------------------------------------------------------

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

    #[test]
    fn an_upstream_klusterlet_addon_config_round_trips() {
        let sample = json!({
            "apiVersion": "agent.open-cluster-management.io/v1",
            "kind": "KlusterletAddonConfig",
            "metadata": {"name": "cluster1", "namespace": "cluster1"},
            "spec": {
                "clusterName": "cluster1",
                "clusterNamespace": "cluster1",
                "clusterLabels": {"cloud": "auto-detect", "vendor": "auto-detect"},
                "proxyConfig": {"httpProxy": "http://proxy:3128", "noProxy": "10.0.0.0/8,.cluster.local"},
                "applicationManager": {"enabled": true, "proxyPolicy": "CustomProxy"},
                "policyController": {"enabled": true},
                "searchCollector": {"enabled": false},
                "certPolicyController": {"enabled": true, "proxyPolicy": "OCPGlobalProxy"},
                "iamPolicyController": {"enabled": true}
            },
            "status": {
                "ocpGlobalProxy": {"httpsProxy": "http://proxy:3128"},
                "conditions": [{
                    "type": "OCPGlobalProxyDetected", "status": "True", "reason": "OCPGlobalProxyDetected",
                    "message": "", "lastTransitionTime": "2025-10-17T00:05:00Z"
                }]
            }
        });
        let config: KlusterletAddonConfig = serde_json::from_value(sample.clone()).unwrap();
        assert_eq!(config.spec.application_manager.proxy_policy, ProxyPolicy::CustomProxy);
        assert!(!config.spec.search_collector.enabled);
        assert_eq!(serde_json::to_value(&config).unwrap(), sample);
    }

    #[test]
    fn all_enabled_matches_what_the_console_creates() {
        let config = KlusterletAddonConfig::all_enabled("c1");
        let enabled = json!({"enabled": true});
        assert_eq!(
            serde_json::to_value(&config).unwrap(),
            json!({
                "apiVersion": "agent.open-cluster-management.io/v1",
                "kind": "KlusterletAddonConfig",
                "metadata": {"name": "c1", "namespace": "c1"},
                "spec": {
                    "applicationManager": enabled,
                    "certPolicyController": enabled,
                    "policyController": enabled,
                    "searchCollector": enabled
                }
            })
        );
    }

    #[test]
    fn an_addon_config_without_the_required_addons_is_refused() {
        let result = serde_json::from_value::<KlusterletAddonConfig>(json!({
            "apiVersion": "agent.open-cluster-management.io/v1",
            "kind": "KlusterletAddonConfig",
            "metadata": {"name": "c1", "namespace": "c1"},
            "spec": {"policyController": {"enabled": true}}
        }));
        assert!(result.is_err());
    }

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
    fn the_crds_match_upstream_names() {
        let config = KlusterletAddonConfig::crd();
        assert_eq!(config.metadata.name.as_deref(), Some("klusterletaddonconfigs.agent.open-cluster-management.io"));
        assert_eq!(config.spec.scope, "Namespaced");
        assert_eq!(KlusterletAddonConfig::group(&()), super::super::AGENT_GROUP);
        let addon = ManagedClusterAddOn::crd();
        assert_eq!(addon.metadata.name.as_deref(), Some("managedclusteraddons.addon.open-cluster-management.io"));
        assert_eq!(addon.spec.scope, "Namespaced");
        assert_eq!(addon.spec.names.short_names, Some(vec!["mca".into(), "mcas".into()]));
        assert_eq!(ManagedClusterAddOn::group(&()), super::super::ADDON_GROUP);
        assert_eq!(addon.spec.versions[0].name, "v1alpha1");
        let schema = serde_json::to_value(addon.spec.versions[0].schema.as_ref().unwrap()).unwrap();
        let install = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"]["installNamespace"];
        assert_eq!(install["default"], DEFAULT_ADDON_INSTALL_NAMESPACE);
        let required = &schema["openAPIV3Schema"]["properties"]["spec"]["required"];
        assert!(required.is_null(), "{required}");
    }
}
