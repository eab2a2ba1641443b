//! The OCM kinds that have a status and no spec (PlacementDecision, AddOnPlacementScore),
//! which kube's `CustomResource` derive cannot express (it always writes a `spec`): their
//! `Resource` and `CustomResourceExt` implementations and their CRDs, generated from the
//! type as the derive generates the others'.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionSpec,
    CustomResourceDefinitionVersion, CustomResourceSubresourceStatus, CustomResourceSubresources,
    CustomResourceValidation, JSONSchemaProps,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::CLUSTER_GROUP;

/// A namespaced kind of `cluster.open-cluster-management.io` with metadata and a status only.
pub trait Specless: JsonSchema {
    /// Its kind.
    const KIND: &'static str;
    /// Its (only) version.
    const VERSION: &'static str;
    /// Its plural resource name.
    const PLURAL: &'static str;
    /// Its CRD's name, `<plural>.cluster.open-cluster-management.io`.
    const CRD_NAME: &'static str;
}

/// The schema of `metadata`, which the API server fills in.
pub(crate) fn object_meta(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object"})
}

/// The CRD of a specless kind: namespaced, served and stored in its one version, with a status
/// subresource. The schema is generated as kube's derive generates it, with `apiVersion` and
/// `kind` added (the type writes them itself); a type whose schema would not convert (which
/// the CRD tests rule out) gets none.
pub fn crd<K: Specless>() -> CustomResourceDefinition {
    let generator = schemars::generate::SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(schemars::transform::AddNullable::default())
        .with_transform(kube::core::schema::StructuralSchemaRewriter)
        .with_transform(kube::core::schema::OptionalEnum)
        .with_transform(kube::core::schema::OptionalIntOrString)
        .into_generator();
    let mut schema = serde_json::to_value(generator.into_root_schema_for::<K>()).ok();
    if let Some(properties) = schema.as_mut().and_then(|s| s.get_mut("properties")).and_then(|p| p.as_object_mut()) {
        properties.insert("apiVersion".into(), serde_json::json!({"type": "string"}));
        properties.insert("kind".into(), serde_json::json!({"type": "string"}));
    }
    let schema: Option<JSONSchemaProps> = schema.and_then(|s| serde_json::from_value(s).ok());
    let singular = K::KIND.to_lowercase();
    CustomResourceDefinition {
        metadata: ObjectMeta { name: Some(format!("{}.{CLUSTER_GROUP}", K::PLURAL)), ..ObjectMeta::default() },
        spec: CustomResourceDefinitionSpec {
            group: CLUSTER_GROUP.into(),
            names: CustomResourceDefinitionNames {
                kind: K::KIND.into(),
                plural: K::PLURAL.into(),
                singular: Some(singular),
                ..CustomResourceDefinitionNames::default()
            },
            scope: "Namespaced".into(),
            versions: vec![CustomResourceDefinitionVersion {
                name: K::VERSION.into(),
                schema: Some(CustomResourceValidation { open_api_v3_schema: schema }),
                served: true,
                storage: true,
                subresources: Some(CustomResourceSubresources {
                    scale: None,
                    status: Some(CustomResourceSubresourceStatus(serde_json::json!({}))),
                }),
                ..CustomResourceDefinitionVersion::default()
            }],
            ..CustomResourceDefinitionSpec::default()
        },
        ..CustomResourceDefinition::default()
    }
}

/// Implements `kube::Resource`, `kube::CustomResourceExt` and `Serialize` (with `apiVersion`
/// and `kind`, as the API expects) for a [`Specless`] type with `metadata` and `status`.
macro_rules! resource {
    ($type:ident) => {
        impl kube::Resource for $type {
            type DynamicType = ();
            type Scope = kube::core::NamespaceResourceScope;

            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                <$type as $crate::specless::Specless>::KIND.into()
            }

            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                $crate::CLUSTER_GROUP.into()
            }

            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                <$type as $crate::specless::Specless>::VERSION.into()
            }

            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                <$type as $crate::specless::Specless>::PLURAL.into()
            }

            fn meta(&self) -> &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                &self.metadata
            }

            fn meta_mut(&mut self) -> &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                &mut self.metadata
            }
        }

        impl kube::CustomResourceExt for $type {
            fn crd() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                $crate::specless::crd::<$type>()
            }

            fn crd_name() -> &'static str {
                <$type as $crate::specless::Specless>::CRD_NAME
            }

            fn api_resource() -> kube::core::ApiResource {
                kube::core::ApiResource::erase::<Self>(&())
            }

            fn shortnames() -> &'static [&'static str] {
                &[]
            }
        }

        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let fields = if self.status.is_some() { 4 } else { 3 };
                let mut object = serializer.serialize_struct(stringify!($type), fields)?;
                object.serialize_field("apiVersion", &<$type as kube::Resource>::api_version(&()))?;
                object.serialize_field("kind", <$type as $crate::specless::Specless>::KIND)?;
                object.serialize_field("metadata", &self.metadata)?;
                if let Some(status) = &self.status {
                    object.serialize_field("status", status)?;
                }
                object.end()
            }
        }
    };
}

pub(crate) use resource;
