//! Updating the status conditions of an object without losing another writer's.

use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::api::conditions::HasConditions;

/// Applies `change` to an object's conditions and writes them only if they changed. The
/// write is made against a fresh read and carries its resourceVersion, so a concurrent
/// writer (the hub and the registration agent both write addon conditions) makes it fail
/// with a conflict and retry rather than lose the other's conditions. `Ok(true)` if it wrote.
pub async fn update_conditions<K>(
    api: &Api<K>,
    object: &K,
    change: impl Fn(&mut Vec<Condition>) -> bool,
) -> Result<bool, kube::Error>
where
    K: Resource + HasConditions + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    if !change(&mut object.status_conditions().to_vec()) {
        return Ok(false);
    }
    let name = object.name_any();
    let fresh = api.get(&name).await?;
    let mut updated = fresh.status_conditions().to_vec();
    if !change(&mut updated) {
        return Ok(false);
    }
    let patch = json!({"metadata": {"resourceVersion": fresh.resource_version()}, "status": {"conditions": updated}});
    api.patch_status(&name, &PatchParams::default(), &Patch::Merge(patch)).await?;
    Ok(true)
}
