//! The schemas of built-in types, from k8s-openapi's types (their `schemars` feature
//! carries the upstream definitions: names such as `io.k8s.api.apps.v1.Deployment`,
//! descriptions, formats).

use k8s_openapi::api::{authentication, autoscaling, core};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::{JsonSchema, Schema, SchemaGenerator};

/// A schema added to a generator: its component name and the reference to it.
pub struct Added {
    /// The name under `components.schemas`.
    pub name: String,
    /// `{"$ref": "#/components/schemas/<name>"}`.
    pub reference: Schema,
}

/// Adds the schema of `T` (and every schema it refers to).
pub fn add<T: JsonSchema>(generator: &mut SchemaGenerator) -> Added {
    Added { name: T::schema_name().into_owned(), reference: generator.subschema_for::<T>() }
}

/// The `autoscaling/v1` Scale of the `/scale` subresources.
pub fn scale(generator: &mut SchemaGenerator) -> Added {
    add::<autoscaling::v1::Scale>(generator)
}

/// The `authentication.k8s.io/v1` TokenRequest of ServiceAccounts' `/token`.
pub fn token_request(generator: &mut SchemaGenerator) -> Added {
    add::<authentication::v1::TokenRequest>(generator)
}

/// The `apiVersion`, `kind` and `metadata` properties every kind has, as kube-apiserver
/// adds them to a custom kind's schema: taken from a built-in kind's schema (`metadata`
/// refers to ObjectMeta, which this adds to the generator).
pub fn standard_properties(generator: &mut SchemaGenerator) -> serde_json::Map<String, serde_json::Value> {
    let _ = generator.subschema_for::<ObjectMeta>();
    let config_map = <core::v1::ConfigMap as JsonSchema>::json_schema(generator);
    config_map
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flatten()
        .filter(|(name, _)| matches!(name.as_str(), "apiVersion" | "kind" | "metadata"))
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect()
}
