//! The status a work reports, computed from what applying its manifests did: per
//! manifest Applied and Available, and for the work Applied, Available and Degraded at
//! its generation. Built on top of the current status so that unchanged conditions keep
//! their transition times and an unchanged work compares equal (and is not written).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use super::apply::{Availability, ManifestError, ManifestOutcome};
use super::condition_rules;
use fleetctl_api::ManifestWork;
use fleetctl_api::conditions::{self, FALSE, TRUE, UNKNOWN, new_condition, set_condition};
use fleetctl_api::work::{ManifestCondition, ManifestResourceMeta, ManifestWorkStatus};

/// The status `work` should have after a pass that ended in `outcomes`.
pub fn build(work: &ManifestWork, outcomes: &[ManifestOutcome]) -> ManifestWorkStatus {
    let generation = work.metadata.generation;
    let at = |condition: Condition| Condition { observed_generation: generation, ..condition };
    let mut status = work.status.clone().unwrap_or_default();
    let previous = std::mem::take(&mut status.resource_status.manifests);
    for outcome in outcomes {
        let mut manifest = previous_of(&previous, &outcome.meta)
            .map(|m| ManifestCondition { resource_meta: outcome.meta.clone(), ..m.clone() })
            .unwrap_or_else(|| ManifestCondition {
                resource_meta: outcome.meta.clone(),
                ..ManifestCondition::default()
            });
        let applied = match &outcome.applied {
            Ok(()) => new_condition(
                conditions::WORK_APPLIED,
                TRUE,
                conditions::REASON_APPLIED_MANIFEST_COMPLETE,
                "Apply manifest complete",
            ),
            Err(ManifestError::IgnoreField(error)) => new_condition(
                conditions::WORK_APPLIED,
                FALSE,
                conditions::REASON_APPLIED_MANIFEST_IGNORE_FIELD_ERROR,
                format!("Failed to process ignoreFields: {error}"),
            ),
            Err(error) => new_condition(
                conditions::WORK_APPLIED,
                FALSE,
                conditions::REASON_APPLIED_MANIFEST_FAILED,
                format!("Failed to apply manifest: {error}"),
            ),
        };
        set_condition(&mut manifest.conditions, at(applied));
        set_condition(&mut manifest.conditions, at(available(&outcome.availability)));
        if let Some((values, synced)) = &outcome.feedback {
            // New values move the condition's transition time even when its status stays (as
            // upstream's status controller does): readers learn when the values last changed.
            if manifest.status_feedback != *values {
                manifest.conditions.retain(|c| c.type_ != synced.type_);
            }
            manifest.status_feedback = values.clone();
            set_condition(&mut manifest.conditions, at(synced.clone()));
        }
        // What the rules make now, and nothing they made before and no longer make.
        let made = &outcome.rule_conditions;
        manifest.conditions.retain(|c| !condition_rules::made_by_rules(c) || made.iter().any(|m| m.type_ == c.type_));
        for condition in made {
            set_condition(&mut manifest.conditions, at(condition.clone()));
        }
        status.resource_status.manifests.push(manifest);
    }

    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|o| o.applied.as_ref().err().map(|e| format!("manifest {} ({}): {e}", o.meta.ordinal, name(o))))
        .collect();
    let (applied, degraded) = if failures.is_empty() {
        let message = "Apply manifest work complete";
        (
            new_condition(conditions::WORK_APPLIED, TRUE, conditions::REASON_APPLIED_MANIFEST_WORK_COMPLETE, message),
            new_condition(conditions::WORK_DEGRADED, FALSE, conditions::REASON_APPLIED_MANIFEST_WORK_COMPLETE, message),
        )
    } else {
        let message = format!(
            "Failed to apply manifest work: {} of {} manifests failed: {}",
            failures.len(),
            outcomes.len(),
            failures.join("; ")
        );
        (
            new_condition(conditions::WORK_APPLIED, FALSE, conditions::REASON_APPLIED_MANIFEST_WORK_FAILED, &message),
            new_condition(conditions::WORK_DEGRADED, TRUE, conditions::REASON_APPLIED_MANIFEST_WORK_FAILED, message),
        )
    };
    set_condition(&mut status.conditions, at(applied));
    set_condition(&mut status.conditions, at(work_available(outcomes)));
    set_condition(&mut status.conditions, at(degraded));
    let aggregated =
        condition_rules::aggregate(status.resource_status.manifests.iter().flat_map(|m| m.conditions.iter()));
    status
        .conditions
        .retain(|c| c.reason != condition_rules::REASON_AGGREGATED || aggregated.iter().any(|a| a.type_ == c.type_));
    for condition in aggregated {
        set_condition(&mut status.conditions, at(condition));
    }
    status
}

/// The previous status of a manifest: the one with its resource meta, else the only one that
/// matches it but for the ordinal (the manifest moved in the list), as upstream merges manifest
/// conditions — so its conditions keep their transition times.
fn previous_of<'a>(previous: &'a [ManifestCondition], meta: &ManifestResourceMeta) -> Option<&'a ManifestCondition> {
    previous.iter().find(|m| m.resource_meta == *meta).or_else(|| {
        let unordered = |m: &ManifestResourceMeta| ManifestResourceMeta { ordinal: 0, ..m.clone() };
        let wanted = unordered(meta);
        if wanted == ManifestResourceMeta::default() {
            return None;
        }
        let mut same = previous.iter().filter(|m| unordered(&m.resource_meta) == wanted);
        match (same.next(), same.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    })
}

/// `Kind namespace/name` of a manifest, as far as it is known.
fn name(outcome: &ManifestOutcome) -> String {
    let meta = &outcome.meta;
    let kind = if meta.kind.is_empty() { "object" } else { &meta.kind };
    if meta.namespace.is_empty() {
        format!("{kind} {}", meta.name)
    } else {
        format!("{kind} {}/{}", meta.namespace, meta.name)
    }
}

/// A manifest's Available condition (upstream's reasons and messages).
fn available(availability: &Availability) -> Condition {
    match availability {
        Availability::Available => new_condition(
            conditions::WORK_AVAILABLE,
            TRUE,
            conditions::REASON_RESOURCE_AVAILABLE,
            "Resource is available",
        ),
        Availability::NotAvailable => new_condition(
            conditions::WORK_AVAILABLE,
            FALSE,
            conditions::REASON_RESOURCE_NOT_AVAILABLE,
            "Resource is not available",
        ),
        Availability::Unknown { reason, message } => {
            new_condition(conditions::WORK_AVAILABLE, UNKNOWN, reason, message.clone())
        }
    }
}

/// The work's Available condition, aggregated as upstream does: False if any manifest's
/// object is missing, Unknown if any is unknown (or there is none), else True.
fn work_available(outcomes: &[ManifestOutcome]) -> Condition {
    let total = outcomes.len();
    let count = |wanted: fn(&Availability) -> bool| outcomes.iter().filter(|o| wanted(&o.availability)).count();
    let missing = count(|a| *a == Availability::NotAvailable);
    let unknown = count(|a| matches!(a, Availability::Unknown { .. }));
    if missing > 0 {
        new_condition(
            conditions::WORK_AVAILABLE,
            FALSE,
            conditions::REASON_RESOURCES_NOT_AVAILABLE,
            format!("{missing} of {total} resources are not available"),
        )
    } else if unknown > 0 {
        new_condition(
            conditions::WORK_AVAILABLE,
            UNKNOWN,
            conditions::REASON_RESOURCES_STATUS_UNKNOWN,
            format!("{unknown} of {total} resources have unknown status"),
        )
    } else if total == 0 {
        new_condition(
            conditions::WORK_AVAILABLE,
            UNKNOWN,
            conditions::REASON_RESOURCES_STATUS_UNKNOWN,
            "cannot get any available resource",
        )
    } else {
        new_condition(
            conditions::WORK_AVAILABLE,
            TRUE,
            conditions::REASON_RESOURCES_AVAILABLE,
            "All resources are available",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::apply::Tracking;
    use fleetctl_api::conditions::find;

    fn outcome(ordinal: i32, kind: &str, applied: bool, availability: Availability) -> ManifestOutcome {
        ManifestOutcome {
            meta: ManifestResourceMeta {
                ordinal,
                version: "v1".into(),
                kind: kind.into(),
                name: format!("n{ordinal}"),
                namespace: "default".into(),
                ..ManifestResourceMeta::default()
            },
            applied: if applied {
                Ok(())
            } else {
                Err(ManifestError::Unresolved(fleetctl_kube::resolve::ResolveError::UnknownKind {
                    api_version: "example.com/v1".into(),
                    kind: kind.into(),
                }))
            },
            availability,
            tracking: Tracking::KeepLoose { group: String::new(), name: String::new() },
            feedback: None,
            rule_conditions: Vec::new(),
        }
    }

    fn work() -> ManifestWork {
        let mut work = ManifestWork::for_cluster("c1", "w", vec![]);
        work.metadata.generation = Some(3);
        work
    }

    #[test]
    fn a_work_that_applied_reports_applied_and_available_at_its_generation() {
        let status = build(&work(), &[outcome(0, "ConfigMap", true, Availability::Available)]);
        let applied = find(&status.conditions, conditions::WORK_APPLIED).expect("applied");
        assert_eq!((applied.status.as_str(), applied.observed_generation), (TRUE, Some(3)));
        assert!(conditions::is_true(&status.conditions, conditions::WORK_AVAILABLE));
        assert!(conditions::is_false(&status.conditions, conditions::WORK_DEGRADED));
        let manifest = &status.resource_status.manifests[0];
        assert_eq!(manifest.resource_meta.kind, "ConfigMap");
        assert!(conditions::is_true(&manifest.conditions, conditions::WORK_APPLIED));
        assert!(conditions::is_true(&manifest.conditions, conditions::WORK_AVAILABLE));
    }

    #[test]
    fn a_failed_manifest_fails_and_degrades_the_work_with_its_message() {
        let unknown = Availability::Unknown { reason: "IncompletedResourceMeta", message: "m".into() };
        let status = build(
            &work(),
            &[outcome(0, "ConfigMap", true, Availability::Available), outcome(1, "Widget", false, unknown)],
        );
        let applied = find(&status.conditions, conditions::WORK_APPLIED).expect("applied");
        assert_eq!(applied.reason, conditions::REASON_APPLIED_MANIFEST_WORK_FAILED);
        assert!(applied.message.contains("1 of 2 manifests failed"), "{}", applied.message);
        assert!(applied.message.contains("Widget default/n1"), "{}", applied.message);
        assert!(conditions::is_true(&status.conditions, conditions::WORK_DEGRADED));
        assert!(conditions::has_status(&status.conditions, conditions::WORK_AVAILABLE, UNKNOWN));
        assert!(conditions::is_false(&status.resource_status.manifests[1].conditions, conditions::WORK_APPLIED));
    }

    #[test]
    fn a_missing_object_makes_the_work_unavailable() {
        let status = build(&work(), &[outcome(0, "ConfigMap", true, Availability::NotAvailable)]);
        let available = find(&status.conditions, conditions::WORK_AVAILABLE).expect("available");
        assert_eq!((available.status.as_str(), available.reason.as_str()), (FALSE, "ResourcesNotAvailable"));
    }

    #[test]
    fn a_second_build_from_the_first_changes_nothing() {
        let outcomes = [outcome(0, "ConfigMap", true, Availability::Available)];
        let mut work = work();
        let first = build(&work, &outcomes);
        work.status = Some(first.clone());
        assert_eq!(build(&work, &outcomes), first);
    }

    #[test]
    fn new_feedback_values_move_the_synced_conditions_transition_time_as_upstreams_status_controller() {
        let replicas = |n: i64| -> fleetctl_api::work::StatusFeedbackResult {
            serde_json::from_value(serde_json::json!({"values": [
                {"name": "AvailableReplicas", "fieldValue": {"type": "Integer", "integer": n}}
            ]}))
            .expect("feedback")
        };
        let synced = new_condition("StatusFeedbackSynced", TRUE, "StatusFeedbackSynced", "");
        let with = |n: i64| {
            let mut outcome = outcome(0, "Deployment", true, Availability::Available);
            outcome.feedback = Some((replicas(n), synced.clone()));
            [outcome]
        };
        let long_ago = k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(jiff::Timestamp::UNIX_EPOCH);
        let mut work = work();
        let mut first = build(&work, &with(1));
        for condition in &mut first.resource_status.manifests[0].conditions {
            condition.last_transition_time = long_ago.clone();
        }
        work.status = Some(first);
        let transition = |status: &ManifestWorkStatus| {
            find(&status.resource_status.manifests[0].conditions, "StatusFeedbackSynced")
                .expect("synced")
                .last_transition_time
                .clone()
        };
        assert_eq!(transition(&build(&work, &with(1))), long_ago, "the same values keep it");
        assert_ne!(transition(&build(&work, &with(5))), long_ago, "new values move it");
    }

    #[test]
    fn a_manifest_moved_in_the_list_keeps_its_conditions_transition_times_as_upstreams_merge_of_manifest_conditions() {
        let long_ago = k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(jiff::Timestamp::UNIX_EPOCH);
        let mut work = work();
        let mut first = build(&work, &[outcome(0, "Deployment", true, Availability::Available)]);
        for condition in &mut first.resource_status.manifests[0].conditions {
            condition.last_transition_time = long_ago.clone();
        }
        work.status = Some(first);
        let mut moved = outcome(0, "Deployment", true, Availability::Available);
        moved.meta.ordinal = 2;
        let status = build(&work, &[outcome(5, "ServiceAccount", true, Availability::Available), moved]);
        let deployment = &status.resource_status.manifests[1];
        assert_eq!(deployment.resource_meta.ordinal, 2, "its new place");
        let applied = find(&deployment.conditions, conditions::WORK_APPLIED).expect("applied");
        assert_eq!(applied.last_transition_time, long_ago, "the same transition time");
    }
}
