//! The klusterlet operator (`fleetctld agent operator`): reconciles the Klusterlet
//! `klusterlet` into the registration and work agents — namespaces, ServiceAccounts, RBAC,
//! Deployments and the AppliedManifestWork CRD — reports the upstream Klusterlet
//! conditions, and on deletion removes the agents, their records and finally itself.
//!
//! - [`render`]: the desired objects of a Klusterlet (pure).
//! - [`reconcile`]: applying them and reporting status.
//! - [`cleanup`]: the ordered, resumable removal behind the Klusterlet's finalizer.

pub mod cleanup;
pub mod reconcile;
pub mod render;

use std::fmt::Debug;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use fleetctl_api::Klusterlet;
use fleetctl_api::names::AGENT_NAMESPACE;
use fleetctl_api::operator::KLUSTERLET_NAME;
use fleetctl_kube::errors::chain;
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::metrics::Registry;
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::{ConfigError, Selection};

pub use render::{LABEL_KLUSTERLET, RenderError};

/// The field manager of every operator write.
pub const FIELD_MANAGER: &str = "fleetctl-klusterlet-operator";

/// How long cleanup waits for [`ANNOTATION_HUB_NOTIFIED`](fleetctl_api::names::ANNOTATION_HUB_NOTIFIED) while the registration agent runs;
/// after it the operator proceeds anyway (the hub has a force path).
pub const DEFAULT_HUB_NOTIFY_TIMEOUT: Duration = Duration::from_secs(10);

/// The name the controller's metrics are kept under.
pub const CONTROLLER_NAME: &str = "klusterlet";

/// Retry delay after a failed reconcile.
const RETRY: Duration = Duration::from_secs(2);

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
}

impl Default for OperatorSettings {
    fn default() -> Self {
        Self {
            namespace: AGENT_NAMESPACE.to_owned(),
            hub_notify_timeout: DEFAULT_HUB_NOTIFY_TIMEOUT,
            metrics: Registry::default(),
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
    #[error("{action}")]
    Kube {
        /// What was being done, in lower case.
        action: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
}

impl OperatorError {
    /// Whether the API answered with this HTTP status.
    fn is_status(&self, code: u16) -> bool {
        matches!(self, Self::Kube { source: kube::Error::Api(status), .. } if status.code == code)
    }
}

/// Wraps a kube error with what was being done.
fn kube_error(action: impl Into<String>) -> impl FnOnce(kube::Error) -> OperatorError {
    let action = action.into();
    move |source| OperatorError::Kube { action, source }
}

/// Shared by every reconcile.
pub struct Context {
    /// The managed cluster.
    pub client: Client,
    /// Behaviour.
    pub settings: OperatorSettings,
}

/// Server-side applies `object` under [`FIELD_MANAGER`], forcing ownership; the server
/// makes no write when nothing changed.
async fn apply<K>(api: &Api<K>, object: &K) -> Result<K, OperatorError>
where
    K: Resource + Serialize + DeserializeOwned + Clone + Debug,
    <K as Resource>::DynamicType: Default,
{
    let name = object.name_any();
    api.patch(&name, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(object))
        .await
        .map_err(kube_error(format!("applying {} {name}", K::kind(&Default::default()))))
}

/// Deletes an object; absent is fine.
async fn delete<K>(api: &Api<K>, name: &str, params: &DeleteParams) -> Result<(), OperatorError>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    <K as Resource>::DynamicType: Default,
{
    match api.delete(name, params).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("deleting {} {name}", K::kind(&Default::default())))(e)),
    }
}

/// One pass over the Klusterlet, counted in the controller's metrics.
async fn reconcile(klusterlet: Arc<Klusterlet>, ctx: Arc<Context>) -> Result<Action, OperatorError> {
    let metrics = ctx.settings.metrics.controller(CONTROLLER_NAME);
    metrics.queued(1);
    let result = if klusterlet.meta().deletion_timestamp.is_some() {
        cleanup::reconcile(&klusterlet, &ctx).await
    } else {
        reconcile::reconcile(&klusterlet, &ctx).await
    };
    metrics.queued(-1);
    metrics.reconciled(result.is_ok());
    result
}

fn error_policy(_: Arc<Klusterlet>, error: &OperatorError, _: Arc<Context>) -> Action {
    if error.is_status(409) {
        // Someone (the registration agent, or our own previous write) changed the
        // Klusterlet; the next pass starts from the fresh object.
        tracing::debug!(error = %chain(error), "write conflict; retrying");
    } else {
        tracing::warn!(error = %chain(error), "klusterlet reconcile failed; retrying");
    }
    Action::requeue(RETRY)
}

/// Runs the klusterlet controller until the returned future is dropped: the Klusterlet
/// `klusterlet`, retriggered by changes of the agent Deployments it owns (found through
/// [`LABEL_KLUSTERLET`]: a cluster-scoped owner cannot be found from a namespaced child's
/// owner reference by kube-runtime's `owns`).
pub async fn controller(client: Client, settings: OperatorSettings) {
    let ctx = Arc::new(Context { client: client.clone(), settings });
    let klusterlets: Api<Klusterlet> = Api::all(client.clone());
    let ours = watcher::Config::default().fields(&format!("metadata.name={KLUSTERLET_NAME}"));
    let agents = watcher::Config::default().labels(LABEL_KLUSTERLET);
    Controller::new(klusterlets, ours)
        .watches(Api::<Deployment>::all(client), agents, |deployment| {
            deployment.labels().get(LABEL_KLUSTERLET).map(|name| ObjectRef::<Klusterlet>::new(name))
        })
        .run(reconcile, error_policy, ctx)
        .for_each(|result| async move {
            if let Err(error) = result {
                // Reconcile failures were logged by the error policy; what is left here is
                // the queue's own news, such as a Klusterlet that went away.
                tracing::debug!(error = %chain(&error), "klusterlet controller");
            }
        })
        .await;
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
        () = shutdown_signal() => tracing::info!("klusterlet operator stopping"),
    }
    server.abort();
    Ok(())
}
