//! The paths of a group/version document: one item per collection, object and
//! subresource of each resource, every operation naming its group/version/kind as
//! kube-apiserver's do (kubectl finds a resource's kind, and whether PATCH takes
//! `fieldValidation`, from them).

use std::collections::BTreeMap;

use schemars::{Schema, SchemaGenerator};
use serde::Serialize;

use super::super::registry::ResourceType;
use super::builtin;

/// The operations of one path.
#[derive(Debug, Default, Serialize)]
pub struct PathItem {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parameters: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    get: Option<Operation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    put: Option<Operation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    post: Option<Operation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delete: Option<Operation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<Operation>,
}

/// An operation, without kube-apiserver's `requestBody`: kubectl 1.32 builds an apply's
/// strategic merge patch from `/openapi/v3` only for a kind whose PATCH declares
/// `application/strategic-merge-patch+json` in its request body (`gvkSupportsPatchOpenAPIV3`),
/// reading `x-kubernetes-patch-strategy` and `-merge-key` from the schemas, which k8s-openapi's
/// lack. Without one (and with v2 listing no paths) it uses its compiled-in Go types, whose tags
/// are the ones the server merges by (`protobuf::Patch`, generated from the same Go fields).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Operation {
    operation_id: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parameters: Vec<Parameter>,
    responses: BTreeMap<&'static str, Response>,
    #[serde(rename = "x-kubernetes-action")]
    action: &'static str,
    #[serde(rename = "x-kubernetes-group-version-kind")]
    gvk: Gvk,
}

/// A group/version/kind as the `x-kubernetes-group-version-kind` extension spells it.
#[derive(Debug, Clone, Serialize)]
pub struct Gvk {
    /// API group, `""` for core.
    pub group: String,
    /// Kind.
    pub kind: String,
    /// API version.
    pub version: String,
}

impl Gvk {
    /// The kind of `rt`.
    pub fn of(rt: &ResourceType) -> Self {
        Self { group: rt.group.clone(), kind: rt.kind.clone(), version: rt.version.clone() }
    }

    fn new(group: &str, version: &str, kind: &str) -> Self {
        Self { group: group.to_string(), kind: kind.to_string(), version: version.to_string() }
    }
}

#[derive(Debug, Serialize)]
struct Parameter {
    name: &'static str,
    #[serde(rename = "in")]
    location: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    required: bool,
    schema: StringSchema,
}

#[derive(Debug, Serialize)]
struct StringSchema {
    #[serde(rename = "type")]
    type_: &'static str,
}

impl Parameter {
    fn path(name: &'static str) -> Self {
        Self { name, location: "path", required: true, schema: StringSchema { type_: "string" } }
    }

    fn query(name: &'static str) -> Self {
        Self { name, location: "query", required: false, schema: StringSchema { type_: "string" } }
    }

    /// The options of create, update and patch (`fieldValidation` among them: kubectl
    /// leaves validation to the server when PATCH declares it).
    fn write_options() -> Vec<Self> {
        ["dryRun", "fieldManager", "fieldValidation"].into_iter().map(Self::query).collect()
    }
}

#[derive(Debug, Serialize)]
struct Response {
    description: &'static str,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    content: BTreeMap<&'static str, MediaType>,
}

#[derive(Debug, Serialize)]
struct MediaType {
    schema: Schema,
}

/// What an operation is about: its kind and, if it answers with an object, that
/// object's schema.
struct Target {
    gvk: Gvk,
    schema: Option<Schema>,
}

impl Target {
    fn operation(&self, verb: &str, action: &'static str, id: &str, parameters: Vec<Parameter>) -> Operation {
        let content = self.schema.iter().map(|schema| ("application/json", MediaType { schema: schema.clone() }));
        Operation {
            operation_id: format!("{verb}{id}"),
            parameters,
            responses: BTreeMap::from([("200", Response { description: "OK", content: content.collect() })]),
            action,
            gvk: self.gvk.clone(),
        }
    }

    /// The same kind with no object in its answers (lists, deletions).
    fn bare(&self) -> Self {
        Self { gvk: self.gvk.clone(), schema: None }
    }
}

/// Where a resource's paths are and how its operations are named.
struct Location {
    namespaced: bool,
    /// `/apis/<group>/<version>` or `/api/v1`.
    prefix: String,
    /// The collection, with `/namespaces/{namespace}` for a namespaced resource.
    collection: String,
    /// `AppsV1NamespacedDeployment`: what operation IDs end with.
    id: String,
}

impl Location {
    fn of(rt: &ResourceType) -> Self {
        let prefix = if rt.group.is_empty() {
            format!("/api/{}", rt.version)
        } else {
            format!("/apis/{}/{}", rt.group, rt.version)
        };
        let scope = if rt.namespaced { "/namespaces/{namespace}" } else { "" };
        let namespaced = if rt.namespaced { "Namespaced" } else { "" };
        Self {
            namespaced: rt.namespaced,
            collection: format!("{prefix}{scope}/{}", rt.plural),
            id: format!("{}{namespaced}{}", operation_group(&rt.group, &rt.version), rt.kind),
            prefix,
        }
    }

    fn object(&self) -> String {
        format!("{}/{{name}}", self.collection)
    }

    /// The path parameters of a path: `name` for an object's, `namespace` when namespaced.
    fn parameters(&self, object: bool) -> Vec<Parameter> {
        let name = object.then(|| Parameter::path("name"));
        let namespace = self.namespaced.then(|| Parameter::path("namespace"));
        name.into_iter().chain(namespace).collect()
    }
}

/// Adds the paths of `rt`, whose kind's schema is `schema` (if the document has one);
/// the schemas of subresource kinds (Scale, TokenRequest) go into `generator`.
pub fn add(
    paths: &mut BTreeMap<String, PathItem>,
    rt: &ResourceType,
    schema: Option<Schema>,
    generator: &mut SchemaGenerator,
) {
    let at = Location::of(rt);
    let own = Target { gvk: Gvk::of(rt), schema };
    let mut collection = PathItem { parameters: at.parameters(false), ..PathItem::default() };
    collection.post = Some(own.operation("create", "post", &at.id, Parameter::write_options()));
    if rt.create_only {
        // Reviews: created and answered, never stored.
        paths.insert(at.collection, collection);
        return;
    }
    collection.get = Some(own.bare().operation("list", "list", &at.id, Vec::new()));
    collection.delete = Some(own.bare().operation("deletecollection", "deletecollection", &at.id, Vec::new()));
    paths.insert(at.collection.clone(), collection);
    if rt.namespaced {
        let id = format!("{}{}ForAllNamespaces", operation_group(&rt.group, &rt.version), rt.kind);
        let list = own.bare().operation("list", "list", &id, Vec::new());
        paths.insert(format!("{}/{}", at.prefix, rt.plural), PathItem { get: Some(list), ..PathItem::default() });
    }
    paths.insert(at.object(), object_item(&own, &at, "", true));
    subresources(paths, rt, &at, &own, generator);
}

/// The subresources of `rt`: status, approval and finalize of its own kind, `/scale` of
/// autoscaling/v1 Scale, a ServiceAccount's `/token` creating a TokenRequest.
fn subresources(
    paths: &mut BTreeMap<String, PathItem>,
    rt: &ResourceType,
    at: &Location,
    own: &Target,
    generator: &mut SchemaGenerator,
) {
    let served = rt.subresources;
    for (served, name) in [(served.status, "status"), (served.approval, "approval"), (served.finalize, "finalize")] {
        if served {
            paths.insert(format!("{}/{name}", at.object()), object_item(own, at, name, false));
        }
    }
    if served.scale {
        let scale =
            Target { gvk: Gvk::new("autoscaling", "v1", "Scale"), schema: Some(builtin::scale(generator).reference) };
        paths.insert(format!("{}/scale", at.object()), object_item(&scale, at, "scale", false));
    }
    if served.token {
        let token = Target {
            gvk: Gvk::new("authentication.k8s.io", "v1", "TokenRequest"),
            schema: Some(builtin::token_request(generator).reference),
        };
        let id = format!("{}Token", at.id);
        let mut item = PathItem { parameters: at.parameters(true), ..PathItem::default() };
        item.post = Some(token.operation("create", "post", &id, Parameter::write_options()));
        paths.insert(format!("{}/token", at.object()), item);
    }
}

/// get, put, patch (and, for the object itself, delete) of one object or of its
/// subresource `subresource`.
fn object_item(target: &Target, at: &Location, subresource: &str, deletable: bool) -> PathItem {
    let id = format!("{}{}", at.id, capitalized(subresource));
    let mut item = PathItem { parameters: at.parameters(true), ..PathItem::default() };
    item.get = Some(target.operation("read", "get", &id, Vec::new()));
    item.put = Some(target.operation("replace", "put", &id, Parameter::write_options()));
    let mut patch_options = Parameter::write_options();
    patch_options.push(Parameter::query("force"));
    item.patch = Some(target.operation("patch", "patch", &id, patch_options));
    if deletable {
        item.delete = Some(target.bare().operation("delete", "delete", &id, Vec::new()));
    }
    item
}

/// The group/version part of upstream's operation IDs: `CoreV1`, `AppsV1`,
/// `RbacAuthorizationV1` (a `.k8s.io` suffix dropped), `ClusterOpenClusterManagementIoV1`.
fn operation_group(group: &str, version: &str) -> String {
    let group = if group.is_empty() { "core" } else { group.strip_suffix(".k8s.io").unwrap_or(group) };
    let words: String = group.split(['.', '-']).map(capitalized).collect();
    format!("{words}{}", capitalized(version))
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_name_the_group_version_as_upstream_does() {
        assert_eq!(operation_group("", "v1"), "CoreV1");
        assert_eq!(operation_group("rbac.authorization.k8s.io", "v1"), "RbacAuthorizationV1");
        assert_eq!(operation_group("cluster.open-cluster-management.io", "v1"), "ClusterOpenClusterManagementIoV1");
    }
}
