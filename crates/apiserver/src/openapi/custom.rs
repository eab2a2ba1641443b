//! The schema of a custom kind at one version, as apiextensions-apiserver publishes it:
//! the version's `openAPIV3Schema` with the standard `apiVersion`, `kind` and `metadata`
//! (ObjectMeta) properties, the same on every embedded resource.

use serde_json::{Map, Value};

/// The component name of a custom kind: the group's domain reversed, then version and
/// kind (`io.open-cluster-management.cluster.v1.ManagedCluster`).
pub fn schema_name(group: &str, version: &str, kind: &str) -> String {
    let group: Vec<&str> = group.rsplit('.').collect();
    format!("{}.{version}.{kind}", group.join("."))
}

/// The component of a custom kind whose version declares `schema` (none: any object).
/// `standard` holds the `apiVersion`, `kind` and `metadata` properties.
pub fn component(schema: Option<&Value>, standard: &Map<String, Value>) -> Value {
    let Some(schema) = schema else {
        // Without a schema nothing but the type is published: listing properties would
        // make clients think the others are unknown.
        return Value::Object(Map::from_iter([("type".to_string(), Value::from("object"))]));
    };
    let mut schema = schema.clone();
    set_standard(&mut schema, standard);
    embedded_resources(&mut schema, standard);
    schema
}

fn set_standard(schema: &mut Value, standard: &Map<String, Value>) {
    let Some(object) = schema.as_object_mut() else { return };
    let properties = object.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Some(properties) = properties.as_object_mut() {
        properties.extend(standard.iter().map(|(name, property)| (name.clone(), property.clone())));
    }
}

/// Every nested `x-kubernetes-embedded-resource` object gets the standard properties too,
/// and `apiVersion` and `kind` become required there.
fn embedded_resources(schema: &mut Value, standard: &Map<String, Value>) {
    let Some(object) = schema.as_object_mut() else { return };
    for child in ["properties", "patternProperties"] {
        if let Some(Value::Object(children)) = object.get_mut(child) {
            for nested in children.values_mut() {
                embedded_resource(nested, standard);
            }
        }
    }
    for child in ["items", "additionalProperties"] {
        if let Some(nested) = object.get_mut(child) {
            embedded_resource(nested, standard);
        }
    }
}

fn embedded_resource(schema: &mut Value, standard: &Map<String, Value>) {
    embedded_resources(schema, standard);
    if schema.get("x-kubernetes-embedded-resource") != Some(&Value::Bool(true)) {
        return;
    }
    set_standard(schema, standard);
    let Some(object) = schema.as_object_mut() else { return };
    let required = object.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    if let Some(required) = required.as_array_mut() {
        for name in ["kind", "apiVersion"] {
            if !required.iter().any(|r| r == name) {
                required.push(Value::from(name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn standard() -> Map<String, Value> {
        let standard = json!({
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
        });
        standard.as_object().cloned().expect("an object")
    }

    #[test]
    fn custom_kinds_are_named_by_their_reversed_group_as_apiextensions_names_them() {
        assert_eq!(
            schema_name("cluster.open-cluster-management.io", "v1", "ManagedCluster"),
            "io.open-cluster-management.cluster.v1.ManagedCluster"
        );
    }

    #[test]
    fn the_declared_schema_gains_the_standard_properties_and_keeps_its_own() {
        let declared = json!({"type": "object", "properties": {"spec": {"type": "object", "description": "the spec"}}});
        let component = component(Some(&declared), &standard());
        assert_eq!(component["properties"]["spec"]["description"], "the spec");
        assert_eq!(
            component["properties"]["metadata"]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        assert_eq!(component["properties"]["kind"]["type"], "string");
    }

    #[test]
    fn embedded_resources_get_the_standard_properties_and_require_kind_and_api_version() {
        let declared = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "manifests": {"type": "array", "items": {"type": "object",
                "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}},
        }}}});
        let component = component(Some(&declared), &standard());
        let embedded = &component["properties"]["spec"]["properties"]["manifests"]["items"];
        assert_eq!(embedded["properties"]["metadata"]["$ref"], standard()["metadata"]["$ref"]);
        assert_eq!(embedded["required"], json!(["kind", "apiVersion"]));
    }

    #[test]
    fn a_version_without_a_schema_publishes_an_object_and_nothing_more() {
        assert_eq!(component(None, &standard()), json!({"type": "object"}));
    }
}
