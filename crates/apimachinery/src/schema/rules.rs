//! `x-kubernetes-validations`: CEL rules on a schema node, evaluated with `self` bound to the
//! node's value and, for transition rules (those that read `oldSelf`), `oldSelf` bound to the
//! stored value — evaluated only on an update where the old value exists, as upstream.

use serde_json::Value;

use super::super::cel::{Variables, from_json};
use super::FieldError;

const VALIDATIONS: &str = "x-kubernetes-validations";

/// One rule as the schema declares it.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    rule: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    message_expression: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    field_path: Option<String>,
}

impl Rule {
    /// Whether the rule reads `oldSelf`, which makes it a transition rule.
    fn is_transition(&self) -> bool {
        self.rule.contains("oldSelf")
    }
}

/// The rules of a schema node (none when they do not read as rules: CRD validation refuses those).
fn rules(schema: &Value) -> Vec<Rule> {
    schema
        .get(VALIDATIONS)
        .and_then(|rules| serde_json::from_value::<Vec<Rule>>(rules.clone()).ok())
        .unwrap_or_default()
}

/// The schema type upstream names as the bad value of a failed rule.
fn type_of(schema: &Value, value: &Value) -> String {
    match schema.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_owned(),
        None => match value {
            Value::Object(_) => "object".into(),
            Value::Array(_) => "array".into(),
            Value::String(_) => "string".into(),
            Value::Number(_) => "number".into(),
            Value::Bool(_) => "boolean".into(),
            Value::Null => "null".into(),
        },
    }
}

/// The failures of the rules on `schema` for `value` at `path`.
pub fn check(value: &Value, old: Option<&Value>, schema: &Value, path: &str) -> Vec<FieldError> {
    let rules = rules(schema);
    if rules.is_empty() {
        return Vec::new();
    }
    let mut variables = Variables::default();
    variables.set("self", from_json(value));
    if let Some(old) = old {
        variables.set("oldSelf", from_json(old));
    }
    let bad = type_of(schema, value);
    rules
        .iter()
        .filter(|rule| old.is_some() || !rule.is_transition())
        .filter_map(|rule| {
            let field = match rule.field_path.as_deref() {
                Some(extra) if !extra.is_empty() => format!("{path}{extra}"),
                _ => path.to_owned(),
            };
            let failure =
                |message: String| Some(FieldError { field: field.clone(), reason: "FieldValueInvalid", message });
            let expression = match super::super::cel::memoized(&rule.rule) {
                Ok(expression) => expression,
                Err(e) => return failure(format!("Invalid value: {bad:?}: {e}: {}", rule.rule)),
            };
            match expression.eval_bool(&variables) {
                Ok(true) => None,
                Ok(false) => Some(denial(rule, &variables, field.clone(), &bad)),
                Err(e) => failure(format!("Invalid value: {bad:?}: {e} evaluating rule: {}", rule.rule)),
            }
        })
        .collect()
}

/// The error of a rule that answered false: its message (static, or computed by its
/// messageExpression) under the reason it names.
fn denial(rule: &Rule, variables: &Variables, field: String, bad: &str) -> FieldError {
    let computed = rule
        .message_expression
        .as_deref()
        .and_then(|source| super::super::cel::memoized(source).ok()?.eval_string(variables).ok())
        .filter(|text| !text.trim().is_empty());
    let message = computed
        .or_else(|| rule.message.clone().filter(|m| !m.is_empty()))
        .unwrap_or_else(|| format!("failed rule: {}", rule.rule));
    let (reason, message) = match rule.reason.as_deref() {
        Some("FieldValueForbidden") => ("FieldValueForbidden", format!("Forbidden: {message}")),
        Some("FieldValueRequired") => ("FieldValueRequired", format!("Required value: {message}")),
        Some("FieldValueDuplicate") => ("FieldValueDuplicate", format!("Duplicate value: {bad:?}: {message}")),
        _ => ("FieldValueInvalid", format!("Invalid value: {bad:?}: {message}")),
    };
    FieldError { field, reason, message }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::validate;
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min must not exceed max"}],
            "properties": {
                "min": {"type": "integer"},
                "max": {"type": "integer"},
                "name": {"type": "string", "x-kubernetes-validations": [
                    {"rule": "self == oldSelf", "message": "name is immutable"},
                ]},
                "size": {"type": "integer", "x-kubernetes-validations": [
                    {"rule": "self < 10", "messageExpression": "'size ' + string(self) + ' is too big'", "reason": "FieldValueForbidden"},
                ]},
            },
        }}})
    }

    #[test]
    fn a_rule_that_answers_false_fails_with_its_message_at_its_node() {
        let errors = validate(&json!({"spec": {"min": 3, "max": 2}}), None, &schema());
        assert_eq!(
            errors,
            [FieldError {
                field: "spec".into(),
                reason: "FieldValueInvalid",
                message: "Invalid value: \"object\": min must not exceed max".into()
            }]
        );
        assert!(validate(&json!({"spec": {"min": 1, "max": 2}}), None, &schema()).is_empty());
    }

    #[test]
    fn a_message_expression_and_a_reason_shape_the_error() {
        let errors = validate(&json!({"spec": {"min": 1, "max": 2, "size": 12}}), None, &schema());
        assert_eq!(errors[0].reason, "FieldValueForbidden");
        assert_eq!(errors[0].message, "Forbidden: size 12 is too big");
    }

    #[test]
    fn transition_rules_run_only_on_updates_with_an_old_value() {
        let created = json!({"spec": {"min": 1, "max": 2, "name": "a"}});
        assert!(validate(&created, None, &schema()).is_empty());
        let renamed = json!({"spec": {"min": 1, "max": 2, "name": "b"}});
        let errors = validate(&renamed, Some(&created), &schema());
        assert_eq!(
            errors.iter().map(|e| (e.field.as_str(), e.message.as_str())).collect::<Vec<_>>(),
            [("spec.name", "Invalid value: \"string\": name is immutable")]
        );
        let unnamed = json!({"spec": {"min": 1, "max": 2}});
        assert!(validate(&renamed, Some(&unnamed), &schema()).is_empty());
    }
}
