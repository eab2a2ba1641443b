//! Updating the status conditions of an object without losing another writer's.

use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use fleetctl_api::conditions::HasConditions;

use crate::reconcile::{KubeError, kube_error};

/// Applies `change` to an object's conditions and writes them only if they changed. The
/// write carries the resourceVersion it was computed from, so a concurrent writer (the hub
/// and the registration agent both write addon conditions) is never overwritten: on a
/// conflict the change is made again on a fresh read and written once more. `Ok(true)` if
/// it wrote.
pub async fn update_conditions<K>(
    api: &Api<K>,
    object: &K,
    change: impl Fn(&mut Vec<Condition>) -> bool,
) -> Result<bool, KubeError>
where
    K: Resource + HasConditions + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    let name = object.name_any();
    let action = || format!("updating the conditions of {} {name}", K::kind(&Default::default()));
    let written = match write_changed(api, &name, object, &change).await {
        Err(kube::Error::Api(status)) if status.code == 409 => match api.get(&name).await {
            Ok(fresh) => write_changed(api, &name, &fresh, &change).await,
            Err(e) => Err(e),
        },
        outcome => outcome,
    };
    written.map_err(kube_error(action()))
}

/// Writes `object`'s conditions after `change`, at its resourceVersion, if they changed.
async fn write_changed<K>(
    api: &Api<K>,
    name: &str,
    object: &K,
    change: &impl Fn(&mut Vec<Condition>) -> bool,
) -> Result<bool, kube::Error>
where
    K: Resource + HasConditions + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    let mut conditions = object.status_conditions().to_vec();
    if !change(&mut conditions) {
        return Ok(false);
    }
    let patch =
        json!({"metadata": {"resourceVersion": object.resource_version()}, "status": {"conditions": conditions}});
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(patch)).await?;
    Ok(true)
}
