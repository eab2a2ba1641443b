//! The store, read-only: what the layers under the API verbs — admission, a kind's
//! allocation and confirmation hooks, RBAC, the webhook and conversion callouts — read of
//! the objects. Holding a [`Reader`] rather than the [`Store`] says that they never write.

use std::sync::Arc;

use super::registry::GroupResource;
use super::store::{Event, Page, Store, Stored};

/// A read-only handle on one server's store; clones share it.
#[derive(Clone)]
pub struct Reader(Arc<Store>);

impl Reader {
    /// Reads `store`.
    pub fn new(store: Arc<Store>) -> Self {
        Self(store)
    }

    /// One object, by its store key.
    pub fn get(&self, resource: &GroupResource, key: &str) -> Option<Stored> {
        self.0.get(resource, key)
    }

    /// Every object of a resource in `namespace` (in every namespace for `None`), in key
    /// order.
    pub fn list(&self, resource: &GroupResource, namespace: Option<&str>) -> Page {
        self.0.list(resource, namespace, None, 0, &|_| true)
    }

    /// How many times a resource's objects have changed (see [`Store::revision`]).
    pub fn revision(&self, resource: &GroupResource) -> u64 {
        self.0.revision(resource)
    }

    /// The changes to a resource after resourceVersion `from` (see [`Store::changes_after`]).
    pub fn changes_after(&self, resource: &GroupResource, from: u64) -> Result<(Vec<Arc<Event>>, u64), u64> {
        self.0.changes_after(resource, from)
    }
}
