//! The addon conditions the hub decides, from its work as upstream's addon manager does:
//! `ManifestApplied` (did the work agent apply the addon's work?) and `Progressing` (is
//! the addon's current configuration still being rolled out?). `Available` and the report
//! come from the registration agent (`fleetctl_agent::registration::addons`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use fleetctl_api::ManifestWork;
use fleetctl_api::conditions::{self as c, new_condition};

/// A condition of the work that speaks of its current generation.
fn current<'a>(work: &'a ManifestWork, type_: &str) -> Option<&'a Condition> {
    let generation = work.metadata.generation;
    c::find(work.conditions(), type_).filter(|found| generation.is_none() || found.observed_generation == generation)
}

/// `ManifestApplied` and `Progressing` from the addon's work. `ManifestApplied` is left
/// alone until the work agent has spoken of the current generation.
pub fn from_work(work: &ManifestWork) -> Vec<Condition> {
    let applied = current(work, c::WORK_APPLIED);
    let available = current(work, c::WORK_AVAILABLE).is_some_and(|a| a.status == c::TRUE);
    match applied {
        Some(applied) if applied.status == c::TRUE => vec![
            new_condition(
                c::ADDON_MANIFEST_APPLIED,
                c::TRUE,
                c::REASON_ADDON_MANIFEST_APPLIED,
                "manifests of addon are applied successfully",
            ),
            if available {
                new_condition(c::ADDON_PROGRESSING, c::FALSE, c::REASON_ADDON_COMPLETED, "completed with no errors.")
            } else {
                new_condition(
                    c::ADDON_PROGRESSING,
                    c::TRUE,
                    c::REASON_ADDON_PROGRESSING,
                    "progressing... the addon's resources are not available yet",
                )
            },
        ],
        Some(failed) => vec![
            new_condition(
                c::ADDON_MANIFEST_APPLIED,
                c::FALSE,
                c::REASON_ADDON_MANIFEST_APPLIED_FAILED,
                format!("failed to apply the manifests of addon: {}", failed.message),
            ),
            new_condition(c::ADDON_PROGRESSING, c::FALSE, c::REASON_ADDON_FAILED, failed.message.clone()),
        ],
        None => vec![new_condition(
            c::ADDON_PROGRESSING,
            c::TRUE,
            c::REASON_ADDON_PROGRESSING,
            "progressing... waiting for the work agent to apply the addon's work",
        )],
    }
}

/// `ManifestApplied` False: the hub could not write the work.
pub fn work_not_written(why: &str) -> Condition {
    new_condition(
        c::ADDON_MANIFEST_APPLIED,
        c::FALSE,
        c::REASON_MANIFEST_WORK_APPLY_FAILED,
        format!("failed to apply manifestWork: {why}"),
    )
}

/// `Progressing` False: the addon's values cannot be used; what runs stays as it was.
pub fn unsupported(why: &str) -> Condition {
    new_condition(c::ADDON_PROGRESSING, c::FALSE, c::REASON_CONFIGURATION_UNSUPPORTED, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(generation: i64, conditions: &[(&str, &str, i64)]) -> ManifestWork {
        let mut work = ManifestWork::for_cluster("c", "addon-x-deploy-0", vec![]);
        work.metadata.generation = Some(generation);
        let conditions = conditions
            .iter()
            .map(|(type_, status, observed)| Condition {
                observed_generation: Some(*observed),
                message: format!("{type_} said {status}"),
                ..new_condition(type_, status, "R", "")
            })
            .collect();
        work.status = Some(fleetctl_api::ManifestWorkStatus { conditions, ..Default::default() });
        work
    }

    fn summary(conditions: &[Condition]) -> Vec<(String, String, String)> {
        conditions.iter().map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone())).collect()
    }

    fn expect(items: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
        items.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
    }

    #[test]
    fn the_work_status_says_applied_and_progressing() {
        let done = work(2, &[("Applied", "True", 2), ("Available", "True", 2)]);
        assert_eq!(
            summary(&from_work(&done)),
            expect(&[("ManifestApplied", "True", "AddonManifestApplied"), ("Progressing", "False", "Completed")])
        );
        let starting = work(2, &[("Applied", "True", 2), ("Available", "False", 2)]);
        assert_eq!(summary(&from_work(&starting))[1], expect(&[("Progressing", "True", "Progressing")])[0]);
        let failed = work(1, &[("Applied", "False", 1)]);
        let conditions = from_work(&failed);
        assert_eq!(
            summary(&conditions),
            expect(&[("ManifestApplied", "False", "AddonManifestAppliedFailed"), ("Progressing", "False", "Failed")])
        );
        assert_eq!(conditions[1].message, "Applied said False");
    }

    #[test]
    fn a_new_generation_is_progressing_until_the_agent_reports_it() {
        // The agent's conditions speak of generation 1; the work is at 2 (new values).
        let changed = work(2, &[("Applied", "True", 1), ("Available", "True", 1)]);
        assert_eq!(summary(&from_work(&changed)), expect(&[("Progressing", "True", "Progressing")]));
        assert_eq!(summary(&from_work(&work(1, &[]))), expect(&[("Progressing", "True", "Progressing")]));
    }
}
