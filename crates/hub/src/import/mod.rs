//! The import controller: for an accepted ManagedCluster, its namespace, bootstrap
//! identity and `<c>-import` secret; once it has joined, the klusterlet works; and the
//! `ManagedClusterImportSucceeded` condition. Deletion hands over to cleanup.
//!
//! It follows the clusters, the import secrets and ManifestWorks it wrote (another hand's
//! change of them is written back), the cluster's addons (a detach waits for them), and the
//! CA bundle the hub publishes when bootstrap kubeconfigs follow it (a rotated CA
//! re-renders every cluster's import).

mod hosted;
mod moving;
mod recovery;
mod release;
mod secret;

pub use recovery::DEFAULT_RECOVER_AFTER;
pub use secret::{crds_yaml, manifests};

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use fleetctl_api::conditions::{
    self as c, ANNOTATION_KLUSTERLET_DEPLOY_MODE, FINALIZER_IMPORT_CLEANUP, LABEL_IMPORT_SECRET,
};
use fleetctl_api::names::{
    ANNOTATION_KLUSTERLET_VERSION, ANNOTATION_OWN_KLUSTERLET, AUTO_IMPORT_SECRET, ROOT_CA_CONFIGMAP,
    is_hub_bootstrap_user, klusterlet_work,
};
use fleetctl_api::operator::InstallMode;
use fleetctl_api::{ManagedCluster, ManagedClusterAddOn, ManifestWork};
use fleetctl_kube::{controller, kube_error, update_conditions};
use futures::FutureExt;
use futures::future::BoxFuture;
use futures::stream::{BoxStream, StreamExt};
use k8s_openapi::ByteString;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::Store;
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};

use super::bootstrap;
use super::context::{Ctx, HUB, HubAddress, HubError, SecretRef, set};
use super::watches::{Followed, bounded, cluster_of, known, observed, watch_one};
use super::works;
use crate::manifests::import::{self, ImportInputs};

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "import";

/// How often a hosted cluster whose hosting cluster cannot host it is looked at again.
const HOSTING_RECHECK: Duration = Duration::from_secs(30);

/// The key of `kube-root-ca.crt` that holds the bundle.
const ROOT_CA_KEY: &str = "ca.crt";

/// What the import controller keeps between passes.
struct State {
    /// The hub's published CA bundle (`kube-root-ca.crt`), as watched, when bootstrap
    /// kubeconfigs follow it ([`HubConfig::root_ca_namespace`](crate::HubConfig::root_ca_namespace)).
    root_ca: Option<Store<ConfigMap>>,
    /// The bootstrap tokens, as written.
    tokens: secret::Tokens,
}

impl State {
    /// The CA bundle bootstrap kubeconfigs trust: the hub's published one if it is
    /// followed and known, else `configured`.
    fn bootstrap_ca<'a>(&self, configured: &'a str) -> Cow<'a, str> {
        let published = self
            .root_ca
            .iter()
            .flat_map(Store::state)
            .find_map(|map| map.data.as_ref()?.get(ROOT_CA_KEY).filter(|ca| !ca.trim().is_empty()).cloned());
        published.map_or(Cow::Borrowed(configured), Cow::Owned)
    }
}

/// The watch of the hub's published CA bundle, if bootstrap kubeconfigs follow it: its
/// store, the watch (to be run) and a stream that yields when the bundle changes.
fn root_ca(ctx: &Ctx) -> (Option<Store<ConfigMap>>, BoxFuture<'static, ()>, BoxStream<'static, ()>) {
    match &ctx.config.root_ca_namespace {
        Some(namespace) => {
            let api = Api::<ConfigMap>::namespaced(ctx.client.clone(), namespace);
            let (store, watch, changes) = watch_one(api, ROOT_CA_CONFIGMAP);
            (Some(store), watch.boxed(), changes.boxed())
        }
        None => (None, futures::future::ready(()).boxed(), futures::stream::pending().boxed()),
    }
}

/// Runs the import controller on the clusters it follows until the returned future is
/// dropped. It starts once the hub's CA bundle is known, so that no import flips to the
/// configured CA and back.
pub async fn controller(ctx: Ctx, clusters: Followed) {
    let (root_ca, root_ca_watch, root_ca_changes) = root_ca(&ctx);
    let all = watcher::Config::default;
    let client = ctx.client.clone();
    let controller = Controller::for_stream(clusters.changes, clusters.store)
        .with_config(bounded())
        // The import secrets live in their cluster's namespace (kube-runtime's `owns`
        // would look for the cluster-scoped owner in that namespace). What the import
        // wrote and watches, another hand's change included, is written again.
        .watches(Api::<Secret>::all(client.clone()), all().labels(LABEL_IMPORT_SECRET), observed(&ctx))
        .watches(Api::<ManifestWork>::all(client.clone()), all(), observed(&ctx))
        .watches(Api::<ManagedClusterAddOn>::all(client.clone()), all(), cluster_of)
        // A hosted cluster's auto-import secret carries its kubeconfig to the hosting cluster.
        .watches(Api::<Secret>::all(client), all().fields(&format!("metadata.name={AUTO_IMPORT_SECRET}")), cluster_of)
        .reconcile_all_on(root_ca_changes);
    let run = async {
        if let Some(store) = &root_ca {
            known(store).await;
        }
        let state = Arc::new(State { root_ca, tokens: secret::Tokens::default() });
        let reconcile = move |cluster, ctx| reconcile(cluster, ctx, state.clone());
        controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()).await;
    };
    tokio::join!(root_ca_watch, run);
}

/// The klusterlet version a cluster should run.
pub fn desired_version<'a>(cluster: &'a ManagedCluster, default: &'a str) -> &'a str {
    cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION).map_or(default, String::as_str)
}

/// One pass over one cluster, behind the finalizer
/// `managedcluster-import-controller.open-cluster-management.io/cleanup`: an accepted
/// cluster is imported; a deleted one is detached ([`super::cleanup`]).
async fn reconcile(
    cluster: Arc<ManagedCluster>,
    ctx: Ctx,
    state: Arc<State>,
) -> Result<Action, finalizer::Error<HubError>> {
    if !cluster.spec.hub_accepts_client && cluster.meta().deletion_timestamp.is_none() {
        return Ok(Action::await_change());
    }
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    if release::handed_back(&cluster) && cluster.finalizers().iter().any(|f| f == FINALIZER_IMPORT_CLEANUP) {
        return release::release(&clusters, &cluster, &ctx).await.map_err(finalizer::Error::ApplyFailed);
    }
    if keeps_own_klusterlet(&clusters, &cluster, &ctx).await.map_err(finalizer::Error::ApplyFailed)? {
        return Ok(Action::await_change());
    }
    finalizer(&clusters, FINALIZER_IMPORT_CLEANUP, cluster, |event| async {
        match event {
            finalizer::Event::Apply(cluster) => import(&clusters, &cluster, &ctx, &state).await,
            finalizer::Event::Cleanup(cluster) => {
                let detached = super::cleanup::reconcile(&cluster, &ctx).await;
                if detached.is_ok() {
                    state.tokens.forget(&cluster.name_any());
                }
                detached
            }
        }
    })
    .await
}

/// Whether an accepted cluster keeps the klusterlet it joined with, as on an OCM hub: it
/// registered itself through a hub-wide bootstrap identity (`clusteradm join`, its CSR's
/// requester says so) before anything here imported it. The answer is recorded on the
/// cluster ([`ANNOTATION_OWN_KLUSTERLET`]) the first time, as its CSRs do not last; whoever
/// manages the cluster may change it: `false` has the hub import it (`fleetctl upgrade
/// --adopt-klusterlet`: fleetctl's operator takes the klusterlet over), `true` has the hub let
/// go of a klusterlet it installed ([`release`]).
async fn keeps_own_klusterlet(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    ctx: &Ctx,
) -> Result<bool, HubError> {
    match cluster.annotations().get(ANNOTATION_OWN_KLUSTERLET).map(String::as_str) {
        Some("true") => return Ok(true),
        Some("false") => return Ok(false),
        _ => {}
    }
    // Imported already: its klusterlet is this hub's.
    let imported = cluster.finalizers().iter().any(|f| f == FINALIZER_IMPORT_CLEANUP)
        || c::find(cluster.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED).is_some();
    if imported || cluster.meta().deletion_timestamp.is_some() {
        return Ok(false);
    }
    let name = cluster.name_any();
    let csrs: Api<CertificateSigningRequest> = Api::all(ctx.client.clone());
    let selector = format!("{}={name}", c::LABEL_CLUSTER_NAME);
    let asked = csrs
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(kube_error(format!("listing the CSRs of {name}")))?;
    if !asked.items.iter().any(|csr| csr.spec.username.as_deref().is_some_and(is_hub_bootstrap_user)) {
        return Ok(false);
    }
    let mark = serde_json::json!({"metadata": {"annotations": {ANNOTATION_OWN_KLUSTERLET: "true"}}});
    clusters
        .patch(&name, &PatchParams::default(), &Patch::Merge(&mark))
        .await
        .map_err(kube_error(format!("marking {name} as keeping its own klusterlet")))?;
    tracing::info!(cluster = %name, "joined by itself: it keeps its own klusterlet, nothing is imported");
    Ok(true)
}

/// The import of an accepted cluster: its namespace, bootstrap identity, import secret,
/// and once it has joined, its klusterlet works.
async fn import(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    ctx: &Ctx,
    state: &State,
) -> Result<Action, HubError> {
    let name = cluster.name_any();
    let (hub_url, hub_ca_pem) = match &ctx.config.address {
        HubAddress::External { url, ca_pem } => (url, ca_pem),
        HubAddress::Unknown { in_cluster_url } => {
            refuse_import(clusters, cluster, ctx, "HubAddressUnknown", &HubError::NoHubAddress(in_cluster_url.clone()))
                .await?;
            // Only a restart with the address changes this.
            return Ok(Action::await_change());
        }
    };
    let mode = match deploy_mode(cluster) {
        Ok(mode) => mode,
        Err(e) => {
            refuse_import(clusters, cluster, ctx, "KlusterletModeUnsupported", &e).await?;
            // Only a change of the annotation changes this.
            return Ok(Action::await_change());
        }
    };
    let hosting = match mode {
        InstallMode::Hosted => match hosted::hosting_cluster(ctx, cluster).await {
            Ok(hosting) => Some(hosting),
            Err(e @ HubError::Hosting { .. }) => {
                refuse_import(clusters, cluster, ctx, "HostingClusterUnusable", &e).await?;
                // The hosting cluster's changes do not bring this cluster back: look again.
                return Ok(Action::requeue(HOSTING_RECHECK));
            }
            Err(e) => return Err(e),
        },
        _ => None,
    };
    let image = ctx.config.image(desired_version(cluster, &ctx.config.default_version));
    let pull_secret = match &ctx.config.image_pull_secret {
        Some(secret) => match registry_credentials(ctx, secret).await {
            Ok(credentials) => Some(credentials),
            Err(e) => {
                refuse_import(clusters, cluster, ctx, "ImagePullSecretUnusable", &e).await?;
                return Err(e);
            }
        },
        None => None,
    };
    if hosting.is_none() && moving::is_moving(cluster) {
        return match moving::hand_over(ctx, cluster, &image, pull_secret.as_ref(), mode).await {
            // The move secret's changes bring the cluster back.
            Ok(()) => Ok(Action::await_change()),
            Err(e @ HubError::Moving { .. }) => {
                refuse_import(clusters, cluster, ctx, "MoveSecretUnusable", &e).await?;
                Ok(Action::await_change())
            }
            Err(e) => Err(e),
        };
    }
    // A hosted klusterlet's agents follow the hosting cluster's. Read before the token, so
    // that nothing is awaited between reading the import secret's token and writing it.
    let recovery = match hosting {
        None => recovery::of(ctx, cluster).await?,
        Some(_) => None,
    };
    super::namespace::ensure(ctx, &name).await?;
    let now = jiff::Timestamp::now();
    let ((), current) = futures::try_join!(bootstrap::ensure(ctx, &name), state.tokens.current(ctx, &name))?;
    let token = match current {
        Some(token) if !token.needs_refresh(now) => token,
        _ => bootstrap::issue(ctx, &name).await?,
    };
    let hub_ca_pem = state.bootstrap_ca(hub_ca_pem);
    let inputs = ImportInputs {
        cluster: &name,
        hub_url,
        hub_ca_pem: &hub_ca_pem,
        token: &token.token,
        image: &image,
        image_pull_secret: pull_secret.as_ref(),
        mode,
        recovery: recovery.as_ref(),
    };
    let import_objects = import::objects(&inputs);
    let owner = cluster.controller_owner_ref(&()).ok_or_else(|| HubError::NoUid(name.clone()))?;
    let secret = secret::render(&name, &token, &import_objects, owner.clone());
    ctx.written.apply(HUB, &Api::<Secret>::namespaced(ctx.client.clone(), &name), &secret).await?;
    state.tokens.written(&name, token.clone());
    let until_refresh = token.refresh_at().duration_since(now).unsigned_abs().max(Duration::from_secs(1));
    if let Some(hosting) = hosting {
        let progress = match hosted::import(ctx, &name, &hosting, import_objects, &owner).await {
            Ok(progress) => progress,
            Err(e @ HubError::Hosting { .. }) => {
                refuse_import(clusters, cluster, ctx, "AutoImportSecretInvalid", &e).await?;
                return Ok(Action::await_change());
            }
            Err(e) => return Err(e),
        };
        update_conditions(clusters, cluster, |conditions| {
            let (status, reason, message) = match progress {
                hosted::Progress::Importing(message) => (c::FALSE, c::REASON_IMPORTING, message),
                hosted::Progress::Imported => (c::TRUE, c::REASON_IMPORTED, "Import succeeded"),
            };
            set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, status, reason, message)
        })
        .await?;
        return Ok(Action::requeue(until_refresh));
    }
    if cluster.is_joined() {
        let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &name);
        for work in works::klusterlet_works(&name, vec![secret::klusterlet_crd().clone()], import_objects, &owner) {
            ctx.written.apply(HUB, &works_api, &work).await?;
        }
    }
    let klusterlet_available = cluster.is_joined() && klusterlet_work_available(ctx, &name).await?;
    update_conditions(clusters, cluster, |conditions| {
        let (status, reason, message) = match (cluster.is_joined(), klusterlet_available) {
            // Until the cluster joins, the auto-import tells how its import goes.
            (false, _) if super::autoimport::reports(conditions) => return false,
            (false, _) => (c::FALSE, c::REASON_WAIT_FOR_IMPORTING, "Wait for importing"),
            (true, false) => {
                (c::FALSE, c::REASON_IMPORTING, "Importing resources are applied, wait for resources be available")
            }
            (true, true) => (c::TRUE, c::REASON_IMPORTED, "Import succeeded"),
        };
        set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, status, reason, message)
    })
    .await?;
    Ok(Action::requeue(until_refresh))
}

/// How the cluster's klusterlet runs its agents, as its annotation
/// [`ANNOTATION_KLUSTERLET_DEPLOY_MODE`] asks (ACM's key): `Default` (or none), `Singleton`,
/// or `Hosted` (on another managed cluster, [`hosted`]).
fn deploy_mode(cluster: &ManagedCluster) -> Result<InstallMode, HubError> {
    match cluster.annotations().get(ANNOTATION_KLUSTERLET_DEPLOY_MODE).map(String::as_str) {
        None | Some("Default") => Ok(InstallMode::Default),
        Some("Singleton") => Ok(InstallMode::Singleton),
        Some("Hosted") => Ok(InstallMode::Hosted),
        Some(other) => Err(HubError::UnsupportedMode(other.to_owned())),
    }
}

/// The `.dockerconfigjson` of the registry credentials the klusterlets get.
async fn registry_credentials(ctx: &Ctx, secret: &SecretRef) -> Result<ByteString, HubError> {
    let problem =
        |problem| HubError::PullSecret { namespace: secret.namespace.clone(), name: secret.name.clone(), problem };
    let found = Api::<Secret>::namespaced(ctx.client.clone(), &secret.namespace)
        .get_opt(&secret.name)
        .await
        .map_err(kube_error(format!("reading the image pull secret {}/{}", secret.namespace, secret.name)))?
        .ok_or_else(|| problem("does not exist"))?;
    import::docker_config(&found).cloned().map_err(problem)
}

/// Says on the cluster why it is not imported: ImportSucceeded=False/ImportFailed and a
/// warning Event with `reason`.
async fn refuse_import(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    ctx: &Ctx,
    reason: &str,
    why: &HubError,
) -> Result<(), HubError> {
    let message = why.to_string();
    let changed = update_conditions(clusters, cluster, |conditions| {
        set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::FALSE, c::REASON_IMPORT_FAILED, &message)
    })
    .await?;
    if changed {
        let event = Event {
            type_: EventType::Warning,
            reason: reason.into(),
            note: Some(message),
            action: "Import".into(),
            secondary: None,
        };
        let name = cluster.name_any();
        ctx.recorder
            .publish(&event, &cluster.object_ref(&()))
            .await
            .map_err(kube_error(format!("recording an event for cluster {name}")))?;
    }
    Ok(())
}

async fn klusterlet_work_available(ctx: &Ctx, cluster: &str) -> Result<bool, HubError> {
    let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), cluster);
    let work = works_api
        .get_opt(&klusterlet_work(cluster))
        .await
        .map_err(kube_error(format!("reading the klusterlet work of {cluster}")))?;
    Ok(work.is_some_and(|w| w.is_available()))
}
