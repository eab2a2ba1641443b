//! The work agent (`fleetctld agent work`): applies the ManifestWorks of its cluster's
//! namespace on the hub to the managed cluster, and reports back.
//!
//! - The hub client comes from `hub-kubeconfig-secret` (read through the API). The agent
//!   waits for the secret, and when its resourceVersion moves (a rotated certificate)
//!   it builds a new client and restarts the controller, which reconciles every work
//!   once — writing nothing for works that did not change.
//! - Per work: the finalizer `cluster.open-cluster-management.io/manifest-work-cleanup`
//!   goes on the hub work before anything is applied; the AppliedManifestWork
//!   `<hub hash>-<work>` (finalizer `…/applied-manifest-work-cleanup`) records every
//!   resource applied, with its uid; manifests are server-side applied in order through
//!   discovery as field manager `work-agent`; resources the work no longer lists are
//!   deleted; the status (Applied, Available, Degraded and per-manifest conditions) is
//!   written only when it changed.
//! - A deleted work is marked `Deleting`, then removes its resources as `deleteOption` says —
//!   Foreground (the default: all, waiting until they are gone), Orphan (none) or
//!   SelectivelyOrphan (all but the listed ones) — then its AppliedManifestWork, then its hub
//!   finalizer.
//! - Status feedback (`feedback`): a manifest config's `feedbackRules` read from the
//!   applied (or, ReadOnly, the read) object; a work with any is read again every 10 s,
//!   upstream's status sync interval. Lists and objects as JSON text behind upstream's
//!   `RawFeedbackJsonString` gate.
//! - Condition rules (`condition_rules`): CEL and well-known conditions per manifest.
//! - Applied resources name their AppliedManifestWork among their owners (`owners`), as
//!   upstream's do; a resource another record holds is only let go of, never deleted.
//! - An AppliedManifestWork of this agent whose work is gone from the hub (or from the hub it
//!   came from: the agent moved) is evicted after a grace period (`evict`, upstream's
//!   `--appliedmanifestwork-eviction-grace-period`, an hour by default).
//! - A work's executor (`executor`): each manifest is reviewed against the executor
//!   ServiceAccount's permissions (SubjectAccessReviews, and for RBAC objects a dry-run create
//!   as the ServiceAccount) before it is applied.
//! - ServerSideApply's `ignoreFields` (`ignore`): fields left to the managed cluster, and a
//!   hash annotation that skips applying an unchanged manifest.
//!
//! Not here: `ttlSecondsAfterFinished` (upstream's hub garbage-collects Complete works);
//! feedback by watch (`feedbackScrapeType: Watch` is polled).

mod apply;
mod cleanup;
mod condition_rules;
mod controller;
mod evict;
mod executor;
mod feedback;
mod ignore;
mod options;
mod owners;
mod status;

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::runtime::watcher::{self, Event};
use kube::{Client, ResourceExt};

pub use apply::ManifestError;

use super::hub::{self, HubConnection};
use super::{AgentOptions, Clusters};
use fleetctl_api::names::HUB_KUBECONFIG_SECRET;
use fleetctl_api::work::hub_hash;
use fleetctl_kube::reconcile::{Failure, ReconcileError};
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::watch::BackedOff as _;
use fleetctl_kube::{ConfigError, KubeError};

/// The name the controller's metrics go by.
pub const CONTROLLER: &str = "work";
/// The name the eviction controller's metrics go by.
pub const EVICTION_CONTROLLER: &str = "work-eviction";

/// How the agent behaves, beyond who it is.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// How long an AppliedManifestWork whose work is gone from the hub is kept before its
    /// resources are deleted (100 years or more: never, upstream's bound).
    pub eviction_grace_period: Duration,
    /// Upstream's `RawFeedbackJsonString` gate: status feedback reports a list or an object
    /// found as its JSON text (up to 1024 bytes) instead of failing.
    pub raw_feedback_json: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self { eviction_grace_period: evict::DEFAULT_GRACE_PERIOD, raw_feedback_json: false }
    }
}

/// Why the agent could not start.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    /// No client for the managed cluster could be made.
    #[error("connecting to the managed cluster")]
    Config(#[from] ConfigError),
    /// The health endpoint could not start.
    #[error("starting the health endpoint")]
    Health(#[from] HealthError),
}

/// Why one reconcile of a work did not finish (it is tried again).
#[derive(Debug, thiserror::Error)]
pub enum WorkReconcileError {
    /// A Kubernetes API call failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// Watching for something to happen failed.
    #[error("waiting for the {what}")]
    Wait {
        /// What was awaited.
        what: String,
        /// The cause.
        #[source]
        source: kube::runtime::wait::Error,
    },
    /// Resources the work applied are still going.
    #[error("{0}")]
    Waiting(String),
    /// Manifests of the work could not be applied (its status says why, each).
    #[error("{failed} manifests of work {work} failed to apply")]
    ManifestsFailed {
        /// The work.
        work: String,
        /// How many of its manifests failed.
        failed: usize,
    },
}

impl ReconcileError for WorkReconcileError {
    fn failure(&self) -> Failure {
        match self {
            Self::Kube(e) => e.failure(),
            Self::Waiting(_) => Failure::Waiting,
            Self::Wait { .. } | Self::ManifestsFailed { .. } => Failure::Failed,
        }
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        matches!(self, Self::Waiting(_)).then_some(controller::DELETE_AGAIN)
    }
}

/// Runs the agent until SIGINT or SIGTERM.
/// `agent_id` is the Klusterlet's uid: the id its AppliedManifestWorks are recorded under.
pub async fn run(options: AgentOptions, agent_id: String, settings: Settings) -> Result<(), WorkError> {
    let clusters = Clusters::of(&options).await?;
    let health_state = Health::default();
    let (bound, _health) = health::serve(options.health, health_state.clone()).await?;
    tracing::info!(health = %bound, cluster = %options.cluster, "work agent starting");
    tokio::select! {
        () = agent(clusters, options.cluster, agent_id, options.namespace, health_state, settings) => {}
        _ = shutdown_signal() => tracing::info!("stopping"),
    }
    Ok(())
}

/// The running controller and the secret version its hub client came from.
struct Running {
    secret_version: String,
    controller: Pin<Box<dyn Future<Output = ()> + Send>>,
}

/// What woke the agent loop.
enum Wake {
    Secret(Box<Option<Result<Event<Secret>, watcher::Error>>>),
    ControllerStopped,
}

/// The agent, applying to `clusters.spoke` for `cluster` on the hub: watches the hub
/// kubeconfig secret in `namespace` (on `clusters.management`) and runs the work controller
/// with a client made from it — restarted when the secret changes, stopped while it is missing. Runs until
/// dropped; counts reconciles in `health.metrics` under [`CONTROLLER`], and is ready
/// (`/readyz`) only while a controller runs whose watches reach the hub.
pub async fn agent(
    clusters: Clusters,
    cluster: String,
    agent_id: String,
    namespace: String,
    health: Health,
    settings: Settings,
) {
    let secrets: Api<Secret> = Api::namespaced(clusters.management.clone(), &namespace);
    let only_ours = watcher::Config::default().fields(&format!("metadata.name={HUB_KUBECONFIG_SECRET}"));
    let mut events = pin!(watcher::watcher(secrets, only_ours).backed_off());
    let mut running: Option<Running> = None;
    loop {
        let wake = {
            let controller = async {
                match running.as_mut() {
                    Some(running) => running.controller.as_mut().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = events.next() => Wake::Secret(Box::new(event)),
                () = controller => Wake::ControllerStopped,
            }
        };
        let event = match wake {
            Wake::Secret(event) => *event,
            Wake::ControllerStopped => {
                // Its watches never end; if it does stop, the next secret event restarts it.
                tracing::warn!("the work controller stopped");
                running = None;
                continue;
            }
        };
        let secret = match event {
            // The watcher retries by itself; a stream that ends leaves nothing to watch.
            None => return,
            Some(Err(error)) => {
                tracing::debug!(%error, "watching the hub kubeconfig secret failed; the watch restarts");
                continue;
            }
            Some(Ok(Event::Init | Event::InitDone)) => continue,
            Some(Ok(Event::Delete(_))) => {
                if running.take().is_some() {
                    tracing::warn!(
                        "the hub kubeconfig secret is gone: works are not applied until a new one is written"
                    );
                }
                health.set_ready(false);
                continue;
            }
            Some(Ok(Event::Apply(secret) | Event::InitApply(secret))) => secret,
        };
        let version = secret.resource_version().unwrap_or_default();
        if running.as_ref().is_some_and(|r| r.secret_version == version) {
            continue;
        }
        match hub::connect(&clusters.management, &namespace, HUB_KUBECONFIG_SECRET).await {
            Ok(Some(connection)) => {
                tracing::info!(hub = %connection.server, %cluster, "connected to the hub; starting the controller");
                running = Some(start(connection, &clusters.spoke, &cluster, &agent_id, &health, settings));
            }
            Ok(None) => {
                running = None;
                health.set_ready(false);
            }
            // A broken secret is reported and the controller (if any) keeps its old
            // client until the watch on the hub fails: the next change of the secret is
            // tried again.
            Err(error) => tracing::warn!(error = %format!("{error:#}"), "cannot use the hub kubeconfig secret"),
        }
    }
}

fn start(
    connection: HubConnection,
    local: &Client,
    cluster: &str,
    agent_id: &str,
    health: &Health,
    settings: Settings,
) -> Running {
    let ctx = Arc::new(controller::Context {
        hub: connection.client,
        local: local.clone(),
        cluster: cluster.to_owned(),
        agent_id: agent_id.to_owned(),
        hub_hash: hub_hash(&connection.server),
        raw_json: settings.raw_feedback_json.then_some(feedback::MAX_JSON_RAW_LENGTH),
        kinds: fleetctl_kube::resolve::Kinds::default(),
        applied: fleetctl_kube::Written::read(),
        health: health.clone(),
    });
    let controller = controller::run(ctx, settings.eviction_grace_period);
    Running { secret_version: connection.secret_version, controller: Box::pin(controller) }
}
