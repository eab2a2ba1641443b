//! The auto-import controller, as upstream's managedcluster-import-controller: a Secret
//! `auto-import-secret` in a cluster's namespace holds credentials for the cluster — a
//! `kubeconfig`, or a `server` and `token` — and the hub applies the cluster's `crds.yaml`
//! and `import.yaml` to it itself, so nobody outside needs to hold them. It reports on
//! `ManagedClusterImportSucceeded` with upstream's reasons, retries a failed apply after the
//! cluster's back-off (the controller runtime's: 1 s doubling to 5 min), and deletes the secret once the manifests are applied unless it is annotated
//! to be kept. `import.open-cluster-management.io/disable-auto-import` on the cluster turns
//! it off; `…/immediate-import` (empty) imports an imported cluster again. What the secret
//! holds never reaches a log, an Event or a condition.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use parking_lot::Mutex;
use serde_json::json;

use super::context::{Ctx, set};
use super::watches::{Followed, bounded, cluster_of, stored_by_name};
use fleetctl_api::ManagedCluster;
use fleetctl_api::conditions::{self as c, LABEL_IMPORT_SECRET};
use fleetctl_api::names::{
    ANNOTATION_DISABLE_AUTO_IMPORT, ANNOTATION_IMMEDIATE_IMPORT, ANNOTATION_KEEPING_AUTO_IMPORT_SECRET,
    AUTO_IMPORT_KEY_CA, AUTO_IMPORT_KEY_INSECURE, AUTO_IMPORT_KEY_KUBECONFIG, AUTO_IMPORT_KEY_SERVER,
    AUTO_IMPORT_KEY_TOKEN, AUTO_IMPORT_SECRET, AUTO_IMPORT_TYPE_KUBECONFIG, AUTO_IMPORT_TYPE_KUBETOKEN,
    IMMEDIATE_IMPORT_COMPLETED, import_secret,
};
use fleetctl_kube::kubeconfig::{self, Credentials, Names, secret_text};
use fleetctl_kube::reconcile::{Failure, ReconcileError};
use fleetctl_kube::{ApplyError, ApplyOptions, KubeError, apply_yaml, controller, kube_error, update_conditions};

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "auto-import";
/// How long the target's CRDs may take to become Established.
const CRD_TIMEOUT: Duration = Duration::from_secs(60);

/// Upstream's condition message once the manifests are applied (the import controller
/// says the same while the klusterlet comes up).
pub const APPLIED: &str = "Importing resources are applied, wait for resources be available";
/// How upstream's messages of a failed auto-import begin: a secret that cannot be used, or
/// an apply that failed.
const INVALID: &str = "AutoImportSecretInvalid";
const APPLY_FAILED: &str = "Try to import managed cluster";

/// Whether the cluster's ImportSucceeded condition tells how an auto-import goes (which
/// the import controller leaves alone until the cluster joins, as upstream's import status
/// controller does).
pub fn reports(conditions: &[Condition]) -> bool {
    c::find(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED).is_some_and(|condition| {
        condition.status == c::FALSE
            && match condition.reason.as_str() {
                c::REASON_IMPORTING => true,
                c::REASON_IMPORT_FAILED => {
                    condition.message.starts_with(INVALID) || condition.message.starts_with(APPLY_FAILED)
                }
                _ => false,
            }
    })
}

/// What the controller knows between passes: the auto-import secrets (as watched), and the
/// version of the secret each cluster was imported with (a kept secret is applied once,
/// not on every change of its cluster).
#[derive(Debug)]
struct State {
    secrets: Store<Secret>,
    applied: Mutex<HashMap<String, String>>,
}

impl State {
    fn succeeded(&self, cluster: &str, secret_version: String) {
        self.applied.lock().insert(cluster.to_string(), secret_version);
    }

    fn applied_with(&self, cluster: &str) -> Option<String> {
        self.applied.lock().get(cluster).cloned()
    }

    fn forget(&self, cluster: &str) {
        self.applied.lock().remove(cluster);
    }
}

/// Runs the auto-import controller on the clusters it follows until the returned future is
/// dropped. The auto-import secrets are kept in a store (few clusters have one); the
/// import secret's rendering brings a waiting cluster back.
pub async fn controller(ctx: Ctx, clusters: Followed) {
    let secrets = Api::<Secret>::all(ctx.client.clone());
    let (auto_import_secrets, auto_import_secret_changes) = stored_by_name(secrets.clone(), AUTO_IMPORT_SECRET);
    let controller = Controller::for_stream(clusters.changes, clusters.store)
        .with_config(bounded())
        .watches_stream(auto_import_secret_changes, cluster_of)
        .watches(secrets, watcher::Config::default().labels(LABEL_IMPORT_SECRET), cluster_of);
    let state = Arc::new(State { secrets: auto_import_secrets, applied: Mutex::default() });
    let reconcile = move |cluster, ctx| reconcile(cluster, ctx, state.clone());
    controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()).await;
}

/// Why a pass did not finish; an import that failed is tried again after the cluster's
/// back-off.
#[derive(Debug, thiserror::Error)]
pub enum AutoImportError {
    /// A call to the hub failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// The import failed (its condition says how).
    #[error("auto-importing cluster {cluster}: {message}")]
    Import {
        /// The cluster.
        cluster: String,
        /// What failed, without any credential.
        message: String,
    },
}

impl ReconcileError for AutoImportError {
    fn failure(&self) -> Failure {
        match self {
            Self::Kube(e) => e.failure(),
            Self::Import { .. } => Failure::Failed,
        }
    }
}

/// How the secret says to reach the cluster.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A kubeconfig, used at its current context.
    Kubeconfig(String),
    /// An API server and a bearer token; the CA that verifies the server, or `None` to
    /// reach it unverified (said explicitly in the secret).
    Token { server: String, token: String, ca_pem: Option<String> },
}

/// How to reach the cluster, as the secret's type (or, for an `Opaque` one, its keys)
/// says. An error says what is missing and never what is there.
fn target_of(secret: &Secret) -> Result<Target, String> {
    let mut data = secret_text(secret);
    let kubeconfig = |data: &mut std::collections::BTreeMap<String, String>| {
        data.remove(AUTO_IMPORT_KEY_KUBECONFIG).map(Target::Kubeconfig).ok_or_else(|| "kubeconfig is missing".into())
    };
    match secret.type_.as_deref() {
        None | Some("" | "Opaque") if data.contains_key(AUTO_IMPORT_KEY_KUBECONFIG) => kubeconfig(&mut data),
        None | Some("" | "Opaque")
            if data.contains_key(AUTO_IMPORT_KEY_TOKEN) && data.contains_key(AUTO_IMPORT_KEY_SERVER) =>
        {
            token(data)
        }
        None | Some("" | "Opaque") => Err("kubeconfig or token/server pair is missing".into()),
        Some(AUTO_IMPORT_TYPE_KUBECONFIG) => kubeconfig(&mut data),
        Some(AUTO_IMPORT_TYPE_KUBETOKEN) => token(data),
        Some(other) => Err(format!("unsupported secret type {other}")),
    }
}

fn token(mut data: std::collections::BTreeMap<String, String>) -> Result<Target, String> {
    let (Some(server), Some(token)) = (data.remove(AUTO_IMPORT_KEY_SERVER), data.remove(AUTO_IMPORT_KEY_TOKEN)) else {
        return Err("kube token or server is missing".into());
    };
    let ca_pem = match data.remove(AUTO_IMPORT_KEY_CA) {
        Some(ca) => Some(ca),
        None if data.get(AUTO_IMPORT_KEY_INSECURE).is_some_and(|v| v == "true") => None,
        None => {
            return Err(format!(
                "the server of a token secret is verified with {AUTO_IMPORT_KEY_CA}: add the server's CA bundle, \
                 or set {AUTO_IMPORT_KEY_INSECURE}: \"true\" to reach it unverified"
            ));
        }
    };
    Ok(Target::Token { server, token, ca_pem })
}

/// A client for the target. Errors are said without their causes, which could quote
/// what the secret holds.
async fn client_of(target: Target) -> Result<Client, String> {
    let config = match target {
        Target::Kubeconfig(text) => kubeconfig::from_text(&text).await.map_err(|e| format!("its kubeconfig: {e}"))?.1,
        Target::Token { server, token, ca_pem } => {
            let names = Names::same("target");
            let config = match ca_pem {
                Some(ca_pem) => kubeconfig::single(names, &server, &ca_pem, Credentials::Token(token)),
                None => unverified(kubeconfig::single(names, &server, "", Credentials::Token(token))),
            };
            kube::Config::from_custom_kubeconfig(config, &KubeConfigOptions::default())
                .await
                .map_err(|e| format!("its server and token: {e}"))?
        }
    };
    Client::try_from(config).map_err(|e| format!("a client for it: {e}"))
}

/// The kubeconfig with its clusters reached without verifying their certificates.
fn unverified(mut config: Kubeconfig) -> Kubeconfig {
    for cluster in config.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        cluster.certificate_authority_data = None;
        cluster.insecure_skip_tls_verify = Some(true);
    }
    config
}

/// Whether the hub imports the cluster now (`Some`), and whether because an immediate
/// import was asked for (`Some(true)`): an accepted cluster not being deleted, whose
/// auto-import is not disabled, once (upstream's default strategy, ImportOnly) unless asked
/// to import again. A Hosted-mode cluster's secret is the import controller's: it hands the
/// kubeconfig to the hosting cluster, nothing is applied to the cluster itself.
fn wanted(cluster: &ManagedCluster) -> Option<bool> {
    let annotations = cluster.annotations();
    if cluster.meta().deletion_timestamp.is_some()
        || !cluster.spec.hub_accepts_client
        || cluster.is_hosted()
        || annotations.contains_key(ANNOTATION_DISABLE_AUTO_IMPORT)
    {
        return None;
    }
    let immediate = annotations.get(ANNOTATION_IMMEDIATE_IMPORT).is_some_and(String::is_empty);
    let imported = c::is_true(cluster.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED);
    (immediate || !imported).then_some(immediate)
}

/// One pass over one cluster.
async fn reconcile(cluster: Arc<ManagedCluster>, ctx: Ctx, state: Arc<State>) -> Result<Action, AutoImportError> {
    let name = cluster.name_any();
    let Some(immediate) = wanted(&cluster) else { return Ok(Action::await_change()) };
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), &name);
    let what = format!("{name}/{AUTO_IMPORT_SECRET}");
    // The store is current up to the event that brought the pass here.
    let Some(secret) = state.secrets.get(&ObjectRef::new(AUTO_IMPORT_SECRET).within(&name)) else {
        state.forget(&name);
        return Ok(Action::await_change());
    };
    let version = secret.resource_version();
    if version.is_some() && state.applied_with(&name) == version {
        return Ok(Action::await_change());
    }
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    let report = |reason: &'static str, message: String| {
        let (clusters, cluster) = (&clusters, &cluster);
        async move {
            update_conditions(clusters, cluster, |conditions| {
                set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::FALSE, reason, &message)
            })
            .await
        }
    };
    let target = match target_of(&secret) {
        Ok(target) => target,
        Err(why) => {
            let message = format!("{INVALID} {what}; {why}");
            if report(c::REASON_IMPORT_FAILED, message.clone()).await? {
                warn(&ctx, &cluster, "AutoImportSecretInvalid", message).await?;
            }
            // A fixed secret brings the cluster back.
            return Ok(Action::await_change());
        }
    };
    let import_secret_name = import_secret(&name);
    let rendered = secrets
        .get_opt(&import_secret_name)
        .await
        .map_err(kube_error(format!("reading secret {name}/{import_secret_name}")))?;
    let Some((crds, manifests)) = rendered.as_ref().and_then(crate::import::manifests) else {
        // The import secret's watch brings the cluster back once it is rendered.
        report(c::REASON_IMPORTING, "Wait for import secret".into()).await?;
        return Ok(Action::await_change());
    };
    let failed = |message: String| AutoImportError::Import { cluster: name.clone(), message };
    let target = match client_of(target).await {
        Ok(client) => client,
        Err(why) => {
            let message = format!("{INVALID} {what}; generate kube client by secret error: {why}");
            report(c::REASON_IMPORT_FAILED, message.clone()).await?;
            return Err(failed(message));
        }
    };
    let options = ApplyOptions { crd_timeout: CRD_TIMEOUT, ..ApplyOptions::default() };
    let applied = match apply_yaml(&target, &crds, &options).await {
        Ok(_) => apply_yaml(&target, &manifests, &options).await,
        Err(e) => Err(e),
    };
    if let Err(error) = applied {
        let message = apply_failure(&what, &error);
        report(c::REASON_IMPORT_FAILED, message.clone()).await?;
        return Err(failed(message));
    }
    if let Some(version) = version {
        state.succeeded(&name, version);
    }
    report(c::REASON_IMPORTING, APPLIED.into()).await?;
    tracing::info!(cluster = %name, "auto-import: the import manifests are applied");
    if immediate {
        let patch = json!({"metadata": {"annotations": {ANNOTATION_IMMEDIATE_IMPORT: IMMEDIATE_IMPORT_COMPLETED}}});
        clusters
            .patch(&name, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .map_err(kube_error(format!("marking the immediate import of {name} completed")))?;
    }
    if secret.annotations().contains_key(ANNOTATION_KEEPING_AUTO_IMPORT_SECRET) {
        note(&ctx, &cluster, "AutoImportSecretSaved", format!("The auto import secret {what} is saved")).await?;
    } else {
        fleetctl_kube::reconcile::delete(&secrets, AUTO_IMPORT_SECRET, &DeleteParams::default()).await?;
        note(&ctx, &cluster, "AutoImportSecretDeleted", format!("The auto import secret {what} is deleted")).await?;
    }
    Ok(Action::await_change())
}

/// The condition message of a failed apply, as upstream words it: a refusal (401, 403)
/// means the secret's credentials may not do it.
fn apply_failure(what: &str, error: &ApplyError) -> String {
    let code = match error {
        ApplyError::Rejected { status, .. } => Some(status.code),
        _ => None,
    };
    let text = fleetctl_kube::errors::chain(error);
    if matches!(code, Some(401 | 403)) {
        format!("{INVALID} {what}; please check its permission, apply resources error: {text}")
    } else {
        format!("{APPLY_FAILED}, error: {text}")
    }
}

async fn warn(ctx: &Ctx, cluster: &ManagedCluster, reason: &str, note: String) -> Result<(), KubeError> {
    publish(ctx, cluster, EventType::Warning, reason, note).await
}

async fn note(ctx: &Ctx, cluster: &ManagedCluster, reason: &str, note: String) -> Result<(), KubeError> {
    publish(ctx, cluster, EventType::Normal, reason, note).await
}

async fn publish(
    ctx: &Ctx,
    cluster: &ManagedCluster,
    type_: EventType,
    reason: &str,
    note: String,
) -> Result<(), KubeError> {
    let event = Event { type_, reason: reason.into(), note: Some(note), action: "AutoImport".into(), secondary: None };
    let name = cluster.name_any();
    ctx.recorder
        .publish(&event, &cluster.object_ref(&()))
        .await
        .map_err(kube_error(format!("recording an event for cluster {name}")))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use fleetctl_kube::kubeconfig::secret_data;

    fn secret(type_: Option<&str>, data: &[(&str, &str)]) -> Secret {
        let values: BTreeMap<String, String> = data.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Secret { type_: type_.map(str::to_string), data: Some(secret_data(values)), ..Secret::default() }
    }

    #[test]
    fn an_opaque_secret_is_read_by_its_keys_as_upstream_does() {
        let kubeconfig = secret(Some("Opaque"), &[("kubeconfig", "K"), ("token", "T")]);
        assert_eq!(target_of(&kubeconfig), Ok(Target::Kubeconfig("K".into())), "a kubeconfig wins");
        let token = secret(None, &[("server", "https://x"), ("token", "T"), ("ca.crt", "CA")]);
        assert_eq!(
            target_of(&token),
            Ok(Target::Token { server: "https://x".into(), token: "T".into(), ca_pem: Some("CA".into()) })
        );
        let neither = secret(Some("Opaque"), &[("server", "https://x")]);
        assert_eq!(target_of(&neither), Err("kubeconfig or token/server pair is missing".into()));
    }

    #[test]
    fn a_typed_secret_needs_the_keys_of_its_type() {
        let kubeconfig = secret(Some(AUTO_IMPORT_TYPE_KUBECONFIG), &[("token", "T"), ("server", "https://x")]);
        assert_eq!(target_of(&kubeconfig), Err("kubeconfig is missing".into()));
        let token = secret(Some(AUTO_IMPORT_TYPE_KUBETOKEN), &[("kubeconfig", "K")]);
        assert_eq!(target_of(&token), Err("kube token or server is missing".into()));
        let rosa = secret(Some("auto-import/rosa"), &[]);
        assert_eq!(target_of(&rosa), Err("unsupported secret type auto-import/rosa".into()));
    }

    #[test]
    fn a_token_secret_reaches_its_server_unverified_only_when_it_says_so() {
        let unsaid = secret(Some(AUTO_IMPORT_TYPE_KUBETOKEN), &[("server", "https://x"), ("token", "SECRET")]);
        let why = target_of(&unsaid).expect_err("no CA");
        assert!(why.contains("ca.crt") && !why.contains("SECRET"), "{why}");
        let said = secret(
            Some(AUTO_IMPORT_TYPE_KUBETOKEN),
            &[("server", "https://x"), ("token", "T"), ("insecure-skip-tls-verify", "true")],
        );
        assert_eq!(target_of(&said), Ok(Target::Token { server: "https://x".into(), token: "T".into(), ca_pem: None }));
    }

    #[tokio::test]
    async fn an_unreadable_kubeconfig_is_refused_without_quoting_it() {
        let Err(why) = client_of(Target::Kubeconfig("users: [{name: u, user: {token: SECRET".into())).await else {
            panic!("a broken kubeconfig made a client");
        };
        assert!(why.starts_with("its kubeconfig: ") && !why.contains("SECRET"), "{why}");
    }

    #[test]
    fn the_import_controller_leaves_the_auto_imports_progress_and_failures_alone() {
        let with = |reason: &str, message: &str| {
            vec![c::new_condition(c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::FALSE, reason, message)]
        };
        assert!(reports(&with(c::REASON_IMPORTING, APPLIED)));
        assert!(reports(&with(c::REASON_IMPORT_FAILED, "AutoImportSecretInvalid c1/auto-import-secret; x")));
        assert!(reports(&with(c::REASON_IMPORT_FAILED, "Try to import managed cluster, error: x")));
        assert!(!reports(&with(c::REASON_IMPORT_FAILED, "the hub controller knows only its in-cluster address")));
        assert!(!reports(&with(c::REASON_WAIT_FOR_IMPORTING, "Wait for importing")));
        assert!(!reports(&[]));
    }

    #[test]
    fn a_cluster_is_auto_imported_once_unless_disabled_or_asked_to_again() {
        let cluster = |annotations: &[(&str, &str)], imported: bool| {
            let mut cluster = ManagedCluster::accepted("c1");
            cluster.metadata.annotations =
                Some(annotations.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
            if imported {
                let status = cluster.status.get_or_insert_with(Default::default);
                let condition = c::new_condition(c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::TRUE, c::REASON_IMPORTED, "");
                status.conditions.push(condition);
            }
            cluster
        };
        assert_eq!(wanted(&cluster(&[], false)), Some(false));
        assert_eq!(wanted(&cluster(&[], true)), None, "imported once");
        assert_eq!(wanted(&cluster(&[(ANNOTATION_IMMEDIATE_IMPORT, "")], true)), Some(true), "asked again");
        let completed = cluster(&[(ANNOTATION_IMMEDIATE_IMPORT, IMMEDIATE_IMPORT_COMPLETED)], true);
        assert_eq!(wanted(&completed), None, "the immediate import was done");
        let disabled = cluster(&[(ANNOTATION_DISABLE_AUTO_IMPORT, ""), (ANNOTATION_IMMEDIATE_IMPORT, "")], false);
        assert_eq!(wanted(&disabled), None, "disabled wins over immediate, as upstream");
        let mut refused = cluster(&[], false);
        refused.spec.hub_accepts_client = false;
        assert_eq!(wanted(&refused), None);
        let hosted = cluster(&[(c::ANNOTATION_KLUSTERLET_DEPLOY_MODE, "Hosted")], false);
        assert_eq!(wanted(&hosted), None, "a hosted cluster's secret goes to its hosting cluster");
    }

    #[test]
    fn a_failed_import_is_retried_after_the_clusters_back_off_and_a_kept_secret_is_applied_once() {
        let failed = AutoImportError::Import { cluster: "c1".into(), message: "refused".into() };
        assert_eq!((failed.failure(), failed.retry_after()), (Failure::Failed, None), "the runtime's back-off");
        let state = State { secrets: kube::runtime::reflector::store().0, applied: Mutex::default() };
        state.succeeded("c1", "7".into());
        assert_eq!(state.applied_with("c1").as_deref(), Some("7"));
        state.forget("c1");
        assert_eq!(state.applied_with("c1"), None);
    }
}
