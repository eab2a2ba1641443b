//! The `null`s Go's JSON encoder writes for a built-in object's zero values.
//!
//! kube-apiserver decodes every write of a built-in kind into its Go type and encodes that
//! back: a `metav1.Time` or `MicroTime` field without `omitzero` (a Deployment condition's
//! `lastUpdateTime`, a Pod condition's `lastProbeTime`) and a nil `runtime.RawExtension`
//! are written as `null` whatever the body said. The server's typed rewrites (defaulting
//! through k8s-openapi's structs) leave such a field out instead; [`keep_zero_nulls`] puts
//! back the ones the body carried, so a status written with them reads back with them after
//! any later write of the main resource, as from kube-apiserver.

use serde_json::{Map, Value};

use super::message;
use super::table::{Field, Rule, Type};

/// Puts back into `rewritten` (a typed re-encoding of `body`) the `null`s of `body` that Go
/// writes for a zero value: fields of the Time, MicroTime and raw JSON types that Go writes
/// whatever their value, wherever the object's field table reaches (nested messages, list
/// elements by position, map values). A kind without a table is left as it is.
pub fn keep_zero_nulls(body: &Value, rewritten: &mut Value) {
    // A body without apiVersion or kind names no table.
    let (Some(api_version), Some(kind)) = (body["apiVersion"].as_str(), body["kind"].as_str()) else { return };
    if let Some(table) = message(api_version, kind) {
        walk(table, body, rewritten);
    }
}

fn walk(table: &'static [Field], body: &Value, rewritten: &mut Value) {
    let (Value::Object(body), Value::Object(rewritten)) = (body, rewritten) else { return };
    walk_fields(table, body, rewritten);
}

fn walk_fields(table: &'static [Field], body: &Map<String, Value>, rewritten: &mut Map<String, Value>) {
    for field in table {
        if let (Rule::Inline, Type::Message(inlined)) = (field.rule, field.ty) {
            walk_fields(inlined, body, rewritten);
            continue;
        }
        let Some(given) = body.get(field.name) else { continue };
        if given.is_null() {
            if writes_zero_as_null(field) && !rewritten.contains_key(field.name) {
                rewritten.insert(field.name.to_owned(), Value::Null);
            }
            continue;
        }
        let Type::Message(fields) = field.ty else { continue };
        let Some(now) = rewritten.get_mut(field.name) else { continue };
        match (field.rule, given, now) {
            (Rule::List, Value::Array(given), Value::Array(now)) => {
                for (given, now) in given.iter().zip(now.iter_mut()) {
                    walk(fields, given, now);
                }
            }
            (Rule::Map, Value::Object(given), Value::Object(now)) => {
                for (key, given) in given {
                    if let Some(now) = now.get_mut(key) {
                        walk(fields, given, now);
                    }
                }
            }
            (Rule::OmitEmpty | Rule::Present, given, now) => walk(fields, given, now),
            _ => {}
        }
    }
}

/// Whether Go writes the field's zero value as `null`: a Time, MicroTime or RawExtension
/// that its struct always writes (no `omitzero`; `omitempty` never leaves out a struct).
fn writes_zero_as_null(field: &Field) -> bool {
    matches!(field.rule, Rule::Present) && matches!(field.ty, Type::Time | Type::MicroTime | Type::RawJson)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_typed_rewrite_keeps_the_nulls_go_writes_for_zero_times_as_kube_apiserver_encodes_them() {
        let body = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": null, "template": {"spec": {"hostname": null}}},
            "status": {"conditions": [
                {"type": "Available", "status": "True", "lastUpdateTime": null, "lastTransitionTime": null},
                {"type": "Progressing", "status": "True", "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": null}]}});
        // What k8s-openapi's Deployment writes: every unset field left out.
        let mut rewritten = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 1, "template": {"spec": {}}},
            "status": {"conditions": [{"type": "Available", "status": "True"},
                {"type": "Progressing", "status": "True", "lastUpdateTime": "2026-01-01T00:00:00Z"}]}});
        keep_zero_nulls(&body, &mut rewritten);
        assert_eq!(
            rewritten["status"]["conditions"],
            json!([{"type": "Available", "status": "True", "lastUpdateTime": null, "lastTransitionTime": null},
                {"type": "Progressing", "status": "True", "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": null}])
        );
        // A defaulted field keeps its default; a null Go leaves out (an omitempty pointer or
        // string) stays out.
        assert_eq!(rewritten["spec"], json!({"replicas": 1, "template": {"spec": {}}}));
        // A custom resource has no table: left alone.
        let custom = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "status": {"at": null}});
        let mut custom_rewritten = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "status": {}});
        keep_zero_nulls(&custom, &mut custom_rewritten);
        assert_eq!(custom_rewritten["status"], json!({}));
    }
}
