//! ClusterManagementAddOn between v1alpha1 and v1beta1. Every field of either version is named
//! here, so a field added to one of them does not build until it is given its conversion.

use crate::addon::{v1alpha1, v1beta1};

use super::RESERVED_NO_DEFAULT_CONFIG_NAME;

impl From<v1alpha1::ClusterManagementAddOn> for v1beta1::ClusterManagementAddOn {
    fn from(addon: v1alpha1::ClusterManagementAddOn) -> Self {
        let v1alpha1::ClusterManagementAddOn { metadata, spec, status } = addon;
        let v1alpha1::ClusterManagementAddOnSpec {
            add_on_meta,
            add_on_configuration: _,
            supported_configs,
            install_strategy,
        } = spec;
        Self {
            metadata,
            spec: v1beta1::ClusterManagementAddOnSpec {
                add_on_meta,
                default_configs: supported_configs.into_iter().map(default_config).collect(),
                install_strategy,
            },
            status: status.map(|status| {
                let v1alpha1::ClusterManagementAddOnStatus { default_config_references, install_progressions } = status;
                v1beta1::ClusterManagementAddOnStatus { default_config_references, install_progressions }
            }),
        }
    }
}

impl From<v1beta1::ClusterManagementAddOn> for v1alpha1::ClusterManagementAddOn {
    fn from(addon: v1beta1::ClusterManagementAddOn) -> Self {
        let v1beta1::ClusterManagementAddOn { metadata, spec, status } = addon;
        let v1beta1::ClusterManagementAddOnSpec { add_on_meta, default_configs, install_strategy } = spec;
        Self {
            metadata,
            spec: v1alpha1::ClusterManagementAddOnSpec {
                add_on_meta,
                add_on_configuration: v1alpha1::ConfigCoordinates::default(),
                supported_configs: default_configs.into_iter().map(supported_config).collect(),
                install_strategy,
            },
            status: status.map(|status| {
                let v1beta1::ClusterManagementAddOnStatus { default_config_references, install_progressions } = status;
                v1alpha1::ClusterManagementAddOnStatus { default_config_references, install_progressions }
            }),
        }
    }
}

/// v1beta1 names an object for every configuration kind: one without a default names the
/// reserved sentinel.
fn default_config(config: v1alpha1::ConfigMeta) -> v1beta1::AddOnConfig {
    let v1alpha1::ConfigMeta { group, resource, default_config } = config;
    let v1alpha1::ConfigReferent { namespace, name } = default_config.unwrap_or_else(|| v1alpha1::ConfigReferent {
        namespace: String::new(),
        name: RESERVED_NO_DEFAULT_CONFIG_NAME.into(),
    });
    v1beta1::AddOnConfig { group, resource, namespace, name }
}

/// The sentinel, or no name at all, is no default.
fn supported_config(config: v1beta1::AddOnConfig) -> v1alpha1::ConfigMeta {
    let v1beta1::AddOnConfig { group, resource, namespace, name } = config;
    let default_config = (!name.is_empty() && name != RESERVED_NO_DEFAULT_CONFIG_NAME)
        .then_some(v1alpha1::ConfigReferent { namespace, name });
    v1alpha1::ConfigMeta { group, resource, default_config }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A v1alpha1 addon using every field v1beta1 also expresses, after upstream's test.
    fn full_v1alpha1() -> v1alpha1::ClusterManagementAddOn {
        serde_json::from_value(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ClusterManagementAddOn",
            "metadata": {"name": "test-addon"},
            "spec": {
                "addOnMeta": {"displayName": "Test AddOn", "description": "Test description"},
                "supportedConfigs": [
                    {"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                     "defaultConfig": {"namespace": "default", "name": "config1"}},
                    {"group": "", "resource": "configmaps"}
                ],
                "installStrategy": {"type": "Placements", "placements": [{
                    "namespace": "default", "name": "placement1",
                    "configs": [{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                                 "namespace": "default", "name": "config1"}],
                    "rolloutStrategy": {"type": "Progressive", "progressive": {"maxConcurrency": "25%"}}
                }]}
            },
            "status": {
                "defaultconfigReferences": [{
                    "group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                    "desiredConfig": {"namespace": "default", "name": "config1", "specHash": "hash123"}
                }],
                "installProgressions": [{
                    "namespace": "default", "name": "placement1",
                    "configReferences": [{
                        "group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                        "desiredConfig": {"namespace": "default", "name": "config1", "specHash": "hash123"},
                        "lastKnownGoodConfig": {"namespace": "default", "name": "config1", "specHash": "hash122"}
                    }]
                }]
            }
        }))
        .unwrap()
    }

    #[test]
    fn a_v1alpha1_addon_round_trips_through_v1beta1() {
        let addon = full_v1alpha1();
        assert_eq!(v1alpha1::ClusterManagementAddOn::from(v1beta1::ClusterManagementAddOn::from(addon.clone())), addon);
    }

    #[test]
    fn a_v1beta1_addon_round_trips_through_v1alpha1() {
        let addon = v1beta1::ClusterManagementAddOn::from(full_v1alpha1());
        assert_eq!(v1beta1::ClusterManagementAddOn::from(v1alpha1::ClusterManagementAddOn::from(addon.clone())), addon);
    }

    #[test]
    fn supported_configs_are_v1beta1s_default_configs_and_the_status_keeps_its_references() {
        let served = serde_json::to_value(v1beta1::ClusterManagementAddOn::from(full_v1alpha1())).unwrap();
        assert_eq!(
            served["spec"]["defaultConfigs"][0],
            json!({"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                   "namespace": "default", "name": "config1"})
        );
        assert_eq!(served["status"]["defaultConfigReferences"][0]["desiredConfig"]["specHash"], "hash123");
        assert_eq!(
            served["status"]["installProgressions"][0]["configReferences"][0]["lastKnownGoodConfig"]["specHash"],
            "hash122"
        );
        assert_eq!(
            served["spec"]["installStrategy"]["placements"][0]["rolloutStrategy"]["progressive"]["maxConcurrency"],
            "25%"
        );
    }

    #[test]
    fn a_supported_config_without_default_becomes_upstreams_reserved_no_default_sentinel() {
        let served = v1beta1::ClusterManagementAddOn::from(full_v1alpha1());
        let config = &served.spec.default_configs[1];
        assert_eq!((config.resource.as_str(), config.namespace.as_str()), ("configmaps", ""));
        assert_eq!(config.name, "__reserved_no_default__");
    }

    #[test]
    fn the_reserved_sentinel_or_no_name_is_no_default_in_v1alpha1() {
        let addon = v1alpha1::ClusterManagementAddOn::from(
            serde_json::from_value::<v1beta1::ClusterManagementAddOn>(json!({
                "apiVersion": "addon.open-cluster-management.io/v1beta1",
                "kind": "ClusterManagementAddOn",
                "metadata": {"name": "test-addon"},
                "spec": {"defaultConfigs": [
                    {"group": "test.group", "resource": "testconfigs", "name": "__reserved_no_default__"},
                    {"group": "test.group", "resource": "others", "name": ""},
                    {"group": "test.group", "resource": "named", "namespace": "ns", "name": "n"}
                ]}
            }))
            .unwrap(),
        );
        let defaults: Vec<_> = addon.spec.supported_configs.iter().map(|c| c.default_config.clone()).collect();
        assert_eq!(defaults, [None, None, Some(v1alpha1::ConfigReferent { namespace: "ns".into(), name: "n".into() })]);
    }

    #[test]
    fn the_deprecated_add_on_configuration_has_no_v1beta1_counterpart_and_is_dropped_as_upstream_drops_it() {
        let mut addon = full_v1alpha1();
        addon.spec.add_on_configuration.crd_name = "searchconfigs.example.io".into();
        let back = v1alpha1::ClusterManagementAddOn::from(v1beta1::ClusterManagementAddOn::from(addon));
        assert_eq!(back.spec.add_on_configuration, v1alpha1::ConfigCoordinates::default());
    }
}
