//! Hosted mode from the command line: a cluster whose klusterlet runs on another managed
//! cluster of the hub (its hosting cluster). The hosting cluster's agents reach the managed
//! cluster with a kubeconfig the hub hands them from the cluster's auto-import secret: the
//! import makes, on the managed cluster, an identity for them alone — a ServiceAccount bound to
//! `cluster-admin`, as the klusterlet's operator grants the agents their rules — and writes a
//! kubeconfig of its token; detach removes that identity once the hub has let go.

use std::time::Duration;

use fleetctl_api::ManagedCluster;
use fleetctl_api::names::hosted_klusterlet_namespace;
use fleetctl_kube::kubeconfig;
use fleetctl_kube::objects::{self, MetaExt, labels, meta, namespaced_meta};
use fleetctl_kube::reconcile::delete;
use fleetctl_kube::{FIELD_MANAGER, kube_error};
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use kube::Client;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::config::Kubeconfig;

use super::{LifecycleError, wait_for};

/// The namespace and name of the hosting cluster's identity on the managed cluster (its
/// ServiceAccount and ClusterRoleBinding).
const ACCESS_NAMESPACE: &str = "kube-system";
const ACCESS_NAME: &str = "fleetctl-hosted-klusterlet";
/// That identity, in words.
pub const ACCESS: &str = "kube-system/fleetctl-hosted-klusterlet";
/// How long its token lasts (a year): importing the cluster again issues a new one.
const TOKEN_SECONDS: i64 = 365 * 24 * 3600;
/// The ClusterRole bound: the klusterlet's operator grants its agents what they need, which it
/// may only grant holding it.
const ADMIN_ROLE: &str = "cluster-admin";

/// The kubeconfig the hosting cluster reaches the managed cluster with: `reach` (the
/// managed cluster as this command reaches it: server and CA) with a token of an identity
/// made on it for that use. Returns the kubeconfig and when its token expires.
pub async fn access(target: &Client, reach: &Kubeconfig) -> Result<(Kubeconfig, String), LifecycleError> {
    let ours = || labels([("app.kubernetes.io/managed-by", "fleetctl")]);
    let account = objects::service_account(namespaced_meta(ACCESS_NAMESPACE, ACCESS_NAME).with_labels(ours()));
    let subject = objects::service_account_subject(ACCESS_NAMESPACE, ACCESS_NAME);
    let binding = objects::cluster_role_binding(meta(ACCESS_NAME).with_labels(ours()), ADMIN_ROLE, vec![subject]);
    let apply = PatchParams::apply(FIELD_MANAGER).force();
    let accounts: Api<ServiceAccount> = Api::namespaced(target.clone(), ACCESS_NAMESPACE);
    accounts
        .patch(ACCESS_NAME, &apply, &Patch::Apply(&account))
        .await
        .map_err(kube_error(format!("writing ServiceAccount {ACCESS_NAMESPACE}/{ACCESS_NAME} on the target")))?;
    Api::<ClusterRoleBinding>::all(target.clone())
        .patch(ACCESS_NAME, &apply, &Patch::Apply(&binding))
        .await
        .map_err(kube_error(format!("writing ClusterRoleBinding {ACCESS_NAME} on the target")))?;
    let request = TokenRequest {
        spec: TokenRequestSpec { expiration_seconds: Some(TOKEN_SECONDS), ..TokenRequestSpec::default() },
        ..TokenRequest::default()
    };
    let issued = accounts
        .create_token_request(ACCESS_NAME, &PostParams::default(), &request)
        .await
        .map_err(kube_error(format!("asking a token of {ACCESS_NAMESPACE}/{ACCESS_NAME} on the target")))?;
    let status = issued.status.ok_or_else(|| {
        LifecycleError::Failed(format!("the target answered the token request of {ACCESS_NAME} without a token"))
    })?;
    Ok((kubeconfig::with_token(reach, &status.token), status.expiration_timestamp.0.to_string()))
}

/// Once the hub has let go of a hosted cluster (the hosting cluster's operator has cleaned the
/// managed cluster with it), removes the hosting cluster's identity from the managed cluster and
/// waits until the klusterlet namespace the operator deleted there is gone.
pub async fn leave(target: &Client, name: &str, timeout: Duration) -> Result<(), LifecycleError> {
    let background = DeleteParams::background();
    delete(&Api::<ClusterRoleBinding>::all(target.clone()), ACCESS_NAME, &background).await?;
    delete(&Api::<ServiceAccount>::namespaced(target.clone(), ACCESS_NAMESPACE), ACCESS_NAME, &background).await?;
    let namespace = hosted_klusterlet_namespace(name);
    let what = format!("namespace {namespace} to go from the target");
    wait_for(Api::<Namespace>::all(target.clone()), &namespace, &what, timeout, |n: Option<&Namespace>| n.is_none())
        .await
        .map(|_| ())
}

/// The hosting cluster of a cluster to import in Hosted mode, checked on the hub before any
/// write: a managed cluster there, available, neither the cluster itself nor hosted itself.
pub async fn check_hosting(hub: &Client, name: &str, hosting: &str) -> Result<(), LifecycleError> {
    if hosting == name {
        return Err(LifecycleError::Usage(format!(
            "--hosting-cluster names the cluster itself: name the managed cluster {name}'s agents are to run on"
        )));
    }
    let found = Api::<ManagedCluster>::all(hub.clone())
        .get_opt(hosting)
        .await
        .map_err(kube_error(format!("reading the hosting cluster {hosting}")))?;
    let refuse = |why: &str| Err(LifecycleError::Refused(format!("cluster {hosting} cannot host {name}: {why}")));
    match found {
        None => refuse("the hub has no such cluster — import it first (`fleetctl import`)"),
        Some(cluster) if cluster.metadata.deletion_timestamp.is_some() => refuse("it is being detached"),
        Some(cluster) if cluster.is_hosted() => refuse("it is hosted itself: its agents run elsewhere"),
        Some(cluster) if !cluster.is_available() => {
            refuse("it is not available — see `fleetctl describe cluster` for why")
        }
        Some(_) => Ok(()),
    }
}
