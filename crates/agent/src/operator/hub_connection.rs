//! The hub connection check (upstream's SSAR controller): the operator asks the hub, with
//! the hub kubeconfig the registration agent earned, whether it may do what the agents need
//! (SelfSubjectAccessReviews), and keeps the Klusterlet condition `HubConnectionDegraded`:
//! False/`HubConnectionFunctional` when it may. When it may not, the bootstrap kubeconfig
//! is asked too, and the condition is True with both reasons, bootstrap first,
//! comma-joined (`BootstrapSecretFunctional,HubKubeConfigSecretMissing`: the agent can heal;
//! `BootstrapSecretMissing,HubKubeConfigUnauthorized`: it cannot).
//!
//! A hub that refuses the credentials outright (401) counts as unauthorized, not as an
//! error as upstream files it: it is the case an operator must act on.
//!
//! Checked when either secret or the Klusterlet changes, and every [`CHECK_AGAIN`] (the
//! hub's side — RBAC, CA — can change without the managed cluster hearing of it).

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::authorization::v1::{ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, Resource};

use super::reconcile::update_status;
use super::{Context, OperatorError};
use crate::hub;
use fleetctl_api::conditions as c;
use fleetctl_api::names::{BOOTSTRAP_SECRET, CLUSTER_LEASE, HUB_KUBECONFIG_SECRET};
use fleetctl_api::operator::KLUSTERLET_NAME;
use fleetctl_api::{CLUSTER_GROUP, Klusterlet, REGISTER_GROUP, WORK_GROUP};
use fleetctl_kube::controller;
use fleetctl_kube::errors::chain;

/// How often the check runs when nothing changed (upstream's resync).
pub const CHECK_AGAIN: Duration = Duration::from_secs(30);
/// The longest one kubeconfig's reviews may take (an unreachable hub).
const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);
/// The name the controller's metrics are kept under.
const CONTROLLER_NAME: &str = "klusterlet-hub-connection";

/// What one kubeconfig's check found: whether it is degraded, why, and in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Whether the agents cannot work with it.
    pub degraded: bool,
    /// The upstream reason.
    pub reason: &'static str,
    /// What was found.
    pub message: String,
}

impl Finding {
    fn degraded(reason: &'static str, message: String) -> Self {
        Self { degraded: true, reason, message }
    }
}

/// The condition from the hub kubeconfig's finding and, when that one is degraded, the
/// bootstrap kubeconfig's.
pub fn condition(hub: &Finding, bootstrap: Option<&Finding>) -> Condition {
    match bootstrap {
        Some(bootstrap) if hub.degraded => c::new_condition(
            c::KLUSTERLET_HUB_CONNECTION_DEGRADED,
            c::TRUE,
            &format!("{},{}", bootstrap.reason, hub.reason),
            format!("{}\n{}", bootstrap.message, hub.message),
        ),
        _ => c::new_condition(
            c::KLUSTERLET_HUB_CONNECTION_DEGRADED,
            if hub.degraded { c::TRUE } else { c::FALSE },
            hub.reason,
            hub.message.clone(),
        ),
    }
}

fn attributes(group: &str, resource: &str, subresource: &str, namespace: &str, name: &str) -> ResourceAttributes {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    ResourceAttributes {
        group: Some(group.to_string()),
        resource: Some(resource.to_string()),
        subresource: some(subresource),
        namespace: some(namespace),
        name: some(name),
        ..ResourceAttributes::default()
    }
}

fn each_verb(base: ResourceAttributes, verbs: &[&str]) -> impl Iterator<Item = ResourceAttributes> {
    verbs.iter().map(move |verb| ResourceAttributes { verb: Some(verb.to_string()), ..base.clone() })
}

/// What the bootstrap identity must be allowed: to create a ManagedCluster and read its
/// own, and CSRs.
pub fn bootstrap_reviews(cluster: &str) -> Vec<ResourceAttributes> {
    let create = attributes(CLUSTER_GROUP, "managedclusters", "", "", "");
    let own = attributes(CLUSTER_GROUP, "managedclusters", "", "", cluster);
    let csrs = attributes("certificates.k8s.io", "certificatesigningrequests", "", "", "");
    each_verb(create, &["create"])
        .chain(each_verb(own, &["get"]))
        .chain(each_verb(csrs, &["create", "get", "list", "watch"]))
        .collect()
}

/// What the agents' hub identity must be allowed in and for `cluster`: the registration
/// agent's ManagedCluster, its status, renewal and lease; both agents' events; the work
/// agent's ManifestWorks and their status.
pub fn hub_reviews(cluster: &str) -> Vec<ResourceAttributes> {
    let granted: [(ResourceAttributes, &[&str]); 9] = [
        (attributes("certificates.k8s.io", "certificatesigningrequests", "", "", ""), &["get", "list", "watch"]),
        (attributes(CLUSTER_GROUP, "managedclusters", "", "", cluster), &["get", "list", "update", "watch"]),
        (attributes(CLUSTER_GROUP, "managedclusters", "status", "", cluster), &["patch", "update"]),
        (attributes(REGISTER_GROUP, "managedclusters", "clientcertificates", "", cluster), &["renew"]),
        (attributes("coordination.k8s.io", "leases", "", cluster, CLUSTER_LEASE), &["get", "update"]),
        (attributes("", "events", "", cluster, ""), &["create", "patch", "update"]),
        (attributes("events.k8s.io", "events", "", cluster, ""), &["create", "patch", "update"]),
        (attributes(WORK_GROUP, "manifestworks", "", cluster, ""), &["get", "list", "watch", "update"]),
        (attributes(WORK_GROUP, "manifestworks", "status", cluster, ""), &["patch", "update"]),
    ];
    granted.into_iter().flat_map(|(base, verbs)| each_verb(base, verbs)).collect()
}

/// The first of `reviews` the identity of `client` is not allowed.
async fn first_denied(client: &Client, reviews: Vec<ResourceAttributes>) -> Result<Option<String>, kube::Error> {
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    for attributes in reviews {
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec { resource_attributes: Some(attributes.clone()), ..Default::default() },
            ..Default::default()
        };
        let answered = api.create(&PostParams::default(), &review).await?;
        if !answered.status.is_some_and(|s| s.allowed) {
            return Ok(Some(describe(&attributes)));
        }
    }
    Ok(None)
}

fn describe(a: &ResourceAttributes) -> String {
    let text = |s: &Option<String>| s.clone().unwrap_or_default();
    let resource = match (text(&a.group), text(&a.subresource)) {
        (group, sub) if group.is_empty() && sub.is_empty() => text(&a.resource),
        (group, sub) if sub.is_empty() => format!("{}.{group}", text(&a.resource)),
        (group, sub) => format!("{}/{sub}.{group}", text(&a.resource)),
    };
    let name = a.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default();
    let namespace = a.namespace.as_ref().map(|n| format!(" in namespace {n}")).unwrap_or_default();
    format!("{} {resource}{name}{namespace}", text(&a.verb))
}

/// The reasons one kubeconfig's check can end with.
struct Reasons {
    missing: &'static str,
    error: &'static str,
    unauthorized: &'static str,
    functional: &'static str,
}

const HUB: Reasons = Reasons {
    missing: c::REASON_HUB_KUBECONFIG_SECRET_MISSING,
    error: c::REASON_HUB_KUBECONFIG_ERROR,
    unauthorized: c::REASON_HUB_KUBECONFIG_UNAUTHORIZED,
    functional: c::REASON_HUB_CONNECTION_FUNCTIONAL,
};

const BOOTSTRAP: Reasons = Reasons {
    missing: c::REASON_BOOTSTRAP_SECRET_MISSING,
    error: c::REASON_BOOTSTRAP_SECRET_ERROR,
    unauthorized: c::REASON_BOOTSTRAP_SECRET_UNAUTHORIZED,
    functional: c::REASON_BOOTSTRAP_SECRET_FUNCTIONAL,
};

/// Checks the kubeconfig in secret `namespace/name` against `reviews`.
async fn check(
    local: &Client,
    namespace: &str,
    name: &str,
    reasons: &Reasons,
    reviews: Vec<ResourceAttributes>,
) -> Finding {
    let secret = match Api::<Secret>::namespaced(local.clone(), namespace).get_opt(name).await {
        Ok(Some(secret)) => secret,
        Ok(None) => return Finding::degraded(reasons.missing, format!("secret {namespace}/{name} does not exist")),
        Err(e) => return Finding::degraded(reasons.error, format!("reading secret {namespace}/{name}: {}", chain(&e))),
    };
    if name == HUB_KUBECONFIG_SECRET && !secret.data.as_ref().is_some_and(|d| d.contains_key("kubeconfig")) {
        return Finding::degraded(
            c::REASON_HUB_KUBECONFIG_MISSING,
            format!("secret {namespace}/{name} has no kubeconfig yet: the hub has not issued the agent's certificate"),
        );
    }
    let connection = match hub::from_secret(&secret, namespace, name).await {
        Ok(connection) => connection,
        Err(e) => return Finding::degraded(reasons.error, chain(&e)),
    };
    let server = &connection.server;
    match tokio::time::timeout(REVIEW_TIMEOUT, first_denied(&connection.client, reviews)).await {
        Ok(Ok(None)) => Finding {
            degraded: false,
            reason: reasons.functional,
            message: format!("the kubeconfig in secret {namespace}/{name} works against {server}"),
        },
        Ok(Ok(Some(denied))) => Finding::degraded(
            reasons.unauthorized,
            format!("the kubeconfig in secret {namespace}/{name} may not {denied} on {server}"),
        ),
        Ok(Err(kube::Error::Api(status))) if status.code == 401 => Finding::degraded(
            reasons.unauthorized,
            format!("{server} does not accept the credentials in secret {namespace}/{name}"),
        ),
        Ok(Err(e)) => Finding::degraded(
            reasons.error,
            format!("asking {server} with the kubeconfig in secret {namespace}/{name}: {}", chain(&e)),
        ),
        Err(_) => Finding::degraded(
            reasons.error,
            format!("{server} did not answer within {REVIEW_TIMEOUT:?} (secret {namespace}/{name})"),
        ),
    }
}

/// One check of a Klusterlet's hub connection; writes the condition when it changed.
async fn reconcile(klusterlet: Arc<Klusterlet>, ctx: Arc<Context>) -> Result<Action, OperatorError> {
    if klusterlet.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let namespace = klusterlet.spec.agent_namespace();
    let cluster = &klusterlet.spec.cluster_name;
    let hub = check(&ctx.client, namespace, HUB_KUBECONFIG_SECRET, &HUB, hub_reviews(cluster)).await;
    let bootstrap = if hub.degraded {
        Some(check(&ctx.client, namespace, BOOTSTRAP_SECRET, &BOOTSTRAP, bootstrap_reviews(cluster)).await)
    } else {
        None
    };
    let wanted = condition(&hub, bootstrap.as_ref());
    if wanted.status == c::TRUE {
        tracing::info!(reason = %wanted.reason, message = %wanted.message, "the hub connection is degraded");
    }
    let api: Api<Klusterlet> = Api::all(ctx.client.clone());
    let generation = klusterlet.meta().generation.unwrap_or_default();
    update_status(&api, &klusterlet, |status| {
        c::set_condition(&mut status.conditions, Condition { observed_generation: Some(generation), ..wanted })
    })
    .await?;
    Ok(Action::requeue(CHECK_AGAIN))
}

/// Runs the check until dropped, for the Klusterlet `klusterlet`, on changes of it and of
/// the two secrets.
pub async fn controller(ctx: Arc<Context>) {
    let client = ctx.client.clone();
    let klusterlets: Api<Klusterlet> = Api::all(client.clone());
    let named = |name: &str| watcher::Config::default().fields(&format!("metadata.name={name}"));
    let ours = |_: Secret| Some(ObjectRef::<Klusterlet>::new(KLUSTERLET_NAME));
    let controller = Controller::new(klusterlets, named(KLUSTERLET_NAME))
        .watches(Api::<Secret>::all(client.clone()), named(HUB_KUBECONFIG_SECRET), ours)
        .watches(Api::<Secret>::all(client), named(BOOTSTRAP_SECRET), ours);
    controller::run(controller, CONTROLLER_NAME, &ctx.settings.metrics, reconcile, ctx.clone()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(degraded: bool, reason: &'static str) -> Finding {
        Finding { degraded, reason, message: reason.to_lowercase() }
    }

    #[test]
    fn a_working_hub_kubeconfig_is_functional_and_the_bootstrap_one_is_not_asked() {
        let condition = condition(&finding(false, c::REASON_HUB_CONNECTION_FUNCTIONAL), None);
        assert_eq!(condition.type_, c::KLUSTERLET_HUB_CONNECTION_DEGRADED);
        assert_eq!((condition.status.as_str(), condition.reason.as_str()), (c::FALSE, "HubConnectionFunctional"));
    }

    #[test]
    fn a_failing_hub_kubeconfig_joins_the_bootstrap_reason_first_as_upstream() {
        let hub = finding(true, c::REASON_HUB_KUBECONFIG_SECRET_MISSING);
        let bootstrap = finding(false, c::REASON_BOOTSTRAP_SECRET_FUNCTIONAL);
        let condition = condition(&hub, Some(&bootstrap));
        assert_eq!(condition.status, c::TRUE);
        assert_eq!(condition.reason, "BootstrapSecretFunctional,HubKubeConfigSecretMissing");
        assert_eq!(condition.message, "bootstrapsecretfunctional\nhubkubeconfigsecretmissing");
    }

    #[test]
    fn the_reviews_cover_what_each_identity_uses() {
        let hub = hub_reviews("c1");
        let lease = hub.iter().find(|a| a.resource.as_deref() == Some("leases")).expect("lease review");
        assert_eq!((lease.namespace.as_deref(), lease.name.as_deref()), (Some("c1"), Some(CLUSTER_LEASE)));
        assert!(
            hub.iter()
                .any(|a| a.subresource.as_deref() == Some("clientcertificates") && a.verb.as_deref() == Some("renew"))
        );
        let described: Vec<String> = bootstrap_reviews("c1").iter().map(describe).collect();
        assert_eq!(
            described,
            [
                "create managedclusters.cluster.open-cluster-management.io",
                "get managedclusters.cluster.open-cluster-management.io c1",
                "create certificatesigningrequests.certificates.k8s.io",
                "get certificatesigningrequests.certificates.k8s.io",
                "list certificatesigningrequests.certificates.k8s.io",
                "watch certificatesigningrequests.certificates.k8s.io",
            ]
        );
    }
}
