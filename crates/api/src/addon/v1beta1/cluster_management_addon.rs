//! `ClusterManagementAddOn` in v1beta1: v1alpha1's without the deprecated
//! `addOnConfiguration`, its supported configurations become default configurations (each
//! naming its object; see [`crate::addon::conversion`] for one without), and the status key
//! `defaultConfigReferences` is spelled in camel case.

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AddOnConfig, AddOnMeta, DefaultConfigReference, InstallProgression, InstallStrategy};

/// An addon declared on the hub.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "addon.open-cluster-management.io",
    version = "v1beta1",
    kind = "ClusterManagementAddOn",
    plural = "clustermanagementaddons",
    shortname = "cma",
    shortname = "cmas",
    status = "ClusterManagementAddOnStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "An addon declared hub-wide: what it is, the configurations it takes, how it is installed.",
    printcolumn = r#"{"name": "DISPLAY NAME", "type": "string", "jsonPath": ".spec.addOnMeta.displayName"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ClusterManagementAddOnSpec {
    /// What the addon is, for people.
    #[serde(default)]
    pub add_on_meta: AddOnMeta,

    /// The kinds of configuration the addon takes, each with the object every cluster's addon
    /// uses unless its Placement or its ManagedClusterAddOn names another.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["group", "resource"]))]
    pub default_configs: Vec<AddOnConfig>,

    /// How the addon is installed on clusters.
    #[serde(default)]
    #[schemars(extend("default" = {"type": "Manual"}))]
    pub install_strategy: InstallStrategy,
}

/// How the installation of an addon goes.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterManagementAddOnStatus {
    /// The default configurations in effect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_config_references: Vec<DefaultConfigReference>,

    /// For each Placement of the install strategy: how far the addon got on its clusters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub install_progressions: Vec<InstallProgression>,
}
