//! `AddOnDeploymentConfig` in v1beta1: the same schema as v1alpha1's, so the API server
//! converts it by its apiVersion alone (no conversion webhook).

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fields;

use super::{ContainerResourceRequirements, CustomizedVariable, ImageMirror, NodePlacement, ProxyConfig};

/// How an addon's agents are deployed.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "addon.open-cluster-management.io",
    version = "v1beta1",
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
