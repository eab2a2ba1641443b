//! The table of resource types the server serves: built-ins registered at start,
//! custom resources added and removed as their CRDs come and go.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use parking_lot::RwLock;
use serde_json::Value;

use super::conversion::Conversion;
use super::kinds::{Allocate, BUILTIN, Confirm, Kind};
use super::strategy::{Default, Strategy};

/// Subresources a resource type serves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Subresources {
    /// `/status`: writes to the main resource ignore `.status`, and the reverse.
    pub status: bool,
    /// `/scale` (autoscaling/v1 Scale).
    pub scale: bool,
    /// `/approval` (CertificateSigningRequests).
    pub approval: bool,
    /// `/token` (ServiceAccounts).
    pub token: bool,
    /// `/finalize` (Namespaces).
    pub finalize: bool,
}

/// Where a resource type comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// Compiled into the server (strategic merge patch is available), with its descriptor.
    Builtin(&'static Kind),
    /// Served from a CustomResourceDefinition; `schema` is that version's `openAPIV3Schema`.
    Custom {
        /// The CRD's name (`<plural>.<group>`).
        crd: String,
        /// The version's structural schema, if it declares one (shared by every server of
        /// the process that serves the same schema: see [`schema::shared`](super::schema::shared)).
        schema: Option<Arc<Value>>,
        /// The version's `additionalPrinterColumns` (server-side printing).
        columns: Vec<Value>,
        /// How its objects convert to and from the storage version.
        conversion: Option<Arc<Conversion>>,
    },
}

/// One served resource at one group/version.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceType {
    /// API group, `""` for core.
    pub group: String,
    /// API version, such as `v1`.
    pub version: String,
    /// Kind, such as `ConfigMap`.
    pub kind: String,
    /// Plural resource name, such as `configmaps`.
    pub plural: String,
    /// Singular resource name.
    pub singular: String,
    /// Short names kubectl accepts.
    pub short_names: Vec<String>,
    /// Categories (`all`, …).
    pub categories: Vec<String>,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Served subresources.
    pub subresources: Subresources,
    /// Whether `metadata.generation` is kept (changes outside metadata and status bump it).
    pub generation: bool,
    /// Fields selectable beyond `metadata.name` and `metadata.namespace`.
    pub selectable_fields: &'static [&'static str],
    /// Answered on POST and never stored (access and token reviews).
    pub create_only: bool,
    /// Built-in or custom.
    pub origin: Origin,
}

/// The key of the table that stores a resource (all versions of it share one).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupResource {
    /// API group.
    pub group: String,
    /// Plural resource name.
    pub resource: String,
}

impl GroupResource {
    /// Builds a key.
    pub fn new(group: &str, resource: &str) -> Self {
        Self { group: group.to_string(), resource: resource.to_string() }
    }
}

impl std::fmt::Display for GroupResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::status::qualified(&self.resource, &self.group))
    }
}

impl ResourceType {
    /// `apps/v1` or `v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }

    /// `<Kind>List`.
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }

    /// The storage key.
    pub fn group_resource(&self) -> GroupResource {
        GroupResource::new(&self.group, &self.plural)
    }

    /// Whether this is a built-in type (strategic merge patch applies).
    pub fn is_builtin(&self) -> bool {
        matches!(self.origin, Origin::Builtin(_))
    }

    /// The structural schema of a custom resource version.
    pub fn schema(&self) -> Option<&Value> {
        match &self.origin {
            Origin::Custom { schema, .. } => schema.as_deref(),
            Origin::Builtin(_) => None,
        }
    }

    /// How a custom resource's objects convert between its versions (`None`: stored as
    /// served).
    pub fn conversion(&self) -> Option<&Conversion> {
        match &self.origin {
            Origin::Custom { conversion, .. } => conversion.as_deref(),
            Origin::Builtin(_) => None,
        }
    }

    /// The strategy of its kind, or the default one of custom resources.
    pub fn strategy(&self) -> &'static dyn Strategy {
        match &self.origin {
            Origin::Builtin(kind) => kind.strategy,
            Origin::Custom { .. } => &Default,
        }
    }

    /// What a write of it must be confirmed against beyond admission, if anything.
    pub fn confirm(&self) -> Option<Confirm> {
        match &self.origin {
            Origin::Builtin(kind) => kind.confirm,
            Origin::Custom { .. } => None,
        }
    }

    /// What a write of it needs allocated among the stored objects, if anything.
    pub fn allocate(&self) -> Option<Allocate> {
        match &self.origin {
            Origin::Builtin(kind) => kind.allocate,
            Origin::Custom { .. } => None,
        }
    }

    /// Whether `field` may be used in a field selector.
    pub fn selectable(&self, field: &str) -> bool {
        field == "metadata.name"
            || (field == "metadata.namespace" && self.namespaced)
            || self.selectable_fields.contains(&field)
    }
}

/// A group with its versions in preference order, each with its resources.
pub type GroupVersions = (String, Vec<(String, Vec<Arc<ResourceType>>)>);

#[derive(Default)]
struct Inner {
    /// (group, version, plural) → type.
    by_gvr: HashMap<(String, String, String), Arc<ResourceType>>,
    /// group → versions in preference order (first is preferred).
    versions: BTreeMap<String, Vec<String>>,
    /// Bumped on every change so discovery and OpenAPI documents can be cached.
    revision: u64,
}

/// The live set of served resource types.
#[derive(Default)]
pub struct Registry {
    inner: RwLock<Inner>,
}

impl Registry {
    /// A registry holding the built-in types.
    pub fn with_builtins() -> Self {
        let registry = Self::default();
        for kind in BUILTIN {
            registry.insert(kind.resource_type());
        }
        registry
    }

    /// Adds or replaces one resource type.
    pub fn insert(&self, resource: ResourceType) {
        let mut inner = self.inner.write();
        let versions = inner.versions.entry(resource.group.clone()).or_default();
        if !versions.contains(&resource.version) {
            versions.push(resource.version.clone());
        }
        let key = (resource.group.clone(), resource.version.clone(), resource.plural.clone());
        inner.by_gvr.insert(key, Arc::new(resource));
        inner.revision += 1;
    }

    /// Replaces everything served from the CRD `crd` with `resources` (empty: unregister).
    pub fn replace_custom(&self, crd: &str, resources: Vec<ResourceType>) {
        let mut inner = self.inner.write();
        inner.by_gvr.retain(|_, r| !matches!(&r.origin, Origin::Custom { crd: c, .. } if c == crd));
        for resource in resources {
            let key = (resource.group.clone(), resource.version.clone(), resource.plural.clone());
            inner.by_gvr.insert(key, Arc::new(resource));
        }
        let mut versions: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut served: Vec<&Arc<ResourceType>> = inner.by_gvr.values().collect();
        served.sort_by_key(|a| version_priority(&a.version));
        for r in served {
            let list = versions.entry(r.group.clone()).or_default();
            if !list.contains(&r.version) {
                list.push(r.version.clone());
            }
        }
        inner.versions = versions;
        inner.revision += 1;
    }

    /// The type served at group/version/plural.
    pub fn get(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceType>> {
        let inner = self.inner.read();
        inner.by_gvr.get(&(group.to_string(), version.to_string(), plural.to_string())).cloned()
    }

    /// The resource served at group/version whose kind is `kind`.
    pub fn find_kind(&self, group: &str, version: &str, kind: &str) -> Option<Arc<ResourceType>> {
        let inner = self.inner.read();
        inner
            .by_gvr
            .values()
            .find(|r| r.group == group && r.version == version && r.kind == kind && !r.create_only)
            .cloned()
    }

    /// Any served version of a group/resource (for internal operations across versions).
    pub fn any_version(&self, gr: &GroupResource) -> Option<Arc<ResourceType>> {
        let inner = self.inner.read();
        let versions = inner.versions.get(&gr.group)?;
        versions.iter().find_map(|v| inner.by_gvr.get(&(gr.group.clone(), v.clone(), gr.resource.clone())).cloned())
    }

    /// Every served type, grouped by group in preference order, for discovery.
    pub fn snapshot(&self) -> (u64, Vec<GroupVersions>) {
        let inner = self.inner.read();
        let mut groups = Vec::new();
        for (group, versions) in &inner.versions {
            let mut per_version = Vec::new();
            for version in versions {
                let mut resources: Vec<Arc<ResourceType>> =
                    inner.by_gvr.values().filter(|r| &r.group == group && &r.version == version).cloned().collect();
                if resources.is_empty() {
                    continue;
                }
                resources.sort_by(|a, b| a.plural.cmp(&b.plural));
                per_version.push((version.clone(), resources));
            }
            if !per_version.is_empty() {
                groups.push((group.clone(), per_version));
            }
        }
        (inner.revision, groups)
    }

    /// Every namespaced group/resource, for namespace termination.
    pub fn namespaced_resources(&self) -> Vec<GroupResource> {
        let inner = self.inner.read();
        let mut out: Vec<GroupResource> =
            inner.by_gvr.values().filter(|r| r.namespaced).map(|r| r.group_resource()).collect();
        out.sort();
        out.dedup();
        out
    }

    /// Every group/resource, for garbage collection.
    pub fn all_resources(&self) -> Vec<GroupResource> {
        let inner = self.inner.read();
        let mut out: Vec<GroupResource> = inner.by_gvr.values().map(|r| r.group_resource()).collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Kubernetes version priority: GA before beta before alpha, higher numbers first.
pub fn version_priority(version: &str) -> (u8, i64, i64) {
    let Some(rest) = version.strip_prefix('v') else {
        return (3, 0, 0);
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let major: i64 = digits.parse().unwrap_or(0);
    let tail = &rest[digits.len()..];
    let (level, minor_text) = if tail.is_empty() {
        (0, "")
    } else if let Some(m) = tail.strip_prefix("beta") {
        (1, m)
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (2, m)
    } else {
        return (3, 0, 0);
    };
    let minor: i64 = minor_text.parse().unwrap_or(0);
    (level, -major, -minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_as_kubernetes_does() {
        let mut v = vec!["v1alpha1", "v2beta1", "v1", "v1beta2", "v2", "foo"];
        v.sort_by_key(|x| version_priority(x));
        assert_eq!(v, vec!["v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "foo"]);
    }

    #[test]
    fn builtins_are_served() {
        let registry = Registry::with_builtins();
        let cm = registry.get("", "v1", "configmaps").expect("configmaps");
        assert_eq!(cm.kind, "ConfigMap");
        assert!(registry.get("apps", "v1", "deployments").expect("deployments").subresources.status);
        assert!(registry.get("", "v1", "nope").is_none());
    }
}
