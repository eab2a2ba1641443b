//! Structural schemas of custom resources (a version's `openAPIV3Schema`): defaulting,
//! pruning of unknown fields, validation, and the list strategies used by patches.
//!
//! Schemas are read as plain JSON: a sub-schema that is absent declares nothing, so pruning
//! removes everything under it and validation checks nothing there.

use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::{Map, Value};

use super::compiled::Memo;
use super::patch::ListStrategy;

mod rules;
pub mod structural;

/// Stands in for a missing sub-schema; it declares nothing, so everything under it is unknown.
static NO_SCHEMA: Value = Value::Null;

const PRESERVE_UNKNOWN: &str = "x-kubernetes-preserve-unknown-fields";
const EMBEDDED_RESOURCE: &str = "x-kubernetes-embedded-resource";
const INT_OR_STRING: &str = "x-kubernetes-int-or-string";

/// `schema`, shared with every other holder of the same schema in this process. A fleet
/// simulator runs thousands of API servers, each serving the same Klusterlet CRD: its
/// parsed schema (~13 KB of JSON, several times that as a `Value`) is kept once.
pub fn shared(schema: &Value) -> Arc<Value> {
    static SCHEMAS: LazyLock<Memo<Value>> = LazyLock::new(Memo::new);
    SCHEMAS.get(&schema.to_string(), || schema.clone())
}

/// A schema's `pattern`, compiled once per process: when its CRD is checked, and then at
/// every write of the CRD's objects.
fn compiled_pattern(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    static COMPILED: LazyLock<Memo<Regex>> = LazyLock::new(Memo::new);
    COMPILED.try_get(pattern, Regex::new)
}

/// One validation failure, shaped like an upstream `field.Error` (a `StatusCause`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Path of the offending field, such as `spec.items[0].name` or `spec.labels[key]`.
    pub field: String,
    /// `FieldValueRequired`, `FieldValueTypeInvalid`, `FieldValueNotSupported` or
    /// `FieldValueInvalid`.
    pub reason: &'static str,
    /// The message without the field path, such as `Required value`.
    pub message: String,
}

// ---------------------------------------------------------------------------------------------
// Schema access
// ---------------------------------------------------------------------------------------------

fn flag(schema: &Value, name: &str) -> bool {
    schema.get(name).and_then(Value::as_bool) == Some(true)
}

fn property<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema.get("properties")?.get(key)
}

/// The `additionalProperties` schema, when it is a schema rather than a boolean.
fn additional_schema(schema: &Value) -> Option<&Value> {
    schema.get("additionalProperties").filter(|s| s.is_object())
}

fn items_schema(schema: &Value) -> &Value {
    schema.get("items").unwrap_or(&NO_SCHEMA)
}

// ---------------------------------------------------------------------------------------------
// Defaulting
// ---------------------------------------------------------------------------------------------

/// Fills `default` values for missing properties (and for nulls where null is not allowed),
/// recursively, including inside array items and `additionalProperties` values.
pub fn apply_defaults(object: &mut Value, schema: &Value) {
    match object {
        Value::Object(map) => default_object(map, schema),
        Value::Array(items) => {
            let item_schema = items_schema(schema);
            for item in items {
                default_slot(item, item_schema);
            }
        }
        _ => {}
    }
}

fn default_object(map: &mut Map<String, Value>, schema: &Value) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, property) in properties {
            if let Some(default) = property.get("default")
                && !map.contains_key(key)
            {
                map.insert(key.clone(), default.clone());
            }
        }
    }
    let extra = additional_schema(schema);
    // A null the schema does not allow, and that no default replaces, is dropped rather
    // than refused (upstream's `PruneNonNullableNullsWithoutDefaults`).
    map.retain(|key, value| {
        !value.is_null()
            || property(schema, key)
                .or(extra)
                .is_none_or(|property| flag(property, "nullable") || property.get("default").is_some())
    });
    for (key, value) in map.iter_mut() {
        if let Some(property) = property(schema, key).or(extra) {
            default_slot(value, property);
        }
    }
}

/// Defaults one present value: a null that the schema does not allow counts as absent
/// (as upstream), and defaults inside the value (even a just-inserted default) are filled.
fn default_slot(value: &mut Value, schema: &Value) {
    if value.is_null()
        && !flag(schema, "nullable")
        && let Some(default) = schema.get("default")
    {
        *value = default.clone();
    }
    apply_defaults(value, schema);
}

// ---------------------------------------------------------------------------------------------
// Pruning
// ---------------------------------------------------------------------------------------------

/// Removes fields the schema does not declare, unless a node preserves unknown fields
/// (`x-kubernetes-preserve-unknown-fields`), gives an `additionalProperties` schema, or is an
/// embedded resource (whose `apiVersion`, `kind` and `metadata` stay). The root is a resource:
/// its `apiVersion`, `kind` and `metadata` are never touched here (metadata is governed by
/// ObjectMeta, not by the CRD schema).
pub fn prune(object: &mut Value, schema: &Value) {
    prune_value(object, schema, true);
}

fn prune_value(value: &mut Value, schema: &Value, resource_root: bool) {
    match value {
        Value::Object(map) => prune_object(map, schema, resource_root),
        Value::Array(items) => {
            let item_schema = items_schema(schema);
            for item in items {
                prune_value(item, item_schema, false);
            }
        }
        _ => {}
    }
}

fn prune_object(map: &mut Map<String, Value>, schema: &Value, resource_root: bool) {
    let embedded = resource_root || flag(schema, EMBEDDED_RESOURCE);
    let preserve = flag(schema, PRESERVE_UNKNOWN);
    let extra = schema.get("additionalProperties");
    map.retain(|key, value| {
        if embedded && is_resource_meta(key, value, resource_root) {
            return true;
        }
        if let Some(property) = property(schema, key) {
            prune_value(value, property, false);
            return true;
        }
        match extra {
            Some(extra @ Value::Object(_)) => {
                prune_value(value, extra, false);
                true
            }
            // Unknown fields under a preserving node are kept whole, without descending:
            // nothing describes their contents.
            Some(Value::Bool(true)) => true,
            _ => preserve,
        }
    });
}

/// `metadata` always, and `apiVersion`/`kind` when they are strings (at the root: always).
fn is_resource_meta(key: &str, value: &Value, resource_root: bool) -> bool {
    match key {
        "metadata" => true,
        "apiVersion" | "kind" => resource_root || value.is_string(),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/// Validates an object (already defaulted and pruned) against its schema; the root
/// `apiVersion`, `kind` and `metadata` are left to the generic object checks. `old` is the stored
/// object on an update, for the transition rules (`oldSelf`) of `x-kubernetes-validations`.
pub fn validate(object: &Value, old: Option<&Value>, schema: &Value) -> Vec<FieldError> {
    let mut validator = Validator { errors: Vec::new() };
    validator.value(object, old, schema, "", true);
    validator.errors
}

struct Validator {
    errors: Vec<FieldError>,
}

impl Validator {
    fn value(&mut self, value: &Value, old: Option<&Value>, schema: &Value, path: &str, root: bool) {
        if value.is_null() {
            self.null(schema, path);
            return;
        }
        if let Some(expected) = expected_type(schema)
            && !conforms(value, expected)
        {
            self.type_error(path, expected, type_name(value));
            // Further checks would only restate the same problem.
            return;
        }
        self.enumeration(value, schema, path);
        match value {
            Value::Number(_) => self.bounds(value, schema, path),
            Value::String(s) => {
                self.length(value, s, schema, path);
                self.pattern(value, s, schema, path);
            }
            Value::Array(items) => self.array(items, old, schema, path),
            Value::Object(map) => self.object(map, old, schema, path, root),
            _ => {}
        }
        self.errors.extend(rules::check(value, old, schema, path));
    }

    /// A null is fine when nullable, or when a default exists (defaulting replaces it), or
    /// when the schema declares no type at all.
    fn null(&mut self, schema: &Value, path: &str) {
        if flag(schema, "nullable") || schema.get("default").is_some() {
            return;
        }
        if let Some(expected) = expected_type(schema) {
            self.type_error(path, expected, "null");
        }
    }

    fn type_error(&mut self, path: &str, expected: &str, actual: &str) {
        self.errors.push(FieldError {
            field: path.to_owned(),
            reason: "FieldValueTypeInvalid",
            message: format!(
                "Invalid value: \"{actual}\": {path} in body must be of type {expected}: \
                 \"{actual}\""
            ),
        });
    }

    /// An upstream `field.Invalid` with a kube-openapi style detail.
    fn invalid(&mut self, path: &str, bad: &Value, detail: String) {
        self.errors.push(FieldError {
            field: path.to_owned(),
            reason: "FieldValueInvalid",
            message: format!("Invalid value: {bad}: {detail}"),
        });
    }

    fn enumeration(&mut self, value: &Value, schema: &Value, path: &str) {
        let Some(allowed) = schema.get("enum").and_then(Value::as_array) else {
            return;
        };
        if allowed.iter().any(|a| same_value(a, value)) {
            return;
        }
        let supported: Vec<String> = allowed.iter().map(quoted_text).collect();
        self.errors.push(FieldError {
            field: path.to_owned(),
            reason: "FieldValueNotSupported",
            message: format!("Unsupported value: {value}: supported values: {}", supported.join(", ")),
        });
    }

    fn bounds(&mut self, value: &Value, schema: &Value, path: &str) {
        let Some(n) = value.as_f64() else { return };
        if let Some(min) = schema.get("minimum")
            && let Some(m) = min.as_f64()
        {
            let exclusive = flag(schema, "exclusiveMinimum");
            if n < m || (exclusive && n <= m) {
                let relation = if exclusive { "" } else { " or equal to" };
                let detail = format!("{path} in body should be greater than{relation} {min}");
                self.invalid(path, value, detail);
            }
        }
        if let Some(max) = schema.get("maximum")
            && let Some(m) = max.as_f64()
        {
            let exclusive = flag(schema, "exclusiveMaximum");
            if n > m || (exclusive && n >= m) {
                let relation = if exclusive { "" } else { " or equal to" };
                let detail = format!("{path} in body should be less than{relation} {max}");
                self.invalid(path, value, detail);
            }
        }
    }

    /// Lengths count characters, not bytes, as upstream does.
    fn length(&mut self, value: &Value, s: &str, schema: &Value, path: &str) {
        let count = s.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && count < min
        {
            let detail = format!("{path} in body should be at least {min} chars long");
            self.invalid(path, value, detail);
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && count > max
        {
            let detail = format!("{path} in body should be at most {max} chars long");
            self.invalid(path, value, detail);
        }
    }

    /// `pattern` is an ECMA-262 expression in the schema; the RE2 subset CRDs use reads the same
    /// in Rust's regex syntax. A pattern that does not compile was refused with its CRD.
    fn pattern(&mut self, value: &Value, s: &str, schema: &Value, path: &str) {
        let Some(pattern) = schema.get("pattern").and_then(Value::as_str) else { return };
        if compiled_pattern(pattern).is_ok_and(|re| !re.is_match(s)) {
            self.invalid(path, value, format!("{path} in body should match '{pattern}'"));
        }
    }

    /// Items of a `set` list are unique, as are the key values of a `map` list's items.
    fn uniqueness(&mut self, items: &[Value], schema: &Value, path: &str) {
        let identity = |item: &Value| -> Option<Value> {
            match strategy_of(schema) {
                ListStrategy::Set => Some(item.clone()),
                ListStrategy::Map(keys) => {
                    Some(Value::Object(keys.iter().filter_map(|k| Some((k.clone(), item.get(k)?.clone()))).collect()))
                }
                ListStrategy::Atomic => None,
            }
        };
        let mut seen = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(id) = identity(item) else { return };
            if seen.contains(&id) {
                self.errors.push(FieldError {
                    field: format!("{path}[{i}]"),
                    reason: "FieldValueDuplicate",
                    message: format!("Duplicate value: {id}"),
                });
            } else {
                seen.push(id);
            }
        }
    }

    /// Upstream reports the item count, not the list, as the bad value of a size error.
    fn array(&mut self, items: &[Value], old: Option<&Value>, schema: &Value, path: &str) {
        let count = items.len() as u64;
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && count < min
        {
            let detail = format!("{path} in body should have at least {min} items");
            self.invalid(path, &Value::from(count), detail);
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && count > max
        {
            let detail = format!("{path} in body should have at most {max} items");
            self.invalid(path, &Value::from(count), detail);
        }
        self.uniqueness(items, schema, path);
        let item_schema = items_schema(schema);
        for (i, item) in items.iter().enumerate() {
            // Transition rules see the old item of a map list by its keys, of other lists by position.
            let old_item = old.and_then(Value::as_array).and_then(|old_items| match strategy_of(schema) {
                ListStrategy::Map(keys) => old_items.iter().find(|o| keys.iter().all(|k| o.get(k) == item.get(k))),
                _ => old_items.get(i),
            });
            self.value(item, old_item, item_schema, &format!("{path}[{i}]"), false);
        }
    }

    fn object(&mut self, map: &Map<String, Value>, old: Option<&Value>, schema: &Value, path: &str, root: bool) {
        let skipped = |key: &str| root && matches!(key, "apiVersion" | "kind" | "metadata");
        let required = schema.get("required").and_then(Value::as_array);
        for name in required.into_iter().flatten().filter_map(Value::as_str) {
            if !skipped(name) && !map.contains_key(name) {
                self.errors.push(FieldError {
                    field: child(path, name),
                    reason: "FieldValueRequired",
                    message: "Required value".to_owned(),
                });
            }
        }
        for (key, value) in map.iter().filter(|(key, _)| !skipped(key)) {
            let old_value = old.and_then(|old| old.get(key));
            if let Some(property) = property(schema, key) {
                self.value(value, old_value, property, &child(path, key), false);
                continue;
            }
            match schema.get("additionalProperties") {
                Some(extra @ Value::Object(_)) => {
                    self.value(value, old_value, extra, &format!("{path}[{key}]"), false);
                }
                Some(Value::Bool(false)) => {
                    let detail = format!("{} in body is a forbidden property", child(path, key));
                    self.invalid(path, &Value::from(key.as_str()), detail);
                }
                _ => {}
            }
        }
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

/// The type a value must have, as named in messages; `None` when the schema leaves it open.
fn expected_type(schema: &Value) -> Option<&str> {
    if flag(schema, INT_OR_STRING) {
        return Some("integer,string");
    }
    schema.get("type").and_then(Value::as_str)
}

fn conforms(value: &Value, expected: &str) -> bool {
    match expected {
        "integer,string" => is_integer(value) || value.is_string(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => is_integer(value),
        "number" => value.is_number(),
        // Unknown type names are refused when the CRD is created; nothing to check here.
        _ => true,
    }
}

/// Whole numbers written with a fraction (`3.0`) are integers, as upstream decodes them.
fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) if n.is_f64() => n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Number(_) => true,
        _ => false,
    }
}

/// The JSON type of a value as kube-openapi names it in messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Equality where `1` and `1.0` are the same number.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// An enum value quoted for a message: strings as they are, others in JSON form.
fn quoted_text(value: &Value) -> String {
    match value {
        Value::String(_) => value.to_string(),
        other => Value::String(other.to_string()).to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// List strategies
// ---------------------------------------------------------------------------------------------

/// The merge strategy of the list at a dotted field path (list positions left out), from
/// `x-kubernetes-list-type` and `x-kubernetes-list-map-keys`; `Atomic` when undescribed.
pub fn list_strategy(schema: &Value, path: &str) -> ListStrategy {
    let node = path.split('.').filter(|field| !field.is_empty()).try_fold(schema, |node, field| {
        let node = through_lists(node);
        property(node, field).or_else(|| additional_schema(node))
    });
    node.map_or(ListStrategy::Atomic, strategy_of)
}

/// The element schema under any number of nested lists, since paths omit list positions.
fn through_lists(mut node: &Value) -> &Value {
    while let Some(items) = node.get("items").filter(|items| items.is_object()) {
        node = items;
    }
    node
}

fn strategy_of(node: &Value) -> ListStrategy {
    match node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => ListStrategy::Set,
        Some("map") => {
            let keys: Vec<String> = node
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            // A map list without keys cannot be merged by key; replacing it is the safe reading.
            if keys.is_empty() { ListStrategy::Atomic } else { ListStrategy::Map(keys) }
        }
        _ => ListStrategy::Atomic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(field: &str, reason: &'static str, message: &str) -> FieldError {
        FieldError { field: field.to_owned(), reason, message: message.to_owned() }
    }

    #[test]
    fn equal_schemas_are_kept_once_in_a_process() {
        let schema =
            |field: &str| json!({"type": "object", "properties": {field: {"type": "string", "pattern": "^a"}}});
        let (first, again, other) = (shared(&schema("x")), shared(&schema("x")), shared(&schema("y")));
        assert!(Arc::ptr_eq(&first, &again));
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(*other, schema("y"));
    }

    /// Validates `spec` against a schema whose `spec` property is `spec_schema`.
    fn check_spec(spec_schema: Value, spec: Value) -> Vec<FieldError> {
        let schema = json!({"type": "object", "properties": {"spec": spec_schema}});
        validate(&json!({"spec": spec}), None, &schema)
    }

    fn check_field(field_schema: Value, value: Value) -> Vec<FieldError> {
        check_spec(json!({"type": "object", "properties": {"f": field_schema}}), json!({"f": value}))
    }

    // --- defaulting -------------------------------------------------------------------------

    #[test]
    fn defaults_fill_missing_properties_recursively() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "default": {},
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "default": "fast"},
                "tls": {"type": "object", "default": {"enabled": true},
                        "properties": {"enabled": {"type": "boolean"},
                                       "port": {"type": "integer", "default": 443}}}
            }
        }}});
        let mut obj = json!({"apiVersion": "x/v1", "kind": "K"});
        apply_defaults(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"apiVersion": "x/v1", "kind": "K", "spec": {
                "replicas": 1, "mode": "fast", "tls": {"enabled": true, "port": 443}}})
        );

        let mut obj = json!({"spec": {"replicas": 5, "tls": {"enabled": false}}});
        apply_defaults(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"spec": {"replicas": 5, "mode": "fast",
                            "tls": {"enabled": false, "port": 443}}})
        );
    }

    #[test]
    fn defaults_replace_nulls_unless_nullable_and_other_non_nullable_nulls_are_pruned() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"type": "string", "default": "y", "nullable": true},
            "c": {"type": "string"},
            "d": {"type": "string", "nullable": true}
        }, "additionalProperties": false});
        let mut obj = json!({"a": null, "b": null, "c": null, "d": null, "e": null});
        apply_defaults(&mut obj, &schema);
        assert_eq!(obj, json!({"a": "x", "b": null, "d": null, "e": null}));
    }

    #[test]
    fn defaults_inside_array_items_and_map_values() {
        let schema = json!({"type": "object", "properties": {
            "ports": {"type": "array", "items": {
                "type": "object", "default": {"port": 80},
                "properties": {"port": {"type": "integer"},
                               "protocol": {"type": "string", "default": "TCP"}}}},
            "limits": {"type": "object", "additionalProperties": {
                "type": "object",
                "properties": {"unit": {"type": "string", "default": "Mi"}}}}
        }});
        let mut obj = json!({
            "ports": [{"port": 8080}, {"port": 53, "protocol": "UDP"}, null],
            "limits": {"memory": {"value": 3}, "cpu": {"unit": "m"}}
        });
        apply_defaults(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({
                "ports": [{"port": 8080, "protocol": "TCP"},
                          {"port": 53, "protocol": "UDP"},
                          {"port": 80, "protocol": "TCP"}],
                "limits": {"memory": {"value": 3, "unit": "Mi"}, "cpu": {"unit": "m"}}
            })
        );
    }

    #[test]
    fn defaults_leave_scalars_and_undeclared_fields_alone() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "integer", "default": 1}}}
        }});
        let mut obj = json!({"spec": "oops", "other": {"a": null}});
        apply_defaults(&mut obj, &schema);
        assert_eq!(obj, json!({"spec": "oops", "other": {"a": null}}));
    }

    // --- pruning ----------------------------------------------------------------------------

    #[test]
    fn prune_keeps_resource_fields_at_the_root() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"}}}
        }});
        let mut obj = json!({
            "apiVersion": "x/v1", "kind": "K",
            "metadata": {"name": "n", "unknownMeta": 1},
            "spec": {"a": "1", "b": 2},
            "status": {"ready": true},
            "extra": 1
        });
        prune(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"apiVersion": "x/v1", "kind": "K",
                   "metadata": {"name": "n", "unknownMeta": 1}, "spec": {"a": "1"}})
        );
    }

    #[test]
    fn prune_with_preserve_unknown_fields_at_the_root() {
        let schema = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"spec": {"type": "object",
                                    "properties": {"a": {"type": "string"}}}}});
        let mut obj = json!({"spec": {"a": "1", "b": 2}, "extra": {"deep": {"x": 1}}});
        prune(&mut obj, &schema);
        // Declared fields are still pruned by their own schema; unknown ones are kept whole.
        assert_eq!(obj, json!({"spec": {"a": "1"}, "extra": {"deep": {"x": 1}}}));
    }

    #[test]
    fn prune_with_preserve_unknown_fields_at_several_depths() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {
                "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "template": {"type": "object", "properties": {
                    "values": {"type": "object",
                               "x-kubernetes-preserve-unknown-fields": true,
                               "properties": {"strict": {"type": "object",
                                   "properties": {"k": {"type": "string"}}}}},
                    "name": {"type": "string"}
                }}
            }
        }}});
        let mut obj = json!({"spec": {
            "config": {"any": {"thing": [1, {"x": 2}]}},
            "template": {
                "name": "t",
                "drop": 1,
                "values": {"free": {"x": 1}, "strict": {"k": "v", "gone": 2}}
            },
            "gone": true
        }});
        prune(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"spec": {
                "config": {"any": {"thing": [1, {"x": 2}]}},
                "template": {"name": "t",
                             "values": {"free": {"x": 1}, "strict": {"k": "v"}}}
            }})
        );
    }

    #[test]
    fn prune_array_items() {
        let schema = json!({"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "object",
                                                "properties": {"a": {"type": "integer"}}}},
            "untyped": {"type": "array"},
            "nested": {"type": "array", "items": {"type": "array", "items": {
                "type": "object", "properties": {"b": {"type": "integer"}}}}}
        }});
        let mut obj = json!({
            "list": [{"a": 1, "x": 2}, {"y": 3}, 4],
            "untyped": [{"z": 1}, "s"],
            "nested": [[{"b": 1, "c": 2}]]
        });
        prune(&mut obj, &schema);
        assert_eq!(obj, json!({"list": [{"a": 1}, {}, 4], "untyped": [{}, "s"], "nested": [[{"b": 1}]]}));
    }

    #[test]
    fn prune_additional_properties() {
        let schema = json!({"type": "object", "properties": {
            "byName": {"type": "object", "additionalProperties": {
                "type": "object", "properties": {"v": {"type": "string"}}}},
            "free": {"type": "object", "additionalProperties": true},
            "closed": {"type": "object", "additionalProperties": false,
                       "properties": {"k": {"type": "string"}}}
        }});
        let mut obj = json!({
            "byName": {"one": {"v": "1", "w": 2}, "two": {}},
            "free": {"any": {"x": 1}},
            "closed": {"k": "v", "other": 1}
        });
        prune(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"byName": {"one": {"v": "1"}, "two": {}},
                   "free": {"any": {"x": 1}},
                   "closed": {"k": "v"}})
        );
    }

    #[test]
    fn prune_embedded_resources() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {
                "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                             "properties": {"spec": {"type": "object",
                                 "properties": {"a": {"type": "string"}}}}},
                "raw": {"type": "object", "x-kubernetes-embedded-resource": true,
                        "x-kubernetes-preserve-unknown-fields": true}
            }
        }}});
        let mut obj = json!({"spec": {
            "template": {"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": "p", "labels": {"a": "b"}},
                         "spec": {"a": "x", "b": "y"}, "status": {}},
            "raw": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}
        }});
        prune(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"spec": {
                "template": {"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": "p", "labels": {"a": "b"}},
                             "spec": {"a": "x"}},
                "raw": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}
            }})
        );
    }

    #[test]
    fn prune_embedded_non_string_kind_but_not_at_root() {
        let schema = json!({"type": "object", "properties": {
            "inner": {"type": "object", "x-kubernetes-embedded-resource": true}
        }});
        let mut obj = json!({"kind": 1, "inner": {"kind": 2, "apiVersion": "v1"}});
        prune(&mut obj, &schema);
        assert_eq!(obj, json!({"kind": 1, "inner": {"apiVersion": "v1"}}));
    }

    #[test]
    fn prune_with_empty_schema_keeps_only_resource_fields() {
        let mut obj = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {}, "spec": {}});
        prune(&mut obj, &json!({}));
        assert_eq!(obj, json!({"apiVersion": "a/v1", "kind": "K", "metadata": {}}));
    }

    // --- validation -------------------------------------------------------------------------

    #[test]
    fn strings_match_their_pattern() {
        let schema = json!({"type": "string", "pattern": "^[a-z]+$"});
        assert_eq!(check_field(schema.clone(), json!("abc")), vec![]);
        assert_eq!(
            check_field(schema, json!("ABC")),
            vec![err("spec.f", "FieldValueInvalid", "Invalid value: \"ABC\": spec.f in body should match '^[a-z]+$'")]
        );
    }

    #[test]
    fn set_items_and_map_keys_are_unique() {
        let set = json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}});
        assert_eq!(check_field(set.clone(), json!(["a", "b"])), vec![]);
        assert_eq!(
            check_field(set, json!(["a", "b", "a"])),
            vec![err("spec.f[2]", "FieldValueDuplicate", "Duplicate value: \"a\"")]
        );
        let map = json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}});
        assert_eq!(
            check_field(map, json!([{"name": "x", "v": 1}, {"name": "x", "v": 2}])),
            vec![err("spec.f[1]", "FieldValueDuplicate", "Duplicate value: {\"name\":\"x\"}")]
        );
    }

    #[test]
    fn valid_object_has_no_errors() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {
            "spec": {"type": "object", "required": ["replicas"], "properties": {
                "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
                "ratio": {"type": "number"},
                "name": {"type": "string", "minLength": 1},
                "on": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }}
        }});
        let obj = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "x"},
            "spec": {"replicas": 3, "ratio": 2, "name": "n", "on": true, "tags": ["a"]}});
        assert_eq!(validate(&obj, None, &schema), vec![]);
    }

    #[test]
    fn type_errors() {
        let cases = [
            ("integer", json!("3"), "string"),
            ("integer", json!(1.5), "number"),
            ("number", json!(true), "boolean"),
            ("string", json!(3), "integer"),
            ("boolean", json!("true"), "string"),
            ("object", json!([]), "array"),
            ("array", json!({}), "object"),
        ];
        for (expected, value, actual) in cases {
            assert_eq!(
                check_field(json!({"type": expected}), value),
                vec![err(
                    "spec.f",
                    "FieldValueTypeInvalid",
                    &format!(
                        "Invalid value: \"{actual}\": spec.f in body must be of type \
                         {expected}: \"{actual}\""
                    )
                )]
            );
        }
    }

    #[test]
    fn integer_accepts_whole_numbers_and_number_accepts_integers() {
        assert_eq!(check_field(json!({"type": "integer"}), json!(3.0)), vec![]);
        assert_eq!(check_field(json!({"type": "integer"}), json!(-7)), vec![]);
        assert_eq!(check_field(json!({"type": "number"}), json!(3)), vec![]);
        assert_eq!(check_field(json!({"type": "number"}), json!(0.25)), vec![]);
    }

    #[test]
    fn replicas_type_error_message_matches_upstream() {
        let errors = check_spec(
            json!({"type": "object", "properties": {"replicas": {"type": "integer"}}}),
            json!({"replicas": "two"}),
        );
        assert_eq!(
            errors,
            vec![err(
                "spec.replicas",
                "FieldValueTypeInvalid",
                "Invalid value: \"string\": spec.replicas in body must be of type integer: \
                 \"string\""
            )]
        );
    }

    #[test]
    fn nulls() {
        assert_eq!(
            check_field(json!({"type": "string"}), Value::Null),
            vec![err(
                "spec.f",
                "FieldValueTypeInvalid",
                "Invalid value: \"null\": spec.f in body must be of type string: \"null\""
            )]
        );
        let nullable = json!({"type": "string", "nullable": true, "minLength": 3});
        assert_eq!(check_field(nullable, Value::Null), vec![]);
        let defaulted = json!({"type": "string", "default": "x"});
        assert_eq!(check_field(defaulted, Value::Null), vec![]);
        let untyped = json!({"x-kubernetes-preserve-unknown-fields": true});
        assert_eq!(check_field(untyped, Value::Null), vec![]);
    }

    #[test]
    fn int_or_string() {
        let schema = json!({"x-kubernetes-int-or-string": true});
        assert_eq!(check_field(schema.clone(), json!(8080)), vec![]);
        assert_eq!(check_field(schema.clone(), json!("http")), vec![]);
        assert_eq!(
            check_field(schema.clone(), json!(true)),
            vec![err(
                "spec.f",
                "FieldValueTypeInvalid",
                "Invalid value: \"boolean\": spec.f in body must be of type integer,string: \
                 \"boolean\""
            )]
        );
        assert_eq!(
            check_field(schema, json!(1.5)),
            vec![err(
                "spec.f",
                "FieldValueTypeInvalid",
                "Invalid value: \"number\": spec.f in body must be of type integer,string: \
                 \"number\""
            )]
        );
        let bounded = json!({"x-kubernetes-int-or-string": true, "maximum": 10, "maxLength": 2});
        assert_eq!(
            check_field(bounded.clone(), json!(11)),
            vec![err(
                "spec.f",
                "FieldValueInvalid",
                "Invalid value: 11: spec.f in body should be less than or equal to 10"
            )]
        );
        assert_eq!(
            check_field(bounded, json!("abc")),
            vec![err(
                "spec.f",
                "FieldValueInvalid",
                "Invalid value: \"abc\": spec.f in body should be at most 2 chars long"
            )]
        );
    }

    #[test]
    fn required_fields() {
        let schema = json!({"type": "object", "required": ["spec", "apiVersion", "metadata"],
            "properties": {"spec": {"type": "object", "required": ["a", "b"],
                "properties": {"a": {"type": "string"}, "b": {"type": "string", "nullable": true}}}}});
        assert_eq!(validate(&json!({}), None, &schema), vec![err("spec", "FieldValueRequired", "Required value")]);
        assert_eq!(
            validate(&json!({"spec": {"b": null}}), None, &schema),
            vec![err("spec.a", "FieldValueRequired", "Required value")]
        );
    }

    #[test]
    fn enum_values() {
        let schema = json!({"type": "string", "enum": ["red", "green"]});
        assert_eq!(check_field(schema.clone(), json!("red")), vec![]);
        assert_eq!(
            check_field(schema, json!("purple")),
            vec![err(
                "spec.f",
                "FieldValueNotSupported",
                "Unsupported value: \"purple\": supported values: \"red\", \"green\""
            )]
        );
        let numbers = json!({"type": "integer", "enum": [1, 2]});
        assert_eq!(check_field(numbers.clone(), json!(2.0)), vec![]);
        assert_eq!(
            check_field(numbers, json!(3)),
            vec![err("spec.f", "FieldValueNotSupported", "Unsupported value: 3: supported values: \"1\", \"2\"")]
        );
    }

    #[test]
    fn numeric_bounds() {
        let inclusive = json!({"type": "integer", "minimum": 1, "maximum": 5});
        assert_eq!(check_field(inclusive.clone(), json!(1)), vec![]);
        assert_eq!(check_field(inclusive.clone(), json!(5)), vec![]);
        assert_eq!(
            check_field(inclusive.clone(), json!(0)),
            vec![err(
                "spec.f",
                "FieldValueInvalid",
                "Invalid value: 0: spec.f in body should be greater than or equal to 1"
            )]
        );
        assert_eq!(
            check_field(inclusive, json!(6)),
            vec![err(
                "spec.f",
                "FieldValueInvalid",
                "Invalid value: 6: spec.f in body should be less than or equal to 5"
            )]
        );
        let exclusive = json!({"type": "number", "minimum": 1, "maximum": 2.5,
                               "exclusiveMinimum": true, "exclusiveMaximum": true});
        assert_eq!(check_field(exclusive.clone(), json!(1.5)), vec![]);
        assert_eq!(
            check_field(exclusive.clone(), json!(1)),
            vec![err("spec.f", "FieldValueInvalid", "Invalid value: 1: spec.f in body should be greater than 1")]
        );
        assert_eq!(
            check_field(exclusive, json!(2.5)),
            vec![err("spec.f", "FieldValueInvalid", "Invalid value: 2.5: spec.f in body should be less than 2.5")]
        );
    }

    #[test]
    fn string_lengths_count_characters() {
        let schema = json!({"type": "string", "minLength": 2, "maxLength": 3});
        assert_eq!(check_field(schema.clone(), json!("ééé")), vec![]);
        assert_eq!(
            check_field(schema.clone(), json!("a")),
            vec![err(
                "spec.f",
                "FieldValueInvalid",
                "Invalid value: \"a\": spec.f in body should be at least 2 chars long"
            )]
        );
        assert_eq!(
            check_field(schema, json!("abcd")),
            vec![err(
                "spec.f",
                "FieldValueInvalid",
                "Invalid value: \"abcd\": spec.f in body should be at most 3 chars long"
            )]
        );
    }

    #[test]
    fn array_sizes() {
        let schema = json!({"type": "array", "minItems": 1, "maxItems": 2});
        assert_eq!(check_field(schema.clone(), json!([1, 2])), vec![]);
        assert_eq!(
            check_field(schema.clone(), json!([])),
            vec![err("spec.f", "FieldValueInvalid", "Invalid value: 0: spec.f in body should have at least 1 items")]
        );
        assert_eq!(
            check_field(schema, json!([1, 2, 3])),
            vec![err("spec.f", "FieldValueInvalid", "Invalid value: 3: spec.f in body should have at most 2 items")]
        );
    }

    #[test]
    fn array_item_paths() {
        let errors = check_spec(
            json!({"type": "object", "properties": {"items": {"type": "array", "items": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}}}}}}),
            json!({"items": [{"name": "ok"}, {"name": 5}, {}]}),
        );
        assert_eq!(
            errors,
            vec![
                err(
                    "spec.items[1].name",
                    "FieldValueTypeInvalid",
                    "Invalid value: \"integer\": spec.items[1].name in body must be of type \
                     string: \"integer\""
                ),
                err("spec.items[2].name", "FieldValueRequired", "Required value"),
            ]
        );
    }

    #[test]
    fn additional_properties_paths() {
        let errors = check_spec(
            json!({"type": "object", "properties": {"labels": {"type": "object",
                "additionalProperties": {"type": "string", "maxLength": 2}}}}),
            json!({"labels": {"a": "ok", "key": 7, "long": "abc"}}),
        );
        assert_eq!(
            errors,
            vec![
                err(
                    "spec.labels[key]",
                    "FieldValueTypeInvalid",
                    "Invalid value: \"integer\": spec.labels[key] in body must be of type \
                     string: \"integer\""
                ),
                err(
                    "spec.labels[long]",
                    "FieldValueInvalid",
                    "Invalid value: \"abc\": spec.labels[long] in body should be at most 2 \
                     chars long"
                ),
            ]
        );
    }

    #[test]
    fn additional_properties_false_forbids_unknown_fields() {
        let errors = check_spec(
            json!({"type": "object", "additionalProperties": false,
                   "properties": {"a": {"type": "string"}}}),
            json!({"a": "x", "b": 1}),
        );
        assert_eq!(
            errors,
            vec![err("spec", "FieldValueInvalid", "Invalid value: \"b\": spec.b in body is a forbidden property")]
        );
        let open = json!({"type": "object", "additionalProperties": true});
        assert_eq!(check_spec(open, json!({"b": 1})), vec![]);
    }

    #[test]
    fn validation_ignores_root_resource_fields() {
        let schema = json!({"type": "object", "properties": {
            "apiVersion": {"type": "integer"},
            "kind": {"type": "integer"},
            "metadata": {"type": "object", "properties": {"name": {"type": "string",
                                                                   "maxLength": 1}}}
        }});
        let obj = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "long"}});
        assert_eq!(validate(&obj, None, &schema), vec![]);
    }

    #[test]
    fn nested_type_error_stops_deeper_checks() {
        let errors = check_spec(
            json!({"type": "object", "properties": {"a": {"type": "object",
                "required": ["x"], "properties": {"x": {"type": "string"}}}}}),
            json!({"a": "nope"}),
        );
        assert_eq!(
            errors,
            vec![err(
                "spec.a",
                "FieldValueTypeInvalid",
                "Invalid value: \"string\": spec.a in body must be of type object: \"string\""
            )]
        );
    }

    // --- list strategies --------------------------------------------------------------------

    fn strategy_schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["port", "protocol"],
                      "items": {"type": "object", "properties": {
                          "port": {"type": "integer"},
                          "hosts": {"type": "array", "x-kubernetes-list-type": "set",
                                    "items": {"type": "string"}}}}},
            "finalizers": {"type": "array", "x-kubernetes-list-type": "set",
                           "items": {"type": "string"}},
            "args": {"type": "array", "x-kubernetes-list-type": "atomic",
                     "items": {"type": "string"}},
            "plain": {"type": "array", "items": {"type": "string"}},
            "keyless": {"type": "array", "x-kubernetes-list-type": "map",
                        "items": {"type": "object"}},
            "matrix": {"type": "array", "items": {"type": "array", "items": {
                "type": "object", "properties": {"tags": {"type": "array",
                    "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}},
            "groups": {"type": "object", "additionalProperties": {"type": "object",
                "properties": {"members": {"type": "array",
                    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object"}}}}}
        }}}})
    }

    #[test]
    fn list_strategies() {
        let s = strategy_schema();
        assert_eq!(list_strategy(&s, "spec.ports"), ListStrategy::Map(vec!["port".to_owned(), "protocol".to_owned()]));
        assert_eq!(list_strategy(&s, "spec.ports.hosts"), ListStrategy::Set);
        assert_eq!(list_strategy(&s, "spec.finalizers"), ListStrategy::Set);
        assert_eq!(list_strategy(&s, "spec.args"), ListStrategy::Atomic);
        assert_eq!(list_strategy(&s, "spec.plain"), ListStrategy::Atomic);
        assert_eq!(list_strategy(&s, "spec.keyless"), ListStrategy::Atomic);
        assert_eq!(list_strategy(&s, "spec.matrix.tags"), ListStrategy::Set);
        assert_eq!(list_strategy(&s, "spec.groups.admins.members"), ListStrategy::Map(vec!["name".to_owned()]));
        assert_eq!(list_strategy(&s, "spec.unknown"), ListStrategy::Atomic);
        assert_eq!(list_strategy(&s, "spec.ports.port.deeper"), ListStrategy::Atomic);
        assert_eq!(list_strategy(&s, ""), ListStrategy::Atomic);
        assert_eq!(list_strategy(&json!({}), "spec.ports"), ListStrategy::Atomic);
    }
}
