//! CRD deletion: custom resources go first, then the cleanup finalizer.

use super::super::crd;
use super::super::kinds;
use super::super::object;
use super::super::registry::GroupResource;
use super::super::state::Shared;
use super::super::store::ObjectRef;
use super::{Step, drop_finalizer, read, remove};

/// A CRD being deleted: delete its custom resources, then release the CRD.
pub(super) fn cleanup(state: &Shared, name: &str) -> Step {
    let target = ObjectRef { resource: kinds::custom_resource_definitions(), key: name.to_string() };
    let Some((_, crd_object)) = read(state, &target) else {
        return Ok(());
    };
    if object::deletion_timestamp(&crd_object).is_none() {
        return Ok(());
    }
    let group = crd_object["spec"]["group"].as_str().unwrap_or_default();
    let plural = crd_object["spec"]["names"]["plural"].as_str().unwrap_or_default();
    let resource = GroupResource::new(group, plural);
    let keys = state.store.keys(&resource, None);
    for key in &keys {
        let item = ObjectRef { resource: resource.clone(), key: key.clone() };
        remove(state, &item)?;
    }
    if state.store.keys(&resource, None).is_empty() {
        drop_finalizer(state, &target, crd::CLEANUP_FINALIZER)?;
    }
    Ok(())
}
