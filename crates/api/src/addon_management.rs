//! OCM's `ClusterManagementAddOn` (`addon.open-cluster-management.io/v1alpha1`, cluster
//! scoped): an addon declared on the hub — its name and description, the configurations it
//! takes, and how it is installed on clusters (by hand, one ManagedClusterAddOn at a time, or
//! on the clusters of Placements). `clusteradm get addon` and the addon framework read them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::addon::AddOnMeta;
use super::fields::{self, string_enum};

/// An addon declared on the hub.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "addon.open-cluster-management.io",
    version = "v1alpha1",
    kind = "ClusterManagementAddOn",
    plural = "clustermanagementaddons",
    shortname = "cma",
    shortname = "cmas",
    status = "ClusterManagementAddOnStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "An addon declared hub-wide: what it is, the configurations it takes, how it is installed.",
    printcolumn = r#"{"name": "DISPLAY NAME", "type": "string", "jsonPath": ".spec.addOnMeta.displayName"}"#,
    printcolumn = r#"{"name": "CRD NAME", "type": "string", "jsonPath": ".spec.addOnConfiguration.crdName"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ClusterManagementAddOnSpec {
    /// What the addon is, for people.
    #[serde(default)]
    pub add_on_meta: AddOnMeta,

    /// The kinds of configuration the addon takes, with their defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supported_configs: Vec<ConfigMeta>,

    /// How the addon is installed on clusters.
    #[serde(default)]
    #[schemars(extend("default" = {"type": "Manual"}))]
    pub install_strategy: InstallStrategy,
}

/// A kind of configuration an addon takes, and its default object.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMeta {
    /// API group of the configuration.
    #[serde(default)]
    pub group: String,

    /// Resource (plural) of the configuration.
    #[schemars(length(min = 1))]
    pub resource: String,

    /// The configuration every cluster's addon uses unless it names another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_config: Option<ConfigReferent>,
}

/// A configuration object, by namespace and name.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigReferent {
    /// Its namespace; cluster-scoped when unset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,

    /// Its name.
    #[schemars(length(min = 1))]
    pub name: String,
}

string_enum! {
    /// How an addon comes onto clusters.
    pub enum InstallStrategyType(closed) {
        /// Someone creates each cluster's ManagedClusterAddOn.
        Manual = "Manual",
        /// The addon manager creates one on every cluster its Placements decide.
        Placements = "Placements",
    }
    default = Manual;
}

/// How an addon is installed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallStrategy {
    /// Manual or Placements.
    #[serde(default, rename = "type")]
    pub type_: InstallStrategyType,

    /// With Placements: the Placements whose clusters get the addon.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<PlacementStrategy>,
}

/// A Placement whose clusters get the addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementStrategy {
    /// The Placement's name.
    #[schemars(length(min = 1))]
    pub name: String,

    /// The Placement's namespace.
    #[schemars(length(min = 1))]
    pub namespace: String,
}

/// How the installation of an addon goes.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterManagementAddOnStatus {
    /// For each Placement of the install strategy: how far the addon got on its clusters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub install_progressions: Vec<InstallProgression>,
}

/// How far an addon got on the clusters of one Placement.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallProgression {
    /// The Placement (name, namespace), as the install strategy names it.
    #[serde(flatten)]
    pub placement: PlacementStrategy,

    /// Progressing and others, as upstream's addon manager writes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;

    #[test]
    fn the_crd_is_named_and_scoped_as_upstreams_and_a_manual_addon_reads_as_upstream_writes_it() {
        let crd = ClusterManagementAddOn::crd();
        assert_eq!(crd.metadata.name.as_deref(), Some("clustermanagementaddons.addon.open-cluster-management.io"));
        assert_eq!(crd.spec.scope, "Cluster");
        assert_eq!(crd.spec.names.short_names, Some(vec!["cma".into(), "cmas".into()]));
        assert_eq!(ClusterManagementAddOn::group(&()), super::super::ADDON_GROUP);
        let upstream = json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ClusterManagementAddOn",
            "metadata": {"name": "search-collector"},
            "spec": {
                "addOnMeta": {"displayName": "Search", "description": "Counts objects"},
                "installStrategy": {"type": "Placements", "placements": [{"name": "all", "namespace": "default"}]}
            }
        });
        let addon: ClusterManagementAddOn = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(addon.spec.install_strategy.type_, InstallStrategyType::Placements);
        assert_eq!(serde_json::to_value(&addon).unwrap(), upstream);
        let bare: ClusterManagementAddOn = serde_json::from_value(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ClusterManagementAddOn", "metadata": {"name": "x"}, "spec": {}
        }))
        .unwrap();
        assert_eq!(bare.spec.install_strategy.type_, InstallStrategyType::Manual);
    }
}
