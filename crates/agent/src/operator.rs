//! The klusterlet operator (`fleetctld agent operator`): reconciles the Klusterlet
//! `klusterlet` into the registration and work agents — namespaces, ServiceAccounts, RBAC,
//! Deployments and the AppliedManifestWork CRD — reports the upstream Klusterlet
//! conditions, and on deletion removes the agents, their records and finally itself.
//!
//! - [`render`]: the desired objects of a Klusterlet (pure).
//! - [`reconcile`]: applying them and reporting status.
//! - [`cleanup`]: the ordered, resumable removal behind the Klusterlet's finalizer.
//! - [`hub_connection`]: `HubConnectionDegraded`, from what the hub allows the agents'
//!   kubeconfigs.
//! - [`hosted`]: a Hosted Klusterlet: agents here, the managed cluster reached through a
//!   kubeconfig.
//! - [`takeover`]: one operator per Klusterlet — the newest takes over.
//! - [`prune`]: what an earlier version of the operator rendered and this one does not.

pub mod cleanup;
pub mod hosted;
pub mod hub_connection;
mod prune;
pub mod reconcile;
pub mod render;
pub mod takeover;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};

use fleetctl_api::Klusterlet;
use fleetctl_api::conditions::FINALIZER_KLUSTERLET_CLEANUP;
use fleetctl_api::names::{AGENT_NAMESPACE, EXTERNAL_MANAGED_KUBECONFIG};
use fleetctl_api::operator::{InstallMode, KLUSTERLET_NAME};
use fleetctl_kube::controller;
use fleetctl_kube::reconcile::{Failure, ReconcileError};
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::metrics::Registry;
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::{ConfigError, FieldManager, KubeError, Read, Selection, Written};

pub use render::{LABEL_KLUSTERLET, RenderError};

/// The field manager of every operator write.
pub const OPERATOR: FieldManager = FieldManager("fleetctl-klusterlet-operator");

/// How long cleanup waits for [`ANNOTATION_HUB_NOTIFIED`](fleetctl_api::names::ANNOTATION_HUB_NOTIFIED) while the registration agent runs;
/// after it the operator proceeds anyway (the hub has a force path).
pub const DEFAULT_HUB_NOTIFY_TIMEOUT: Duration = Duration::from_secs(10);

/// The name the controller's metrics are kept under.
pub const CONTROLLER_NAME: &str = "klusterlet";

/// What `fleetctld agent operator` needs.
#[derive(Debug, Clone)]
pub struct OperatorOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: Selection,
    /// Address of `/healthz`.
    pub health: SocketAddr,
}

/// How the controller behaves; [`Default`] is what `fleetctld agent operator` runs with.
#[derive(Debug, Clone)]
pub struct OperatorSettings {
    /// The namespace the operator itself runs in (its Deployment, ServiceAccount and the
    /// bootstrap secret), removed last on cleanup.
    pub namespace: String,
    /// See [`DEFAULT_HUB_NOTIFY_TIMEOUT`].
    pub hub_notify_timeout: Duration,
    /// Where reconciles are counted.
    pub metrics: Registry,
    /// Whether the hub connection check ([`hub_connection`]) runs beside the agents'
    /// controller (a simulated fleet leaves it out: its reviews go to the hub every
    /// [`hub_connection::CHECK_AGAIN`] per cluster and change nothing the fleet is measured on).
    pub hub_connection_check: bool,
}

impl Default for OperatorSettings {
    fn default() -> Self {
        Self {
            namespace: AGENT_NAMESPACE.to_owned(),
            hub_notify_timeout: DEFAULT_HUB_NOTIFY_TIMEOUT,
            metrics: Registry::default(),
            hub_connection_check: true,
        }
    }
}

/// Why the operator (or one reconcile) failed.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    /// No usable configuration for the managed cluster.
    #[error("connecting to the managed cluster")]
    Config(#[from] ConfigError),
    /// The health endpoint could not start.
    #[error(transparent)]
    Health(#[from] HealthError),
    /// A Kubernetes API call failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// A Hosted Klusterlet's kubeconfig of its managed cluster cannot be used.
    #[error("secret {secret} holds no usable kubeconfig of the managed cluster: {why}")]
    ExternalKubeconfig {
        /// The Secret, `namespace/name`.
        secret: String,
        /// Why.
        why: String,
    },
    /// The cleanup waits: for the registration agent to tell the hub, or for the agents
    /// to stop.
    #[error("{why}")]
    Waiting {
        /// What it waits for.
        why: String,
        /// When to look again (events may bring it back sooner).
        again: Duration,
    },
}

impl ReconcileError for OperatorError {
    fn failure(&self) -> Failure {
        match self {
            Self::Kube(e) => e.failure(),
            Self::Waiting { .. } => Failure::Waiting,
            Self::Config(_) | Self::Health(_) | Self::ExternalKubeconfig { .. } => Failure::Failed,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Waiting { again, .. } => Some(*again),
            _ => None,
        }
    }
}

/// Shared by every reconcile.
pub struct Context {
    /// The managed cluster.
    pub client: Client,
    /// Behaviour.
    pub settings: OperatorSettings,
    /// What the passes applied: a resync applies only what changed since.
    pub applied: Written<Read>,
    /// Whether this process pruned what earlier operators rendered (once: what it renders
    /// changes only with its version).
    pub pruned: AtomicBool,
}

/// One pass over a Klusterlet behind its cleanup finalizer. Once the finalizer is gone
/// from the Klusterlet `klusterlet` being deleted, the operator removes itself, as far as its
/// rights reach (see [`cleanup`]); a Hosted Klusterlet's deletion leaves it serving the others
/// ([`hosted`]).
async fn reconcile(klusterlet: Arc<Klusterlet>, ctx: Arc<Context>) -> Result<Action, finalizer::Error<OperatorError>> {
    let api: Api<Klusterlet> = Api::all(ctx.client.clone());
    let deleting = klusterlet.meta().deletion_timestamp.is_some();
    let hosted = klusterlet.spec.deploy_option.mode == InstallMode::Hosted;
    if !hosted && klusterlet.name_any() != KLUSTERLET_NAME {
        // The Default and Singleton modes are the Klusterlet `klusterlet`'s: another is never
        // deployed (nor cleaned up: its cleanup would be `klusterlet`'s agents).
        if !deleting {
            let message = format!(
                "this operator deploys the Default and Singleton modes for the Klusterlet {KLUSTERLET_NAME} only:                  rename it, or use deployOption.mode Hosted"
            );
            let generation = klusterlet.metadata.generation.unwrap_or_default();
            reconcile::update_status(&api, &klusterlet, |status| reconcile::apply_failed(status, generation, &message))
                .await
                .map_err(finalizer::Error::ApplyFailed)?;
        }
        return Ok(Action::await_change());
    }
    let action = finalizer(&api, FINALIZER_KLUSTERLET_CLEANUP, klusterlet.clone(), |event| async {
        match (event, hosted) {
            (finalizer::Event::Apply(klusterlet), false) => reconcile::reconcile(&klusterlet, &ctx).await,
            (finalizer::Event::Apply(klusterlet), true) => hosted::reconcile(&klusterlet, &ctx).await,
            (finalizer::Event::Cleanup(klusterlet), false) => cleanup::reconcile(&klusterlet, &ctx).await,
            (finalizer::Event::Cleanup(klusterlet), true) => hosted::cleanup(&klusterlet, &ctx).await,
        }
    })
    .await?;
    if deleting && !hosted {
        cleanup::remove_operator(&ctx, &klusterlet).await;
    }
    Ok(action)
}

/// Runs the klusterlet controllers until the returned future is dropped: the hub
/// connection check ([`hub_connection`]) and the agents' — the Klusterlet
/// `klusterlet`, retriggered by changes of the agent Deployments it owns (found through
/// [`LABEL_KLUSTERLET`]: a cluster-scoped owner cannot be found from a namespaced child's
/// owner reference by kube-runtime's `owns`).
pub async fn controller(client: Client, settings: OperatorSettings) {
    let ctx = Arc::new(Context {
        client: client.clone(),
        settings,
        applied: Written::read(),
        pruned: AtomicBool::new(false),
    });
    // Every Klusterlet: `klusterlet`, and the Hosted ones whose agents run here.
    let klusterlets: Api<Klusterlet> = Api::all(client.clone());
    let agents = watcher::Config::default().labels(LABEL_KLUSTERLET);
    // A Hosted Klusterlet's kubeconfig of its managed cluster is in the namespace of its name.
    let external = watcher::Config::default().fields(&format!("metadata.name={EXTERNAL_MANAGED_KUBECONFIG}"));
    let agents = Controller::new(klusterlets, watcher::Config::default())
        .watches(Api::<Deployment>::all(client.clone()), agents, |deployment| {
            deployment.labels().get(LABEL_KLUSTERLET).map(|name| ObjectRef::<Klusterlet>::new(name))
        })
        .watches(Api::<Secret>::all(client), external, |secret| secret.namespace().map(|ns| ObjectRef::new(&ns)));
    let agents = controller::run(agents, CONTROLLER_NAME, &ctx.settings.metrics, reconcile, ctx.clone());
    let check = async {
        match ctx.settings.hub_connection_check {
            true => hub_connection::controller(ctx.clone()).await,
            false => std::future::pending().await,
        }
    };
    tokio::join!(agents, check);
}

/// Runs the operator until SIGINT/SIGTERM: the controller plus `/healthz` on
/// `options.health` (ready once the controller runs).
pub async fn run(options: OperatorOptions) -> Result<(), OperatorError> {
    let (client, _) = fleetctl_kube::client(&options.local).await?;
    let health = Health::default();
    let (address, server) = health::serve(options.health, health.clone()).await?;
    let namespace =
        std::env::var("POD_NAMESPACE").ok().filter(|ns| !ns.is_empty()).unwrap_or_else(|| AGENT_NAMESPACE.to_owned());
    tracing::info!(%address, %namespace, "klusterlet operator starting");
    let settings = OperatorSettings { namespace, metrics: health.metrics.clone(), ..OperatorSettings::default() };
    health.set_ready(true);
    tokio::select! {
        () = controller(client, settings) => {}
        _ = shutdown_signal() => tracing::info!("klusterlet operator stopping"),
    }
    server.abort();
    Ok(())
}
