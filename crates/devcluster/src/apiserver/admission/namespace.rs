//! NamespaceLifecycle: no new content in a namespace that does not exist or is being
//! terminated, and the namespaces every cluster relies on cannot be deleted.

use super::super::kinds;
use super::super::object;
use super::super::state::ApiState;
use super::super::status::ApiError;
use super::{Admitted, Operation, Plugin, Request};

/// Namespaces that may never be deleted.
const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The NamespaceLifecycle admission plugin.
pub struct NamespaceLifecycle;

impl Plugin for NamespaceLifecycle {
    fn validate(&self, state: &ApiState, request: &Request<'_>, _: &mut Admitted) -> Result<(), ApiError> {
        let rt = request.rt;
        if rt.group_resource() == kinds::namespaces() {
            if request.operation == Operation::Delete && IMMORTAL.contains(&request.name) {
                return Err(ApiError::forbidden("namespaces", "", request.name, "this namespace may not be deleted"));
            }
            return Ok(());
        }
        let (Some(namespace), Operation::Create, true) = (request.namespace, request.operation, rt.namespaced) else {
            return Ok(());
        };
        let ns = state
            .store
            .get(&kinds::namespaces(), namespace)
            .ok_or_else(|| ApiError::not_found("namespaces", "", namespace))?;
        // Subresource creates (a TokenRequest, say) act on existing content.
        if request.subresource.is_none() && object::deletion_timestamp(&ns.value()).is_some() {
            return Err(ApiError::forbidden(
                &rt.plural,
                &rt.group,
                request.name,
                &format!("unable to create new content in namespace {namespace} because it is being terminated"),
            ));
        }
        Ok(())
    }
}
