//! What a ManifestWorkReplicaSet wants: which Placement decides each cluster, and the works
//! to create, update and delete so that every decided cluster has one work of the set and no
//! other cluster has any.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use fleetctl_api::placement::{PLACEMENT_LABEL, PlacementDecision};
use fleetctl_api::work_replica_set::{LABEL_PLACEMENT_NAME, LABEL_REPLICA_SET};
use fleetctl_api::{ManifestWork, ManifestWorkReplicaSet};
use kube::ResourceExt;

/// The clusters the set's Placements decide, each with the Placement that decides it: the
/// first of `placementRefs` that names it, so a cluster two Placements decide gets one work.
pub fn decided(set: &ManifestWorkReplicaSet, decisions: &[Arc<PlacementDecision>]) -> BTreeMap<String, String> {
    let namespace = set.namespace();
    let mut decided = BTreeMap::new();
    for placement in &set.spec.placement_refs {
        let of_placement = decisions
            .iter()
            .filter(|d| d.namespace() == namespace && d.labels().get(PLACEMENT_LABEL) == Some(&placement.name));
        for cluster in of_placement.flat_map(|d| d.cluster_names()) {
            decided.entry(cluster.to_owned()).or_insert_with(|| placement.name.clone());
        }
    }
    decided
}

/// The work `name` of the set in `cluster`, decided by `placement`: the template's spec, the
/// set's labels and the two that tie it to the set and the Placement.
pub fn work(set: &ManifestWorkReplicaSet, name: &str, cluster: &str, placement: &str) -> ManifestWork {
    let mut work = ManifestWork::new(name, set.spec.manifest_work_template.clone());
    work.metadata.namespace = Some(cluster.to_owned());
    let mut labels = set.labels().clone();
    labels.insert(LABEL_REPLICA_SET.to_owned(), set.works_label());
    labels.insert(LABEL_PLACEMENT_NAME.to_owned(), placement.to_owned());
    work.metadata.labels = Some(labels);
    work
}

/// Whether `work` is as `wanted`: the same spec, and every label `wanted` has.
pub fn is_current(work: &ManifestWork, wanted: &ManifestWork) -> bool {
    work.spec == wanted.spec && wanted.labels().iter().all(|(key, value)| work.labels().get(key) == Some(value))
}

/// One decided cluster's work.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// It is as it should be: the set's work as stored.
    Current(Arc<ManifestWork>),
    /// It is to be created.
    Create(ManifestWork),
    /// The set's work there is to be replaced by this (its resourceVersion kept).
    Update(ManifestWork),
}

/// What a pass does.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    /// Per decided cluster: its Placement and its work's step.
    pub clusters: BTreeMap<String, (String, Step)>,
    /// Works of the set to delete: on clusters no longer decided, and any second work of the
    /// set on one cluster.
    pub delete: Vec<Arc<ManifestWork>>,
}

/// The plan from the decided clusters and `existing`, the works labelled as the set's. A
/// cluster keeps its work's name (a work upstream's controller named is adopted); a new work
/// is named as the set. Works already being deleted are left to finish.
pub fn plan(set: &ManifestWorkReplicaSet, decided: &BTreeMap<String, String>, existing: &[Arc<ManifestWork>]) -> Plan {
    let name = set.name_any();
    let mut by_cluster: BTreeMap<String, Vec<&Arc<ManifestWork>>> = BTreeMap::new();
    for work in existing.iter().filter(|w| w.metadata.deletion_timestamp.is_none()) {
        by_cluster.entry(work.namespace().unwrap_or_default()).or_default().push(work);
    }
    let mut plan = Plan::default();
    let mut kept = BTreeSet::new();
    for (cluster, placement) in decided {
        let works = by_cluster.get(cluster).map(Vec::as_slice).unwrap_or_default();
        let keeper = works.iter().find(|w| w.name_any() == name).or_else(|| works.iter().min_by_key(|w| w.name_any()));
        let step = match keeper {
            None => Step::Create(work(set, &name, cluster, placement)),
            Some(existing) => {
                kept.insert((cluster.clone(), existing.name_any()));
                let wanted = work(set, &existing.name_any(), cluster, placement);
                if is_current(existing, &wanted) {
                    Step::Current(Arc::clone(existing))
                } else {
                    let mut updated = ManifestWork::clone(existing);
                    updated.spec = wanted.spec;
                    updated.labels_mut().extend(wanted.metadata.labels.into_iter().flatten());
                    Step::Update(updated)
                }
            }
        };
        plan.clusters.insert(cluster.clone(), (placement.clone(), step));
    }
    plan.delete = by_cluster
        .into_iter()
        .flat_map(|(cluster, works)| works.into_iter().map(move |w| (cluster.clone(), w)))
        .filter(|(cluster, w)| !kept.contains(&(cluster.clone(), w.name_any())))
        .map(|(_, w)| Arc::clone(w))
        .collect();
    plan
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn set(placements: &[&str]) -> ManifestWorkReplicaSet {
        let refs: Vec<Value> = placements.iter().map(|p| json!({"name": p})).collect();
        serde_json::from_value(json!({
            "apiVersion": "work.open-cluster-management.io/v1alpha1", "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "app", "namespace": "apps", "labels": {"team": "a"}},
            "spec": {"manifestWorkTemplate": {"workload": {"manifests": [{"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "cm", "namespace": "default"}}]}}, "placementRefs": refs}
        }))
        .unwrap()
    }

    fn decision(namespace: &str, placement: &str, clusters: &[&str]) -> Arc<PlacementDecision> {
        let decisions: Vec<Value> = clusters.iter().map(|c| json!({"clusterName": c, "reason": ""})).collect();
        Arc::new(
            serde_json::from_value(json!({
                "apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "PlacementDecision",
                "metadata": {"name": format!("{placement}-decision-1"), "namespace": namespace,
                    "labels": {PLACEMENT_LABEL: placement}},
                "status": {"decisions": decisions}
            }))
            .unwrap(),
        )
    }

    fn names(plan: &Plan) -> Vec<(String, String, &'static str)> {
        plan.clusters
            .iter()
            .map(|(cluster, (placement, step))| {
                let kind = match step {
                    Step::Current(_) => "current",
                    Step::Create(_) => "create",
                    Step::Update(_) => "update",
                };
                (cluster.clone(), placement.clone(), kind)
            })
            .collect()
    }

    #[test]
    fn each_cluster_the_placements_decide_gets_a_work_named_as_the_set_with_upstreams_labels() {
        let set = set(&["p1", "p2"]);
        let decisions = [
            decision("apps", "p1", &["c1", "c2"]),
            decision("apps", "p2", &["c2", "c3"]),
            decision("ops", "p1", &["x"]),
        ];
        let decided = decided(&set, &decisions);
        assert_eq!(
            decided.iter().map(|(c, p)| (c.as_str(), p.as_str())).collect::<Vec<_>>(),
            [("c1", "p1"), ("c2", "p1"), ("c3", "p2")],
            "the first Placement naming a cluster decides it; another namespace's Placement of the name does not"
        );
        let plan = plan(&set, &decided, &[]);
        assert!(plan.delete.is_empty());
        let Some((_, Step::Create(work))) = plan.clusters.get("c3") else { panic!("{plan:?}") };
        assert_eq!(
            serde_json::to_value(&work.metadata).unwrap(),
            json!({"name": "app", "namespace": "c3", "labels": {"team": "a",
                "work.open-cluster-management.io/manifestworkreplicaset": "apps.app",
                "work.open-cluster-management.io/placementname": "p2"}})
        );
        assert_eq!(work.spec, set.spec.manifest_work_template);
    }

    #[test]
    fn a_work_as_wanted_stays_a_changed_template_updates_it_and_an_undecided_cluster_loses_it() {
        let mut set = set(&["p1"]);
        let decided = BTreeMap::from([("c1".to_owned(), "p1".to_owned()), ("c2".to_owned(), "p1".to_owned())]);
        let as_made = |cluster: &str| {
            let mut w = work(&set, "app", cluster, "p1");
            w.metadata.resource_version = Some("7".into());
            Arc::new(w)
        };
        let existing = [as_made("c1"), as_made("c2"), as_made("gone")];
        let first = plan(&set, &decided, &existing);
        assert_eq!(names(&first), [("c1".into(), "p1".into(), "current"), ("c2".into(), "p1".into(), "current")]);
        assert_eq!(first.delete.iter().map(|w| w.namespace().unwrap()).collect::<Vec<_>>(), ["gone"]);

        set.spec.manifest_work_template.workload.manifests.clear();
        let second = plan(&set, &decided, &existing);
        let Some((_, Step::Update(updated))) = second.clusters.get("c1") else { panic!("{second:?}") };
        assert!(updated.spec.workload.manifests.is_empty());
        assert_eq!(updated.metadata.resource_version.as_deref(), Some("7"), "replaced at the version read");
    }

    #[test]
    fn a_work_of_the_set_under_another_name_is_adopted_and_a_second_one_on_the_cluster_goes() {
        let set = set(&["p1"]);
        let decided = BTreeMap::from([("c1".to_owned(), "p1".to_owned())]);
        let generated = Arc::new(work(&set, "app-x7k2q", "c1", "p1"));
        let plan1 = plan(&set, &decided, std::slice::from_ref(&generated));
        assert_eq!(plan1.clusters["c1"].1, Step::Current(generated.clone()), "upstream's generated name kept");
        let named = Arc::new(work(&set, "app", "c1", "p1"));
        let plan2 = plan(&set, &decided, &[generated, named]);
        assert!(matches!(&plan2.clusters["c1"].1, Step::Current(w) if w.name_any() == "app"));
        assert_eq!(plan2.delete.iter().map(|w| w.name_any()).collect::<Vec<_>>(), ["app-x7k2q"]);
    }

    #[test]
    fn a_cluster_decided_by_another_placement_now_is_relabelled_not_recreated() {
        let set = set(&["p2"]);
        let decided = BTreeMap::from([("c1".to_owned(), "p2".to_owned())]);
        let plan = plan(&set, &decided, &[Arc::new(work(&set, "app", "c1", "p1"))]);
        let Some((_, Step::Update(updated))) = plan.clusters.get("c1") else { panic!("{plan:?}") };
        assert_eq!(updated.labels()[LABEL_PLACEMENT_NAME], "p2");
        assert!(plan.delete.is_empty());
    }
}
