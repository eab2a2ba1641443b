//! From the selected clusters to PlacementDecisions, as upstream writes them: the clusters
//! divided into decision groups (the named groups first, by their selectors, then the rest),
//! each group of at most `clustersPerDecisionGroup` clusters sorted by name, each group paged
//! at 100 decisions per PlacementDecision named `<placement>-decision-<n>` (n from 1 across
//! the groups), labelled with the Placement and the group, and owned by the Placement.

use std::collections::{BTreeMap, BTreeSet};

use fleetctl_api::ManagedCluster;
use fleetctl_api::placement::{
    ClusterDecision, DECISION_GROUP_INDEX_LABEL, DECISION_GROUP_NAME_LABEL, DECISIONS_PER_PLACEMENT_DECISION,
    DecisionGroupStatus, PLACEMENT_LABEL, Placement, PlacementDecision, PlacementDecisionStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::ResourceExt;

use super::scheduler::{Outcome, selects};

/// The name of the `index`th PlacementDecision of a Placement (from 1).
pub fn decision_name(placement: &str, index: usize) -> String {
    format!("{placement}-decision-{index}")
}

/// The PlacementDecisions a Placement should have, and its decision groups' status.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The PlacementDecisions, with their decisions in `status`.
    pub decisions: Vec<PlacementDecision>,
    /// `status.decisionGroups` of the Placement.
    pub groups: Vec<DecisionGroupStatus>,
}

/// The PlacementDecisions of `selected` (in the scheduler's order) for `placement`, owned by
/// `owner`; a misconfigured group strategy yields none.
pub fn plan(placement: &Placement, selected: &[&ManagedCluster], owner: &OwnerReference) -> Result<Plan, Outcome> {
    let groups = groups(placement, selected)?;
    let mut plan = Plan::default();
    for (index, (group_name, clusters)) in groups.into_iter().enumerate() {
        let mut names = Vec::new();
        let pages: Vec<&[String]> =
            if clusters.is_empty() { vec![&[]] } else { clusters.chunks(DECISIONS_PER_PLACEMENT_DECISION).collect() };
        for page in pages {
            let name = decision_name(&placement.name_any(), plan.decisions.len() + 1);
            plan.decisions.push(decision(placement, &name, &group_name, index, page, owner));
            names.push(name);
        }
        plan.groups.push(DecisionGroupStatus {
            decision_group_index: i32::try_from(index).unwrap_or(i32::MAX),
            decision_group_name: group_name,
            decisions: names,
            cluster_count: i32::try_from(clusters.len()).unwrap_or(i32::MAX),
        });
    }
    Ok(plan)
}

fn decision(
    placement: &Placement,
    name: &str,
    group_name: &str,
    group_index: usize,
    clusters: &[String],
    owner: &OwnerReference,
) -> PlacementDecision {
    let labels = BTreeMap::from([
        (PLACEMENT_LABEL.to_owned(), placement.name_any()),
        (DECISION_GROUP_NAME_LABEL.to_owned(), group_name.to_owned()),
        (DECISION_GROUP_INDEX_LABEL.to_owned(), group_index.to_string()),
    ]);
    PlacementDecision {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: placement.namespace(),
            labels: Some(labels),
            owner_references: Some(vec![owner.clone()]),
            ..ObjectMeta::default()
        },
        status: Some(PlacementDecisionStatus {
            decisions: clusters
                .iter()
                .map(|c| ClusterDecision { cluster_name: c.clone(), reason: String::new(), score: None })
                .collect(),
        }),
    }
}

/// The decision groups: name and clusters (sorted by name). At least one, empty, group.
fn groups(placement: &Placement, selected: &[&ManagedCluster]) -> Result<Vec<(String, Vec<String>)>, Outcome> {
    let strategy = &placement.spec.decision_strategy.group_strategy;
    let size = group_size(strategy.clusters_per_decision_group.as_ref(), selected.len())?;
    let mut left: BTreeSet<String> = selected.iter().map(|c| c.name_any()).collect();
    let mut groups = Vec::new();
    for group in &strategy.decision_groups {
        let selector = &group.cluster_selector;
        let problems = [selector.label_selector.validate().err(), selector.claim_selector.validate().err()];
        if let Some(problem) = problems.into_iter().flatten().next() {
            return Err(Outcome::Misconfigured { plugin: String::new(), message: problem.to_string() });
        }
        let matched: Vec<String> = selected
            .iter()
            .filter(|c| selects(&selector.label_selector, &selector.claim_selector, c))
            .map(|c| c.name_any())
            .filter(|name| left.remove(name))
            .collect();
        divide(&group.group_name, matched, size, &mut groups);
    }
    divide("", left.into_iter().collect(), size, &mut groups);
    if groups.is_empty() {
        groups.push((String::new(), Vec::new()));
    }
    Ok(groups)
}

/// Sorts `clusters` by name and divides them into groups of `size`.
fn divide(name: &str, mut clusters: Vec<String>, size: usize, groups: &mut Vec<(String, Vec<String>)>) {
    clusters.sort();
    for chunk in clusters.chunks(size.max(1)) {
        groups.push((name.to_owned(), chunk.to_vec()));
    }
}

/// The size of a decision group: a number, or a percentage of `total` rounded up; `total`
/// when unset, not positive or larger.
pub fn group_size(per_group: Option<&IntOrString>, total: usize) -> Result<usize, Outcome> {
    let length = match per_group {
        None => 0,
        Some(IntOrString::Int(n)) => i64::from(*n),
        Some(IntOrString::String(text)) => {
            let percent =
                text.strip_suffix('%').and_then(|p| p.parse::<f64>().ok()).ok_or_else(|| Outcome::Misconfigured {
                    plugin: String::new(),
                    message: format!("{text} invalid type: string is not a percentage"),
                })?;
            (percent / 100.0 * total as f64).ceil() as i64
        }
    };
    let total_len = i64::try_from(total).unwrap_or(i64::MAX);
    Ok(if length <= 0 || length > total_len { total } else { usize::try_from(length).unwrap_or(total) })
}

#[cfg(test)]
mod tests {
    use fleetctl_api::placement::{DecisionGroup, GroupClusterSelector, PlacementSpec};
    use fleetctl_api::selector::LabelSelector;

    use super::*;

    fn cluster(name: &str, labels: &[(&str, &str)]) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted(name);
        cluster.metadata.labels = Some(labels.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect());
        cluster
    }

    fn placement(spec: PlacementSpec) -> Placement {
        let mut placement = Placement::new("p", spec);
        placement.metadata.namespace = Some("ns".into());
        placement
    }

    fn owner() -> OwnerReference {
        OwnerReference { name: "p".into(), uid: "u".into(), ..OwnerReference::default() }
    }

    #[test]
    fn decisions_are_paged_at_100_per_placementdecision_as_upstream() {
        let clusters: Vec<_> = (0..101).map(|i| cluster(&format!("c{i:03}"), &[])).collect();
        let selected: Vec<_> = clusters.iter().collect();
        let plan = plan(&placement(PlacementSpec::default()), &selected, &owner()).unwrap();
        let names: Vec<_> = plan.decisions.iter().map(|d| d.name_any()).collect();
        assert_eq!(names, ["p-decision-1", "p-decision-2"]);
        assert_eq!(plan.decisions[0].status.as_ref().unwrap().decisions.len(), 100);
        assert_eq!(plan.decisions[1].status.as_ref().unwrap().decisions.len(), 1);
        assert_eq!(plan.groups.len(), 1);
        assert_eq!(plan.groups[0].cluster_count, 101);
        assert_eq!(plan.groups[0].decisions, names);
        assert_eq!(plan.decisions[0].labels()[PLACEMENT_LABEL], "p");
        assert_eq!(plan.decisions[0].labels()[DECISION_GROUP_INDEX_LABEL], "0");
    }

    #[test]
    fn no_cluster_selected_still_makes_one_empty_placementdecision() {
        let plan = plan(&placement(PlacementSpec::default()), &[], &owner()).unwrap();
        assert_eq!(plan.decisions.len(), 1);
        assert!(plan.decisions[0].status.as_ref().unwrap().decisions.is_empty());
        assert_eq!(plan.groups[0].cluster_count, 0);
    }

    #[test]
    fn named_decision_groups_come_first_then_the_rest_in_groups_of_clusters_per_decision_group() {
        let clusters = [
            cluster("a", &[("canary", "true")]),
            cluster("b", &[]),
            cluster("c", &[("canary", "true")]),
            cluster("d", &[]),
            cluster("e", &[]),
        ];
        let selected: Vec<_> = clusters.iter().collect();
        let mut spec = PlacementSpec::default();
        spec.decision_strategy.group_strategy.clusters_per_decision_group = Some(IntOrString::Int(2));
        spec.decision_strategy.group_strategy.decision_groups = vec![DecisionGroup {
            group_name: "canary".into(),
            cluster_selector: GroupClusterSelector {
                label_selector: LabelSelector {
                    match_labels: [("canary".to_owned(), "true".to_owned())].into(),
                    ..LabelSelector::default()
                },
                ..GroupClusterSelector::default()
            },
        }];
        let plan = plan(&placement(spec), &selected, &owner()).unwrap();
        let groups: Vec<_> = plan
            .groups
            .iter()
            .map(|g| (g.decision_group_name.as_str(), g.cluster_count, g.decisions.clone()))
            .collect();
        assert_eq!(
            groups,
            [
                ("canary", 2, vec!["p-decision-1".to_owned()]),
                ("", 2, vec!["p-decision-2".to_owned()]),
                ("", 1, vec!["p-decision-3".to_owned()]),
            ]
        );
        assert_eq!(plan.decisions[2].labels()[DECISION_GROUP_INDEX_LABEL], "2");
    }

    #[test]
    fn group_sizes_read_numbers_and_percentages_as_upstream() {
        assert_eq!(group_size(None, 7), Ok(7));
        assert_eq!(group_size(Some(&IntOrString::Int(3)), 7), Ok(3));
        assert_eq!(group_size(Some(&IntOrString::Int(30)), 7), Ok(7));
        assert_eq!(group_size(Some(&IntOrString::String("25%".into())), 7), Ok(2));
        assert!(group_size(Some(&IntOrString::String("two".into())), 7).is_err());
    }
}
