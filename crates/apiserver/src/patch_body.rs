//! A PATCH body: parsed as its format says, applied to an object, the list strategies it
//! merges by, and its failures as the API answers them. The storage's verbs, the
//! `events.k8s.io` view and `/scale` share them.

use std::sync::Arc;

use serde_json::Value;

use super::options::PatchType;
use super::patch::{self, ListStrategy, PatchError};
use super::registry::ResourceType;
use super::schema;
use super::status::{ApiError, Cause};

/// `current` with a (non-apply) patch `document` applied.
pub fn patched(
    current: &Value,
    kind: PatchType,
    document: &Value,
    strategies: patch::Strategies<'_>,
) -> Result<Value, ApiError> {
    let mut target = current.clone();
    match kind {
        PatchType::Merge => patch::merge_patch(&mut target, document),
        PatchType::Json => patch::json_patch(&mut target, document).map_err(patch_error)?,
        PatchType::Strategic => patch::strategic_merge_patch(&mut target, document, strategies).map_err(patch_error)?,
        PatchType::Apply => {}
    }
    if !target.is_object() {
        return Err(ApiError::bad_request("the patch turned the object into something that is not an object"));
    }
    Ok(target)
}

/// The document of a patch request body.
pub fn parse_patch(kind: PatchType, body: &[u8]) -> Result<Value, ApiError> {
    let parsed = if kind == PatchType::Apply {
        // JSON is YAML, and what kubectl and kube-rs send: a JSON parser reads it several
        // times faster, and YAML is the fallback for a body that is not JSON.
        serde_json::from_slice::<Value>(body)
            .or_else(|_| serde_yaml::from_slice::<Value>(body))
            .map_err(|e| e.to_string())
    } else {
        serde_json::from_slice::<Value>(body).map_err(|e| e.to_string())
    };
    let value = parsed.map_err(|e| ApiError::bad_request(format!("the patch is not valid: {e}")))?;
    match (kind, &value) {
        (PatchType::Json, Value::Array(_))
        | (PatchType::Merge | PatchType::Strategic | PatchType::Apply, Value::Object(_)) => Ok(value),
        (PatchType::Json, _) => Err(ApiError::bad_request("a JSON patch must be an array of operations")),
        _ => Err(ApiError::bad_request("the patch must be a JSON object")),
    }
}

/// A patch that does not apply, as the API answers it.
pub fn patch_error(e: PatchError) -> ApiError {
    match e {
        PatchError::BadRequest(m) => ApiError::bad_request(m),
        PatchError::Unprocessable(m) => ApiError::unprocessable(m),
        PatchError::Conflicts(c) => ApiError::unprocessable(format!("{} conflict(s)", c.len())),
    }
}

/// An apply that conflicts with other managers' fields, in upstream's words.
pub fn apply_conflict(rt: &ResourceType, name: &str, conflicts: &[(String, String)]) -> ApiError {
    let lines: Vec<String> = conflicts
        .iter()
        .map(|(manager, path)| format!("conflict with \"{manager}\" using {}: {path}", rt.api_version()))
        .collect();
    let why = if lines.len() == 1 {
        format!("Apply failed with 1 conflict: {}", lines[0])
    } else {
        format!("Apply failed with {} conflicts: {}", lines.len(), lines.join("\n"))
    };
    let mut err = ApiError::conflict(&rt.plural, &rt.group, name, &why);
    err.message = why;
    err.details.causes = conflicts
        .iter()
        .map(|(manager, path)| Cause::new("FieldManagerConflict", path.clone(), format!("conflict with \"{manager}\"")))
        .collect();
    err
}

/// The list strategies of a resource: a built-in kind's patch merge keys (from its generated
/// tables), or the CRD schema's list types.
pub fn strategies(rt: &ResourceType) -> impl Fn(&str) -> ListStrategy + use<> {
    let schema = rt.schema().cloned().map(Arc::new);
    let api_version = rt.api_version();
    let kind = rt.kind.clone();
    move |path: &str| match &schema {
        Some(s) => schema::list_strategy(s, path),
        None => patch::builtin_strategy(&api_version, &kind, path),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_apply_body_is_read_as_json_when_it_is_json_and_as_yaml_otherwise() {
        let from_json = parse_patch(PatchType::Apply, br#"{"kind":"ConfigMap","data":{"on":"yes","n":"1"}}"#);
        let from_yaml = parse_patch(PatchType::Apply, b"kind: ConfigMap\ndata:\n  \"on\": \"yes\"\n  n: \"1\"\n");
        let expected = json!({"kind": "ConfigMap", "data": {"on": "yes", "n": "1"}});
        assert_eq!(from_json.expect("JSON parses"), expected);
        assert_eq!(from_yaml.expect("YAML parses"), expected);
        // A YAML flow mapping is not JSON: the YAML reading still accepts it.
        assert_eq!(
            parse_patch(PatchType::Apply, b"{kind: ConfigMap}").expect("flow YAML"),
            json!({"kind": "ConfigMap"})
        );
        let error = parse_patch(PatchType::Apply, b"- a list").expect_err("not an object");
        assert_eq!(error.message, "the patch must be a JSON object");
        assert!(parse_patch(PatchType::Merge, b"kind: ConfigMap").is_err(), "only apply patches may be YAML");
    }
}
