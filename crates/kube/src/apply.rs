//! Applying a set of manifests the way `kubectl apply --server-side` does, and deleting
//! the same set: each object's resource is found through discovery, CRDs of the set are
//! waited for before the objects that need them, and every object's outcome is
//! returned for the caller to report.

use std::fmt;
use std::time::Duration;

use ::kube::api::{DeleteParams, Patch, PatchParams};
use ::kube::core::Status;
use ::kube::{Client, ResourceExt};
use serde::Deserialize;
use serde_json::Value;
use thiserror::Error;

use super::FIELD_MANAGER;
use crate::resolve::{
    EstablishError, Kinds, Missing, ResolveError, Resolved, Resolver, Target, await_established, defined_kind,
};

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

impl ObjectKey {
    /// The key of a resolved object.
    fn of(resolved: &Resolved) -> Self {
        Self {
            api_version: resolved.resource.api_version.clone(),
            kind: resolved.resource.kind.clone(),
            namespace: resolved.namespace.clone(),
            name: resolved.name.clone(),
        }
    }
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
    /// A CRD of the set did not become Established.
    #[error(transparent)]
    Established(#[from] EstablishError),
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
    let params = PatchParams::apply(&options.field_manager).force();
    let kinds = Kinds::default();
    let mut resolver = Resolver::new(client, &kinds);
    // CRDs the set applied that later objects may need: (group, kind, CRD name).
    let mut pending: Vec<(String, String, String)> = Vec::new();
    let mut outcomes = Vec::with_capacity(objects.len());
    for (index, object) in objects.iter().enumerate() {
        let document = index + 1;
        let target = read(document, object)?;
        // Only the CRD that defines this object's kind is waited for here, so a run of
        // CRDs is applied back to back and they become Established together.
        if let Some(position) =
            pending.iter().position(|(group, kind, _)| *group == target.gvk.group && *kind == target.gvk.kind)
        {
            let (_, _, crd) = pending.swap_remove(position);
            await_established(client, &kinds, &crd, options.crd_timeout).await?;
        }
        let resolved = resolve(&mut resolver, document, &target, &options.default_namespace).await?;
        let key = ObjectKey::of(&resolved);
        let api = resolved.api(client);
        let before = api.get_opt(&key.name).await.map_err(|e| request_error(document, &key, e))?;
        let after = api
            .patch(&key.name, &params, &Patch::Apply(&resolved.body(object)))
            .await
            .map_err(|e| request_error(document, &key, e))?;
        let action = match before {
            None => ApplyAction::Created,
            Some(before) if before.resource_version() == after.resource_version() => ApplyAction::Unchanged,
            Some(_) => ApplyAction::Configured,
        };
        if target.is_crd()
            && let Some((group, kind)) = defined_kind(&after)
        {
            // Waited for even when the answer already says Established: the watch then
            // returns at once, and there is one path to get right.
            pending.push((group, kind, after.name_any()));
        }
        outcomes.push(ApplyOutcome { object: key, action });
    }
    for (_, _, crd) in pending {
        await_established(client, &kinds, &crd, options.crd_timeout).await?;
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
    let kinds = Kinds::default();
    let mut resolver = Resolver::new(client, &kinds);
    let mut outcomes = Vec::with_capacity(objects.len());
    for (index, object) in objects.iter().enumerate().rev() {
        let document = index + 1;
        let target = read(document, object)?;
        let resolved = match resolve(&mut resolver, document, &target, &options.default_namespace).await {
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
        let key = ObjectKey::of(&resolved);
        let action = match resolved.api(client).delete(&key.name, &DeleteParams::default()).await {
            Ok(_) => DeleteAction::Deleted,
            Err(::kube::Error::Api(status)) if status.is_not_found() => DeleteAction::Absent,
            Err(error) => return Err(request_error(document, &key, error)),
        };
        outcomes.push(DeleteOutcome { object: key, action });
    }
    Ok(outcomes)
}

/// A document's identity, or which field it lacks.
fn read(document: usize, object: &Value) -> Result<Target, ApplyError> {
    Target::read(object).map_err(|Missing(missing)| ApplyError::Incomplete { document, missing })
}

/// The object a document is, with errors that name the document.
async fn resolve(
    resolver: &mut Resolver<'_>,
    document: usize,
    target: &Target,
    default_namespace: &str,
) -> Result<Resolved, ApplyError> {
    resolver.resolve(target, default_namespace).await.map_err(|error| match error {
        ResolveError::UnknownKind { api_version, kind } => {
            ApplyError::UnknownKind { document, api_version, kind, name: target.name.clone() }
        }
        ResolveError::Discovery { api_version, source } => {
            ApplyError::Discovery { document, api_version, source: Box::new(source) }
        }
    })
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
    fn an_object_without_a_name_is_incomplete_and_names_its_document() {
        let error = read(3, &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {}})).expect_err("no name");
        assert!(error.to_string().starts_with("document 3: metadata.name is missing"), "{error}");
    }
}
