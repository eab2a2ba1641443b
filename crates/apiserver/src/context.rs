//! What the layers under the API verbs get of the server — admission plugins, a kind's
//! allocation and confirmation hooks — instead of the whole [`ApiState`](super::ApiState),
//! which owns admission: a plugin that took the state made one import circle of the two.
//! kube-apiserver's admission initializers hand each plugin what it asks for in the same
//! way (`pkg/admission/initializer`).

use std::sync::Arc;

use super::auth::User;
use super::rbac::{Attributes, Authorizer};
use super::reader::Reader;
use super::registry::Registry;

/// The served resources, the stored objects (read-only) and RBAC.
#[derive(Clone)]
pub struct Context<'a> {
    /// The served resource types.
    pub registry: &'a Registry,
    /// The stored objects, read-only.
    pub store: Reader,
    /// RBAC: the CEL `authorizer` and the escalation checks ask it.
    pub authorizer: &'a Arc<Authorizer>,
}

impl Context<'_> {
    /// Whether `user` may do `attributes`.
    pub fn allowed(&self, user: &User, attributes: &Attributes) -> bool {
        self.authorizer.allows(&self.store, user, attributes)
    }
}
