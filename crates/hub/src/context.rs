//! What every hub controller shares: the client, the configuration, metrics, and
//! small write helpers that make no write when nothing changes.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::{Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use fleetctl_api::conditions::HasConditions;
use fleetctl_api::{ManagedCluster, conditions};
use fleetctl_kube::runner::metrics::Registry;

/// The field manager of every hub write.
pub const FIELD_MANAGER: &str = "fleetctl-hub";

/// Why a reconcile failed (every variant is retried with backoff).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// A Kubernetes API call failed.
    #[error("{action}")]
    Kube {
        /// What was being done, in lower case.
        action: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// Rendering the import manifests failed.
    #[error("rendering {0}")]
    Render(String),
}

/// Wraps a kube error with what was being done.
pub fn kube_error(action: impl Into<String>) -> impl FnOnce(kube::Error) -> HubError {
    let action = action.into();
    move |source| HubError::Kube { action, source }
}

/// How the hub behaves.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// The hub API server URL written into bootstrap kubeconfigs.
    pub hub_url: String,
    /// The hub CA bundle (PEM) written into bootstrap kubeconfigs.
    pub hub_ca_pem: String,
    /// Image repository of the klusterlet (ends in `fleetctl`).
    pub repository: String,
    /// The klusterlet version clusters run unless they ask for another.
    pub default_version: String,
    /// Lifetime of bootstrap tokens (refreshed when a fifth is left).
    pub token_lifetime: Duration,
    /// A cluster whose lease is older than this many lease periods turns Unknown.
    pub lease_grace: u32,
}

impl HubConfig {
    /// The klusterlet image for `version`.
    pub fn image(&self, version: &str) -> String {
        fleetctl_api::names::image(&self.repository, version)
    }
}

/// Shared by the hub controllers.
pub struct Context {
    /// The hub client.
    pub client: Client,
    /// Behaviour.
    pub config: HubConfig,
    /// Metrics.
    pub metrics: Registry,
    /// Events, through one recorder so repeats become one Event with a count.
    pub recorder: kube::runtime::events::Recorder,
}

/// Shared handle.
pub type Ctx = Arc<Context>;

/// Server-side applies `object` (created if absent); an unchanged object is not written.
pub async fn apply<K>(api: &Api<K>, object: &K) -> Result<K, HubError>
where
    K: Resource + Serialize + DeserializeOwned + Clone + Debug,
    <K as Resource>::DynamicType: Default,
{
    let name = object.meta().name.clone().unwrap_or_default();
    api.patch(&name, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(object))
        .await
        .map_err(kube_error(format!("applying {} {name}", K::kind(&Default::default()))))
}

/// Deletes an object; absent is fine.
pub async fn delete<K>(api: &Api<K>, name: &str) -> Result<(), HubError>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("deleting {} {name}", K::kind(&Default::default())))(e)),
    }
}

/// Removes every finalizer of an object that is going (force path); absent is fine.
pub async fn strip_finalizers<K>(api: &Api<K>, name: &str) -> Result<(), HubError>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    let patch = Patch::Merge(json!({"metadata": {"finalizers": null}}));
    match api.patch(name, &PatchParams::default(), &patch).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("removing the finalizers of {} {name}", K::kind(&Default::default())))(e)),
    }
}

/// Applies `change` to an object's conditions and writes them only if they changed
/// (against a fresh read: see [`fleetctl_kube::update_conditions`]).
pub async fn update_conditions<K>(
    api: &Api<K>,
    object: &K,
    change: impl Fn(&mut Vec<Condition>) -> bool,
) -> Result<bool, HubError>
where
    K: Resource + HasConditions + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    fleetctl_kube::update_conditions(api, object, change).await.map_err(kube_error(format!(
        "updating the conditions of {} {}",
        K::kind(&Default::default()),
        object.name_any()
    )))
}

/// Sets one condition (keeping its transition time when the status is unchanged).
pub fn set(conditions_: &mut Vec<Condition>, type_: &str, status: &str, reason: &str, message: &str) -> bool {
    conditions::set_condition(conditions_, conditions::new_condition(type_, status, reason, message))
}

/// Adds finalizers a cluster lacks (against a fresh read, with its resourceVersion).
pub async fn add_finalizers(
    api: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    wanted: &[&str],
) -> Result<(), HubError> {
    edit_finalizers(api, cluster, |present| {
        let mut list = present.to_vec();
        list.extend(wanted.iter().filter(|w| !present.iter().any(|p| p == *w)).map(|w| w.to_string()));
        list
    })
    .await
}

/// Removes the given finalizers from a cluster (if present).
pub async fn remove_finalizers(
    api: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    gone: &[&str],
) -> Result<(), HubError> {
    edit_finalizers(api, cluster, |present| present.iter().filter(|p| !gone.contains(&p.as_str())).cloned().collect())
        .await
}

async fn edit_finalizers(
    api: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    edit: impl Fn(&[String]) -> Vec<String>,
) -> Result<(), HubError> {
    if edit(cluster.finalizers()) == cluster.finalizers() {
        return Ok(());
    }
    let name = cluster.name_any();
    let Some(fresh) = api.get_opt(&name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return Ok(());
    };
    let list = edit(fresh.finalizers());
    if list == fresh.finalizers() {
        return Ok(());
    }
    let patch = json!({"metadata": {"resourceVersion": fresh.resource_version(), "finalizers": list}});
    match api.patch(&name, &PatchParams::default(), &Patch::Merge(patch)).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("changing the finalizers of cluster {name}"))(e)),
    }
}
