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

/// Adds the paths of `rt`, whose kind's schema is `schema` (if the document has one);
/// the schemas of subresource kinds (Scale, TokenRequest) go into `generator`.
pub fn add(
    paths: &mut BTreeMap<String, PathItem>,
    rt: &ResourceType,
    schema: Option<Schema>,
    generator: &mut SchemaGenerator,
) {
    let prefix =
        if rt.group.is_empty() { format!("/api/{}", rt.version) } else { format!("/apis/{}/{}", rt.group, rt.version) };
    let scope = if rt.namespaced { "/namespaces/{namespace}" } else { "" };
    let scoped = |parameters: &mut Vec<Parameter>| {
        if rt.namespaced {
            parameters.push(Parameter::path("namespace"));
        }
    };
    let id = format!(
        "{}{}{}",
        operation_group(&rt.group, &rt.version),
        if rt.namespaced { "Namespaced" } else { "" },
        rt.kind
    );
    let own = Target { gvk: Gvk::of(rt), schema };
    let collection = format!("{prefix}{scope}/{}", rt.plural);

    let mut item = PathItem::default();
    scoped(&mut item.parameters);
    item.post = Some(own.operation("create", "post", &id, Parameter::write_options()));
    if rt.create_only {
        paths.insert(collection, item);
        return;
    }
    item.get = Some(own.bare().operation("list", "list", &id, Vec::new()));
    item.delete = Some(own.bare().operation("deletecollection", "deletecollection", &id, Vec::new()));
    paths.insert(collection.clone(), item);
    if rt.namespaced {
        let all = format!("{prefix}/{}", rt.plural);
        let id = format!("{}{}ForAllNamespaces", operation_group(&rt.group, &rt.version), rt.kind);
        paths.insert(
            all,
            PathItem { get: Some(own.bare().operation("list", "list", &id, Vec::new())), ..PathItem::default() },
        );
    }

    let object = format!("{collection}/{{name}}");
    paths.insert(object.clone(), object_item(&own, &id, scoped, true));
    let sub = rt.subresources;
    let subresources = [
        (sub.status, "status", None),
        (sub.approval, "approval", None),
        (sub.finalize, "finalize", None),
        (
            sub.scale,
            "scale",
            Some(Target {
                gvk: Gvk::new("autoscaling", "v1", "Scale"),
                schema: Some(builtin::scale(generator).reference),
            }),
        ),
    ];
    for (served, name, target) in subresources {
        if !served {
            continue;
        }
        let target = target.unwrap_or_else(|| Target { gvk: own.gvk.clone(), schema: own.schema.clone() });
        let id = format!("{id}{}", capitalized(name));
        paths.insert(format!("{object}/{name}"), object_item(&target, &id, scoped, false));
    }
    if sub.token {
        let target = Target {
            gvk: Gvk::new("authentication.k8s.io", "v1", "TokenRequest"),
            schema: Some(builtin::token_request(generator).reference),
        };
        let mut item = PathItem::default();
        item.parameters.push(Parameter::path("name"));
        scoped(&mut item.parameters);
        item.post = Some(target.operation("create", "post", &format!("{id}Token"), Parameter::write_options()));
        paths.insert(format!("{object}/token"), item);
    }
}

/// get, put, patch (and, for the object itself, delete) of one object or subresource.
fn object_item(target: &Target, id: &str, scoped: impl Fn(&mut Vec<Parameter>), deletable: bool) -> PathItem {
    let mut item = PathItem { parameters: vec![Parameter::path("name")], ..PathItem::default() };
    scoped(&mut item.parameters);
    item.get = Some(target.operation("read", "get", id, Vec::new()));
    item.put = Some(target.operation("replace", "put", id, Parameter::write_options()));
    let mut patch_options = Parameter::write_options();
    patch_options.push(Parameter::query("force"));
    item.patch = Some(target.operation("patch", "patch", id, patch_options));
    if deletable {
        item.delete = Some(target.bare().operation("delete", "delete", id, Vec::new()));
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
