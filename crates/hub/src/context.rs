//! What every hub controller shares: the client, the configuration, metrics, events, what
//! was written, and the hub's error.

use std::sync::Arc;
use std::time::Duration;

use fleetctl_api::conditions::{self, ANNOTATION_KLUSTERLET_DEPLOY_MODE};
use fleetctl_api::names::{agent_role, bootstrap_role};
use fleetctl_kube::reconcile::{Failure, ReconcileError};
use fleetctl_kube::runner::metrics::Registry;
use fleetctl_kube::{FieldManager, KubeError, Written};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::Client;

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
    /// The controller does not know the hub's external address.
    #[error(
        "the hub controller knows only its in-cluster address ({0}), which managed clusters cannot reach: \
         run `fleetctl hub install` again (it records the URL your kubeconfig uses) or set --hub-url on the controller"
    )]
    NoHubAddress(String),
    /// The registry credentials the controller was told to hand on are not usable.
    #[error(
        "the image pull secret {namespace}/{name} {problem}: create it with `kubectl create secret docker-registry \
         {name} -n {namespace} …` or run `fleetctl hub install` without --image-pull-secret"
    )]
    PullSecret {
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A cluster read from the API has no uid (so nothing can be owned by it).
    #[error("cluster {0} has no uid")]
    NoUid(String),
    /// A klusterlet deploy mode the hub does not render.
    #[error(
        "klusterlet deploy mode {0:?} ({ANNOTATION_KLUSTERLET_DEPLOY_MODE}) is not one this hub renders: Default, Singleton \
         or Hosted"
    )]
    UnsupportedMode(String),
    /// A cluster being moved to another hub whose new hub is not known here.
    #[error("cluster {cluster} cannot be moved: {why}: run `fleetctl move` again")]
    Moving {
        /// The cluster.
        cluster: String,
        /// What is wrong.
        why: String,
    },
    /// A Hosted-mode cluster whose hosting cluster cannot host it (yet).
    #[error("cluster {cluster} cannot be hosted: {why}")]
    Hosting {
        /// The hosted cluster.
        cluster: String,
        /// Why, and what to do.
        why: String,
    },
}

impl ReconcileError for HubError {
    fn failure(&self) -> Failure {
        match self {
            Self::Kube(e) => e.failure(),
            Self::Waiting(_) => Failure::Waiting,
            Self::NoToken(_)
            | Self::NoUid(_)
            | Self::NoHubAddress(_)
            | Self::PullSecret { .. }
            | Self::UnsupportedMode(_)
            | Self::Hosting { .. }
            | Self::Moving { .. } => Failure::Failed,
        }
    }
}

/// The address managed clusters reach the hub at, for their bootstrap kubeconfigs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HubAddress {
    /// The URL and CA people and managed clusters use.
    External {
        /// The API server URL.
        url: String,
        /// Its CA bundle, PEM.
        ca_pem: String,
    },
    /// Only the controller's own in-cluster address is known, which no managed cluster
    /// reaches: import secrets are not written.
    Unknown {
        /// The address the controller itself uses.
        in_cluster_url: String,
    },
}

/// How the hub behaves.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// Where managed clusters reach the hub.
    pub address: HubAddress,
    /// Image repository of the klusterlet (ends in `fleetctl`).
    pub repository: String,
    /// The klusterlet version clusters run unless they ask for another.
    pub default_version: String,
    /// Lifetime of bootstrap tokens (refreshed when a fifth is left).
    pub token_lifetime: Duration,
    /// A cluster whose lease is older than this many lease periods turns Unknown.
    pub lease_grace: u32,
    /// The `kubernetes.io/dockerconfigjson` Secret whose registry credentials every
    /// klusterlet gets with its import manifests, if the registry needs any.
    pub image_pull_secret: Option<SecretRef>,
    /// Where the hub publishes its CA bundle for the controller (`kube-root-ca.crt` in
    /// this namespace): when set and published, bootstrap kubeconfigs trust that bundle
    /// rather than `address`'s CA, and follow it as the hub's CA rotates (upstream's
    /// auto-detected CA bundle). `None` when the CA was given explicitly.
    pub root_ca_namespace: Option<String>,
}

/// A Secret by namespace and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretRef {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
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
    /// What the controllers last wrote: a pass writes only what differs.
    pub written: Written,
}

impl Context {
    /// Forgets what was written for a cluster once it is detached, so that a cluster of the
    /// same name imported later gets everything written anew.
    pub fn forget_cluster(&self, cluster: &str) {
        self.written.forget(cluster, &[cluster, &bootstrap_role(cluster), &agent_role(cluster)]);
    }
}

/// Shared handle.
pub type Ctx = Arc<Context>;

/// Sets one condition (keeping its transition time when the status is unchanged).
pub fn set(conditions_: &mut Vec<Condition>, type_: &str, status: &str, reason: &str, message: &str) -> bool {
    conditions::set_condition(conditions_, conditions::new_condition(type_, status, reason, message))
}
