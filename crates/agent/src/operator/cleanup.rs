//! A Klusterlet being deleted, behind the finalizer
//! `operator.open-cluster-management.io/klusterlet-cleanup`. In order, each step idempotent
//! so a restarted operator picks up where it stopped:
//!
//! 1. let the registration agent tell the hub first: wait for the annotation
//!    [`ANNOTATION_HUB_NOTIFIED`], unless the registration agent has no pod (running or
//!    starting) or the deletion is older than the configured timeout;
//! 2. delete the agent Deployments and wait until they are gone (so no agent re-creates
//!    what the next steps remove);
//! 3. release and delete the AppliedManifestWorks of this agent;
//! 4. delete the agents' RBAC, ServiceAccounts and the addon namespace;
//! 5. hand the operator's own objects to the garbage collector; the finalizer goes
//!    (kube-runtime's `finalizer()` removes it once this pass succeeds);
//! 6. delete the operator's own RBAC and namespace — which stops this process
//!    ([`remove_operator`], once the finalizer is gone).
//!
//! Step 5 exists because the operator cannot finish step 6 by itself: deleting its
//! ClusterRoleBinding (or ClusterRole) takes away the right to delete the other, and
//! deleting its namespace stops it. Owner references to the Klusterlet make the garbage
//! collector remove whatever is left once the Klusterlet is gone, even if the process is
//! stopped between steps 5 and 6.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{OwnerReference, Time};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::reconcile::Availability;
use super::render::{
    APPLIED_MANIFEST_WORK_CRD, REGISTRATION_CLUSTER_ROLE, REGISTRATION_ROLE, REGISTRATION_SERVICE_ACCOUNT, WORK_ROLE,
    WORK_SERVICE_ACCOUNT, addon_namespace,
};
use super::{Context, OperatorError};
use fleetctl_api::conditions::FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP;
use fleetctl_api::names::ANNOTATION_HUB_NOTIFIED;
use fleetctl_api::names::KLUSTERLET as OPERATOR;
use fleetctl_api::names::{REGISTRATION_DEPLOYMENT, SINGLETON_DEPLOYMENT, WORK_DEPLOYMENT};
use fleetctl_api::{AppliedManifestWork, Klusterlet};
use fleetctl_kube::kube_error;
use fleetctl_kube::reconcile::delete;

/// The import manifests' ClusterRole for the bootstrap secret.
pub const BOOTSTRAP_KUBECONFIG_ROLE: &str = "klusterlet-bootstrap-kubeconfig";

/// While the agent Deployments terminate, a fallback look in case a watch event is missed
/// (their deletion retriggers the controller).
const AGENTS_GONE_RECHECK: Duration = Duration::from_secs(5);

/// Only namespaces of the klusterlet family are ever deleted as "the operator's namespace":
/// an operator run by hand (POD_NAMESPACE unset or `default`) must not take its
/// surroundings with it.
const OPERATOR_NAMESPACE_PREFIX: &str = "open-cluster-management";

/// One pass over a Klusterlet that is being deleted: `Ok` once steps 1–5 are done,
/// [`OperatorError::Waiting`] while it waits.
pub async fn reconcile(klusterlet: &Klusterlet, ctx: &Context) -> Result<Action, OperatorError> {
    let namespace = klusterlet.spec.agent_namespace().to_owned();
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), &namespace);

    // 1. The hub hears it from the agent (seconds) rather than from its lease (minutes).
    hub_notified(klusterlet, ctx, &deployments, &[REGISTRATION_DEPLOYMENT, SINGLETON_DEPLOYMENT]).await?;

    // 2. Agents first, so nothing re-creates or re-finalizes what follows. Foreground: the
    // Deployment is gone only once its pods are.
    stop_agents(&deployments, [REGISTRATION_DEPLOYMENT, WORK_DEPLOYMENT, SINGLETON_DEPLOYMENT]).await?;

    // 3. The work agent is gone, so nobody will remove what it applied: release its records
    // (the applied resources stay on the cluster, as upstream leaves them).
    let others_remain = release_applied_works(&ctx.client, klusterlet.uid().as_deref().unwrap_or_default()).await?;

    // 4. The agents' identity and rights, and the addon namespace.
    remove_agent_access(ctx, &namespace).await?;
    if !others_remain {
        let crds: Api<CustomResourceDefinition> = Api::all(ctx.client.clone());
        delete(&crds, APPLIED_MANIFEST_WORK_CRD, &DeleteParams::default()).await?;
    }

    // 5. Hand over; the finalizer goes when this pass returns.
    hand_over(ctx, klusterlet, operator_namespace(ctx, &namespace).as_deref()).await?;
    tracing::info!("klusterlet cleaned up; removing the operator");
    Ok(Action::await_change())
}

/// Deletes the agent Deployments `names` (foreground: gone only once their pods are); waits
/// ([`OperatorError::Waiting`]) while any is still there.
pub(super) async fn stop_agents<'a>(
    deployments: &Api<Deployment>,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(), OperatorError> {
    let mut remaining = Vec::new();
    for name in names {
        delete(deployments, name, &DeleteParams::foreground()).await?;
        if deployments.get_opt(name).await.map_err(kube_error(format!("reading deployment {name}")))?.is_some() {
            remaining.push(name);
        }
    }
    if remaining.is_empty() {
        return Ok(());
    }
    Err(OperatorError::Waiting {
        why: format!("waiting for the agents to stop: {}", remaining.join(", ")),
        again: AGENTS_GONE_RECHECK,
    })
}

/// Step 1: the hub hears of the removal from the registration agent (seconds) rather than
/// from its lease (minutes). [`OperatorError::Waiting`] until the agent has told it, unless
/// it cannot: `registration` names the Deployments that may run it.
pub(super) async fn hub_notified(
    klusterlet: &Klusterlet,
    ctx: &Context,
    deployments: &Api<Deployment>,
    registration: &[&str],
) -> Result<(), OperatorError> {
    match hub_notification_pending(klusterlet, ctx, deployments, registration).await? {
        Some(remaining) => Err(OperatorError::Waiting {
            why: "waiting for the registration agent to tell the hub".into(),
            again: remaining,
        }),
        None => Ok(()),
    }
}

/// How much longer to wait for the registration agent's word, or `None` to go on.
async fn hub_notification_pending(
    klusterlet: &Klusterlet,
    ctx: &Context,
    deployments: &Api<Deployment>,
    names: &[&str],
) -> Result<Option<Duration>, OperatorError> {
    if klusterlet.annotations().get(ANNOTATION_HUB_NOTIFIED).is_some_and(|v| v == "true") {
        tracing::info!("the registration agent has told the hub; cleaning up");
        return Ok(None);
    }
    let mut registration = None;
    for name in names.iter().copied() {
        let found = deployments.get_opt(name).await.map_err(kube_error(format!("reading deployment {name}")))?;
        registration = registration.or(found);
    }
    // A pod still starting counts: an agent imported seconds ago is not ready yet, and the
    // hub would otherwise hear of the detach only when its lease runs out (minutes).
    if !registration.as_ref().is_some_and(|d| Availability::of(d).has_pods()) {
        // Nobody will set the annotation; the hub notices through its lease (or is forced).
        tracing::info!("the registration agent has no pod; cleaning up without telling the hub");
        return Ok(None);
    }
    let remaining = remaining_wait(klusterlet.meta().deletion_timestamp.as_ref(), ctx.settings.hub_notify_timeout);
    if remaining.is_none() {
        tracing::warn!(
            timeout = ?ctx.settings.hub_notify_timeout,
            "the registration agent did not confirm telling the hub; cleaning up anyway"
        );
    }
    Ok(remaining)
}

/// What is left of `timeout` since `since`; `None` once it has passed. A deletion time in
/// the future (clock skew) counts as now.
pub fn remaining_wait(since: Option<&Time>, timeout: Duration) -> Option<Duration> {
    let elapsed = since
        .map(|t| jiff::Timestamp::now().duration_since(t.0))
        .and_then(|d| Duration::try_from(d).ok())
        .unwrap_or(Duration::ZERO);
    let remaining = timeout.saturating_sub(elapsed);
    (!remaining.is_zero()).then_some(remaining)
}

/// Removes the work agent's finalizer from this agent's AppliedManifestWorks and deletes
/// them. Returns whether AppliedManifestWorks of other agents remain (then the CRD stays).
pub(super) async fn release_applied_works(client: &kube::Client, agent_id: &str) -> Result<bool, OperatorError> {
    let api: Api<AppliedManifestWork> = Api::all(client.clone());
    let works = match api.list(&ListParams::default()).await {
        Ok(list) => list.items,
        // No CRD: nothing was ever applied.
        Err(kube::Error::Api(status)) if status.code == 404 => return Ok(false),
        Err(e) => return Err(kube_error("listing AppliedManifestWorks")(e).into()),
    };
    let mut others_remain = false;
    for work in works {
        if agent_id.is_empty() || work.spec.agent_id != agent_id {
            others_remain = true;
            continue;
        }
        let name = work.name_any();
        if work.finalizers().iter().any(|f| f == FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP) {
            let kept: Vec<&String> =
                work.finalizers().iter().filter(|f| *f != FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP).collect();
            let patch = json!({"metadata": {"resourceVersion": work.resource_version(), "finalizers": kept}});
            match api.patch(&name, &PatchParams::default(), &Patch::Merge(patch)).await {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => continue,
                Err(e) => return Err(kube_error(format!("releasing AppliedManifestWork {name}"))(e).into()),
            }
        }
        delete(&api, &name, &DeleteParams::default()).await?;
    }
    Ok(others_remain)
}

/// Deletes the agents' RBAC and ServiceAccounts and the addon namespace.
async fn remove_agent_access(ctx: &Context, namespace: &str) -> Result<(), OperatorError> {
    let client = &ctx.client;
    let background = DeleteParams::default();
    let cluster_bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    let cluster_roles: Api<ClusterRole> = Api::all(client.clone());
    for name in [REGISTRATION_CLUSTER_ROLE, WORK_ROLE] {
        delete(&cluster_bindings, name, &background).await?;
        delete(&cluster_roles, name, &background).await?;
    }
    delete(&Api::<RoleBinding>::namespaced(client.clone(), namespace), REGISTRATION_ROLE, &background).await?;
    delete(&Api::<Role>::namespaced(client.clone(), namespace), REGISTRATION_ROLE, &background).await?;
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), namespace);
    for name in [REGISTRATION_SERVICE_ACCOUNT, WORK_SERVICE_ACCOUNT] {
        delete(&accounts, name, &background).await?;
    }
    let namespaces: Api<Namespace> = Api::all(client.clone());
    delete(&namespaces, &addon_namespace(namespace), &background).await?;
    if namespace != ctx.settings.namespace {
        // An agent namespace of its own (spec.namespace) holds nothing of the operator.
        delete(&namespaces, namespace, &background).await?;
    }
    Ok(())
}

/// The namespace the operator removes last: its own, if it is one of the klusterlet's.
fn operator_namespace(ctx: &Context, agent_namespace: &str) -> Option<String> {
    let own = &ctx.settings.namespace;
    (own == agent_namespace || own.starts_with(OPERATOR_NAMESPACE_PREFIX)).then(|| own.clone())
}

/// Gives the operator's own objects an owner reference to the Klusterlet, so the garbage
/// collector removes them once it is gone. Skipped under foreground deletion of the
/// Klusterlet: there the collector would delete them at once — the operator's rights and
/// namespace — before the finalizer is removed.
async fn hand_over(ctx: &Context, klusterlet: &Klusterlet, namespace: Option<&str>) -> Result<(), OperatorError> {
    if klusterlet.finalizers().iter().any(|f| f == "foregroundDeletion") {
        return Ok(());
    }
    let Some(owner) = owner_reference(klusterlet) else { return Ok(()) };
    let client = &ctx.client;
    adopt(&Api::<ClusterRole>::all(client.clone()), BOOTSTRAP_KUBECONFIG_ROLE, &owner).await?;
    if let Some(namespace) = namespace {
        adopt(&Api::<Namespace>::all(client.clone()), namespace, &owner).await?;
    }
    adopt(&Api::<ClusterRoleBinding>::all(client.clone()), OPERATOR, &owner).await?;
    adopt(&Api::<ClusterRole>::all(client.clone()), OPERATOR, &owner).await?;
    Ok(())
}

/// A plain (non-controller, non-blocking) reference to the Klusterlet.
fn owner_reference(klusterlet: &Klusterlet) -> Option<OwnerReference> {
    Some(OwnerReference {
        api_version: Klusterlet::api_version(&()).into_owned(),
        kind: Klusterlet::kind(&()).into_owned(),
        name: klusterlet.name_any(),
        uid: klusterlet.uid()?,
        controller: None,
        block_owner_deletion: None,
    })
}

/// Adds `owner` to an object's owner references (absent objects are skipped).
async fn adopt<K>(api: &Api<K>, name: &str, owner: &OwnerReference) -> Result<(), OperatorError>
where
    K: Resource + Clone + DeserializeOwned + std::fmt::Debug,
    <K as Resource>::DynamicType: Default,
{
    let kind = K::kind(&Default::default()).into_owned();
    let Some(object) = api.get_opt(name).await.map_err(kube_error(format!("reading {kind} {name}")))? else {
        return Ok(());
    };
    if object.owner_references().iter().any(|r| r.uid == owner.uid) {
        return Ok(());
    }
    let mut owners = object.owner_references().to_vec();
    owners.push(owner.clone());
    let patch = json!({"metadata": {"resourceVersion": object.resource_version(), "ownerReferences": owners}});
    match api.patch(name, &PatchParams::default(), &Patch::Merge(patch)).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("handing {kind} {name} to the garbage collector"))(e).into()),
    }
}

/// Step 6, once the Klusterlet's finalizer is gone: deletes the operator's bootstrap
/// role, namespace, binding and role, in the order that keeps its rights longest.
/// Failures are logged, not retried: the Klusterlet is gone (no more reconciles) and the
/// garbage collector owns what is left.
pub async fn remove_operator(ctx: &Context, klusterlet: &Klusterlet) {
    let namespace = operator_namespace(ctx, klusterlet.spec.agent_namespace());
    let namespace = namespace.as_deref();
    let client = &ctx.client;
    let background = DeleteParams::default();
    let results = [
        delete(&Api::<ClusterRole>::all(client.clone()), BOOTSTRAP_KUBECONFIG_ROLE, &background).await,
        match namespace {
            Some(namespace) => delete(&Api::<Namespace>::all(client.clone()), namespace, &background).await,
            None => Ok(()),
        },
        delete(&Api::<ClusterRoleBinding>::all(client.clone()), OPERATOR, &background).await,
        // Usually refused: the binding just went, and with it the right to do this.
        delete(&Api::<ClusterRole>::all(client.clone()), OPERATOR, &background).await,
    ];
    for error in results.into_iter().filter_map(Result::err) {
        tracing::debug!(error = %fleetctl_kube::errors::chain(&error), "left to the garbage collector");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ago(seconds: i64) -> Time {
        Time(jiff::Timestamp::now() - jiff::SignedDuration::from_secs(seconds))
    }

    #[test]
    fn the_wait_for_the_hub_is_bounded_from_the_deletion_time() {
        let timeout = Duration::from_secs(10);
        let left = remaining_wait(Some(&ago(4)), timeout).unwrap();
        assert!(left <= Duration::from_secs(6) && left > Duration::from_secs(4), "{left:?}");
        assert_eq!(remaining_wait(Some(&ago(10)), timeout), None);
        assert_eq!(remaining_wait(Some(&ago(60)), timeout), None);
    }

    #[test]
    fn a_deletion_time_in_the_future_waits_the_whole_timeout() {
        let timeout = Duration::from_secs(10);
        assert_eq!(remaining_wait(Some(&ago(-30)), timeout), Some(timeout));
        assert_eq!(remaining_wait(None, timeout), Some(timeout));
        assert_eq!(remaining_wait(Some(&ago(0)), Duration::ZERO), None);
    }

    #[test]
    fn the_owner_reference_neither_controls_nor_blocks() {
        let mut klusterlet = Klusterlet::new("klusterlet", Default::default());
        assert!(owner_reference(&klusterlet).is_none());
        klusterlet.metadata.uid = Some("u1".into());
        let owner = owner_reference(&klusterlet).unwrap();
        assert_eq!((owner.kind.as_str(), owner.uid.as_str()), ("Klusterlet", "u1"));
        assert_eq!(owner.api_version, "operator.open-cluster-management.io/v1");
        assert_eq!((owner.controller, owner.block_owner_deletion), (None, None));
    }
}
