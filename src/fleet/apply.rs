//! What `apply` does with each change of a plan, in the acts' own terms: the import options
//! of a cluster, the selection that reaches it, the rollout its upgrades take, and the
//! report a pipeline reads afterwards.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::file::{Desired, Fleet};
use super::plan::{Action, Plan, addon_settings};
use crate::lifecycle::import::ImportOptions;
use crate::lifecycle::rollout::Rollout;
use fleetctl_kube::Selection;

/// Named in errors about a cluster's kubeconfig: where it is set.
const KUBECONFIG_FIELD: &str = "clusters[].kubeconfig (or defaults.kubeconfig) in the fleet file";

/// The import of a cluster as the fleet wants it.
pub fn import_options(fleet: &Fleet, desired: &Desired, timeout: Duration) -> ImportOptions {
    ImportOptions {
        labels: desired.labels.clone(),
        addons: desired.addons.keys().cloned().collect(),
        addon_settings: addon_settings(fleet, desired),
        fleet: fleet.name().map(str::to_string),
        ..ImportOptions::new(&desired.name, timeout)
    }
}

/// The kubeconfig and context that reach a cluster: its own kubeconfig, else the hub's
/// (`hub_kubeconfig`, `None`: KUBECONFIG or ~/.kube/config).
pub fn target_selection(desired: &Desired, hub_kubeconfig: Option<&Path>) -> Selection {
    let path = desired.kubeconfig.clone().or_else(|| hub_kubeconfig.map(Path::to_path_buf));
    Selection::new(path, Some(desired.context.clone())).with_flag(KUBECONFIG_FIELD)
}

/// The rollout the file's settings describe.
pub fn rollout_of(fleet: &Fleet) -> Rollout {
    let settings = &fleet.defaults.rollout;
    Rollout {
        canary: settings.canary,
        wave_size: settings.wave_size,
        max_failures: settings.max_failures,
        soak: settings.soak.unwrap_or(Duration::ZERO),
        rollback: settings.rollback,
    }
}

/// The upgrades of the plan by version, each version's clusters in the plan's order, less
/// those in `skip` (whose import failed).
pub fn upgrades(fleet: &Fleet, plan: &Plan, skip: &[String]) -> Vec<(String, Vec<String>)> {
    let desired = fleet.desired();
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for name in plan.clusters(Action::Upgrade) {
        if skip.contains(&name) {
            continue;
        }
        let Some(version) = desired.iter().find(|d| d.name == name).and_then(|d| d.version.clone()) else { continue };
        match groups.iter_mut().find(|(v, _)| *v == version) {
            Some((_, names)) => names.push(name),
            None => groups.push((version, vec![name])),
        }
    }
    groups
}

/// The report `apply --report FILE` writes: the plan carried out and how each cluster ended.
#[derive(Debug, Serialize)]
pub struct ApplyReport<'a, R: Serialize> {
    /// The fleet file.
    pub file: PathBuf,
    /// The plan as it was when apply started (none when apply could not plan).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<&'a Plan>,
    /// What apply did (as `-o json` prints it).
    #[serde(flatten)]
    pub result: &'a R,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::file::parse;
    use crate::fleet::plan::Change;

    fn fleet() -> Fleet {
        parse(
            "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\ndefaults:\n  version: 0.2.0\n  kubeconfig: /k\n  \
             rollout: {canary: 1, waveSize: 50%, soak: 30s}\nclusters:\n- name: a\n- name: b\n  version: 0.3.0\n  \
             context: ctx-b\n  kubeconfig: /b\n- name: c\n",
        )
        .expect("fleet")
    }

    fn upgrade(cluster: &str) -> Change {
        Change { cluster: cluster.into(), action: Action::Upgrade, detail: String::new() }
    }

    #[test]
    fn upgrades_go_by_version_in_the_plans_order_without_the_clusters_that_failed() {
        let plan = Plan {
            changes: vec![upgrade("c"), upgrade("b"), upgrade("a")],
            unlisted: Vec::new(),
            unmanaged: Vec::new(),
        };
        let groups = upgrades(&fleet(), &plan, &["a".to_string()]);
        assert_eq!(groups, [("0.2.0".to_string(), vec!["c".to_string()]), ("0.3.0".into(), vec!["b".into()])]);
    }

    #[test]
    fn a_cluster_is_reached_through_its_own_kubeconfig_else_the_defaults_and_its_context() {
        let fleet = fleet();
        let desired = fleet.desired();
        let a = target_selection(&desired[0], Some(Path::new("/hub")));
        assert_eq!((a.path, a.context), (Some(PathBuf::from("/k")), Some("a".into())));
        let b = target_selection(&desired[1], None);
        assert_eq!((b.path, b.context), (Some(PathBuf::from("/b")), Some("ctx-b".into())));
        let rollout = rollout_of(&fleet);
        assert_eq!((rollout.canary, rollout.soak, rollout.rollback), (1, Duration::from_secs(30), true));
    }
}
