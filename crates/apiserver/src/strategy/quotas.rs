//! ResourceQuotas: the checks of `ValidateResourceQuota` on `spec.hard` — names a quota
//! may limit (standard ones, or qualified with a `/`), amounts that are quantities, not
//! below zero, and whole for the names that count objects. The status is the quota
//! controller's (written through the status subresource).

use k8s_openapi::api::core::v1::ResourceQuota;
use serde_json::Value;

use super::super::quantity::Quantity;
use super::super::quota;
use super::super::status::Cause;
use super::Strategy;

/// The ResourceQuota strategy.
pub struct ResourceQuotas;

fn validate(object: &Value) -> Vec<Cause> {
    let Ok(quota) = serde_json::from_value::<ResourceQuota>(object.clone()) else { return Vec::new() };
    let hard = quota.spec.and_then(|s| s.hard).unwrap_or_default();
    let mut causes = Vec::new();
    for (name, amount) in &hard {
        let field = format!("spec.hard[{name}]");
        if !quota::is_standard(name) {
            causes.push(Cause::new(
                "FieldValueInvalid",
                field.clone(),
                format!("Invalid value: {name:?}: must be a standard resource for quota"),
            ));
        }
        let why = match Quantity::parse(&amount.0) {
            Err(e) => Some(e.to_string()),
            Ok(q) if q.is_negative() => Some("must be greater than or equal to 0".to_string()),
            Ok(q) if quota::is_integer(name) && !q.is_integer() => Some("must be an integer".to_string()),
            Ok(_) => None,
        };
        if let Some(why) = why {
            causes.push(Cause::new("FieldValueInvalid", field, format!("Invalid value: {:?}: {why}", amount.0)));
        }
    }
    causes
}

impl Strategy for ResourceQuotas {
    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        validate(object)
    }

    fn validate_update(&self, _old: &Value, new: &Value) -> Vec<Cause> {
        validate(new)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn quota(hard: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": hard}})
    }

    #[test]
    fn standard_and_qualified_names_with_whole_non_negative_amounts_are_valid() {
        let good = quota(json!({"pods": "10", "requests.cpu": "1500m", "limits.memory": "2Gi",
            "count/deployments.apps": "3", "example.com/gpu": "1"}));
        assert!(ResourceQuotas.validate_create(&good).is_empty(), "{:?}", ResourceQuotas.validate_create(&good));
    }

    /// `ValidateResourceQuotaResourceName` and `ValidateResourceQuantityValue`.
    #[test]
    fn unknown_names_negative_fractional_counts_and_non_quantities_are_invalid() {
        for (hard, message) in [
            (
                json!({"widgets": "1"}),
                r#"spec.hard[widgets] Invalid value: "widgets": must be a standard resource for quota"#,
            ),
            (json!({"pods": "-1"}), r#"spec.hard[pods] Invalid value: "-1": must be greater than or equal to 0"#),
            (json!({"pods": "1500m"}), r#"spec.hard[pods] Invalid value: "1500m": must be an integer"#),
            (
                json!({"cpu": "lots"}),
                r#"spec.hard[cpu] Invalid value: "lots": quantities must match the regular expression"#,
            ),
        ] {
            let causes = ResourceQuotas.validate_create(&quota(hard));
            assert_eq!(causes.len(), 1, "{causes:?}");
            let shown = format!("{} {}", causes[0].field, causes[0].message);
            assert!(shown.starts_with(message), "{shown}");
        }
    }
}
