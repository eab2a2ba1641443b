//! From a manifest to the API that serves it, as `kubectl apply` finds it: the manifest's
//! group, version, kind, name and namespace; the resource behind the kind, learned through
//! discovery once per group version (and from CRDs as they become Established); and the
//! namespace the object goes to. Used by the CLI's apply and by the work agent.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::core::GroupVersion;
use kube::discovery::{self, Scope};
use kube::runtime::wait::{await_condition, conditions};
use parking_lot::Mutex;
use serde_json::Value;

/// What a manifest says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its group, version and kind.
    pub gvk: GroupVersionKind,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, if it has one.
    pub namespace: Option<String>,
}

/// A manifest lacks a field every object needs (`apiVersion`, `kind`, `metadata.name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is missing")]
pub struct Missing(pub &'static str);

impl Target {
    /// Reads a manifest's identity.
    pub fn read(object: &Value) -> Result<Self, Missing> {
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).filter(|s| !s.is_empty());
        let api_version = text("/apiVersion").ok_or(Missing("apiVersion"))?;
        let kind = text("/kind").ok_or(Missing("kind"))?;
        let name = text("/metadata/name").ok_or(Missing("metadata.name"))?;
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        Ok(Self {
            gvk: GroupVersionKind::gvk(group, version, kind),
            name: name.to_owned(),
            namespace: text("/metadata/namespace").map(str::to_owned),
        })
    }

    /// Whether the manifest is a CustomResourceDefinition.
    pub fn is_crd(&self) -> bool {
        self.gvk.group == "apiextensions.k8s.io" && self.gvk.kind == "CustomResourceDefinition"
    }
}

/// The resources a cluster serves, per group version: learned through discovery and from
/// CRDs, shared by whoever resolves against that cluster (the work agent keeps one across
/// reconciles, so a steady-state pass asks nothing).
#[derive(Debug, Default)]
pub struct Kinds(Mutex<HashMap<GroupVersion, Vec<(ApiResource, Scope)>>>);

impl Kinds {
    fn lookup(&self, gvk: &GroupVersionKind) -> Option<(ApiResource, Scope)> {
        let known = self.0.lock();
        let resources = known.get(&GroupVersion::gv(&gvk.group, &gvk.version))?;
        resources.iter().find(|(resource, _)| resource.kind == gvk.kind).cloned()
    }

    fn store(&self, gv: GroupVersion, resources: Vec<(ApiResource, Scope)>) {
        self.0.lock().insert(gv, resources);
    }

    /// Forgets a group version, so the next lookup asks the server again (its kinds may
    /// have gone with a deleted CRD).
    pub fn forget(&self, gvk: &GroupVersionKind) {
        self.0.lock().remove(&GroupVersion::gv(&gvk.group, &gvk.version));
    }

    /// Records the kinds an Established CRD serves, so objects of them resolve even
    /// before the server's discovery documents catch up with the new CRD.
    pub fn learn(&self, crd: &CustomResourceDefinition) {
        let spec = &crd.spec;
        let scope = if spec.scope == "Cluster" { Scope::Cluster } else { Scope::Namespaced };
        let mut known = self.0.lock();
        for version in spec.versions.iter().filter(|version| version.served) {
            let gvk = GroupVersionKind::gvk(&spec.group, &version.name, &spec.names.kind);
            let resource = ApiResource::from_gvk_with_plural(&gvk, &spec.names.plural);
            let resources = known.entry(GroupVersion::gv(&spec.group, &version.name)).or_default();
            resources.retain(|(existing, _)| existing.kind != resource.kind);
            resources.push((resource, scope.clone()));
        }
    }
}

/// A manifest resolved to the object it is.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The resource serving its kind.
    pub resource: ApiResource,
    /// Its namespace; `None` for a cluster-scoped object.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
}

impl Resolved {
    /// The API of the object's resource, in its namespace.
    pub fn api(&self, client: &Client) -> Api<DynamicObject> {
        match &self.namespace {
            Some(namespace) => Api::namespaced_with(client.clone(), namespace, &self.resource),
            None => Api::all_with(client.clone(), &self.resource),
        }
    }

    /// The manifest as the body of its request: the namespace it goes to written into
    /// it, and one a cluster-scoped object carries dropped, so body and URL agree.
    pub fn body(&self, manifest: &Value) -> Value {
        let mut body = manifest.clone();
        if let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) {
            match &self.namespace {
                Some(namespace) => {
                    metadata.insert("namespace".to_owned(), Value::String(namespace.clone()));
                }
                None => {
                    metadata.remove("namespace");
                }
            }
        }
        body
    }
}

/// Why a manifest's kind did not resolve.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The cluster does not serve the kind.
    #[error("the cluster does not serve kind {kind} in {api_version}")]
    UnknownKind {
        /// The manifest's apiVersion.
        api_version: String,
        /// The manifest's kind.
        kind: String,
    },
    /// Discovery of the group version failed.
    #[error("discovery of {api_version} failed")]
    Discovery {
        /// The group version.
        api_version: String,
        /// Why.
        #[source]
        source: kube::Error,
    },
}

/// Resolves manifests against one cluster, asking the server at most once per group
/// version in its lifetime for a kind the shared [`Kinds`] do not know.
pub struct Resolver<'a> {
    client: &'a Client,
    kinds: &'a Kinds,
    asked: HashSet<GroupVersion>,
}

impl<'a> Resolver<'a> {
    /// A resolver over `kinds`.
    pub fn new(client: &'a Client, kinds: &'a Kinds) -> Self {
        Self { client, kinds, asked: HashSet::new() }
    }

    /// The object a manifest is; a namespaced object without a namespace goes to
    /// `default_namespace`, as kubectl puts it in the context's namespace.
    pub async fn resolve(&mut self, target: &Target, default_namespace: &str) -> Result<Resolved, ResolveError> {
        let (resource, scope) = self.kind(&target.gvk).await?;
        let namespace = match scope {
            Scope::Namespaced => Some(target.namespace.clone().unwrap_or_else(|| default_namespace.to_owned())),
            Scope::Cluster => None,
        };
        Ok(Resolved { resource, namespace, name: target.name.clone() })
    }

    async fn kind(&mut self, gvk: &GroupVersionKind) -> Result<(ApiResource, Scope), ResolveError> {
        if let Some(found) = self.kinds.lookup(gvk) {
            return Ok(found);
        }
        let gv = GroupVersion::gv(&gvk.group, &gvk.version);
        if self.asked.insert(gv.clone()) {
            let resources = match discovery::pinned_group(self.client, &gv).await {
                Ok(group) => group
                    .versioned_resources(&gvk.version)
                    .into_iter()
                    .map(|(resource, capabilities)| (resource, capabilities.scope))
                    .collect(),
                // The group version is not served at all: every kind of it is unknown.
                Err(kube::Error::Api(status)) if status.is_not_found() => Vec::new(),
                Err(source) => return Err(ResolveError::Discovery { api_version: gvk.api_version(), source }),
            };
            self.kinds.store(gv, resources);
        }
        self.kinds
            .lookup(gvk)
            .ok_or_else(|| ResolveError::UnknownKind { api_version: gvk.api_version(), kind: gvk.kind.clone() })
    }
}

/// The group and kind an applied CRD defines.
pub fn defined_kind(crd: &DynamicObject) -> Option<(String, String)> {
    let spec = crd.data.get("spec")?;
    let group = spec.get("group")?.as_str()?;
    let kind = spec.get("names")?.get("kind")?.as_str()?;
    Some((group.to_owned(), kind.to_owned()))
}

/// Why a CRD was not Established.
#[derive(Debug, thiserror::Error)]
pub enum EstablishError {
    /// It did not become Established in time.
    #[error(
        "CRD {name} was not Established within {}s — see its conditions (kubectl describe crd {name})",
        .timeout.as_secs()
    )]
    Timeout {
        /// The CRD.
        name: String,
        /// How long it had.
        timeout: Duration,
    },
    /// Watching it failed.
    #[error("waiting for CRD {name} to be Established failed")]
    Watch {
        /// The CRD.
        name: String,
        /// Why.
        #[source]
        source: Box<kube::runtime::wait::Error>,
    },
}

/// Waits (on a watch) until the CRD `name` is Established, then teaches `kinds` its kinds.
pub async fn await_established(
    client: &Client,
    kinds: &Kinds,
    name: &str,
    timeout: Duration,
) -> Result<(), EstablishError> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let established = await_condition(crds, name, conditions::is_crd_established());
    match tokio::time::timeout(timeout, established).await {
        Ok(Ok(Some(crd))) => {
            kinds.learn(&crd);
            Ok(())
        }
        // The condition only matches an existing object, so `None` does not happen;
        // it reads like never becoming Established.
        Ok(Ok(None)) | Err(_) => Err(EstablishError::Timeout { name: name.to_owned(), timeout }),
        Ok(Err(source)) => Err(EstablishError::Watch { name: name.to_owned(), source: Box::new(source) }),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        CustomResourceDefinitionNames, CustomResourceDefinitionSpec, CustomResourceDefinitionVersion,
    };
    use serde_json::json;

    use super::*;

    #[test]
    fn a_target_reads_group_version_kind_name_and_namespace() {
        let target = Target::read(&json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "n"}}))
        .unwrap();
        assert_eq!(target.gvk, GroupVersionKind::gvk("apps", "v1", "Deployment"));
        assert_eq!((target.name.as_str(), target.namespace.as_deref()), ("d", Some("n")));
        let core = Target::read(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})).unwrap();
        assert_eq!((core.gvk.group.as_str(), core.namespace.as_deref()), ("", None));
        assert!(!core.is_crd());
    }

    #[test]
    fn an_object_without_a_name_is_incomplete() {
        assert_eq!(Target::read(&json!({"apiVersion": "v1", "kind": "ConfigMap"})), Err(Missing("metadata.name")));
        assert_eq!(Target::read(&json!({"kind": "ConfigMap"})), Err(Missing("apiVersion")));
        assert_eq!(Target::read(&json!({"apiVersion": "v1", "metadata": {"name": "x"}})), Err(Missing("kind")));
    }

    #[test]
    fn the_body_carries_the_namespace_of_its_url() {
        let resource = ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&());
        let manifest = json!({"metadata": {"name": "c", "namespace": "elsewhere"}});
        let namespaced = Resolved { resource: resource.clone(), namespace: Some("n".into()), name: "c".into() };
        assert_eq!(namespaced.body(&manifest)["metadata"]["namespace"], "n");
        let cluster = Resolved { resource, namespace: None, name: "c".into() };
        assert!(cluster.body(&manifest)["metadata"].get("namespace").is_none());
    }

    fn crd(versions: &[(&str, bool)]) -> CustomResourceDefinition {
        CustomResourceDefinition {
            spec: CustomResourceDefinitionSpec {
                group: "example.com".into(),
                scope: "Cluster".into(),
                names: CustomResourceDefinitionNames {
                    kind: "Widget".into(),
                    plural: "widgets".into(),
                    ..CustomResourceDefinitionNames::default()
                },
                versions: versions
                    .iter()
                    .map(|(name, served)| CustomResourceDefinitionVersion {
                        name: (*name).into(),
                        served: *served,
                        ..CustomResourceDefinitionVersion::default()
                    })
                    .collect(),
                ..CustomResourceDefinitionSpec::default()
            },
            ..CustomResourceDefinition::default()
        }
    }

    #[test]
    fn an_applied_crd_names_the_group_and_kind_it_defines() {
        let applied: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}}}))
        .unwrap();
        assert_eq!(defined_kind(&applied), Some(("example.com".into(), "Widget".into())));
        let crd = Target::read(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"}}))
        .unwrap();
        assert!(crd.is_crd());
    }

    #[test]
    fn a_learned_crd_resolves_its_served_versions_only() {
        let kinds = Kinds::default();
        kinds.learn(&crd(&[("v1", true), ("v2", false)]));
        let (resource, scope) = kinds.lookup(&GroupVersionKind::gvk("example.com", "v1", "Widget")).unwrap();
        assert_eq!((resource.plural.as_str(), scope), ("widgets", Scope::Cluster));
        assert!(kinds.lookup(&GroupVersionKind::gvk("example.com", "v2", "Widget")).is_none());
        kinds.forget(&GroupVersionKind::gvk("example.com", "v1", "Widget"));
        assert!(kinds.lookup(&GroupVersionKind::gvk("example.com", "v1", "Widget")).is_none());
    }
}
