//! PriorityClasses: `SetDefaults_PriorityClass` (preemptionPolicy `PreemptLowerPriority`) and
//! `ValidatePriorityClass`/`…Update`: user classes stay at or below 1000000000 and outside the
//! `system-` prefix, and value and preemptionPolicy never change.

use k8s_openapi::api::scheduling::v1::PriorityClass;
use serde_json::{Value, json};

use super::super::status::Cause;
use super::Strategy;

/// The PriorityClass strategy.
pub struct PriorityClasses;

/// The highest priority a user-defined class may have (`HighestUserDefinablePriority`).
const HIGHEST_USER_PRIORITY: i32 = 1_000_000_000;

/// The classes the system itself defines, which alone may use the `system-` prefix.
const SYSTEM_CLASSES: [(&str, i32); 2] =
    [("system-node-critical", 2_000_001_000), ("system-cluster-critical", 2_000_000_000)];

fn default_preemption(object: &mut Value) {
    if object.is_object() && object["preemptionPolicy"].as_str().is_none_or(str::is_empty) {
        object["preemptionPolicy"] = json!("PreemptLowerPriority");
    }
}

fn immutable(field: &str, old: &Value, new: &Value) -> Option<Cause> {
    (old[field] != new[field])
        .then(|| Cause::new("FieldValueForbidden", field, "Forbidden: may not be changed in an update."))
}

impl Strategy for PriorityClasses {
    fn prepare_create(&self, object: &mut Value) {
        default_preemption(object);
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        default_preemption(new);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        let Ok(class) = serde_json::from_value::<PriorityClass>(object.clone()) else { return Vec::new() };
        let name = class.metadata.name.as_deref().unwrap_or_default();
        let mut causes = Vec::new();
        match SYSTEM_CLASSES.iter().find(|(system, _)| *system == name) {
            Some((_, value)) if class.value != *value => causes.push(Cause::new(
                "FieldValueForbidden",
                "value",
                format!("Forbidden: {name} is a system priority class and must have the value {value}"),
            )),
            Some(_) => {}
            None if name.starts_with("system-") => causes.push(Cause::new(
                "FieldValueInvalid",
                "metadata.name",
                format!("Invalid value: {name:?}: priority class names with 'system-' prefix are reserved"),
            )),
            None if class.value > HIGHEST_USER_PRIORITY => causes.push(Cause::new(
                "FieldValueForbidden",
                "value",
                format!("Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"),
            )),
            None => {}
        }
        if let Some(policy) =
            class.preemption_policy.as_deref().filter(|p| !matches!(*p, "PreemptLowerPriority" | "Never"))
        {
            causes.push(Cause::new(
                "FieldValueNotSupported",
                "preemptionPolicy",
                format!("Unsupported value: {policy:?}: supported values: \"Never\", \"PreemptLowerPriority\""),
            ));
        }
        causes
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let mut causes = self.validate_create(new);
        causes.extend(["value", "preemptionPolicy"].into_iter().filter_map(|field| immutable(field, old, new)));
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preemption_defaults_and_value_and_policy_are_fixed_once_created() {
        let mut class = json!({"metadata": {"name": "high"}, "value": 1000});
        PriorityClasses.prepare_create(&mut class);
        assert_eq!(class["preemptionPolicy"], "PreemptLowerPriority");
        assert!(PriorityClasses.validate_create(&class).is_empty());
        let mut raised = class.clone();
        raised["value"] = json!(1001);
        raised["preemptionPolicy"] = json!("Never");
        let causes = PriorityClasses.validate_update(&class, &raised);
        assert_eq!(causes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(), ["value", "preemptionPolicy"]);
    }

    #[test]
    fn user_classes_stay_below_the_system_range_and_prefix() {
        let too_high = json!({"metadata": {"name": "vip"}, "value": 1_000_000_001});
        assert_eq!(PriorityClasses.validate_create(&too_high)[0].field, "value");
        let reserved = json!({"metadata": {"name": "system-mine"}, "value": 1});
        assert_eq!(PriorityClasses.validate_create(&reserved)[0].field, "metadata.name");
        let system = json!({"metadata": {"name": "system-node-critical"}, "value": 2_000_001_000});
        assert!(PriorityClasses.validate_create(&system).is_empty());
    }
}
