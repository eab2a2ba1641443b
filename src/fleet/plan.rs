//! The plan: what would change to make the hub match a fleet file — import the clusters
//! it lists that are not imported, relabel, enable or disable addons, upgrade the ones
//! that do not run their version, and, with `--prune`, detach the clusters the fleet owns
//! (its `apply` imported them: they carry its name) that it no longer lists. Read from the
//! hub; nothing changes.

use std::collections::BTreeMap;

use kube::api::{Api, ListParams};
use kube::{Client, ResourceExt};
use serde::Serialize;

use super::file::{Desired, Fleet, Reach};
use crate::lifecycle::import::{AddonSettings, LabelChanges, addon_changes, addon_config, fleet_of, imported};
use crate::lifecycle::upgrade::running_version;
use crate::lifecycle::{LifecycleError, hub_read};
use fleetctl_api::{KlusterletAddonConfig, ManagedCluster};
use fleetctl_kube::kube_error;

/// What a change does, in the order `apply` carries them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Import the cluster (or finish an import that did not).
    Import,
    /// Set or remove labels of its ManagedCluster.
    Relabel,
    /// Enable or disable addons, or change their settings.
    Addons,
    /// Upgrade its klusterlet to the version the file gives.
    Upgrade,
    /// Detach it: the fleet owns it and the file no longer lists it (`--prune`).
    Detach,
}

impl Action {
    /// The action in one word, for the table.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Import => "import",
            Self::Relabel => "relabel",
            Self::Addons => "addons",
            Self::Upgrade => "upgrade",
            Self::Detach => "detach",
        }
    }
}

/// One change to one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The cluster.
    pub cluster: String,
    /// What is done to it.
    pub action: Action,
    /// What exactly, in words.
    pub detail: String,
}

/// What `apply` would do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The changes, in the order they are carried out.
    pub changes: Vec<Change>,
    /// Clusters the fleet owns that the file does not list: `--prune` detaches them.
    pub unlisted: Vec<String>,
    /// Clusters on the hub the fleet does not own nor list (imported by hand, by the ACM
    /// console, or by another fleet file): left alone, `--prune` too.
    pub unmanaged: Vec<String>,
}

impl Plan {
    /// The clusters with a change of this kind, in order.
    pub fn clusters(&self, action: Action) -> Vec<String> {
        self.changes.iter().filter(|c| c.action == action).map(|c| c.cluster.clone()).collect()
    }
}

/// What the hub holds that a plan compares with.
#[derive(Debug, Clone, Default)]
pub struct HubState {
    /// Every ManagedCluster.
    pub clusters: Vec<ManagedCluster>,
    /// Every KlusterletAddonConfig.
    pub addons: Vec<KlusterletAddonConfig>,
}

/// Reads what a plan compares with.
pub async fn read(hub: &Client) -> Result<HubState, LifecycleError> {
    let clusters = match Api::<ManagedCluster>::all(hub.clone()).list(&ListParams::default()).await {
        Ok(list) => list.items,
        Err(kube::Error::Api(status)) if status.code == 404 => return Err(LifecycleError::NotInitialised),
        Err(source) => return Err(hub_read("list", "managedclusters")(source)),
    };
    let addons = Api::<KlusterletAddonConfig>::all(hub.clone())
        .list(&ListParams::default())
        .await
        .map_err(kube_error("listing KlusterletAddonConfigs"))?
        .items;
    Ok(HubState { clusters, addons })
}

/// The addon settings of a desired cluster, as an import takes them.
pub fn addon_settings(fleet: &Fleet, desired: &Desired) -> AddonSettings {
    AddonSettings { policies: desired.addons.clone(), proxy: fleet.addon_proxy() }
}

/// The plan that makes `state` match `fleet`; detaches only with `prune`.
pub fn diff(fleet: &Fleet, state: &HubState, prune: bool) -> Plan {
    let on_hub: BTreeMap<String, &ManagedCluster> = state.clusters.iter().map(|c| (c.name_any(), c)).collect();
    let configs: BTreeMap<(String, String), &KlusterletAddonConfig> =
        state.addons.iter().filter_map(|c| Some(((c.namespace()?, c.name_any()), c))).collect();
    let mut changes = Vec::new();
    let desired = fleet.desired();
    for cluster in &desired {
        let name = cluster.name.as_str();
        let change = |action, detail: String| Change { cluster: name.to_string(), action, detail };
        let addons: Vec<String> = cluster.addons.keys().cloned().collect();
        let config = addon_config(name, &addons, &addon_settings(fleet, cluster));
        match on_hub.get(name).filter(|c| imported(c)) {
            None => {
                changes.push(change(Action::Import, import_detail(cluster, on_hub.contains_key(name))));
                if let Some(version) = &cluster.version {
                    changes.push(change(Action::Upgrade, format!("to {version}, once imported")));
                }
            }
            Some(current) => {
                let labels = LabelChanges::of(current, &cluster.labels);
                if !labels.is_empty() {
                    changes.push(change(Action::Relabel, labels_detail(&labels)));
                }
                let current_config = configs.get(&(name.to_string(), name.to_string())).map(|c| &c.spec);
                let addons = addon_changes(current_config, &config.spec);
                if !addons.is_empty() {
                    changes.push(change(Action::Addons, addons.join(", ")));
                }
                let running = running_version(current);
                if let Some(version) = cluster.version.as_deref().filter(|v| running != Some(*v)) {
                    changes.push(change(Action::Upgrade, format!("{} → {version}", running.unwrap_or("unknown"))));
                }
            }
        }
    }
    let (mut unlisted, mut unmanaged) = (Vec::new(), Vec::new());
    for (name, cluster) in &on_hub {
        if desired.iter().any(|d| &d.name == name) {
            continue;
        }
        match (fleet.name(), fleet_of(cluster)) {
            (Some(ours), Some(owner)) if ours == owner => unlisted.push(name.clone()),
            _ => unmanaged.push(name.clone()),
        }
    }
    if let (true, Some(ours)) = (prune, fleet.name()) {
        for name in &unlisted {
            let detail = format!("imported by fleet {ours}, no longer in its file");
            changes.push(Change { cluster: name.clone(), action: Action::Detach, detail });
        }
    }
    // Stable within each action: the file's order, then the hub's.
    changes.sort_by_key(|c| c.action);
    Plan { changes, unlisted, unmanaged }
}

fn import_detail(cluster: &Desired, exists: bool) -> String {
    let mut parts = vec![match &cluster.reach {
        Reach::Context => format!("through context {}", cluster.context),
        Reach::HubWithContext => format!("by the hub, through context {}", cluster.context),
        Reach::HubWithSecret(secret) => format!("by the hub, with secret {}/{}", secret.namespace, secret.name),
    }];
    if exists {
        parts.insert(0, "finish the import".to_string());
    }
    if !cluster.labels.is_empty() {
        let labels: Vec<String> = cluster.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        parts.push(format!("labels {}", labels.join(",")));
    }
    if !cluster.addons.is_empty() {
        parts.push(format!("addons {}", cluster.addons.keys().cloned().collect::<Vec<_>>().join(",")));
    }
    parts.join("; ")
}

fn labels_detail(labels: &LabelChanges) -> String {
    let mut parts = Vec::new();
    if !labels.set.is_empty() {
        let set: Vec<String> = labels.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        parts.push(format!("set {}", set.join(",")));
    }
    if !labels.removed.is_empty() {
        parts.push(format!("remove {}", labels.removed.join(",")));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, FieldsV1, ManagedFieldsEntry, Time};
    use serde_json::json;

    use super::*;
    use crate::fleet::file::parse;
    use fleetctl_api::cluster::ManagedClusterClaim;
    use fleetctl_api::names::VERSION_CLAIM;
    use fleetctl_api::{ManagedClusterStatus, conditions as c};
    use fleetctl_kube::FIELD_MANAGER;

    fn condition(kind: &str) -> Condition {
        Condition {
            type_: kind.into(),
            status: "True".into(),
            reason: "Test".into(),
            message: String::new(),
            last_transition_time: Time(jiff::Timestamp::UNIX_EPOCH),
            observed_generation: None,
        }
    }

    /// A cluster the fleet `ours` imported, Available, running `version`, with `labels`.
    fn imported_cluster(name: &str, version: &str, labels: &[(&str, &str)]) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted(name);
        cluster.metadata.annotations =
            Some([(fleetctl_api::names::ANNOTATION_FLEET.to_string(), "ours".to_string())].into());
        let keys: serde_json::Map<String, serde_json::Value> =
            labels.iter().map(|(k, _)| (format!("f:{k}"), json!({}))).collect();
        cluster.metadata.labels = Some(labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
        cluster.metadata.managed_fields = Some(vec![ManagedFieldsEntry {
            manager: Some(FIELD_MANAGER.into()),
            operation: Some("Apply".into()),
            fields_v1: Some(FieldsV1(json!({"f:metadata": {"f:labels": keys}}))),
            ..ManagedFieldsEntry::default()
        }]);
        cluster.status = Some(ManagedClusterStatus {
            conditions: [c::MANAGED_CLUSTER_HUB_ACCEPTED, c::MANAGED_CLUSTER_JOINED, c::MANAGED_CLUSTER_AVAILABLE]
                .iter()
                .map(|k| condition(k))
                .collect(),
            cluster_claims: vec![ManagedClusterClaim { name: VERSION_CLAIM.into(), value: version.into() }],
            ..ManagedClusterStatus::default()
        });
        cluster
    }

    fn fleet(clusters: &str) -> Fleet {
        parse(&format!(
            "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nmetadata: {{name: ours}}\ndefaults:\n  labels: {{env: dev}}\nclusters:\n{clusters}"
        ))
        .expect("fleet")
    }

    fn actions(plan: &Plan) -> Vec<(&str, Action)> {
        plan.changes.iter().map(|c| (c.cluster.as_str(), c.action)).collect()
    }

    #[test]
    fn clusters_not_on_the_hub_are_imported_and_then_upgraded_to_their_version() {
        let plan = diff(&fleet("- name: a\n- name: b\n  version: 0.2.0\n"), &HubState::default(), false);
        assert_eq!(actions(&plan), [("a", Action::Import), ("b", Action::Import), ("b", Action::Upgrade)]);
        assert_eq!(plan.changes[0].detail, "through context a; labels env=dev");
    }

    #[test]
    fn a_hub_that_matches_the_file_plans_nothing() {
        let state = HubState { clusters: vec![imported_cluster("a", "0.2.0", &[("env", "dev")])], addons: vec![] };
        let plan = diff(&fleet("- name: a\n  version: 0.2.0\n"), &state, true);
        assert_eq!(plan, Plan::default());
    }

    #[test]
    fn labels_addons_and_versions_that_differ_are_changed() {
        let state = HubState {
            clusters: vec![imported_cluster("a", "0.1.0", &[("env", "prod"), ("old", "x")])],
            addons: vec![],
        };
        let plan = diff(&fleet("- name: a\n  version: 0.2.0\n  addons: {search-collector: {}}\n"), &state, false);
        assert_eq!(actions(&plan), [("a", Action::Relabel), ("a", Action::Addons), ("a", Action::Upgrade)]);
        let details: Vec<&str> = plan.changes.iter().map(|c| c.detail.as_str()).collect();
        assert_eq!(details, ["set env=dev; remove old", "enable search-collector", "0.1.0 → 0.2.0"]);
    }

    #[test]
    fn prune_touches_only_clusters_the_fleet_imported_and_only_when_asked() {
        // Imported by hand with `fleetctl import` (fleetctl's field manager, no fleet), and
        // by another fleet file.
        let mut by_hand = imported_cluster("by-hand", "0.1.0", &[]);
        by_hand.metadata.annotations = None;
        let mut other = imported_cluster("other", "0.1.0", &[]);
        other.metadata.annotations =
            Some([(fleetctl_api::names::ANNOTATION_FLEET.to_string(), "theirs".into())].into());
        let state = HubState { clusters: vec![imported_cluster("gone", "0.1.0", &[]), by_hand, other], addons: vec![] };
        let kept = diff(&fleet(" []\n"), &state, false);
        assert!(kept.changes.is_empty());
        assert_eq!(kept.unlisted, ["gone"]);
        assert_eq!(kept.unmanaged, ["by-hand", "other"], "the plan names what it leaves alone");
        let pruned = diff(&fleet(" []\n"), &state, true);
        assert_eq!(actions(&pruned), [("gone", Action::Detach)], "neither by-hand nor other is the fleet's");
    }
}
