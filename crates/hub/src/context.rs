//! What every hub controller shares: the client, the configuration, metrics, events, and
//! the hub's error.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use fleetctl_kube::reconcile::{Failure, ReconcileError};
use fleetctl_kube::runner::metrics::Registry;
use fleetctl_kube::{FieldManager, KubeError, Written};
use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::Client;
use parking_lot::Mutex;

use super::bootstrap::Token;

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
}

impl ReconcileError for HubError {
    fn failure(&self) -> Failure {
        match self {
            Self::Kube(e) => e.failure(),
            Self::Waiting(_) => Failure::Waiting,
            Self::NoToken(_) | Self::NoUid(_) | Self::NoHubAddress(_) | Self::PullSecret { .. } => Failure::Failed,
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
    /// The admission rule that guards acceptance (the policy and its binding named
    /// [`ACCEPT_POLICY`](crate::manifests::admission::ACCEPT_POLICY)), as watched.
    pub accept_policy: kube::runtime::reflector::Store<ValidatingAdmissionPolicy>,
    /// See [`Context::accept_policy`].
    pub accept_binding: kube::runtime::reflector::Store<ValidatingAdmissionPolicyBinding>,
    /// The hub's published CA bundle (`kube-root-ca.crt`), as watched (empty when
    /// [`HubConfig::root_ca_namespace`] is `None`).
    pub root_ca: kube::runtime::reflector::Store<ConfigMap>,
    /// What the controllers last wrote: a pass writes only what differs.
    pub written: Written,
    /// The bootstrap token each cluster's import secret carries, as last written, so a
    /// pass need not read the secret back.
    pub tokens: Mutex<HashMap<String, Token>>,
    /// The CSRs the approver left pending, by cluster.
    pub pending_csrs: super::registration::PendingCsrs,
}

/// The key of `kube-root-ca.crt` that holds the bundle.
const ROOT_CA_KEY: &str = "ca.crt";

impl Context {
    /// Why the admission rule that guards acceptance does not hold on this hub, if it
    /// does not (see [`accept_rule_problem`](crate::manifests::admission::accept_rule_problem)).
    pub fn accept_rule_problem(&self) -> Option<String> {
        use crate::manifests::admission::{ACCEPT_POLICY, accept_rule_problem};
        use kube::runtime::reflector::ObjectRef;
        let policy = self.accept_policy.get(&ObjectRef::new(ACCEPT_POLICY));
        let binding = self.accept_binding.get(&ObjectRef::new(ACCEPT_POLICY));
        accept_rule_problem(policy.as_deref(), binding.as_deref())
    }

    /// Forgets what was written for a cluster, so that its next pass writes everything
    /// again: after a pass that failed (what broke may have taken objects with it), and
    /// once it is detached (a cluster of the same name imported later gets everything
    /// written anew).
    pub fn forget_cluster(&self, cluster: &str) {
        let bootstrap_role = super::bootstrap::role_name(cluster);
        let agent_role = super::registration::agent_role_name(cluster);
        self.written.forget(cluster, &[cluster, &bootstrap_role, &agent_role]);
        self.tokens.lock().remove(cluster);
    }

    /// The CA bundle bootstrap kubeconfigs trust: the hub's published one if it is
    /// followed and known, else `configured`.
    pub fn bootstrap_ca<'a>(&'a self, configured: &'a str) -> std::borrow::Cow<'a, str> {
        let published = self
            .root_ca
            .state()
            .into_iter()
            .find_map(|map| map.data.as_ref()?.get(ROOT_CA_KEY).filter(|ca| !ca.trim().is_empty()).cloned());
        published.map_or(std::borrow::Cow::Borrowed(configured), std::borrow::Cow::Owned)
    }
}

/// Shared handle.
pub type Ctx = Arc<Context>;

/// Sets one condition (keeping its transition time when the status is unchanged).
pub fn set(conditions_: &mut Vec<Condition>, type_: &str, status: &str, reason: &str, message: &str) -> bool {
    conditions::set_condition(conditions_, conditions::new_condition(type_, status, reason, message))
}
