//! A ManifestWorkReplicaSet's status as upstream's controller writes it: the counts of its
//! works' conditions, per Placement and in all, and the PlacementVerified,
//! PlacementRolledOut and ManifestworkApplied conditions with upstream's reasons.

use fleetctl_api::conditions::{self as c, new_condition};
use fleetctl_api::placement::Placement;
use fleetctl_api::work_replica_set::{
    CONDITION_MANIFESTWORK_APPLIED, CONDITION_PLACEMENT_ROLLED_OUT, CONDITION_PLACEMENT_VERIFIED,
    ManifestWorkReplicaSetSummary, PlacementSummary, REASON_AS_EXPECTED, REASON_COMPLETE, REASON_NOT_AS_EXPECTED,
    REASON_PLACEMENT_DECISION_EMPTY, REASON_PROCESSING, REASON_PROGRESSING,
};
use fleetctl_api::{ManifestWork, ManifestWorkReplicaSet};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

/// One decided cluster whose work is in place after a pass.
pub struct Placed<'a> {
    /// The Placement deciding it.
    pub placement: &'a str,
    /// The work as the store holds it when it was already as wanted; `None` when the pass
    /// just wrote it (its conditions are of an older spec, or none yet).
    pub current: Option<&'a ManifestWork>,
}

/// Whether the work agent reports `work` rolled out, as upstream's rollout judges a cluster
/// Succeeded: Applied True and Progressing False for the work's generation, and Degraded, if
/// reported, for it too.
pub fn succeeded(work: &ManifestWork) -> bool {
    let conditions = work.conditions();
    let generation = work.metadata.generation;
    let of_generation = |type_: &str| c::find(conditions, type_).filter(|c| c.observed_generation == generation);
    of_generation(c::WORK_APPLIED).is_some_and(|a| a.status == c::TRUE)
        && of_generation(c::WORK_PROGRESSING).is_some_and(|p| p.status == c::FALSE)
        && c::find(conditions, c::WORK_DEGRADED).is_none_or(|d| d.observed_generation == generation)
}

/// The counts over `works`: how many, and how many of them have each condition True.
fn count<'a>(placed: impl Iterator<Item = &'a Placed<'a>>) -> ManifestWorkReplicaSetSummary {
    let mut summary = ManifestWorkReplicaSetSummary::default();
    for one in placed {
        summary.total += 1;
        let Some(work) = one.current else { continue };
        let conditions = work.conditions();
        let count = |type_| i64::from(c::is_true(conditions, type_));
        summary.applied += count(c::WORK_APPLIED);
        summary.available += count(c::WORK_AVAILABLE);
        summary.degraded += count(c::WORK_DEGRADED);
        summary.progressing += count(c::WORK_PROGRESSING);
    }
    summary
}

/// Upstream's `availableDecisionGroups`: `<groups> (<with the work> / <selected> clusters applied)`.
fn decision_groups(placement: Option<&Placement>, with_work: i64) -> String {
    let status = placement.and_then(|p| p.status.as_ref());
    let groups = status.map_or(0, |s| s.decision_groups.len());
    let selected = status.map_or(0, |s| s.number_of_selected_clusters);
    format!("{groups} ({with_work} / {selected} clusters applied)")
}

/// The summary of each of the set's Placements (found by name in `placements`), and the
/// summary of all.
pub fn summaries<'a>(
    set: &ManifestWorkReplicaSet,
    placed: &[Placed<'_>],
    placements: impl Fn(&str) -> Option<&'a Placement>,
) -> (Vec<PlacementSummary>, ManifestWorkReplicaSetSummary) {
    let mut all = ManifestWorkReplicaSetSummary::default();
    let per_placement = set
        .spec
        .placement_refs
        .iter()
        .map(|reference| {
            let summary = count(placed.iter().filter(|p| p.placement == reference.name));
            all.total += summary.total;
            all.applied += summary.applied;
            all.available += summary.available;
            all.degraded += summary.degraded;
            all.progressing += summary.progressing;
            PlacementSummary {
                name: reference.name.clone(),
                available_decision_groups: decision_groups(placements(&reference.name), summary.total),
                summary,
            }
        })
        .collect();
    (per_placement, all)
}

/// What the conditions are judged by.
pub struct Judged<'a> {
    /// How many clusters the Placements decide.
    pub decided: usize,
    /// How many clusters the Placements' status says they select.
    pub selected: i64,
    /// How many works the agents report rolled out ([`succeeded`]).
    pub succeeded: i64,
    /// The counts over all works.
    pub summary: ManifestWorkReplicaSetSummary,
    /// The clusters where a work of the set's name that is not the set's is in the way.
    pub blocked: &'a [String],
    /// The name of the works.
    pub work_name: &'a str,
}

/// The three conditions, as upstream judges them; a work in the way of the set's is
/// NotAsExpected, and the message says where.
pub fn conditions(judged: &Judged<'_>) -> [Condition; 3] {
    let summary = &judged.summary;
    let verified = if judged.decided == 0 {
        new_condition(CONDITION_PLACEMENT_VERIFIED, c::FALSE, REASON_PLACEMENT_DECISION_EMPTY, "")
    } else {
        new_condition(CONDITION_PLACEMENT_VERIFIED, c::TRUE, REASON_AS_EXPECTED, "")
    };
    let rolled_out = if judged.selected == judged.succeeded {
        new_condition(CONDITION_PLACEMENT_ROLLED_OUT, c::TRUE, REASON_COMPLETE, "")
    } else {
        new_condition(CONDITION_PLACEMENT_ROLLED_OUT, c::FALSE, REASON_PROGRESSING, "")
    };
    let applied = if !judged.blocked.is_empty() {
        let message = format!(
            "ManifestWork {} in cluster(s) {} is not this ManifestWorkReplicaSet's (it lacks its label): left alone",
            judged.work_name,
            judged.blocked.join(", ")
        );
        new_condition(CONDITION_MANIFESTWORK_APPLIED, c::FALSE, REASON_NOT_AS_EXPECTED, message)
    } else if summary.total == 0 && judged.decided == 0 {
        new_condition(CONDITION_MANIFESTWORK_APPLIED, c::FALSE, REASON_PLACEMENT_DECISION_EMPTY, "")
    } else if summary.total == 0 {
        new_condition(CONDITION_MANIFESTWORK_APPLIED, c::FALSE, REASON_NOT_AS_EXPECTED, "")
    } else if summary.available == summary.total && summary.progressing == 0 && summary.degraded == 0 {
        new_condition(CONDITION_MANIFESTWORK_APPLIED, c::TRUE, REASON_AS_EXPECTED, "")
    } else if summary.progressing > 0 && summary.degraded == 0 {
        new_condition(CONDITION_MANIFESTWORK_APPLIED, c::FALSE, REASON_PROCESSING, "")
    } else {
        new_condition(CONDITION_MANIFESTWORK_APPLIED, c::FALSE, REASON_NOT_AS_EXPECTED, "")
    };
    [verified, rolled_out, applied]
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn work(generation: i64, conditions: &[(&str, &str, i64)]) -> ManifestWork {
        let conditions: Vec<Value> = conditions
            .iter()
            .map(|(t, s, g)| {
                json!({"type": t, "status": s, "reason": "R", "message": "", "observedGeneration": g,
                "lastTransitionTime": "2026-01-01T00:00:00Z"})
            })
            .collect();
        serde_json::from_value(json!({
            "apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
            "metadata": {"name": "app", "namespace": "c1", "generation": generation},
            "spec": {}, "status": {"conditions": conditions}
        }))
        .unwrap()
    }

    fn set() -> ManifestWorkReplicaSet {
        serde_json::from_value(json!({
            "apiVersion": "work.open-cluster-management.io/v1alpha1", "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "app", "namespace": "apps"},
            "spec": {"manifestWorkTemplate": {}, "placementRefs": [{"name": "p1"}, {"name": "p2"}]}
        }))
        .unwrap()
    }

    fn placement(groups: usize, selected: i32) -> Placement {
        let groups: Vec<Value> = (0..groups).map(|i| json!({"decisionGroupIndex": i, "decisions": []})).collect();
        serde_json::from_value(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "Placement",
            "metadata": {"name": "p1", "namespace": "apps"}, "spec": {},
            "status": {"numberOfSelectedClusters": selected, "decisionGroups": groups}
        }))
        .unwrap()
    }

    #[test]
    fn the_summary_counts_each_condition_true_per_placement_and_in_all_as_upstreams_status_reconciler() {
        let available = work(1, &[("Applied", "True", 1), ("Available", "True", 1), ("Progressing", "False", 1)]);
        let degraded = work(1, &[("Applied", "True", 1), ("Degraded", "True", 1), ("Progressing", "True", 1)]);
        let placed = [
            Placed { placement: "p1", current: Some(&available) },
            Placed { placement: "p1", current: Some(&degraded) },
            Placed { placement: "p2", current: None },
        ];
        let p1 = placement(1, 2);
        let (per_placement, all) = summaries(&set(), &placed, |name| (name == "p1").then_some(&p1));
        let want = |total, applied, available, degraded, progressing| ManifestWorkReplicaSetSummary {
            total,
            applied,
            available,
            degraded,
            progressing,
            ..Default::default()
        };
        assert_eq!(per_placement[0].summary, want(2, 2, 1, 1, 1));
        assert_eq!(per_placement[0].available_decision_groups, "1 (2 / 2 clusters applied)");
        assert_eq!(per_placement[1].summary, want(1, 0, 0, 0, 0), "just written: counted, no condition yet");
        assert_eq!(per_placement[1].available_decision_groups, "0 (1 / 0 clusters applied)");
        assert_eq!(all, want(3, 2, 1, 1, 1));
    }

    #[test]
    fn a_work_has_rolled_out_once_the_agent_reports_it_applied_and_done_progressing_for_its_generation() {
        assert!(succeeded(&work(2, &[("Applied", "True", 2), ("Progressing", "False", 2)])));
        assert!(!succeeded(&work(2, &[("Applied", "True", 2), ("Progressing", "True", 2)])), "progressing");
        assert!(!succeeded(&work(2, &[("Applied", "True", 1), ("Progressing", "False", 2)])), "an older spec applied");
        assert!(!succeeded(&work(2, &[("Applied", "True", 2)])), "no Progressing yet");
        assert!(
            !succeeded(&work(2, &[("Applied", "True", 2), ("Progressing", "False", 2), ("Degraded", "False", 1)])),
            "Degraded of an older spec"
        );
    }

    fn judged<'a>(decided: usize, summary: ManifestWorkReplicaSetSummary, blocked: &'a [String]) -> Judged<'a> {
        Judged { decided, selected: 2, succeeded: 2, summary, blocked, work_name: "app" }
    }

    /// Each condition as `Type=Status/Reason`.
    fn reasons(conditions: &[Condition; 3]) -> Vec<String> {
        conditions.iter().map(|c| format!("{}={}/{}", c.type_, c.status, c.reason)).collect()
    }

    #[test]
    fn the_conditions_have_upstreams_types_and_reasons() {
        let summary = |total, available, degraded, progressing| ManifestWorkReplicaSetSummary {
            total,
            available,
            degraded,
            progressing,
            ..Default::default()
        };
        assert_eq!(
            reasons(&conditions(&judged(0, summary(0, 0, 0, 0), &[]))),
            [
                "PlacementVerified=False/PlacementDecisionEmpty",
                "PlacementRolledOut=True/Complete",
                "ManifestworkApplied=False/PlacementDecisionEmpty"
            ]
        );
        let applied = |s| reasons(&conditions(&judged(2, s, &[])))[2].clone();
        assert_eq!(applied(summary(2, 2, 0, 0)), "ManifestworkApplied=True/AsExpected");
        assert_eq!(applied(summary(2, 1, 0, 1)), "ManifestworkApplied=False/Processing");
        assert_eq!(applied(summary(2, 1, 1, 1)), "ManifestworkApplied=False/NotAsExpected");
        assert_eq!(applied(summary(2, 1, 0, 0)), "ManifestworkApplied=False/NotAsExpected");
        let verified = reasons(&conditions(&judged(2, summary(2, 2, 0, 0), &[])));
        assert_eq!(verified[0], "PlacementVerified=True/AsExpected");
        let progressing = conditions(&Judged { succeeded: 1, ..judged(2, summary(2, 2, 0, 0), &[]) });
        assert_eq!(reasons(&progressing)[1], "PlacementRolledOut=False/Progressing");

        let blocked = ["c2".to_owned()];
        let [_, _, in_the_way] = conditions(&judged(2, summary(1, 1, 0, 0), &blocked));
        assert_eq!((in_the_way.status.as_str(), in_the_way.reason.as_str()), ("False", "NotAsExpected"));
        assert!(in_the_way.message.contains("ManifestWork app in cluster(s) c2"), "{}", in_the_way.message);
    }
}
