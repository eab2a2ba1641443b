//! A Klusterlet that is not being deleted (its cleanup finalizer is in place): every
//! rendered object by server-side apply, then the status conditions — each write made
//! only when something changed ([`LastApplied`](fleetctl_kube::LastApplied) for the
//! rendered objects), so an unchanged Klusterlet costs reads only.

use std::sync::atomic::Ordering;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::json;

use super::render::{APPLIED_MANIFEST_WORK_CRD, Desired, crd_is_current, render};
use super::takeover::{self, Operators};
use super::{Context, OPERATOR, OperatorError, prune};
use fleetctl_api::conditions as c;
use fleetctl_api::names::{
    IMAGE_PULL_SECRET, REGISTRATION_DEPLOYMENT, SINGLETON_DEPLOYMENT, WORK_AGENT_APP, WORK_DEPLOYMENT,
};
use fleetctl_api::{Klusterlet, KlusterletStatus};
use fleetctl_kube::errors::chain;
use fleetctl_kube::kube_error;
use fleetctl_kube::reconcile::delete;

/// A periodic pass re-applies what someone may have changed behind the operator's back
/// (the Deployments are watched; the rest is not).
const RESYNC: Duration = Duration::from_secs(300);

/// One pass over a live Klusterlet.
pub async fn reconcile(klusterlet: &Klusterlet, ctx: &Context) -> Result<Action, OperatorError> {
    if let Operators::Newer(namespace) = takeover::settle(ctx).await? {
        tracing::info!(%namespace, "a newer klusterlet operator took this Klusterlet over: standing by");
        return Ok(Action::requeue(RESYNC));
    }
    let api: Api<Klusterlet> = Api::all(ctx.client.clone());
    let generation = klusterlet.meta().generation.unwrap_or_default();
    let mut desired = match render(klusterlet) {
        Ok(desired) => desired,
        Err(error) => {
            // Nothing to retry until the spec changes, which retriggers the controller.
            let message = chain(&error);
            tracing::warn!(error = %message, "the Klusterlet cannot be deployed");
            update_status(&api, klusterlet, |status| apply_failed(status, generation, &message)).await?;
            return Ok(Action::await_change());
        }
    };
    if let Some(credentials) = registry_credentials(ctx).await? {
        desired.pull_with(klusterlet, &credentials);
    }
    match install(ctx, &desired).await {
        Ok(deployments) => {
            if !ctx.pruned.swap(true, Ordering::Relaxed) {
                prune::rbac(ctx, &klusterlet.name_any(), &desired).await?;
            }
            let agents = Agents::of(&deployments);
            update_status(&api, klusterlet, |status| applied(status, generation, &agents)).await?;
            Ok(Action::requeue(RESYNC))
        }
        Err(error) => {
            let message = chain(&error);
            if let Err(status_error) =
                update_status(&api, klusterlet, |status| apply_failed(status, generation, &message)).await
            {
                tracing::debug!(error = %chain(&status_error), "reporting the apply failure");
            }
            Err(error)
        }
    }
}

/// The registry credentials the import manifests brought into the operator's namespace,
/// if the hub handed any on.
async fn registry_credentials(ctx: &Context) -> Result<Option<Secret>, OperatorError> {
    Api::<Secret>::namespaced(ctx.client.clone(), &ctx.settings.namespace)
        .get_opt(IMAGE_PULL_SECRET)
        .await
        .map_err(kube_error(format!("reading secret {}/{IMAGE_PULL_SECRET}", ctx.settings.namespace)))
        .map_err(OperatorError::from)
}

/// Applies every rendered object in dependency order on the operator's cluster; returns the
/// agent Deployments as the server has them (with their status).
async fn install(ctx: &Context, desired: &Desired) -> Result<Vec<Deployment>, OperatorError> {
    install_on(ctx, &ctx.client, desired).await
}

/// Applies every rendered object in dependency order on `client`'s cluster (the operator's,
/// or a Hosted klusterlet's managed cluster).
pub(super) async fn install_on(
    ctx: &Context,
    client: &kube::Client,
    desired: &Desired,
) -> Result<Vec<Deployment>, OperatorError> {
    if let Some(crd) = &desired.crd {
        let crds = Api::<CustomResourceDefinition>::all(client.clone());
        let live =
            crds.get_opt(APPLIED_MANIFEST_WORK_CRD).await.map_err(kube_error("reading the AppliedManifestWork CRD"))?;
        if !live.is_some_and(|live| crd_is_current(&live, crd)) {
            OPERATOR.apply(&crds, crd).await?;
        }
    }
    for namespace in &desired.namespaces {
        ctx.applied.apply(OPERATOR, &Api::<Namespace>::all(client.clone()), namespace).await?;
    }
    for secret in &desired.secrets {
        ctx.applied.apply(OPERATOR, &Api::<Secret>::namespaced(client.clone(), &namespace_of(secret)), secret).await?;
    }
    for account in &desired.service_accounts {
        ctx.applied
            .apply(OPERATOR, &Api::<ServiceAccount>::namespaced(client.clone(), &namespace_of(account)), account)
            .await?;
    }
    for role in &desired.cluster_roles {
        ctx.applied.apply(OPERATOR, &Api::<ClusterRole>::all(client.clone()), role).await?;
    }
    for binding in &desired.cluster_role_bindings {
        ctx.applied.apply(OPERATOR, &Api::<ClusterRoleBinding>::all(client.clone()), binding).await?;
    }
    for role in &desired.roles {
        ctx.applied.apply(OPERATOR, &Api::<Role>::namespaced(client.clone(), &namespace_of(role)), role).await?;
    }
    for binding in &desired.role_bindings {
        ctx.applied
            .apply(OPERATOR, &Api::<RoleBinding>::namespaced(client.clone(), &namespace_of(binding)), binding)
            .await?;
    }
    let mut deployments = Vec::with_capacity(desired.deployments.len());
    for deployment in &desired.deployments {
        let api = Api::<Deployment>::namespaced(client.clone(), &namespace_of(deployment));
        deployments.push(apply_deployment(ctx, &api, deployment).await?);
    }
    if let Some(agent) = desired.deployments.first() {
        let api = Api::<Deployment>::namespaced(client.clone(), &namespace_of(agent));
        for name in &desired.retired {
            delete(&api, name, &DeleteParams::background()).await?;
        }
    }
    Ok(deployments)
}

/// Applies an agent Deployment. One another klusterlet operator wrote (upstream's, taken
/// over) is replaced whole, so none of its fields remain (its volumes, its probes' HTTPS);
/// one whose selector differs (fleetctl's before it took upstream's labels — a selector is
/// immutable) is deleted and made again: the agent restarts once, what it applied stays.
async fn apply_deployment(
    ctx: &Context,
    api: &Api<Deployment>,
    deployment: &Deployment,
) -> Result<Deployment, OperatorError> {
    // Another writer of its spec (upstream's operator updates it whole; its label says
    // nothing, as it keeps the labels it finds).
    let made_here = |live: &Deployment| {
        live.managed_fields().iter().all(|entry| {
            entry.manager.as_deref() == Some(OPERATOR.0)
                || entry.subresource.as_deref().is_some_and(|s| !s.is_empty())
                || entry.fields_v1.as_ref().is_none_or(|fields| fields.0.get("f:spec").is_none())
        })
    };
    match ctx.applied.apply_or_replace(OPERATOR, api, deployment, made_here).await {
        Err(error) if error.code() == Some(422) && error.source.to_string().contains("field is immutable") => {
            let name = deployment.name_any();
            tracing::info!(deployment = %name, "its selector is not this operator's: made again");
            match api.delete(&name, &DeleteParams::background()).await {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(e) => return Err(kube_error(format!("deleting deployment {name} to make it again"))(e).into()),
            }
            Ok(ctx.applied.apply(OPERATOR, api, deployment).await?)
        }
        result => Ok(result?),
    }
}

pub(super) fn namespace_of(object: &impl ResourceExt) -> String {
    object.namespace().unwrap_or_default()
}

/// Changes the status through `change` and writes it only if it changed. The write carries
/// the resourceVersion it was computed from, so conditions another writer (the
/// registration agent) added in between are not lost: the write fails and is retried.
pub(super) async fn update_status(
    api: &Api<Klusterlet>,
    klusterlet: &Klusterlet,
    change: impl FnOnce(&mut KlusterletStatus) -> bool,
) -> Result<(), OperatorError> {
    let mut status = klusterlet.status.clone().unwrap_or_default();
    if !change(&mut status) {
        return Ok(());
    }
    let name = klusterlet.name_any();
    let patch = json!({"metadata": {"resourceVersion": klusterlet.resource_version()}, "status": status});
    api.patch_status(&name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .map_err(kube_error(format!("updating the status of Klusterlet {name}")))?;
    Ok(())
}

/// How the two agent Deployments are doing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agents {
    /// The registration agent.
    pub registration: Availability,
    /// The work agent.
    pub work: Availability,
    /// Whether one Deployment runs both ([`SINGLETON_DEPLOYMENT`]).
    pub singleton: bool,
}

/// Replicas of one agent Deployment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Availability {
    /// Whether the Deployment exists.
    pub exists: bool,
    /// `spec.replicas` (1 when unset).
    pub desired: i32,
    /// `status.availableReplicas`.
    pub available: i32,
    /// `status.replicas`: its pods, ready or still starting.
    pub pods: i32,
}

impl Availability {
    /// The replicas of a Deployment.
    pub fn of(deployment: &Deployment) -> Self {
        Self {
            exists: true,
            desired: deployment.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1),
            available: deployment.status.as_ref().and_then(|s| s.available_replicas).unwrap_or_default(),
            pods: deployment.status.as_ref().and_then(|s| s.replicas).unwrap_or_default(),
        }
    }

    /// Whether at least one pod serves.
    pub fn is_available(&self) -> bool {
        self.exists && self.available >= 1
    }

    /// Whether a pod of it runs or is starting (not yet ready: its readiness probe comes
    /// a few seconds after the process starts).
    pub fn has_pods(&self) -> bool {
        self.is_available() || (self.exists && self.pods >= 1)
    }

    fn describe(&self, deployment: &str) -> String {
        if self.exists {
            format!("{} of {} requested pods are available for deployment {deployment}", self.available, self.desired)
        } else {
            format!("deployment {deployment} is missing")
        }
    }
}

impl Agents {
    /// The agents among applied Deployments.
    pub fn of(deployments: &[Deployment]) -> Self {
        // By the `app` label their selectors match: the names are a Hosted Klusterlet's own.
        let find = |app: &str| {
            deployments
                .iter()
                .find(|d| d.labels().get("app").map(String::as_str) == Some(app))
                .map(Availability::of)
                .unwrap_or_default()
        };
        let singleton = find(SINGLETON_DEPLOYMENT);
        match singleton.exists {
            true => Self { registration: singleton, work: singleton, singleton: true },
            false => Self { registration: find(REGISTRATION_DEPLOYMENT), work: find(WORK_AGENT_APP), singleton: false },
        }
    }
}

fn set(status: &mut KlusterletStatus, generation: i64, type_: &str, state: &str, reason: &str, message: &str) -> bool {
    let condition =
        Condition { observed_generation: Some(generation), ..c::new_condition(type_, state, reason, message) };
    c::set_condition(&mut status.conditions, condition)
}

/// ReadyToApply of a Hosted Klusterlet: whether the managed cluster is reached (`Err`: why not).
pub fn ready_to_apply(status: &mut KlusterletStatus, generation: i64, reached: Result<(), &str>) -> bool {
    let (state, reason, message) = match reached {
        Ok(()) => (c::TRUE, c::REASON_KLUSTERLET_PREPARED, "Klusterlet is ready to apply"),
        Err(why) => (c::FALSE, c::REASON_KLUSTERLET_PREPARE_FAILED, why),
    };
    set(status, generation, c::KLUSTERLET_READY_TO_APPLY, state, reason, message)
}

/// Applied=False with the failure; the other conditions keep what was last known.
pub fn apply_failed(status: &mut KlusterletStatus, generation: i64, message: &str) -> bool {
    set(status, generation, c::KLUSTERLET_APPLIED, c::FALSE, c::REASON_KLUSTERLET_APPLY_FAILED, message)
}

/// The conditions after a successful apply: Applied, Available and the two
/// `*DesiredDegraded`, and the observed generation. Returns whether anything changed.
pub fn applied(status: &mut KlusterletStatus, generation: i64, agents: &Agents) -> bool {
    let mut changed = false;
    if status.observed_generation != generation {
        status.observed_generation = generation;
        changed = true;
    }
    changed |= set(
        status,
        generation,
        c::KLUSTERLET_APPLIED,
        c::TRUE,
        c::REASON_KLUSTERLET_APPLIED,
        "Klusterlet Component Applied",
    );

    let (registration, work) = match agents.singleton {
        true => (SINGLETON_DEPLOYMENT, SINGLETON_DEPLOYMENT),
        false => (REGISTRATION_DEPLOYMENT, WORK_DEPLOYMENT),
    };
    let named: &[(&str, Availability)] = match agents.singleton {
        true => &[(SINGLETON_DEPLOYMENT, agents.registration)],
        false => &[(REGISTRATION_DEPLOYMENT, agents.registration), (WORK_DEPLOYMENT, agents.work)],
    };
    let unavailable: Vec<String> =
        named.iter().filter(|(_, a)| !a.is_available()).map(|(name, a)| a.describe(name)).collect();
    let (state, reason, message) = match unavailable.len() {
        0 => (c::TRUE, c::REASON_KLUSTERLET_AVAILABLE, "deployments are ready".to_owned()),
        n if n == named.len() => (c::FALSE, c::REASON_NO_AVAILABLE_PODS, unavailable.join("; ")),
        _ => (c::FALSE, c::REASON_UNAVAILABLE_PODS, unavailable.join("; ")),
    };
    changed |= set(status, generation, c::KLUSTERLET_AVAILABLE, state, reason, &message);

    let degraded = [
        (c::KLUSTERLET_REGISTRATION_DESIRED_DEGRADED, registration, agents.registration),
        (c::KLUSTERLET_WORK_DESIRED_DEGRADED, work, agents.work),
    ];
    for (type_, name, agent) in degraded {
        changed |= if agent.is_available() {
            set(
                status,
                generation,
                type_,
                c::FALSE,
                c::REASON_DEPLOYMENTS_FUNCTIONAL,
                &format!("deployment {name} is functional"),
            )
        } else {
            set(status, generation, type_, c::TRUE, c::REASON_UNAVAILABLE_PODS, &agent.describe(name))
        };
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: Availability = Availability { exists: true, desired: 1, available: 1, pods: 1 };
    const DOWN: Availability = Availability { exists: true, desired: 1, available: 0, pods: 0 };
    const MISSING: Availability = Availability { exists: false, desired: 0, available: 0, pods: 0 };

    fn condition<'a>(status: &'a KlusterletStatus, type_: &str) -> &'a Condition {
        c::find(&status.conditions, type_).unwrap()
    }

    #[test]
    fn both_agents_available_make_the_klusterlet_available_and_not_degraded() {
        let mut status = KlusterletStatus::default();
        assert!(applied(&mut status, 3, &Agents { registration: UP, work: UP, singleton: false }));
        assert_eq!(status.observed_generation, 3);
        assert_eq!(condition(&status, c::KLUSTERLET_APPLIED).reason, c::REASON_KLUSTERLET_APPLIED);
        assert_eq!(condition(&status, c::KLUSTERLET_AVAILABLE).reason, c::REASON_KLUSTERLET_AVAILABLE);
        assert!(c::is_true(&status.conditions, c::KLUSTERLET_AVAILABLE));
        for type_ in [c::KLUSTERLET_REGISTRATION_DESIRED_DEGRADED, c::KLUSTERLET_WORK_DESIRED_DEGRADED] {
            assert!(c::is_false(&status.conditions, type_));
            assert_eq!(condition(&status, type_).reason, c::REASON_DEPLOYMENTS_FUNCTIONAL);
            assert_eq!(condition(&status, type_).observed_generation, Some(3));
        }
    }

    #[test]
    fn no_available_agent_is_no_available_pods() {
        let mut status = KlusterletStatus::default();
        applied(&mut status, 1, &Agents { registration: DOWN, work: MISSING, singleton: false });
        let available = condition(&status, c::KLUSTERLET_AVAILABLE);
        assert_eq!((available.status.as_str(), available.reason.as_str()), (c::FALSE, c::REASON_NO_AVAILABLE_PODS));
        assert!(available.message.contains("0 of 1 requested pods"));
        assert!(available.message.contains("deployment klusterlet-work-agent is missing"));
        let work = condition(&status, c::KLUSTERLET_WORK_DESIRED_DEGRADED);
        assert_eq!((work.status.as_str(), work.reason.as_str()), (c::TRUE, c::REASON_UNAVAILABLE_PODS));
    }

    #[test]
    fn one_unavailable_agent_is_unavailable_pods_and_degrades_only_that_agent() {
        let mut status = KlusterletStatus::default();
        applied(&mut status, 1, &Agents { registration: UP, work: DOWN, singleton: false });
        assert_eq!(condition(&status, c::KLUSTERLET_AVAILABLE).reason, c::REASON_UNAVAILABLE_PODS);
        assert!(c::is_false(&status.conditions, c::KLUSTERLET_REGISTRATION_DESIRED_DEGRADED));
        assert!(c::is_true(&status.conditions, c::KLUSTERLET_WORK_DESIRED_DEGRADED));
    }

    #[test]
    fn the_same_state_changes_nothing() {
        let agents = Agents { registration: UP, work: UP, singleton: false };
        let mut status = KlusterletStatus::default();
        applied(&mut status, 2, &agents);
        assert!(!applied(&mut status, 2, &agents));
        assert!(applied(&mut status, 3, &agents), "a new generation is observed");
    }

    #[test]
    fn an_apply_failure_keeps_the_other_conditions() {
        let mut status = KlusterletStatus::default();
        applied(&mut status, 1, &Agents { registration: UP, work: UP, singleton: false });
        assert!(apply_failed(&mut status, 1, "forbidden"));
        let applied_condition = condition(&status, c::KLUSTERLET_APPLIED);
        assert_eq!(applied_condition.reason, c::REASON_KLUSTERLET_APPLY_FAILED);
        assert_eq!(applied_condition.message, "forbidden");
        assert!(c::is_true(&status.conditions, c::KLUSTERLET_AVAILABLE));
        assert!(!apply_failed(&mut status, 1, "forbidden"));
    }

    #[test]
    fn other_writers_conditions_are_kept() {
        let mut status = KlusterletStatus {
            conditions: vec![c::new_condition(
                c::KLUSTERLET_HUB_CONNECTION_DEGRADED,
                c::FALSE,
                c::REASON_HUB_CONNECTION_FUNCTIONAL,
                "",
            )],
            ..KlusterletStatus::default()
        };
        applied(&mut status, 1, &Agents { registration: UP, work: UP, singleton: false });
        assert!(c::is_false(&status.conditions, c::KLUSTERLET_HUB_CONNECTION_DEGRADED));
        assert_eq!(status.conditions.len(), 5);
    }

    #[test]
    fn availability_reads_replicas_from_the_deployment() {
        let deployment: Deployment = serde_json::from_value(json!({
            "metadata": {"name": REGISTRATION_DEPLOYMENT, "labels": {"app": REGISTRATION_DEPLOYMENT}},
            "spec": {"replicas": 2, "selector": {}, "template": {}},
            "status": {"availableReplicas": 1, "replicas": 2},
        }))
        .unwrap();
        let agents = Agents::of(&[deployment]);
        assert_eq!(agents.registration, Availability { exists: true, desired: 2, available: 1, pods: 2 });
        assert!(agents.registration.is_available());
        assert!(!agents.work.exists);
        let starting = Availability { exists: true, desired: 1, available: 0, pods: 1 };
        assert!(starting.has_pods() && !starting.is_available(), "a pod not ready yet is a pod");
        assert!(!Availability { pods: 0, ..starting }.has_pods());
    }
}
