//! NamespaceLifecycle: no new content in a namespace that does not exist or is being
//! terminated, and the namespaces every cluster relies on cannot be deleted.

use super::super::context::Context;
use super::super::kinds;
use super::super::object;
use super::super::status::ApiError;
use super::{Admitted, Operation, Plugin, Request};

/// The field a terminating namespace's metadata holds, as its JSON spells it.
const DELETION_TIMESTAMP: &[u8] = b"\"deletionTimestamp\"";

/// Namespaces that may never be deleted.
const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The NamespaceLifecycle admission plugin.
pub struct NamespaceLifecycle;

impl Plugin for NamespaceLifecycle {
    fn validate(&self, context: &Context<'_>, request: &Request<'_>, _: &mut Admitted) -> Result<(), ApiError> {
        let rt = request.rt;
        if rt.group.is_empty() && rt.plural == "namespaces" {
            if request.operation == Operation::Delete && IMMORTAL.contains(&request.key.name) {
                return Err(ApiError::forbidden(
                    "namespaces",
                    "",
                    request.key.name,
                    "this namespace may not be deleted",
                ));
            }
            return Ok(());
        }
        let (Some(namespace), Operation::Create, true) = (request.key.namespace, request.operation, rt.namespaced)
        else {
            return Ok(());
        };
        let ns = context
            .store
            .get(&kinds::namespaces(), namespace)
            .ok_or_else(|| ApiError::not_found("namespaces", "", namespace))?;
        // Subresource creates (a TokenRequest, say) act on existing content. Only a
        // namespace whose JSON names a deletionTimestamp is parsed to tell.
        let terminating = || {
            ns.json().windows(DELETION_TIMESTAMP.len()).any(|w| w == DELETION_TIMESTAMP)
                && object::deletion_timestamp(&ns.value()).is_some()
        };
        if request.subresource.is_none() && terminating() {
            return Err(ApiError::forbidden(
                &rt.plural,
                &rt.group,
                request.key.name,
                &format!("unable to create new content in namespace {namespace} because it is being terminated"),
            ));
        }
        Ok(())
    }
}
