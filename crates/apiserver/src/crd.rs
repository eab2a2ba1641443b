//! CustomResourceDefinitions: checked and given their conditions on write, and
//! served the moment they are stored.

use serde_json::{Value, json};

use super::conversion::Conversion;
use super::object;
use super::registry::{Origin, Registry, ResourceType, Subresources};
use super::schema;
use super::status::{ApiError, Cause};

/// The finalizer that keeps a CRD until its custom resources are gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Checks a CRD and sets its accepted names and conditions.
pub fn prepare(crd: &mut Value) -> Result<(), ApiError> {
    let name = object::name(crd).unwrap_or_default().to_string();
    let causes = check(crd, &name);
    if !causes.is_empty() {
        return Err(ApiError::invalid("CustomResourceDefinition", "apiextensions.k8s.io", &name, causes));
    }
    let names = &crd["spec"]["names"];
    let kind = names["kind"].as_str().unwrap_or_default();
    let mut accepted = names.clone();
    if accepted["singular"].as_str().is_none_or(str::is_empty) {
        accepted["singular"] = json!(kind.to_lowercase());
    }
    if accepted["listKind"].as_str().is_none_or(str::is_empty) {
        accepted["listKind"] = json!(format!("{kind}List"));
    }
    crd["spec"]["names"] = accepted.clone();
    let storage: Vec<Value> = versions(crd).filter(|v| v["storage"] == true).map(|v| v["name"].clone()).collect();
    let now = object::now();
    let previous: Vec<Value> = crd["status"]["conditions"].as_array().cloned().unwrap_or_default();
    // A condition that stays True keeps the time it became True, so re-applying an
    // unchanged CRD changes nothing.
    let since = |kind: &str| {
        previous
            .iter()
            .find(|c| c["type"] == kind && c["status"] == "True")
            .map_or(json!(now), |c| c["lastTransitionTime"].clone())
    };
    let mut conditions: Vec<Value> = previous
        .iter()
        .filter(|c| !matches!(c["type"].as_str(), Some("NamesAccepted" | "Established")))
        .cloned()
        .collect();
    conditions.push(json!({"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": since("NamesAccepted")}));
    conditions.push(json!({"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": since("Established")}));
    let mut stored: Vec<Value> = crd["status"]["storedVersions"].as_array().cloned().unwrap_or_default();
    for v in storage {
        if !stored.contains(&v) {
            stored.push(v);
        }
    }
    crd["status"] = json!({"conditions": conditions, "acceptedNames": accepted, "storedVersions": stored});
    Ok(())
}

/// Adds the `Terminating` condition of a CRD being deleted.
pub fn set_terminating(crd: &mut Value) {
    let conditions = crd["status"]["conditions"].as_array().cloned().unwrap_or_default();
    if conditions.iter().any(|c| c["type"] == "Terminating") {
        return;
    }
    let mut conditions = conditions;
    conditions.push(json!({
        "type": "Terminating", "status": "True", "reason": "InstanceDeletionInProgress",
        "message": "CustomResourceDefinition marked for deletion; waiting for its custom resources to be removed",
        "lastTransitionTime": object::now(),
    }));
    crd["status"]["conditions"] = Value::Array(conditions);
}

fn versions(crd: &Value) -> impl Iterator<Item = &Value> {
    crd["spec"]["versions"].as_array().into_iter().flatten()
}

fn check(crd: &Value, name: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    let plural = spec["names"]["plural"].as_str().unwrap_or_default();
    let mut required = |field: &str, present: bool| {
        if !present {
            causes.push(Cause::new("FieldValueRequired", field, "Required value"));
        }
    };
    required("spec.group", !group.is_empty());
    required("spec.names.plural", !plural.is_empty());
    required("spec.names.kind", spec["names"]["kind"].as_str().is_some_and(|k| !k.is_empty()));
    required("spec.versions", versions(crd).next().is_some());
    if !group.is_empty() && !plural.is_empty() && name != format!("{plural}.{group}") {
        causes.push(Cause::new(
            "FieldValueInvalid",
            "metadata.name",
            format!("Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group"),
        ));
    }
    if !matches!(spec["scope"].as_str(), Some("Namespaced" | "Cluster")) {
        causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.scope",
            format!("Unsupported value: {}: supported values: \"Cluster\", \"Namespaced\"", spec["scope"]),
        ));
    }
    for (i, version) in versions(crd).enumerate() {
        if let Some(schema) = version["schema"].get("openAPIV3Schema") {
            causes.extend(schema::structural::check(schema, &format!("spec.versions[{i}].schema.openAPIV3Schema")));
        }
    }
    let storage = versions(crd).filter(|v| v["storage"] == true).count();
    if versions(crd).next().is_some() && storage != 1 {
        causes.push(Cause::new(
            "FieldValueInvalid",
            "spec.versions",
            "Invalid value: must have exactly one version marked as storage version",
        ));
    }
    causes
}

/// Serves (or stops serving) what a stored CRD defines.
pub fn register(registry: &Registry, crd: &Value) {
    let name = object::name(crd).unwrap_or_default().to_string();
    registry.replace_custom(&name, resource_types(crd));
}

/// Stops serving a CRD's resources.
pub fn unregister(registry: &Registry, name: &str) {
    registry.replace_custom(name, Vec::new());
}

/// The resource types of a CRD, one per served version.
pub fn resource_types(crd: &Value) -> Vec<ResourceType> {
    let name = object::name(crd).unwrap_or_default().to_string();
    let spec = &crd["spec"];
    let names = &spec["names"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let list = |v: &Value| {
        v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect::<Vec<_>>()
    };
    let conversion = Conversion::of(spec).map(std::sync::Arc::new);
    versions(crd)
        .filter(|v| v["served"] != false)
        .map(|v| ResourceType {
            group: text(&spec["group"]),
            version: text(&v["name"]),
            kind: text(&names["kind"]),
            plural: text(&names["plural"]),
            singular: names["singular"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| text(&names["kind"]).to_lowercase()),
            short_names: list(&names["shortNames"]),
            categories: list(&names["categories"]),
            namespaced: spec["scope"] == "Namespaced",
            subresources: Subresources {
                status: v["subresources"]["status"].is_object(),
                scale: v["subresources"]["scale"].is_object(),
                ..Subresources::default()
            },
            generation: true,
            selectable_fields: &[],
            create_only: false,
            origin: Origin::Custom {
                crd: name.clone(),
                schema: v["schema"].get("openAPIV3Schema").map(schema::shared),
                columns: v["additionalPrinterColumns"].as_array().cloned().unwrap_or_default(),
                conversion: conversion.clone(),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
                "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": {"type": "object"}}}]}
        })
    }

    #[test]
    fn a_valid_crd_is_established_with_defaulted_names() {
        let mut c = crd();
        prepare(&mut c).expect("valid");
        assert_eq!(c["status"]["acceptedNames"]["singular"], "widget");
        assert_eq!(c["status"]["acceptedNames"]["listKind"], "WidgetList");
        let types: Vec<&str> = c["status"]["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .filter_map(|c| c["type"].as_str())
            .collect();
        assert_eq!(types, vec!["NamesAccepted", "Established"]);
        let rts = resource_types(&c);
        assert_eq!(rts.len(), 1);
        assert!(rts[0].subresources.status && rts[0].namespaced);
    }

    #[test]
    fn a_crd_named_wrong_is_invalid() {
        let mut c = crd();
        c["metadata"]["name"] = json!("gadgets.example.com");
        let err = prepare(&mut c).expect_err("invalid");
        assert_eq!(err.code, 422);
        assert_eq!(err.details.causes[0].field, "metadata.name");
    }
}
