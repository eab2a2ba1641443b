//! A Placement's status as upstream writes it: `numberOfSelectedClusters`, the decision
//! groups, and the PlacementSatisfied and PlacementMisconfigured conditions with upstream's
//! reasons.

use fleetctl_api::conditions::{self as c, new_condition, set_condition};
use fleetctl_api::placement::{DecisionGroupStatus, PlacementStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use super::scheduler::Outcome;

/// What the PlacementSatisfied condition is judged by.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// The cluster sets the Placement names (`spec.clusterSets`).
    pub named_sets: Vec<String>,
    /// The bound sets it may select from.
    pub eligible_sets: Vec<String>,
    /// How many bindings of existing sets its namespace has.
    pub bindings: usize,
    /// How many clusters the eligible sets hold.
    pub available: usize,
    /// How many clusters were selected.
    pub selected: usize,
    /// How many of `numberOfClusters` were not.
    pub unscheduled: i64,
}

/// The PlacementSatisfied condition.
pub fn satisfied(counts: &Counts) -> Condition {
    let (status, reason, message) = if counts.bindings == 0 {
        (c::FALSE, c::REASON_NO_BINDINGS, "No valid ManagedClusterSetBindings found in placement namespace".to_owned())
    } else if counts.eligible_sets.is_empty() {
        (
            c::FALSE,
            c::REASON_NO_INTERSECTION,
            format!("None of ManagedClusterSets [{}] is bound to placement namespace", counts.named_sets.join(",")),
        )
    } else if counts.available == 0 {
        (
            c::FALSE,
            c::REASON_ALL_SETS_EMPTY,
            format!("All ManagedClusterSets [{}] have no member ManagedCluster", counts.eligible_sets.join(",")),
        )
    } else if counts.selected == 0 {
        (
            c::FALSE,
            c::REASON_NO_CLUSTER_MATCHED_PREDICATES,
            "No ManagedCluster matches any of the cluster predicate".to_owned(),
        )
    } else if counts.unscheduled <= 0 {
        (c::TRUE, c::REASON_ALL_DECISIONS_SCHEDULED, "All cluster decisions scheduled".to_owned())
    } else {
        (
            c::FALSE,
            c::REASON_NOT_ALL_DECISIONS_SCHEDULED,
            format!("{} cluster decisions unscheduled", counts.unscheduled),
        )
    };
    new_condition(c::PLACEMENT_SATISFIED, status, reason, message)
}

/// The PlacementMisconfigured condition.
pub fn misconfigured(outcome: &Outcome) -> Condition {
    match outcome {
        Outcome::Misconfigured { plugin, message } => {
            new_condition(c::PLACEMENT_MISCONFIGURED, c::TRUE, c::REASON_MISCONFIGURED, format!("{plugin}:{message}"))
        }
        _ => new_condition(
            c::PLACEMENT_MISCONFIGURED,
            c::FALSE,
            c::REASON_SUCCEEDCONFIGURED,
            "Placement configurations check pass",
        ),
    }
}

/// The status to write: `current` with the selection, the groups and the conditions set.
pub fn next(
    current: Option<&PlacementStatus>,
    selected: usize,
    groups: Vec<DecisionGroupStatus>,
    conditions: [Condition; 2],
) -> PlacementStatus {
    let mut status = current.cloned().unwrap_or_default();
    status.number_of_selected_clusters = i32::try_from(selected).unwrap_or(i32::MAX);
    status.decision_groups = groups;
    for condition in conditions {
        set_condition(&mut status.conditions, condition);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> Counts {
        Counts {
            named_sets: vec![],
            eligible_sets: vec!["s1".into()],
            bindings: 1,
            available: 3,
            selected: 3,
            unscheduled: 0,
        }
    }

    #[test]
    fn placement_satisfied_has_upstreams_reasons_in_upstreams_order() {
        let reason = |counts: Counts| satisfied(&counts).reason;
        assert_eq!(reason(Counts { bindings: 0, ..counts() }), "NoManagedClusterSetBindings");
        assert_eq!(
            reason(Counts { eligible_sets: vec![], named_sets: vec!["x".into()], ..counts() }),
            "NoIntersection"
        );
        assert_eq!(reason(Counts { available: 0, ..counts() }), "AllManagedClusterSetsEmpty");
        assert_eq!(reason(Counts { selected: 0, ..counts() }), "NoManagedClusterMatched");
        assert_eq!(reason(counts()), "AllDecisionsScheduled");
        let short = satisfied(&Counts { unscheduled: 2, ..counts() });
        assert_eq!((short.status.as_str(), short.message.as_str()), ("False", "2 cluster decisions unscheduled"));
    }

    #[test]
    fn placement_misconfigured_names_the_plugin() {
        let wrong = Outcome::Misconfigured { plugin: "TaintToleration".into(), message: "bad".into() };
        let condition = misconfigured(&wrong);
        assert_eq!((condition.status.as_str(), condition.message.as_str()), ("True", "TaintToleration:bad"));
        assert_eq!(misconfigured(&Outcome::Success).reason, "Succeedconfigured");
    }
}
