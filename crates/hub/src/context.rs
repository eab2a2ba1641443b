//! What every hub controller shares: the client, the configuration, metrics, events, and
//! the hub's error.

use std::sync::Arc;
use std::time::Duration;

use fleetctl_kube::reconcile::{Failure, ReconcileError};
use fleetctl_kube::runner::metrics::Registry;
use fleetctl_kube::{FieldManager, KubeError};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::Client;

use fleetctl_api::conditions;

/// The field manager of every hub write.
pub const HUB: FieldManager = FieldManager("fleetctl-hub");

/// Why a reconcile did not finish (every variant is tried again).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// A Kubernetes API call failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// A deletion waits for what is still there (the agents removing themselves); the
    /// watches bring the cluster back when that changes.
    #[error("{0}")]
    Waiting(String),
    /// A TokenRequest was answered without a token.
    #[error("the token request for {0} was answered without a token")]
    NoToken(String),
    /// A cluster read from the API has no uid (so nothing can be owned by it).
    #[error("cluster {0} has no uid")]
    NoUid(String),
}

impl ReconcileError for HubError {
    fn failure(&self) -> Failure {
        match self {
            Self::Kube(e) => e.failure(),
            Self::Waiting(_) => Failure::Waiting,
            Self::NoToken(_) | Self::NoUid(_) => Failure::Failed,
        }
    }
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

/// Sets one condition (keeping its transition time when the status is unchanged).
pub fn set(conditions_: &mut Vec<Condition>, type_: &str, status: &str, reason: &str, message: &str) -> bool {
    conditions::set_condition(conditions_, conditions::new_condition(type_, status, reason, message))
}
