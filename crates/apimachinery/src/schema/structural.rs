//! What a CRD's `openAPIV3Schema` must be before it is accepted (upstream's structural-schema
//! and CRD validation): every node typed with a known type (unless it is int-or-string or keeps
//! unknown fields), an object at the root, items for every array, list types that exist and map
//! lists with keys, patterns that compile, and `x-kubernetes-validations` rules that compile
//! and whose estimated cost stays within upstream's budget (see `cel::cost`).

use serde_json::Value;

use super::super::cel::cost;
use super::super::status::Cause;
use super::{INT_OR_STRING, PRESERVE_UNKNOWN, flag};

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// The problems of the schema at `path` (such as `spec.versions[0].schema.openAPIV3Schema`).
pub fn check(schema: &Value, path: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {}
        Some(_) => causes.push(Cause::new(
            "FieldValueInvalid",
            format!("{path}.type"),
            "Invalid value: must be object at the root",
        )),
        None => causes.push(Cause::new(
            "FieldValueRequired",
            format!("{path}.type"),
            "Required value: must not be empty at the root",
        )),
    }
    let mut rule_cost = 0;
    node(schema, path, Some(1), &mut Findings { causes: &mut causes, rule_cost: &mut rule_cost });
    if rule_cost > cost::SCHEMA_LIMIT {
        let what = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema";
        causes.push(forbidden(path.to_string(), cost::over_budget(what, rule_cost, cost::SCHEMA_LIMIT)));
    }
    causes
}

/// What the walk found: the schema's problems and the estimated cost of its rules so far.
struct Findings<'a> {
    causes: &'a mut Vec<Cause>,
    rule_cost: &'a mut u64,
}

fn forbidden(field: String, message: String) -> Cause {
    Cause::new("FieldValueForbidden", field, format!("Forbidden: {message}"))
}

/// Checks the node at `path`; `bounded` is how many times its rules may run in one object
/// when every list and map above it has a maximum (see `cost::cardinality`).
fn node(schema: &Value, path: &str, bounded: Option<u64>, found: &mut Findings<'_>) {
    let causes = &mut *found.causes;
    match schema.get("type") {
        Some(Value::String(kind)) if TYPES.contains(&kind.as_str()) => {}
        Some(other) => {
            let supported = TYPES.map(|t| format!("{t:?}")).join(", ");
            causes.push(Cause::new(
                "FieldValueNotSupported",
                format!("{path}.type"),
                format!("Unsupported value: {other}: supported values: {supported}"),
            ));
        }
        None if flag(schema, INT_OR_STRING) || flag(schema, PRESERVE_UNKNOWN) => {}
        None => causes.push(Cause::new(
            "FieldValueRequired",
            format!("{path}.type"),
            "Required value: must not be empty for specified object fields",
        )),
    }
    if schema.get("type").and_then(Value::as_str) == Some("array") && !schema.get("items").is_some_and(Value::is_object)
    {
        causes.push(Cause::new("FieldValueRequired", format!("{path}.items"), "Required value: must be specified"));
    }
    list_type(schema, path, causes);
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Err(e) = super::compiled_pattern(pattern)
    {
        causes.push(Cause::new(
            "FieldValueInvalid",
            format!("{path}.pattern"),
            format!("Invalid value: {pattern:?}: {e}"),
        ));
    }
    rules(schema, path, cost::cardinality(schema, bounded), found);
    for (key, child) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        node(child, &format!("{path}.properties[{key}]"), bounded, found);
    }
    let times = |limit: &str| Some(bounded?.saturating_mul(schema.get(limit)?.as_u64()?));
    if let Some(items) = schema.get("items").filter(|items| items.is_object()) {
        node(items, &format!("{path}.items"), times("maxItems"), found);
    }
    if let Some(extra) = schema.get("additionalProperties").filter(|extra| extra.is_object()) {
        node(extra, &format!("{path}.additionalProperties"), times("maxProperties"), found);
    }
}

fn list_type(schema: &Value, path: &str, causes: &mut Vec<Cause>) {
    let Some(kind) = schema.get("x-kubernetes-list-type") else { return };
    let field = format!("{path}.x-kubernetes-list-type");
    match kind.as_str() {
        Some("atomic" | "set") => {}
        Some("map") => {
            if schema.get("x-kubernetes-list-map-keys").and_then(Value::as_array).is_none_or(Vec::is_empty) {
                causes.push(Cause::new(
                    "FieldValueRequired",
                    format!("{path}.x-kubernetes-list-map-keys"),
                    "Required value: must not be empty if x-kubernetes-list-type is map",
                ));
            }
        }
        _ => causes.push(Cause::new(
            "FieldValueNotSupported",
            field,
            format!("Unsupported value: {kind}: supported values: \"atomic\", \"set\", \"map\""),
        )),
    }
}

fn rules(schema: &Value, path: &str, cardinality: u64, found: &mut Findings<'_>) {
    let causes = &mut *found.causes;
    let Some(rules) = schema.get("x-kubernetes-validations") else { return };
    let Some(rules) = rules.as_array() else {
        causes.push(Cause::new(
            "FieldValueInvalid",
            format!("{path}.x-kubernetes-validations"),
            "Invalid value: must be a list of rules",
        ));
        return;
    };
    for (i, rule) in rules.iter().enumerate() {
        let field = format!("{path}.x-kubernetes-validations[{i}].rule");
        match rule.get("rule").and_then(Value::as_str) {
            Some(source) if !source.trim().is_empty() => match super::super::cel::memoized(source) {
                Ok(expression) => {
                    let estimated = cost::estimate(expression.ast(), schema).saturating_mul(cardinality);
                    *found.rule_cost = found.rule_cost.saturating_add(estimated);
                    if estimated > cost::RULE_LIMIT {
                        let message = cost::over_budget("estimated rule cost", estimated, cost::RULE_LIMIT);
                        causes.push(forbidden(field, message));
                    }
                }
                Err(e) => {
                    causes.push(Cause::new("FieldValueInvalid", field, format!("Invalid value: {source:?}: {e}")))
                }
            },
            _ => causes.push(Cause::new("FieldValueRequired", field, "Required value")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(schema: Value) -> Vec<String> {
        check(&schema, "s").into_iter().map(|cause| cause.field).collect()
    }

    #[test]
    fn a_structural_schema_passes() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "x-kubernetes-validations": [{"rule": "self.a == 'x'"}], "properties": {
                "a": {"type": "string", "pattern": "^[a-z]+$"},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "port": {"x-kubernetes-int-or-string": true},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }},
        }});
        assert!(fields(schema).is_empty());
    }

    #[test]
    fn untyped_or_unknown_types_itemless_arrays_and_bad_list_types_are_refused() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "wobbly"},
            "b": {"properties": {"c": {"type": "string"}}},
            "d": {"type": "array"},
            "e": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "map"},
            "f": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"},
        }});
        assert_eq!(
            fields(schema),
            [
                "s.properties[a].type",
                "s.properties[b].type",
                "s.properties[d].items",
                "s.properties[e].x-kubernetes-list-map-keys",
                "s.properties[f].x-kubernetes-list-type",
            ]
        );
        assert_eq!(fields(json!({"type": "string"})), ["s.type"]);
    }

    #[test]
    fn rules_and_patterns_must_compile() {
        let schema = json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.(("}], "properties": {
            "a": {"type": "string", "pattern": "(unclosed"},
        }});
        assert_eq!(fields(schema), ["s.x-kubernetes-validations[0].rule", "s.properties[a].pattern"]);
    }

    /// apiextensions-apiserver estimates each rule's worst case times how often it may run
    /// (the lists above it) and refuses one over 10,000,000, naming the bounds to add.
    #[test]
    fn a_rule_whose_estimated_cost_passes_the_budget_is_refused_until_the_schema_bounds_it() {
        let tags = |bounds: Value| {
            let mut list = json!({"type": "array", "items": {"type": "string"},
                "x-kubernetes-validations": [{"rule": "self.all(t, self.exists(u, t.startsWith(u)))"}]});
            for (key, value) in bounds.as_object().into_iter().flatten() {
                match key.as_str() {
                    "maxLength" => list["items"][key] = value.clone(),
                    _ => list[key] = value.clone(),
                }
            }
            json!({"type": "object", "properties": {"tags": list}})
        };
        let causes = check(&tags(json!({})), "s");
        // The one rule is over the schema's budget as well.
        assert_eq!(fields(tags(json!({}))), ["s.properties[tags].x-kubernetes-validations[0].rule", "s"]);
        assert!(
            causes[0].message.starts_with("Forbidden: estimated rule cost exceeds budget by factor of more than 100x")
        );
        assert!(causes[0].message.contains("adding maxItems, maxProperties, and maxLength"));
        assert!(fields(tags(json!({"maxItems": 20, "maxLength": 63}))).is_empty());
    }

    /// Upstream OCM's ManifestWork carries a rule on the items of two unbounded lists; a
    /// real hub accepts it, since an unbounded list holds no more items than fit in a request.
    #[test]
    fn a_cheap_rule_under_unbounded_lists_passes_as_on_a_real_hub() {
        let rule = json!({"rule": "self.type != 'CEL' || self.condition != \"\""});
        let condition = json!({"type": "object", "required": ["condition", "type"], "x-kubernetes-validations": [rule],
            "properties": {"condition": {"type": "string"}, "type": {"type": "string"}}});
        let schema = json!({"type": "object", "properties": {"configs": {"type": "array", "items": {
            "type": "object", "properties": {"rules": {"type": "array", "items": condition}}}}}});
        assert!(fields(schema).is_empty());
    }

    #[test]
    fn rules_that_each_fit_the_rule_budget_must_also_fit_the_schema_budget_together() {
        // Each rule reads up to 90,000 strings of up to 1,000 bytes: just under the budget of
        // one rule; ten of them fit the schema's budget, eleven do not.
        let rule = json!({"rule": "self.all(x, x.contains('a'))"});
        let list = json!({"type": "array", "maxItems": 90000, "items": {"type": "string", "maxLength": 1000},
            "x-kubernetes-validations": [rule]});
        let properties: serde_json::Map<String, Value> = (0..11).map(|i| (format!("l{i}"), list.clone())).collect();
        let causes = check(&json!({"type": "object", "properties": properties}), "s");
        assert_eq!(causes.len(), 1, "{causes:?}");
        assert_eq!(causes[0].field, "s");
        assert!(causes[0].message.contains("estimated rule cost total for entire OpenAPIv3 schema exceeds budget"));
        let ten: serde_json::Map<String, Value> = (0..10).map(|i| (format!("l{i}"), list.clone())).collect();
        assert!(fields(json!({"type": "object", "properties": ten})).is_empty());
    }
}
