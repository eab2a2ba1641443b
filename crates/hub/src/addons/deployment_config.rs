//! AddOnDeploymentConfig for fleetctl's addons, as upstream's addon framework applies one to
//! an addon's agent: the config the cluster's ManagedClusterAddOn names in `spec.configs`,
//! else the default its ClusterManagementAddOn declares (`supportedConfigs[].defaultConfig`).
//! Its `customizedVariables` are the addon's settings — the keys of the values annotation,
//! which wins where both set one — and its `nodePlacement` places the agent's Pods.

use kube::ResourceExt;
use kube::runtime::reflector::ObjectRef;
use serde_json::{Map, Value};

use fleetctl_api::ADDON_GROUP;
use fleetctl_api::ManagedClusterAddOn;
use fleetctl_api::addon::v1alpha1::AddOnDeploymentConfig;
use fleetctl_api::addon_management::ClusterManagementAddOn;

/// The resource of AddOnDeploymentConfigs, as configs name it.
const RESOURCE: &str = "addondeploymentconfigs";

/// The deployment config `addon` uses: the one it names, else `management`'s default.
pub fn reference(
    addon: &ManagedClusterAddOn,
    management: Option<&ClusterManagementAddOn>,
) -> Option<ObjectRef<AddOnDeploymentConfig>> {
    let named = addon
        .spec
        .configs
        .iter()
        .find(|c| c.group == ADDON_GROUP && c.resource == RESOURCE)
        .map(|c| (c.namespace.clone(), c.name.clone()));
    let default = || {
        let meta =
            management?.spec.supported_configs.iter().find(|c| c.group == ADDON_GROUP && c.resource == RESOURCE)?;
        meta.default_config.as_ref().map(|d| (d.namespace.clone(), d.name.clone()))
    };
    let (namespace, name) = named.or_else(default)?;
    Some(ObjectRef::new(&name).within(&namespace))
}

/// Whether `addon` (whose ClusterManagementAddOn is `management`) uses `config`.
pub fn uses(
    addon: &ManagedClusterAddOn,
    management: Option<&ClusterManagementAddOn>,
    config: &AddOnDeploymentConfig,
) -> bool {
    reference(addon, management).is_some_and(|r| r.name == config.name_any() && r.namespace == config.namespace())
}

/// The settings a config's variables give, as the values annotation writes them: a value
/// that reads as a JSON number or boolean is that, any other a string.
pub fn variables(config: &AddOnDeploymentConfig) -> Map<String, Value> {
    config
        .spec
        .customized_variables
        .iter()
        .map(|v| {
            let value = match serde_json::from_str::<Value>(&v.value) {
                Ok(scalar @ (Value::Number(_) | Value::Bool(_))) => scalar,
                _ => Value::String(v.value.clone()),
            };
            (v.name.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn addon(configs: Value) -> ManagedClusterAddOn {
        serde_json::from_value(json!({"metadata": {"name": "cert-policy-controller", "namespace": "c1"},
                                      "spec": {"configs": configs}}))
        .unwrap()
    }

    fn management(default: Value) -> ClusterManagementAddOn {
        serde_json::from_value(json!({"metadata": {"name": "cert-policy-controller"}, "spec": {"supportedConfigs": [
            {"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs", "defaultConfig": default}
        ]}}))
        .unwrap()
    }

    #[test]
    fn the_config_an_addon_names_wins_over_its_cluster_management_addons_default_as_upstreams_framework_picks() {
        let default = management(json!({"namespace": "defaults", "name": "everywhere"}));
        let named = addon(json!([{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                                  "namespace": "c1", "name": "mine"}]));
        let picked = reference(&named, Some(&default)).unwrap();
        assert_eq!((picked.name.as_str(), picked.namespace.as_deref()), ("mine", Some("c1")));
        let picked = reference(&addon(json!([])), Some(&default)).unwrap();
        assert_eq!((picked.name.as_str(), picked.namespace.as_deref()), ("everywhere", Some("defaults")));
        assert!(reference(&addon(json!([])), None).is_none());
        let other = addon(json!([{"group": "example.com", "resource": "addondeploymentconfigs", "name": "x"}]));
        assert!(reference(&other, None).is_none(), "another group's resource is not an AddOnDeploymentConfig");
    }

    #[test]
    fn variables_read_as_the_values_annotation_writes_them() {
        let config: AddOnDeploymentConfig = serde_json::from_value(json!({
            "metadata": {"name": "c", "namespace": "n"},
            "spec": {"customizedVariables": [{"name": "minimumDuration", "value": "720h"},
                                             {"name": "maxClusterRoleBindingUsers", "value": "3"}]},
        }))
        .unwrap();
        assert_eq!(
            Value::Object(variables(&config)),
            json!({"minimumDuration": "720h", "maxClusterRoleBindingUsers": 3})
        );
    }
}
