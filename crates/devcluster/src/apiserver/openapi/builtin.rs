//! The schemas of the built-in kinds, from k8s-openapi's types (their `schemars` feature
//! carries the upstream definitions: names such as `io.k8s.api.apps.v1.Deployment`,
//! descriptions, formats).

use k8s_openapi::api::{
    admissionregistration, apps, authentication, authorization, autoscaling, batch, certificates, coordination, core,
    discovery, events, rbac, scheduling,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::{JsonSchema, Schema, SchemaGenerator};

/// A schema added to a generator: its component name and the reference to it.
pub struct Added {
    /// The name under `components.schemas`.
    pub name: String,
    /// `{"$ref": "#/components/schemas/<name>"}`.
    pub reference: Schema,
}

fn add<T: JsonSchema>(generator: &mut SchemaGenerator) -> Added {
    Added { name: T::schema_name().into_owned(), reference: generator.subschema_for::<T>() }
}

/// Adds the schema of a built-in kind (and every schema it refers to); `None` for a kind
/// this table does not know.
pub fn kind(generator: &mut SchemaGenerator, group: &str, version: &str, kind: &str) -> Option<Added> {
    Some(match (group, version, kind) {
        ("", "v1", "Namespace") => add::<core::v1::Namespace>(generator),
        ("", "v1", "ConfigMap") => add::<core::v1::ConfigMap>(generator),
        ("", "v1", "Secret") => add::<core::v1::Secret>(generator),
        ("", "v1", "ServiceAccount") => add::<core::v1::ServiceAccount>(generator),
        ("", "v1", "Event") => add::<core::v1::Event>(generator),
        ("", "v1", "Node") => add::<core::v1::Node>(generator),
        ("", "v1", "Pod") => add::<core::v1::Pod>(generator),
        ("", "v1", "Service") => add::<core::v1::Service>(generator),
        ("", "v1", "Endpoints") => add::<core::v1::Endpoints>(generator),
        ("", "v1", "ResourceQuota") => add::<core::v1::ResourceQuota>(generator),
        ("discovery.k8s.io", "v1", "EndpointSlice") => add::<discovery::v1::EndpointSlice>(generator),
        ("events.k8s.io", "v1", "Event") => add::<events::v1::Event>(generator),
        ("apps", "v1", "Deployment") => add::<apps::v1::Deployment>(generator),
        ("apps", "v1", "ReplicaSet") => add::<apps::v1::ReplicaSet>(generator),
        ("apps", "v1", "StatefulSet") => add::<apps::v1::StatefulSet>(generator),
        ("batch", "v1", "Job") => add::<batch::v1::Job>(generator),
        ("batch", "v1", "CronJob") => add::<batch::v1::CronJob>(generator),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition") => add::<CustomResourceDefinition>(generator),
        ("coordination.k8s.io", "v1", "Lease") => add::<coordination::v1::Lease>(generator),
        ("certificates.k8s.io", "v1", "CertificateSigningRequest") => {
            add::<certificates::v1::CertificateSigningRequest>(generator)
        }
        ("rbac.authorization.k8s.io", "v1", "Role") => add::<rbac::v1::Role>(generator),
        ("rbac.authorization.k8s.io", "v1", "ClusterRole") => add::<rbac::v1::ClusterRole>(generator),
        ("rbac.authorization.k8s.io", "v1", "RoleBinding") => add::<rbac::v1::RoleBinding>(generator),
        ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding") => add::<rbac::v1::ClusterRoleBinding>(generator),
        ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy") => {
            add::<admissionregistration::v1::ValidatingAdmissionPolicy>(generator)
        }
        ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding") => {
            add::<admissionregistration::v1::ValidatingAdmissionPolicyBinding>(generator)
        }
        ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration") => {
            add::<admissionregistration::v1::MutatingWebhookConfiguration>(generator)
        }
        ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration") => {
            add::<admissionregistration::v1::ValidatingWebhookConfiguration>(generator)
        }
        ("scheduling.k8s.io", "v1", "PriorityClass") => add::<scheduling::v1::PriorityClass>(generator),
        ("authorization.k8s.io", "v1", "SubjectAccessReview") => {
            add::<authorization::v1::SubjectAccessReview>(generator)
        }
        ("authorization.k8s.io", "v1", "SelfSubjectAccessReview") => {
            add::<authorization::v1::SelfSubjectAccessReview>(generator)
        }
        ("authorization.k8s.io", "v1", "SelfSubjectRulesReview") => {
            add::<authorization::v1::SelfSubjectRulesReview>(generator)
        }
        ("authorization.k8s.io", "v1", "LocalSubjectAccessReview") => {
            add::<authorization::v1::LocalSubjectAccessReview>(generator)
        }
        ("authentication.k8s.io", "v1", "SelfSubjectReview") => add::<authentication::v1::SelfSubjectReview>(generator),
        ("authentication.k8s.io", "v1", "TokenReview") => add::<authentication::v1::TokenReview>(generator),
        _ => return None,
    })
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
