//! Applying a set of manifests the way `kubectl apply --server-side` does, and deleting
//! the same set: each object's resource is found through discovery, CRDs of the set are
//! waited for before the objects that need them, and every object's outcome is
//! returned for the caller to report.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use ::kube::api::{Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams};
use ::kube::core::{GroupVersion, Status};
use ::kube::discovery::{self, Scope};
use ::kube::runtime::wait::{await_condition, conditions};
use ::kube::{Client, ResourceExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Deserialize;
use serde_json::Value;
use thiserror::Error;

use super::FIELD_MANAGER;

/// How a set is applied.
#[derive(Clone, Debug)]
pub struct ApplyOptions {
    /// The server-side apply field manager.
    pub field_manager: String,
    /// Where namespaced objects without a namespace go.
    pub default_namespace: String,
    /// How long a CRD of the set may take to become Established.
    pub crd_timeout: Duration,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        Self {
            field_manager: FIELD_MANAGER.to_string(),
            default_namespace: "default".to_string(),
            crd_timeout: Duration::from_secs(60),
        }
    }
}

/// Which object a document is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectKey {
    /// `group/version`, or `v1` for the core group.
    pub api_version: String,
    /// The kind.
    pub kind: String,
    /// The namespace (`None`: cluster-scoped).
    pub namespace: Option<String>,
    /// The name.
    pub name: String,
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{} {namespace}/{}", self.kind, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

/// What applying did to an object (the words kubectl prints).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyAction {
    /// It did not exist.
    Created,
    /// It existed and changed.
    Configured,
    /// It existed and already matched (its resourceVersion did not move).
    Unchanged,
}

impl fmt::Display for ApplyAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Created => "created",
            Self::Configured => "configured",
            Self::Unchanged => "unchanged",
        })
    }
}

/// One applied object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyOutcome {
    /// The object (with the namespace it went to).
    pub object: ObjectKey,
    /// What happened.
    pub action: ApplyAction,
}

/// What deleting did to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteAction {
    /// Deletion was requested (finalizers may keep the object a while).
    Deleted,
    /// It was not there (or its kind is not served).
    Absent,
}

impl fmt::Display for DeleteAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Deleted => "deleted",
            Self::Absent => "absent",
        })
    }
}

/// One object of a deleted set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeleteOutcome {
    /// The object.
    pub object: ObjectKey,
    /// What happened.
    pub action: DeleteAction,
}

/// Why a multi-document YAML text is not a set of objects. Documents count from 1,
/// empty ones included, as a reader of the text counts them.
#[derive(Debug, Error)]
pub enum ParseError {
    /// The document is not valid YAML (or not representable as JSON).
    #[error("document {document}: not valid YAML")]
    Yaml {
        /// The document.
        document: usize,
        /// Why.
        #[source]
        source: serde_yaml::Error,
    },
    /// The document is valid YAML that JSON cannot express (a mapping as a key).
    #[error("document {document}: cannot be expressed as JSON")]
    NotJson {
        /// The document.
        document: usize,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The document is valid YAML but not a mapping.
    #[error("document {document}: expected an object with apiVersion and kind, found {found}")]
    NotAnObject {
        /// The document.
        document: usize,
        /// What it is instead.
        found: &'static str,
    },
}

/// Why applying or deleting a set stopped. Documents count from 1 in the set; objects
/// before the failing one have been applied (or deleted), later ones have not.
#[derive(Debug, Error)]
pub enum ApplyError {
    /// The YAML text could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The document lacks what every object needs.
    #[error("document {document}: {missing} is missing — every object needs apiVersion, kind and metadata.name")]
    Incomplete {
        /// The document.
        document: usize,
        /// The missing field.
        missing: &'static str,
    },
    /// The cluster does not serve the document's kind.
    #[error(
        "document {document} ({kind} {name}): the cluster does not serve kind {kind} in {api_version} — install its CRD first or check apiVersion"
    )]
    UnknownKind {
        /// The document.
        document: usize,
        /// Its apiVersion.
        api_version: String,
        /// Its kind.
        kind: String,
        /// Its name.
        name: String,
    },
    /// Discovery of the document's API group failed.
    #[error("document {document}: discovery of {api_version} failed")]
    Discovery {
        /// The document.
        document: usize,
        /// The group version being discovered.
        api_version: String,
        /// Why.
        #[source]
        source: Box<::kube::Error>,
    },
    /// The server refused the object.
    #[error("document {document} ({object}): {}", .status.message)]
    Rejected {
        /// The document.
        document: usize,
        /// The object.
        object: Box<ObjectKey>,
        /// The server's answer.
        status: Box<Status>,
    },
    /// The request failed without an answer from the server.
    #[error("document {document} ({object}): request failed")]
    Request {
        /// The document.
        document: usize,
        /// The object.
        object: Box<ObjectKey>,
        /// Why.
        #[source]
        source: Box<::kube::Error>,
    },
    /// A CRD of the set did not become Established in time.
    #[error(
        "CRD {name} was not Established within {}s — see its conditions (kubectl describe crd {name})",
        .timeout.as_secs()
    )]
    CrdTimeout {
        /// The CRD.
        name: String,
        /// How long we waited.
        timeout: Duration,
    },
    /// Watching a CRD of the set for Established failed.
    #[error("waiting for CRD {name} to be Established failed")]
    CrdWait {
        /// The CRD.
        name: String,
        /// Why.
        #[source]
        source: Box<::kube::runtime::wait::Error>,
    },
}

/// The objects of a multi-document YAML text, in order, without its empty documents.
pub fn parse_documents(yaml: &str) -> Result<Vec<Value>, ParseError> {
    let mut objects = Vec::new();
    for (index, document) in serde_yaml::Deserializer::from_str(yaml).enumerate() {
        let document_number = index + 1;
        // Through serde_yaml's own Value, which refuses duplicate keys (as kubectl does)
        // where deserializing straight into JSON would silently keep the last one.
        let yaml = serde_yaml::Value::deserialize(document)
            .map_err(|source| ParseError::Yaml { document: document_number, source })?;
        let value =
            serde_json::to_value(yaml).map_err(|source| ParseError::NotJson { document: document_number, source })?;
        let found = match value {
            Value::Object(_) => {
                objects.push(value);
                continue;
            }
            Value::Null => continue,
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
        };
        return Err(ParseError::NotAnObject { document: document_number, found });
    }
    Ok(objects)
}

/// Parses `yaml` (see [`parse_documents`]) and applies its objects (see [`apply`]).
pub async fn apply_yaml(client: &Client, yaml: &str, options: &ApplyOptions) -> Result<Vec<ApplyOutcome>, ApplyError> {
    apply(client, &parse_documents(yaml)?, options).await
}

/// Server-side applies each object in order (forcing ownership, as controllers and
/// installers should), and returns what happened to each. A CRD of the set is waited
/// for (until Established) before the first later object of its kind, and all of the
/// set's CRDs before returning, so the next set may use them at once.
pub async fn apply(
    client: &Client,
    objects: &[Value],
    options: &ApplyOptions,
) -> Result<Vec<ApplyOutcome>, ApplyError> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let params = PatchParams::apply(&options.field_manager).force();
    let mut resolver = Resolver::new(client.clone());
    let mut pending: Vec<CustomResourceDefinition> = Vec::new();
    let mut outcomes = Vec::with_capacity(objects.len());
    for (index, object) in objects.iter().enumerate() {
        let document = index + 1;
        let target = Target::read(document, object)?;
        // Only the CRD that defines this object's kind is waited for here, so a run of
        // CRDs is applied back to back and they become Established together.
        if let Some(position) = pending.iter().position(|crd| defines(crd, &target.gvk)) {
            let crd = pending.swap_remove(position);
            resolver.kinds.learn(&await_established(&crds, &crd.name_any(), options.crd_timeout).await?);
        }
        let (api, key) = resolver.api(&target, &options.default_namespace).await?;
        let mut body = object.clone();
        set_namespace(&mut body, key.namespace.as_deref());
        let before = api.get_opt(&key.name).await.map_err(|e| request_error(document, &key, e))?;
        let after =
            api.patch(&key.name, &params, &Patch::Apply(&body)).await.map_err(|e| request_error(document, &key, e))?;
        let action = match before {
            None => ApplyAction::Created,
            Some(before) if before.resource_version() == after.resource_version() => ApplyAction::Unchanged,
            Some(_) => ApplyAction::Configured,
        };
        if is_crd(&target.gvk) {
            let crd: CustomResourceDefinition = serde_json::to_value(&after)
                .and_then(serde_json::from_value)
                .map_err(|e| request_error(document, &key, ::kube::Error::SerdeError(e)))?;
            // Waited for even when the answer already says Established: the watch then
            // returns at once, and there is one path to get right.
            pending.push(crd);
        }
        outcomes.push(ApplyOutcome { object: key, action });
    }
    for crd in pending {
        await_established(&crds, &crd.name_any(), options.crd_timeout).await?;
    }
    Ok(outcomes)
}

/// Deletes each object in reverse order (so namespaces and CRDs go after what they
/// hold), treating objects already gone — or of kinds no longer served — as absent.
pub async fn delete_all(
    client: &Client,
    objects: &[Value],
    options: &ApplyOptions,
) -> Result<Vec<DeleteOutcome>, ApplyError> {
    let mut resolver = Resolver::new(client.clone());
    let mut outcomes = Vec::with_capacity(objects.len());
    for (index, object) in objects.iter().enumerate().rev() {
        let document = index + 1;
        let target = Target::read(document, object)?;
        let (api, key) = match resolver.api(&target, &options.default_namespace).await {
            Ok(found) => found,
            Err(ApplyError::UnknownKind { .. }) => {
                let object = ObjectKey {
                    api_version: target.gvk.api_version(),
                    kind: target.gvk.kind.clone(),
                    namespace: target.namespace.clone(),
                    name: target.name.clone(),
                };
                outcomes.push(DeleteOutcome { object, action: DeleteAction::Absent });
                continue;
            }
            Err(error) => return Err(error),
        };
        let action = match api.delete(&key.name, &DeleteParams::default()).await {
            Ok(_) => DeleteAction::Deleted,
            Err(::kube::Error::Api(status)) if status.is_not_found() => DeleteAction::Absent,
            Err(error) => return Err(request_error(document, &key, error)),
        };
        outcomes.push(DeleteOutcome { object: key, action });
    }
    Ok(outcomes)
}

/// What a document says about itself.
struct Target {
    document: usize,
    gvk: GroupVersionKind,
    name: String,
    namespace: Option<String>,
}

impl Target {
    fn read(document: usize, object: &Value) -> Result<Self, ApplyError> {
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).filter(|s| !s.is_empty());
        let api_version = text("/apiVersion").ok_or(ApplyError::Incomplete { document, missing: "apiVersion" })?;
        let kind = text("/kind").ok_or(ApplyError::Incomplete { document, missing: "kind" })?;
        let name = text("/metadata/name").ok_or(ApplyError::Incomplete { document, missing: "metadata.name" })?;
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        Ok(Self {
            document,
            gvk: GroupVersionKind::gvk(group, version, kind),
            name: name.to_string(),
            namespace: text("/metadata/namespace").map(str::to_string),
        })
    }
}

/// Finds the resource behind each kind, asking the server once per group version and
/// again only when a kind is not (yet) known there.
struct Resolver {
    client: Client,
    kinds: Kinds,
}

impl Resolver {
    fn new(client: Client) -> Self {
        Self { client, kinds: Kinds::default() }
    }

    /// The API for the target, and its key with the namespace it lives in.
    async fn api(
        &mut self,
        target: &Target,
        default_namespace: &str,
    ) -> Result<(Api<DynamicObject>, ObjectKey), ApplyError> {
        let (resource, scope) = self.resolve(target).await?;
        let namespace = match scope {
            Scope::Namespaced => Some(target.namespace.clone().unwrap_or_else(|| default_namespace.to_string())),
            Scope::Cluster => None,
        };
        let api = match &namespace {
            Some(namespace) => Api::namespaced_with(self.client.clone(), namespace, &resource),
            None => Api::all_with(self.client.clone(), &resource),
        };
        let key = ObjectKey {
            api_version: resource.api_version.clone(),
            kind: resource.kind.clone(),
            namespace,
            name: target.name.clone(),
        };
        Ok((api, key))
    }

    async fn resolve(&mut self, target: &Target) -> Result<(ApiResource, Scope), ApplyError> {
        let gvk = &target.gvk;
        if let Some(found) = self.kinds.lookup(gvk) {
            return Ok(found);
        }
        let gv = GroupVersion::gv(&gvk.group, &gvk.version);
        let resources = match discovery::pinned_group(&self.client, &gv).await {
            Ok(group) => group
                .versioned_resources(&gvk.version)
                .into_iter()
                .map(|(resource, capabilities)| (resource, capabilities.scope))
                .collect(),
            // The group version is not served at all: every kind of it is unknown.
            Err(::kube::Error::Api(status)) if status.is_not_found() => Vec::new(),
            Err(source) => {
                let api_version = gvk.api_version();
                return Err(ApplyError::Discovery { document: target.document, api_version, source: Box::new(source) });
            }
        };
        self.kinds.0.insert(gv, resources);
        self.kinds.lookup(gvk).ok_or_else(|| ApplyError::UnknownKind {
            document: target.document,
            api_version: gvk.api_version(),
            kind: gvk.kind.clone(),
            name: target.name.clone(),
        })
    }
}

/// The resources known per group version.
#[derive(Default)]
struct Kinds(HashMap<GroupVersion, Vec<(ApiResource, Scope)>>);

impl Kinds {
    fn lookup(&self, gvk: &GroupVersionKind) -> Option<(ApiResource, Scope)> {
        let resources = self.0.get(&GroupVersion::gv(&gvk.group, &gvk.version))?;
        resources.iter().find(|(resource, _)| resource.kind == gvk.kind).cloned()
    }

    /// Records the kinds an Established CRD serves, so objects of them resolve even
    /// before the server's discovery documents catch up with the new CRD.
    fn learn(&mut self, crd: &CustomResourceDefinition) {
        let spec = &crd.spec;
        let scope = if spec.scope == "Cluster" { Scope::Cluster } else { Scope::Namespaced };
        for version in spec.versions.iter().filter(|version| version.served) {
            let gvk = GroupVersionKind::gvk(&spec.group, &version.name, &spec.names.kind);
            let resource = ApiResource::from_gvk_with_plural(&gvk, &spec.names.plural);
            let resources = self.0.entry(GroupVersion::gv(&spec.group, &version.name)).or_default();
            resources.retain(|(known, _)| known.kind != resource.kind);
            resources.push((resource, scope.clone()));
        }
    }
}

fn is_crd(gvk: &GroupVersionKind) -> bool {
    gvk.group == "apiextensions.k8s.io" && gvk.kind == "CustomResourceDefinition"
}

/// Whether `crd` defines the kind of `gvk` (any version: until it is Established the
/// server serves none of them).
fn defines(crd: &CustomResourceDefinition, gvk: &GroupVersionKind) -> bool {
    crd.spec.group == gvk.group && crd.spec.names.kind == gvk.kind
}

/// Writes the namespace the object goes to into its body, and drops one a
/// cluster-scoped object carries, so body and URL always agree.
fn set_namespace(body: &mut Value, namespace: Option<&str>) {
    let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    match namespace {
        Some(namespace) => {
            metadata.insert("namespace".to_string(), Value::String(namespace.to_string()));
        }
        None => {
            metadata.remove("namespace");
        }
    }
}

async fn await_established(
    crds: &Api<CustomResourceDefinition>,
    name: &str,
    timeout: Duration,
) -> Result<CustomResourceDefinition, ApplyError> {
    let established = await_condition(crds.clone(), name, conditions::is_crd_established());
    match tokio::time::timeout(timeout, established).await {
        Ok(Ok(Some(crd))) => Ok(crd),
        // The condition only matches an existing object, so `None` does not happen;
        // treat it like never becoming Established.
        Ok(Ok(None)) | Err(_) => Err(ApplyError::CrdTimeout { name: name.to_string(), timeout }),
        Ok(Err(source)) => Err(ApplyError::CrdWait { name: name.to_string(), source: Box::new(source) }),
    }
}

fn request_error(document: usize, key: &ObjectKey, error: ::kube::Error) -> ApplyError {
    match error {
        ::kube::Error::Api(status) => ApplyError::Rejected { document, object: Box::new(key.clone()), status },
        source => ApplyError::Request { document, object: Box::new(key.clone()), source: Box::new(source) },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn documents_are_parsed_in_order_without_empty_ones() {
        let yaml = "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n---\n# just a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
        let objects = parse_documents(yaml).expect("parsed");
        let names: Vec<_> = objects.iter().map(|o| o["metadata"]["name"].as_str()).collect();
        assert_eq!(names, [Some("a"), Some("b")]);
    }

    #[test]
    fn bad_yaml_names_its_document() {
        let error = parse_documents("a: 1\n---\n---\nb: [1\n---\nc: 3\n").expect_err("unclosed list");
        assert!(matches!(error, ParseError::Yaml { document: 3, .. }), "{error:?}");
        assert_eq!(error.to_string(), "document 3: not valid YAML");
    }

    #[test]
    fn a_duplicate_key_is_an_error_not_a_silent_overwrite() {
        let error = parse_documents("a: 1\n---\nb: 1\nb: 2\n").expect_err("duplicate key");
        assert!(matches!(error, ParseError::Yaml { document: 2, .. }), "{error:?}");
        let ParseError::Yaml { source, .. } = &error else { unreachable!() };
        assert!(source.to_string().contains("duplicate entry with key \"b\""), "{source}");
    }

    #[test]
    fn a_document_that_is_not_a_mapping_is_refused() {
        let error = parse_documents("a: 1\n---\n- x\n").expect_err("a list");
        assert_eq!(error.to_string(), "document 2: expected an object with apiVersion and kind, found a list");
    }

    #[test]
    fn a_target_reads_group_version_kind_name_and_namespace() {
        let object =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "n"}});
        let target = Target::read(1, &object).expect("target");
        assert_eq!(target.gvk, GroupVersionKind::gvk("apps", "v1", "Deployment"));
        assert_eq!((target.name.as_str(), target.namespace.as_deref()), ("d", Some("n")));
        let core = Target::read(1, &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}));
        assert_eq!(core.expect("core").gvk, GroupVersionKind::gvk("", "v1", "Secret"));
    }

    #[test]
    fn an_object_without_a_name_is_incomplete() {
        let Err(error) = Target::read(3, &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {}})) else {
            panic!("accepted an object without a name")
        };
        assert!(error.to_string().starts_with("document 3: metadata.name is missing"), "{error}");
    }

    #[test]
    fn the_body_carries_the_namespace_of_its_url() {
        let mut namespaced = json!({"metadata": {"name": "x"}});
        set_namespace(&mut namespaced, Some("team"));
        assert_eq!(namespaced["metadata"]["namespace"], "team");
        let mut cluster_scoped = json!({"metadata": {"name": "x", "namespace": "stray"}});
        set_namespace(&mut cluster_scoped, None);
        assert_eq!(cluster_scoped["metadata"], json!({"name": "x"}));
    }

    #[test]
    fn a_learned_crd_resolves_its_served_versions_only() {
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": "Cluster",
                "names": {"plural": "gadgets", "kind": "Gadget"},
                "versions": [{"name": "v1", "served": true, "storage": true},
                             {"name": "v0", "served": false, "storage": false}]}
        }))
        .expect("crd");
        let mut kinds = Kinds::default();
        kinds.learn(&crd);
        let (resource, scope) = kinds.lookup(&GroupVersionKind::gvk("example.com", "v1", "Gadget")).expect("served");
        assert_eq!(
            (resource.plural.as_str(), resource.api_version.as_str(), scope),
            ("gadgets", "example.com/v1", Scope::Cluster)
        );
        assert!(kinds.lookup(&GroupVersionKind::gvk("example.com", "v0", "Gadget")).is_none());
    }

    #[test]
    fn a_crd_defines_its_kind_in_every_version() {
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "gadgets", "kind": "Gadget"}, "versions": []}
        }))
        .expect("crd");
        assert!(defines(&crd, &GroupVersionKind::gvk("example.com", "v2", "Gadget")));
        assert!(!defines(&crd, &GroupVersionKind::gvk("example.org", "v1", "Gadget")));
        assert!(is_crd(&GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition")));
    }
}
