//! The CustomResourceDefinitions of the API types, generated from them. The YAML under
//! `src/api/crds/` is checked in and a test keeps it in step with the types; regenerate it with
//! `FLEETCTL_UPDATE_CRDS=1 cargo test -p fleetctl-api crds`.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionVersion, ServiceReference,
    WebhookClientConfig, WebhookConversion,
};
use kube::CustomResourceExt;

use super::addon::{KlusterletAddonConfig, v1alpha1, v1beta1};
use super::cluster::ManagedCluster;
use super::clusterset::{ManagedClusterSet, ManagedClusterSetBinding};
use super::names::{HUB_NAMESPACE, WEBHOOK_PATH, WEBHOOK_PORT, WEBHOOK_SERVICE};
use super::operator::Klusterlet;
use super::placement::{AddOnPlacementScore, Placement, PlacementDecision};
use super::work::{AppliedManifestWork, ManifestWork};
use super::work_replica_set::ManifestWorkReplicaSet;

/// Every CRD of this module.
pub fn all() -> Vec<CustomResourceDefinition> {
    let mut crds = hub();
    crds.extend(managed());
    crds
}

/// The CRDs a hub serves: ManagedCluster, ManifestWork, ManifestWorkReplicaSet,
/// KlusterletAddonConfig, the addon kinds (ManagedClusterAddOn, ClusterManagementAddOn,
/// AddOnDeploymentConfig), and the cluster sets and placement kinds.
pub fn hub() -> Vec<CustomResourceDefinition> {
    let mut crds =
        vec![ManagedCluster::crd(), ManifestWork::crd(), ManifestWorkReplicaSet::crd(), KlusterletAddonConfig::crd()];
    crds.extend(addon());
    crds.extend(placement());
    crds
}

/// The CRDs of the addon kinds, served in v1alpha1 (stored) and v1beta1 as upstream's hub
/// serves them: ManagedClusterAddOn and ClusterManagementAddOn, which the hub's webhook
/// converts, and AddOnDeploymentConfig, whose versions differ in name only.
pub fn addon() -> Vec<CustomResourceDefinition> {
    vec![
        converted_by_hub_webhook(stored_and_served(
            v1alpha1::ManagedClusterAddOn::crd(),
            v1beta1::ManagedClusterAddOn::crd(),
        )),
        converted_by_hub_webhook(stored_and_served(
            v1alpha1::ClusterManagementAddOn::crd(),
            v1beta1::ClusterManagementAddOn::crd(),
        )),
        stored_and_served(v1alpha1::AddOnDeploymentConfig::crd(), v1beta1::AddOnDeploymentConfig::crd()),
    ]
}

/// `stored`'s CRD serving `served`'s versions too, whose objects it stores in `stored`'s.
fn stored_and_served(stored: CustomResourceDefinition, served: CustomResourceDefinition) -> CustomResourceDefinition {
    let mut crd = stored;
    let served =
        served.spec.versions.into_iter().map(|version| CustomResourceDefinitionVersion { storage: false, ..version });
    crd.spec.versions.extend(served);
    crd
}

/// The CRD with its versions converted by the hub's webhook. It carries no CA bundle: the
/// hub controller fills in the one its serving certificate is signed with.
fn converted_by_hub_webhook(mut crd: CustomResourceDefinition) -> CustomResourceDefinition {
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            conversion_review_versions: vec!["v1".into(), "v1beta1".into()],
            client_config: Some(WebhookClientConfig {
                service: Some(ServiceReference {
                    namespace: HUB_NAMESPACE.into(),
                    name: WEBHOOK_SERVICE.into(),
                    path: Some(WEBHOOK_PATH.into()),
                    port: Some(i32::from(WEBHOOK_PORT)),
                }),
                ca_bundle: None,
                url: None,
            }),
        }),
    });
    crd
}

/// The CRDs of cluster sets and placement: ManagedClusterSet, ManagedClusterSetBinding,
/// Placement, PlacementDecision and AddOnPlacementScore.
pub fn placement() -> Vec<CustomResourceDefinition> {
    vec![
        ManagedClusterSet::crd(),
        ManagedClusterSetBinding::crd(),
        Placement::crd(),
        PlacementDecision::crd(),
        AddOnPlacementScore::crd(),
    ]
}

/// The CRDs a managed cluster serves: Klusterlet and AppliedManifestWork.
pub fn managed() -> Vec<CustomResourceDefinition> {
    vec![klusterlet(), applied_manifest_work()]
}

/// The AppliedManifestWork CRD, which the klusterlet operator installs for the work agent.
pub fn applied_manifest_work() -> CustomResourceDefinition {
    AppliedManifestWork::crd()
}

/// The Klusterlet CRD: the one document of an import secret's `crds.yaml`.
pub fn klusterlet() -> CustomResourceDefinition {
    Klusterlet::crd()
}

/// The file a CRD is checked in as: `<plural>.<group>.yaml`.
pub fn file_name(crd: &CustomResourceDefinition) -> String {
    format!("{}.{}.yaml", crd.spec.names.plural, crd.spec.group)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use serde_json::{Value, json};

    use super::*;

    const HEADER: &str = "# Generated from the types in src/api; do not edit.\n\
                          # Update with: FLEETCTL_UPDATE_CRDS=1 cargo test -p fleetctl-api crds\n";
    const UPDATE_HINT: &str = "run `FLEETCTL_UPDATE_CRDS=1 cargo test -p fleetctl-api crds` to update";

    /// The first line where two texts differ, for a readable failure.
    fn first_difference(have: &str, want: &str) -> String {
        let (mut have_lines, mut want_lines) = (have.lines(), want.lines());
        for number in 1.. {
            match (have_lines.next(), want_lines.next()) {
                (None, None) => break,
                (h, w) if h == w => {}
                (h, w) => {
                    return format!(
                        "line {number}:\n  checked in: {}\n  generated:  {}",
                        h.unwrap_or("<end of file>"),
                        w.unwrap_or("<end of file>")
                    );
                }
            }
        }
        String::from("no difference")
    }

    #[test]
    fn checked_in_crds_match_the_types() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/crds");
        let update = std::env::var_os("FLEETCTL_UPDATE_CRDS").is_some();
        assert!(
            !(update && std::env::var_os("CI").is_some()),
            "FLEETCTL_UPDATE_CRDS is set under CI: the test would rewrite the CRDs instead of checking them"
        );
        if update {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let mut problems = Vec::new();
        let mut expected = BTreeSet::new();
        for crd in all() {
            let name = file_name(&crd);
            let want = format!("{HEADER}{}", serde_yaml::to_string(&crd).unwrap());
            let path = dir.join(&name);
            let have = std::fs::read_to_string(&path).unwrap_or_default();
            if have != want {
                if update {
                    std::fs::write(&path, &want).unwrap();
                } else if have.is_empty() {
                    problems.push(format!("{name} is missing"));
                } else {
                    problems.push(format!("{name} is stale, {}", first_difference(&have, &want)));
                }
            }
            expected.insert(name);
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if !expected.contains(&name) {
                if update {
                    std::fs::remove_file(dir.join(&name)).unwrap();
                } else {
                    problems.push(format!("{name} is not generated from any type"));
                }
            }
        }
        assert!(problems.is_empty(), "crates/api/src/crds is out of date:\n{}\n{UPDATE_HINT}", problems.join("\n"));
    }

    #[test]
    fn crds_are_named_after_their_plural_and_group() {
        let names: Vec<_> = all().iter().map(|crd| crd.metadata.name.clone().unwrap()).collect();
        assert_eq!(
            names,
            [
                "managedclusters.cluster.open-cluster-management.io",
                "manifestworks.work.open-cluster-management.io",
                "manifestworkreplicasets.work.open-cluster-management.io",
                "klusterletaddonconfigs.agent.open-cluster-management.io",
                "managedclusteraddons.addon.open-cluster-management.io",
                "clustermanagementaddons.addon.open-cluster-management.io",
                "addondeploymentconfigs.addon.open-cluster-management.io",
                "managedclustersets.cluster.open-cluster-management.io",
                "managedclustersetbindings.cluster.open-cluster-management.io",
                "placements.cluster.open-cluster-management.io",
                "placementdecisions.cluster.open-cluster-management.io",
                "addonplacementscores.cluster.open-cluster-management.io",
                "klusterlets.operator.open-cluster-management.io",
                "appliedmanifestworks.work.open-cluster-management.io",
            ]
        );
        for crd in all() {
            assert_eq!(file_name(&crd), format!("{}.yaml", crd.metadata.name.unwrap()));
        }
    }

    #[test]
    fn every_crd_stores_one_version_and_every_version_with_a_status_has_the_subresource() {
        for crd in all() {
            let name = crd.metadata.name.clone().unwrap();
            let versions = &crd.spec.versions;
            assert!(versions.iter().all(|v| v.served), "{name}");
            assert_eq!(versions.iter().filter(|v| v.storage).count(), 1, "{name}");
            for version in versions {
                let schema = serde_json::to_value(&version.schema).unwrap();
                let has_status = !schema["openAPIV3Schema"]["properties"]["status"].is_null();
                let subresource = version.subresources.as_ref().and_then(|s| s.status.as_ref()).is_some();
                assert_eq!(subresource, has_status, "{name} {}", version.name);
            }
        }
    }

    #[test]
    fn the_addon_kinds_serve_v1beta1_and_store_v1alpha1_converted_by_the_hub_webhook() {
        for crd in addon() {
            let name = crd.metadata.name.clone().unwrap();
            let versions: Vec<_> = crd.spec.versions.iter().map(|v| (v.name.as_str(), v.served, v.storage)).collect();
            assert_eq!(versions, [("v1alpha1", true, true), ("v1beta1", true, false)], "{name}");
            let conversion = serde_json::to_value(&crd.spec.conversion).unwrap();
            if name.starts_with("addondeploymentconfigs.") {
                // Its versions have the same schema: the API server only renames the apiVersion.
                assert!(conversion.is_null(), "{conversion}");
                continue;
            }
            assert_eq!(
                conversion,
                json!({
                    "strategy": "Webhook",
                    "webhook": {
                        "conversionReviewVersions": ["v1", "v1beta1"],
                        "clientConfig": {"service": {
                            "namespace": "open-cluster-management-hub",
                            "name": "fleetctl-hub-webhook",
                            "path": "/convert",
                            "port": 9443
                        }}
                    }
                }),
                "{name}"
            );
        }
    }

    #[test]
    fn the_addon_crds_have_upstreams_printer_columns_in_each_version() {
        let columns = |crd: &CustomResourceDefinition| -> Vec<(String, Vec<String>)> {
            let names = |v: &CustomResourceDefinitionVersion| {
                v.additional_printer_columns.iter().flatten().map(|c| c.name.clone()).collect()
            };
            crd.spec.versions.iter().map(|v| (v.name.clone(), names(v))).collect()
        };
        let [managed, management, deployment] = <[_; 3]>::try_from(addon()).unwrap();
        let conditions = || vec!["Available".to_string(), "Degraded".into(), "Progressing".into()];
        assert_eq!(columns(&managed), [("v1alpha1".into(), conditions()), ("v1beta1".into(), conditions())]);
        assert_eq!(
            columns(&management),
            [
                ("v1alpha1".into(), vec!["DISPLAY NAME".to_string(), "CRD NAME".into()]),
                ("v1beta1".into(), vec!["DISPLAY NAME".to_string()])
            ]
        );
        assert_eq!(columns(&deployment), [("v1alpha1".into(), vec![]), ("v1beta1".into(), vec![])]);
        let short = |crd: &CustomResourceDefinition| crd.spec.names.short_names.clone().unwrap_or_default();
        assert_eq!(
            (short(&managed), short(&management)),
            (vec!["mca".into(), "mcas".into()], vec!["cma".into(), "cmas".into()])
        );
        assert_eq!(deployment.spec.scope, "Namespaced");
    }

    /// Walks a schema and reports what a structural schema (as kube-apiserver and the dev
    /// cluster's API server require) may not contain.
    fn structural_problems(node: &Value, path: &str, problems: &mut Vec<String>) {
        let Some(map) = node.as_object() else {
            problems.push(format!("{path}: not an object"));
            return;
        };
        for forbidden in ["$ref", "$schema", "definitions", "$defs", "oneOf", "anyOf", "allOf", "not", "const"] {
            if map.contains_key(forbidden) {
                problems.push(format!("{path}: has {forbidden}"));
            }
        }
        let flag = |key: &str| map.get(key) == Some(&Value::Bool(true));
        let typed = map.get("type").and_then(Value::as_str);
        if typed.is_none() && !flag("x-kubernetes-int-or-string") && !flag("x-kubernetes-preserve-unknown-fields") {
            problems.push(format!("{path}: has no type"));
        }
        if flag("x-kubernetes-embedded-resource") && typed != Some("object") {
            problems.push(format!("{path}: an embedded resource must be an object"));
        }
        if map.contains_key("properties") && map.contains_key("additionalProperties") {
            problems.push(format!("{path}: both properties and additionalProperties"));
        }
        if let Some(keys) = map.get("x-kubernetes-list-map-keys").and_then(Value::as_array) {
            let item = &map["items"];
            let required: Vec<_> = item["required"].as_array().into_iter().flatten().collect();
            for key in keys {
                let key_schema = &item["properties"][key.as_str().unwrap_or_default()];
                if key_schema.is_null() {
                    problems.push(format!("{path}: list map key {key} is not a property"));
                } else if !required.contains(&key) && key_schema.get("default").is_none() {
                    problems.push(format!("{path}: list map key {key} is neither required nor defaulted"));
                }
            }
        }
        for (key, child) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
            structural_problems(child, &format!("{path}.{key}"), problems);
        }
        if let Some(items) = map.get("items") {
            structural_problems(items, &format!("{path}[]"), problems);
        }
        if let Some(extra) = map.get("additionalProperties").filter(|v| v.is_object()) {
            structural_problems(extra, &format!("{path}{{}}"), problems);
        }
    }

    #[test]
    fn schemas_are_structural() {
        for crd in all() {
            for version in &crd.spec.versions {
                let name = format!("{}/{}", crd.metadata.name.clone().unwrap(), version.name);
                let schema = serde_json::to_value(&version.schema).unwrap();
                let mut problems = Vec::new();
                structural_problems(&schema["openAPIV3Schema"], &name, &mut problems);
                assert!(problems.is_empty(), "{}", problems.join("\n"));
            }
        }
    }
}
