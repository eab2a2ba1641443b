//! ACM's `KlusterletAddonConfig` (`agent.open-cluster-management.io/v1`, in the cluster
//! namespace): which of ACM's addons a cluster gets, and their proxy settings.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fields::{self, string_enum};

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
    fn the_crd_matches_upstream_names() {
        let config = KlusterletAddonConfig::crd();
        assert_eq!(config.metadata.name.as_deref(), Some("klusterletaddonconfigs.agent.open-cluster-management.io"));
        assert_eq!(config.spec.scope, "Namespaced");
        assert_eq!(KlusterletAddonConfig::group(&()), crate::AGENT_GROUP);
    }
}
