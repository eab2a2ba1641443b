//! What a CRD's `openAPIV3Schema` must be before it is accepted (upstream's structural-schema
//! and CRD validation): every node typed with a known type (unless it is int-or-string or keeps
//! unknown fields), an object at the root, items for every array, list types that exist and map
//! lists with keys, patterns that compile, and `x-kubernetes-validations` rules that compile.

use serde_json::Value;

use super::super::cel::Expression;
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
    node(schema, path, &mut causes);
    causes
}

fn node(schema: &Value, path: &str, causes: &mut Vec<Cause>) {
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
        && let Err(e) = regex::Regex::new(pattern)
    {
        causes.push(Cause::new(
            "FieldValueInvalid",
            format!("{path}.pattern"),
            format!("Invalid value: {pattern:?}: {e}"),
        ));
    }
    rules(schema, path, causes);
    for (key, child) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        node(child, &format!("{path}.properties[{key}]"), causes);
    }
    if let Some(items) = schema.get("items").filter(|items| items.is_object()) {
        node(items, &format!("{path}.items"), causes);
    }
    if let Some(extra) = schema.get("additionalProperties").filter(|extra| extra.is_object()) {
        node(extra, &format!("{path}.additionalProperties"), causes);
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

fn rules(schema: &Value, path: &str, causes: &mut Vec<Cause>) {
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
            Some(source) if !source.trim().is_empty() => {
                if let Err(e) = Expression::compile(source) {
                    causes.push(Cause::new("FieldValueInvalid", field, format!("Invalid value: {source:?}: {e}")));
                }
            }
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
}
