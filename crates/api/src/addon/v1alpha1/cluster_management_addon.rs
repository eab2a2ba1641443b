//! `ClusterManagementAddOn` in v1alpha1 (cluster scoped): an addon declared on the hub — its
//! name and description, the configurations it takes, and how it is installed on clusters (by
//! hand, one ManagedClusterAddOn at a time, or on the clusters of Placements, rolling out
//! configuration changes as each Placement says). `clusteradm get addon` and the addon
//! framework read them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fields::{self, string_enum};
use crate::rollout::RolloutStrategy;

use super::{AddOnConfig, AddOnMeta, ConfigCoordinates, ConfigSpecHash};

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

    /// Deprecated (see `supportedConfigs`): the CRD and CR that configure the addon.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub add_on_configuration: ConfigCoordinates,

    /// The kinds of configuration the addon takes, with their defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["group", "resource"]))]
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

    /// With Placements: the Placements whose clusters get the addon; where they overlap, the
    /// later one's settings win.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["namespace", "name"]))]
    pub placements: Vec<PlacementStrategy>,
}

/// A Placement, by namespace and name.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementRef {
    /// The Placement's namespace.
    #[schemars(length(min = 1))]
    pub namespace: String,

    /// The Placement's name.
    #[schemars(length(min = 1))]
    pub name: String,
}

/// A Placement whose clusters get the addon, and how.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementStrategy {
    /// The Placement.
    #[serde(flatten)]
    pub placement: PlacementRef,

    /// Configurations the addon gets on these clusters (a cluster's ManagedClusterAddOn may
    /// override them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<AddOnConfig>,

    /// How a change of the addon's configurations reaches these clusters.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    #[schemars(extend("default" = {"type": "All"}))]
    pub rollout_strategy: RolloutStrategy,
}

/// How the installation of an addon goes.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterManagementAddOnStatus {
    /// The default configurations in effect (upstream spells the key with a lower-case `c` in
    /// this version).
    #[serde(rename = "defaultconfigReferences", default, skip_serializing_if = "Vec::is_empty")]
    pub default_config_references: Vec<DefaultConfigReference>,

    /// For each Placement of the install strategy: how far the addon got on its clusters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub install_progressions: Vec<InstallProgression>,
}

/// A default configuration in effect for an addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DefaultConfigReference {
    /// API group of the configuration.
    #[serde(default)]
    pub group: String,

    /// Resource (plural) of the configuration.
    #[schemars(length(min = 1))]
    pub resource: String,

    /// The configuration wanted, with its spec hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_config: Option<ConfigSpecHash>,
}

/// How far an addon got on the clusters of one Placement.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallProgression {
    /// The Placement, as the install strategy names it.
    #[serde(flatten)]
    pub placement: PlacementRef,

    /// The configurations of the addon on these clusters and how far each rolled out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_references: Vec<InstallConfigReference>,

    /// Progressing and others, as upstream's addon manager writes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,
}

/// A configuration of an addon on the clusters of one Placement, and how far it rolled out.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallConfigReference {
    /// API group of the configuration.
    #[serde(default)]
    pub group: String,

    /// Resource (plural) of the configuration.
    #[schemars(length(min = 1))]
    pub resource: String,

    /// The configuration wanted, with its spec hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_config: Option<ConfigSpecHash>,

    /// The last configuration known good: the last one applied, or for a canary rollout the
    /// last one the canary Placement applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_known_good_config: Option<ConfigSpecHash>,

    /// The configuration every ManagedClusterAddOn of these clusters last applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_applied_config: Option<ConfigSpecHash>,
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;
    use crate::rollout::RolloutType;

    #[test]
    fn the_crd_is_named_and_scoped_as_upstreams_and_an_addon_reads_as_upstream_writes_it() {
        let crd = ClusterManagementAddOn::crd();
        assert_eq!(crd.metadata.name.as_deref(), Some("clustermanagementaddons.addon.open-cluster-management.io"));
        assert_eq!(crd.spec.scope, "Cluster");
        assert_eq!(crd.spec.names.short_names, Some(vec!["cma".into(), "cmas".into()]));
        assert_eq!(ClusterManagementAddOn::group(&()), crate::ADDON_GROUP);
        let upstream = json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ClusterManagementAddOn",
            "metadata": {"name": "search-collector"},
            "spec": {
                "addOnMeta": {"displayName": "Search", "description": "Counts objects"},
                "addOnConfiguration": {"crdName": "searchconfigs.example.io", "crName": "search"},
                "supportedConfigs": [
                    {"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                     "defaultConfig": {"namespace": "open-cluster-management-hub", "name": "search"}},
                    {"group": "", "resource": "configmaps"}
                ],
                "installStrategy": {"type": "Placements", "placements": [
                    {"name": "all", "namespace": "default"},
                    {"name": "canary", "namespace": "default",
                     "configs": [{"group": "", "resource": "configmaps", "namespace": "default", "name": "canary"}],
                     "rolloutStrategy": {"type": "ProgressivePerGroup",
                                         "progressivePerGroup": {"mandatoryDecisionGroups": [{"groupName": "first"}]}}}
                ]}
            },
            "status": {
                "defaultconfigReferences": [{
                    "group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                    "desiredConfig": {"namespace": "open-cluster-management-hub", "name": "search", "specHash": "h1"}
                }],
                "installProgressions": [{
                    "name": "canary", "namespace": "default",
                    "configReferences": [{
                        "group": "", "resource": "configmaps",
                        "desiredConfig": {"namespace": "default", "name": "canary", "specHash": "h2"},
                        "lastKnownGoodConfig": {"namespace": "default", "name": "canary", "specHash": "h1"},
                        "lastAppliedConfig": {"namespace": "default", "name": "canary", "specHash": "h1"}
                    }],
                    "conditions": [{"type": "Progressing", "status": "True", "reason": "Upgrading",
                                    "message": "1/3 upgrading", "lastTransitionTime": "2025-10-17T00:05:00Z"}]
                }]
            }
        });
        let addon: ClusterManagementAddOn = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(addon.spec.install_strategy.type_, InstallStrategyType::Placements);
        assert_eq!(addon.spec.install_strategy.placements[1].rollout_strategy.type_, RolloutType::ProgressivePerGroup);
        assert_eq!(serde_json::to_value(&addon).unwrap(), upstream);
        let bare: ClusterManagementAddOn = serde_json::from_value(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ClusterManagementAddOn", "metadata": {"name": "x"}, "spec": {}
        }))
        .unwrap();
        assert_eq!(bare.spec.install_strategy.type_, InstallStrategyType::Manual);
    }
}
