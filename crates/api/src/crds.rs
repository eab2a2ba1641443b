//! The CustomResourceDefinitions of the API types, generated from them. The YAML under
//! `src/api/crds/` is checked in and a test keeps it in step with the types; regenerate it with
//! `FLEETCTL_UPDATE_CRDS=1 cargo test -p fleetctl-api crds`.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;

use super::addon::{KlusterletAddonConfig, ManagedClusterAddOn};
use super::addon_management::ClusterManagementAddOn;
use super::cluster::ManagedCluster;
use super::clusterset::{ManagedClusterSet, ManagedClusterSetBinding};
use super::operator::Klusterlet;
use super::placement::{AddOnPlacementScore, Placement, PlacementDecision};
use super::work::{AppliedManifestWork, ManifestWork};

/// Every CRD of this module.
pub fn all() -> Vec<CustomResourceDefinition> {
    let mut crds = hub();
    crds.extend(managed());
    crds
}

/// The CRDs a hub serves: ManagedCluster, ManifestWork, KlusterletAddonConfig,
/// ManagedClusterAddOn, and the cluster sets and placement kinds.
pub fn hub() -> Vec<CustomResourceDefinition> {
    let mut crds = vec![
        ManagedCluster::crd(),
        ManifestWork::crd(),
        KlusterletAddonConfig::crd(),
        ManagedClusterAddOn::crd(),
        ClusterManagementAddOn::crd(),
    ];
    crds.extend(placement());
    crds
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

    use serde_json::Value;

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
                "klusterletaddonconfigs.agent.open-cluster-management.io",
                "managedclusteraddons.addon.open-cluster-management.io",
                "clustermanagementaddons.addon.open-cluster-management.io",
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
    fn every_crd_has_a_status_subresource_and_one_storage_version() {
        for crd in all() {
            let versions = &crd.spec.versions;
            assert_eq!(versions.len(), 1, "{:?}", crd.metadata.name);
            assert!(versions[0].served && versions[0].storage);
            assert!(versions[0].subresources.as_ref().and_then(|s| s.status.as_ref()).is_some());
        }
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
            let name = crd.metadata.name.clone().unwrap();
            let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
            let mut problems = Vec::new();
            structural_problems(&schema["openAPIV3Schema"], &name, &mut problems);
            assert!(problems.is_empty(), "{}", problems.join("\n"));
        }
    }
}
