//! `AddOnDeploymentConfig` in v1alpha1 (namespaced): how an addon's agents are deployed on
//! managed clusters — variables for its manifests, node placement, image mirrors, proxy,
//! install namespace and resources — for a ClusterManagementAddOn or ManagedClusterAddOn to
//! name among its configurations.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ResourceRequirements, Toleration};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fields;

/// How an addon's agents are deployed.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "addon.open-cluster-management.io",
    version = "v1alpha1",
    kind = "AddOnDeploymentConfig",
    plural = "addondeploymentconfigs",
    namespaced,
    derive = "PartialEq",
    derive = "Default",
    doc = "A deployment configuration of addon agents, which addons name among their configurations."
)]
#[serde(rename_all = "camelCase")]
pub struct AddOnDeploymentConfigSpec {
    /// Variables the addon renders its agent's manifests with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub customized_variables: Vec<CustomizedVariable>,

    /// Where the agent's pods run; unset leaves them as the addon places them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_placement: Option<NodePlacement>,

    /// Image registries replaced by mirrors in the agent's images.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registries: Vec<ImageMirror>,

    /// Proxy settings of the agent.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub proxy_config: ProxyConfig,

    /// Namespace of the agent on the managed cluster; empty for a template addon means the
    /// template's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        extend("default" = "open-cluster-management-agent-addon"),
        length(max = 63),
        pattern(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$")
    )]
    pub agent_install_namespace: Option<String>,

    /// Resources of the agent's containers; the last entry matching a container wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["containerID"]))]
    pub resource_requirements: Vec<ContainerResourceRequirements>,
}

/// A named value the addon renders its agent's manifests with.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomizedVariable {
    /// The variable's name.
    #[schemars(length(max = 255), pattern(r"^[a-zA-Z_][_a-zA-Z0-9]*$"))]
    pub name: String,

    /// Its value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 1024))]
    pub value: String,
}

/// Where an addon agent's pods are scheduled.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodePlacement {
    /// Labels the nodes must have; any node when empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,

    /// Taints the pods tolerate; none when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::tolerations")]
    pub tolerations: Vec<Toleration>,
}

/// A registry replaced by a mirror in an addon agent's images.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageMirror {
    /// The mirror; the entry is ignored when empty.
    pub mirror: String,

    /// The registry the mirror replaces; every registry when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

/// Proxy settings of an addon agent.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProxyConfig {
    /// Proxy URL for HTTP requests.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub http_proxy: String,

    /// Proxy URL for HTTPS requests.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub https_proxy: String,

    /// CA bundle (PEM) that verifies an HTTPS proxy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::byte_string")]
    pub ca_bundle: Option<ByteString>,

    /// Comma-separated hosts, CIDRs and IPs reached without the proxy.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub no_proxy: String,
}

/// The resources of the addon agent containers one identifier matches.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceRequirements {
    /// `<resource type>:<resource name>:<container name>`, each part possibly `*`, such as
    /// `deployments:search-collector:*`.
    #[serde(rename = "containerID")]
    #[schemars(pattern(r"^(deployments|daemonsets|statefulsets|replicasets|jobs|cronjobs|pods|\*):.+:.+$"))]
    pub container_id: String,

    /// Requests and limits of the matched containers.
    #[schemars(schema_with = "fields::resource_requirements")]
    pub resources: ResourceRequirements,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_deployment_config_reads_and_writes_as_upstream_writes_it() {
        let upstream = json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "AddOnDeploymentConfig",
            "metadata": {"name": "search", "namespace": "open-cluster-management-hub"},
            "spec": {
                "customizedVariables": [{"name": "LOG_LEVEL", "value": "4"}],
                "nodePlacement": {
                    "nodeSelector": {"node-role.kubernetes.io/infra": ""},
                    "tolerations": [{"key": "node-role.kubernetes.io/infra", "operator": "Exists", "effect": "NoSchedule"}]
                },
                "registries": [{"source": "quay.io/stolostron", "mirror": "registry.example/stolostron"}],
                "proxyConfig": {"httpsProxy": "https://proxy:3129", "caBundle": "Q0E=", "noProxy": ".cluster.local"},
                "agentInstallNamespace": "",
                "resourceRequirements": [{
                    "containerID": "deployments:search-collector:*",
                    "resources": {"requests": {"memory": "64Mi"}, "limits": {"memory": "512Mi"}}
                }]
            }
        });
        let config: AddOnDeploymentConfig = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(config.spec.agent_install_namespace.as_deref(), Some(""), "empty is not unset");
        assert_eq!(config.spec.proxy_config.ca_bundle, Some(ByteString(b"CA".to_vec())));
        assert_eq!(serde_json::to_value(&config).unwrap(), upstream);
    }
}
