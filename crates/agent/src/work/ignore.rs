//! `ignoreFields` of a ServerSideApply strategy, as upstream's work agent reads them: the
//! fields an `OnSpokePresent` entry names (Kubernetes JSONPaths, JSON Pointers, jq path
//! expressions) are left out of what is applied once the object exists, so the managed
//! cluster's own values stay; the rest of the manifest is hashed into the annotation
//! `open-cluster-management.io/config-spec-hash`, and an object whose annotation already
//! carries that hash is not applied at all — so the fields of an `OnSpokeChange` entry, kept in
//! the hash, are overwritten only when the hub changes the manifest, not when the managed
//! cluster changes them. A new object is made from the whole manifest.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;
use jsonpath_rust::query::queryable::Queryable;
use serde_json::Value;
use sha2::{Digest, Sha256};

use fleetctl_api::work::{IgnoreField, IgnoreFieldsCondition};

/// The annotation holding the hash of what was applied (upstream's key).
pub const SPEC_HASH: &str = "open-cluster-management.io/config-spec-hash";

/// A manifest with ignored fields, ready to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Ignoring {
    /// The whole manifest, annotated: what makes a new object.
    pub whole: Value,
    /// The manifest without the `OnSpokePresent` fields, annotated: what updates an object.
    pub kept: Value,
    /// The hash both carry.
    pub hash: String,
}

/// `body` prepared for `fields`; `None` without any. An expression that does not parse or
/// cannot run is an error naming it.
pub fn prepare(body: &Value, fields: &[IgnoreField]) -> Result<Option<Ignoring>, String> {
    if fields.is_empty() {
        return Ok(None);
    }
    let mut kept = body.clone();
    for field in fields.iter().filter(|f| f.condition != IgnoreFieldsCondition::OnSpokeChange) {
        for path in &field.json_paths {
            let absolute = format!("${}", path.trim().trim_start_matches('$'));
            kept.delete_by_path(&absolute).map_err(|e| format!("JSONPath error in '{path}': {e}"))?;
        }
        for pointer in &field.json_pointers {
            remove_pointer(&mut kept, pointer).map_err(|e| format!("JSON Pointer error in '{pointer}': {e}"))?;
        }
        for expression in &field.jq_path_expressions {
            kept = delete_jq(kept, expression).map_err(|e| format!("JQ expression error in '{expression}': {e}"))?;
        }
    }
    let hash: String = Sha256::digest(kept.to_string().as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    let annotate = |mut object: Value| {
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            let annotations = metadata.entry("annotations").or_insert_with(|| Value::Object(Default::default()));
            if let Some(annotations) = annotations.as_object_mut() {
                annotations.insert(SPEC_HASH.to_owned(), Value::String(hash.clone()));
            }
        }
        object
    };
    Ok(Some(Ignoring { whole: annotate(body.clone()), kept: annotate(kept), hash }))
}

/// Removes what the RFC 6901 `pointer` names; a pointer to nothing removes nothing.
fn remove_pointer(object: &mut Value, pointer: &str) -> Result<(), String> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err("a JSON Pointer starts with '/'".to_owned());
    }
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return Err("the whole object cannot be ignored".to_owned());
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match object.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&last);
        }
        Some(Value::Array(items)) => {
            if let Ok(index) = last.parse::<usize>()
                && index < items.len()
            {
                items.remove(index);
            }
        }
        _ => {}
    }
    Ok(())
}

/// `object` with what the jq path `expression` selects deleted (`del(expression)`).
fn delete_jq(object: Value, expression: &str) -> Result<Value, String> {
    let code = format!("del({expression})");
    let program = File { code: code.as_str(), path: () };
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs());
    let funs = jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs());
    let arena = Arena::default();
    let modules = Loader::new(defs).load(&arena, program).map_err(|errors| format!("does not parse: {errors:?}"))?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| format!("does not compile: {errors:?}"))?;
    let input: Val = serde_json::from_value(object).map_err(|e| e.to_string())?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut outputs = filter.id.run((ctx, input)).map(unwrap_valr);
    let output = match outputs.next() {
        Some(Ok(value)) => value,
        Some(Err(error)) => return Err(format!("fails: {error}")),
        None => return Err("yields nothing".to_owned()),
    };
    serde_json::from_str(&output.to_string()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "app", "env": [
                {"name": "APP_ENV", "value": "production"}, {"name": "JAVA_OPTS", "value": "-Xmx512m"}
            ]}]}}}
        })
    }

    fn field(condition: IgnoreFieldsCondition) -> IgnoreField {
        IgnoreField { condition, ..IgnoreField::default() }
    }

    #[test]
    fn on_spoke_present_fields_are_left_out_of_the_update_but_made_with_the_object_as_upstreams_ssa_applier() {
        let fields = [
            IgnoreField { json_paths: vec![".spec.replicas".into()], ..field(IgnoreFieldsCondition::OnSpokePresent) },
            IgnoreField {
                jq_path_expressions: vec![
                    r#".spec.template.spec.containers[].env[] | select(.name == "JAVA_OPTS")"#.into(),
                ],
                ..field(IgnoreFieldsCondition::OnSpokePresent)
            },
        ];
        let prepared = prepare(&deployment(), &fields).expect("prepared").expect("fields");
        assert_eq!(prepared.kept.pointer("/spec/replicas"), None);
        assert_eq!(
            prepared.kept.pointer("/spec/template/spec/containers/0/env"),
            Some(&json!([{"name": "APP_ENV", "value": "production"}]))
        );
        assert_eq!(prepared.whole.pointer("/spec/replicas"), Some(&json!(1)));
        assert_eq!(
            prepared.whole.pointer("/metadata/annotations/open-cluster-management.io~1config-spec-hash"),
            Some(&json!(prepared.hash))
        );
        // The hash is of what is kept: a hub change to an ignored field does not move it.
        let mut more = deployment();
        more["spec"]["replicas"] = json!(3);
        assert_eq!(prepare(&more, &fields).expect("prepared").expect("fields").hash, prepared.hash);
    }

    #[test]
    fn on_spoke_change_fields_stay_in_the_hash_so_a_hub_change_applies_them() {
        let pointer =
            IgnoreField { json_pointers: vec!["/spec/replicas".into()], ..field(IgnoreFieldsCondition::OnSpokeChange) };
        let prepared = prepare(&deployment(), std::slice::from_ref(&pointer)).expect("prepared").expect("fields");
        assert_eq!(prepared.kept.pointer("/spec/replicas"), Some(&json!(1)));
        let mut more = deployment();
        more["spec"]["replicas"] = json!(3);
        assert_ne!(prepare(&more, &[pointer]).expect("prepared").expect("fields").hash, prepared.hash);
    }

    #[test]
    fn a_json_pointer_removes_its_field_and_a_missing_one_nothing() {
        let fields = [IgnoreField {
            json_pointers: vec!["/spec/replicas".into(), "/spec/absent".into()],
            ..field(IgnoreFieldsCondition::OnSpokePresent)
        }];
        let prepared = prepare(&deployment(), &fields).expect("prepared").expect("fields");
        assert_eq!(prepared.kept.pointer("/spec/replicas"), None);
        assert!(
            prepare(
                &deployment(),
                &[IgnoreField { json_pointers: vec!["spec".into()], ..field(IgnoreFieldsCondition::OnSpokePresent) }]
            )
            .is_err()
        );
    }

    #[test]
    fn an_invalid_jq_expression_is_an_error_naming_it_as_upstreams_ignore_field_error() {
        let fields = [IgnoreField {
            jq_path_expressions: vec![".spec.containers[] | invalid syntax here".into()],
            ..field(IgnoreFieldsCondition::OnSpokePresent)
        }];
        let error = prepare(&deployment(), &fields).expect_err("invalid");
        assert!(error.starts_with("JQ expression error in '.spec.containers[] | invalid syntax here'"), "{error}");
    }
}
