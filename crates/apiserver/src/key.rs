//! Which object a verb acts on: its namespace (for namespaced kinds) and name, as
//! kube-apiserver's `types.NamespacedName` names it.

use serde_json::Value;

use super::object;
use super::store;

/// An object's namespace (`None` for a cluster-scoped one) and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectKey<'a> {
    /// The namespace, for namespaced kinds.
    pub namespace: Option<&'a str>,
    /// The name.
    pub name: &'a str,
}

impl<'a> ObjectKey<'a> {
    /// The object `name` in `namespace` (`None`: cluster-scoped).
    pub const fn new(namespace: Option<&'a str>, name: &'a str) -> Self {
        Self { namespace, name }
    }

    /// The object `name` in `namespace`.
    pub const fn namespaced(namespace: &'a str, name: &'a str) -> Self {
        Self { namespace: Some(namespace), name }
    }

    /// The cluster-scoped object `name`.
    pub const fn cluster(name: &'a str) -> Self {
        Self { namespace: None, name }
    }

    /// The key of `object`, from its metadata (an empty name when it has none).
    pub fn of(object: &'a Value) -> Self {
        Self { namespace: object::namespace(object), name: object::name(object).unwrap_or_default() }
    }

    /// The key the store files the object under.
    pub fn stored(&self) -> String {
        store::key(self.namespace, self.name)
    }
}
