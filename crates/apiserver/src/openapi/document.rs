//! One group/version document (`/openapi/v3/apis/<group>/<version>`): the paths of its
//! resources and, under `components.schemas`, the schema of each kind (marked with its
//! `x-kubernetes-group-version-kind`, which is how kubectl explain finds it) and of
//! everything those refer to.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use super::super::registry::{Origin, ResourceType};
use super::paths::{self, Gvk, PathItem};
use super::{builtin, custom};

/// The OpenAPI version and title kube-apiserver's documents carry.
#[derive(Debug, Serialize)]
pub struct Document {
    openapi: &'static str,
    info: Info,
    paths: BTreeMap<String, PathItem>,
    components: Components,
}

#[derive(Debug, Serialize)]
struct Info {
    title: &'static str,
    version: &'static str,
}

#[derive(Debug, Serialize)]
struct Components {
    schemas: Map<String, Value>,
}

/// The document of one group/version serving `resources`.
pub fn build(resources: &[Arc<ResourceType>]) -> Result<Document, serde_json::Error> {
    let mut generator = SchemaGenerator::new(SchemaSettings::openapi3());
    let mut paths = BTreeMap::new();
    let mut kinds: BTreeMap<String, Vec<Gvk>> = BTreeMap::new();
    let mut standard = None;
    for rt in resources {
        let schema = match &rt.origin {
            Origin::Builtin(kind) => {
                let added = (kind.schema)(&mut generator);
                kinds.entry(added.name).or_default().push(Gvk::of(rt));
                Some(added.reference)
            }
            Origin::Custom { schema, .. } => {
                let standard = standard.get_or_insert_with(|| builtin::standard_properties(&mut generator));
                let name = custom::schema_name(&rt.group, &rt.version, &rt.kind);
                // Among the generated schemas, so the OpenAPI 3.0 rewriting applies to it
                // as to theirs (a `$ref` beside a description becomes an `allOf`).
                generator.definitions_mut().insert(name.clone(), custom::component(schema.as_deref(), standard));
                let reference = Schema::new_ref(format!("#/components/schemas/{name}"));
                kinds.entry(name).or_default().push(Gvk::of(rt));
                Some(reference)
            }
        };
        paths::add(&mut paths, rt, schema, &mut generator);
    }
    let mut schemas = generator.take_definitions(true);
    for (name, gvks) in kinds {
        if let Some(Value::Object(schema)) = schemas.get_mut(&name) {
            schema.insert("x-kubernetes-group-version-kind".to_string(), serde_json::to_value(gvks)?);
        }
    }
    Ok(Document {
        openapi: "3.0.0",
        info: Info { title: "Kubernetes", version: "v1.32.0" },
        paths,
        components: Components { schemas },
    })
}
