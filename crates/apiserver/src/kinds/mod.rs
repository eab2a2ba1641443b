//! One descriptor per built-in kind, as kube-apiserver's generic registry has one `Store`
//! with its strategies per resource: every table about a kind — what discovery lists, the
//! strategy that defaults and validates it, the columns `kubectl get` prints, the strict
//! decoder, the OpenAPI schema — is read from its [`Kind`] in [`table::BUILTIN`], never from
//! a second list that must agree.
//!
//! Group, version, kind, plural and scope come from k8s-openapi's [`Resource`] impl of the
//! kind's type, so they cannot be misspelt; the rest is what upstream's registry adds.

mod table;

use k8s_openapi::Resource;
use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::admission::Request;
use super::columns::BuiltinColumn;
use super::context::Context;
use super::openapi::{self, Added};
use super::registry::{GroupResource, Origin, ResourceType, Subresources};
use super::status::ApiError;
use super::strategy::{self, Strategy};

pub use super::strategy::namespaces::NAMESPACE_FINALIZER;
pub use table::BUILTIN;

/// What a write of a kind needs from the rest of the server (a Service's cluster IP and
/// node ports, allocated among the stored Services).
pub type Allocate = fn(&Context<'_>, &mut Value) -> Result<(), ApiError>;

/// What a write of a kind must be confirmed against beyond admission (RBAC's escalation
/// prevention: the writer's own rights).
pub type Confirm = fn(&Context<'_>, &Request<'_>) -> Result<(), ApiError>;

/// Everything the server knows about one built-in kind at one version.
pub struct Kind {
    /// API group, `""` for core.
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural resource name.
    pub plural: &'static str,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Short names kubectl accepts.
    pub short_names: &'static [&'static str],
    /// Discovery categories (`all`).
    pub categories: &'static [&'static str],
    /// Served subresources.
    pub subresources: Subresources,
    /// Whether `metadata.generation` is kept.
    pub generation: bool,
    /// Fields selectable beyond `metadata.name` and `metadata.namespace`.
    pub selectable_fields: &'static [&'static str],
    /// Answered on POST and never stored (access and token reviews).
    pub create_only: bool,
    /// Defaults, validation and the kind's own write and delete rules.
    pub strategy: &'static dyn Strategy,
    /// The columns upstream prints it with (empty: Name and Age).
    pub columns: &'static [BuiltinColumn],
    /// The typed round trip strict field validation compares a body with.
    pub strict: fn(&Value) -> Result<Value, String>,
    /// Adds its OpenAPI schema (and every schema it refers to) to a generator.
    pub schema: fn(&mut SchemaGenerator) -> Added,
    /// What a write needs allocated among the stored objects, if anything.
    pub allocate: Option<Allocate>,
    /// What a write must be confirmed against, if anything.
    pub confirm: Option<Confirm>,
}

/// Scope as a constant, from k8s-openapi's scope marker types.
pub trait Scope {
    /// Whether objects of the kind live in a namespace.
    const NAMESPACED: bool;
}

impl Scope for k8s_openapi::NamespaceResourceScope {
    const NAMESPACED: bool = true;
}

impl Scope for k8s_openapi::ClusterResourceScope {
    const NAMESPACED: bool = false;
}

fn round_trip<T: DeserializeOwned + Serialize>(object: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(object.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(typed).map_err(|e| e.to_string())
}

const NO_SUBRESOURCES: Subresources =
    Subresources { status: false, scale: false, approval: false, token: false, finalize: false };

impl Kind {
    /// The descriptor of `K` with nothing but what its type says: no subresources, no
    /// generation, the default strategy, Name and Age columns.
    pub const fn of<K>() -> Self
    where
        K: Resource + JsonSchema + Serialize + DeserializeOwned,
        K::Scope: Scope,
    {
        Kind {
            group: K::GROUP,
            version: K::VERSION,
            kind: K::KIND,
            plural: K::URL_PATH_SEGMENT,
            namespaced: <K::Scope as Scope>::NAMESPACED,
            short_names: &[],
            categories: &[],
            subresources: NO_SUBRESOURCES,
            generation: false,
            selectable_fields: &[],
            create_only: false,
            strategy: &strategy::Default,
            columns: &[],
            strict: round_trip::<K>,
            schema: openapi::add::<K>,
            allocate: None,
            confirm: None,
        }
    }

    /// With these short names.
    pub const fn short(self, short_names: &'static [&'static str]) -> Self {
        Kind { short_names, ..self }
    }

    /// In the `all` category (`kubectl get all`).
    pub const fn in_all(self) -> Self {
        Kind { categories: &["all"], ..self }
    }

    /// Serving `/status`.
    pub const fn status(self) -> Self {
        Kind { subresources: Subresources { status: true, ..self.subresources }, ..self }
    }

    /// Serving `/status` and `/scale`.
    pub const fn scale(self) -> Self {
        Kind { subresources: Subresources { status: true, scale: true, ..self.subresources }, ..self }
    }

    /// With these subresources.
    pub const fn subresources(self, subresources: Subresources) -> Self {
        Kind { subresources, ..self }
    }

    /// Keeping `metadata.generation`.
    pub const fn generation(self) -> Self {
        Kind { generation: true, ..self }
    }

    /// With these selectable fields.
    pub const fn fields(self, selectable_fields: &'static [&'static str]) -> Self {
        Kind { selectable_fields, ..self }
    }

    /// Answered, never stored.
    pub const fn review(self) -> Self {
        Kind { create_only: true, ..self }
    }

    /// With this strategy.
    pub const fn strategy(self, strategy: &'static dyn Strategy) -> Self {
        Kind { strategy, ..self }
    }

    /// Printed with these columns.
    pub const fn columns(self, columns: &'static [BuiltinColumn]) -> Self {
        Kind { columns, ..self }
    }

    /// Allocating with `allocate` on every write.
    pub const fn allocating(self, allocate: Allocate) -> Self {
        Kind { allocate: Some(allocate), ..self }
    }

    /// Confirming every write with `confirm`.
    pub const fn confirming(self, confirm: Confirm) -> Self {
        Kind { confirm: Some(confirm), ..self }
    }

    /// The resource type the registry serves it as.
    pub fn resource_type(&'static self) -> ResourceType {
        ResourceType {
            group: self.group.to_string(),
            version: self.version.to_string(),
            kind: self.kind.to_string(),
            plural: self.plural.to_string(),
            singular: self.kind.to_lowercase(),
            short_names: self.short_names.iter().map(|s| s.to_string()).collect(),
            categories: self.categories.iter().map(|s| s.to_string()).collect(),
            namespaced: self.namespaced,
            subresources: self.subresources,
            generation: self.generation,
            selectable_fields: self.selectable_fields,
            create_only: self.create_only,
            origin: Origin::Builtin(self),
        }
    }
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{} {}", self.group, self.version, self.kind)
    }
}

impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The storage key of `K`'s objects.
pub fn key_of<K: Resource>() -> GroupResource {
    GroupResource::new(K::GROUP, K::URL_PATH_SEGMENT)
}

/// The storage key of Namespaces.
pub fn namespaces() -> GroupResource {
    key_of::<k8s_openapi::api::core::v1::Namespace>()
}

/// The storage key of ServiceAccounts.
pub fn service_accounts() -> GroupResource {
    key_of::<k8s_openapi::api::core::v1::ServiceAccount>()
}

/// The storage key of CustomResourceDefinitions.
pub fn custom_resource_definitions() -> GroupResource {
    key_of::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>()
}

/// The storage key of CertificateSigningRequests.
pub fn certificate_signing_requests() -> GroupResource {
    key_of::<k8s_openapi::api::certificates::v1::CertificateSigningRequest>()
}

/// Whether group/plural is a built-in resource.
pub fn is_builtin(group: &str, plural: &str) -> bool {
    BUILTIN.iter().any(|kind| kind.group == group && kind.plural == plural)
}

/// The first field of a built-in object its type does not declare (`Ok(None)`: none, or
/// a custom resource, which its schema's pruning checks instead), or why the object does
/// not decode at all.
pub fn unknown_field(rt: &ResourceType, object: &Value) -> Result<Option<String>, String> {
    let Origin::Builtin(kind) = &rt.origin else { return Ok(None) };
    Ok(first_missing(object, &(kind.strict)(object)?, ""))
}

/// The first field of `a` that `b` lacks; nulls stand for absent fields.
fn first_missing(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.iter().filter(|(_, v)| !v.is_null()).find_map(|(k, v)| {
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            match y.get(k) {
                None => Some(p),
                Some(w) => first_missing(v, w, &p),
            }
        }),
        (Value::Object(x), _) if x.values().all(Value::is_null) => None,
        (Value::Object(x), _) => {
            x.keys().next().map(|k| if path.is_empty() { k.clone() } else { format!("{path}.{k}") })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.iter().zip(y).enumerate().find_map(|(i, (v, w))| first_missing(v, w, &format!("{path}[{i}]")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
