//! The shared state of one API server: its resource types and its objects.

use std::sync::Arc;

use super::auth::User;
use super::context::Context;
use super::rbac::Attributes;
use super::reader::Reader;
use super::registry::{Registry, ResourceType};
use super::storage::Storage;
use super::store::Store;

/// Settings of one API server.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Watch events kept per resource for resuming watches (older ones answer 410).
    pub history: usize,
    /// Bytes of object states the watch history of each resource keeps at most (its
    /// newest 100 events are kept whatever their size).
    pub history_bytes: usize,
    /// Capacity of each resource's change broadcast: a watcher that falls this far behind
    /// relists. Allocated whole for every resource that is used.
    pub broadcast: usize,
    /// How often watches that asked for bookmarks get one.
    pub bookmark_interval: std::time::Duration,
    /// The Kubernetes version `/version` reports.
    pub git_version: String,
    /// Directory of the durable store (`dev serve --store`); `None` keeps objects in memory only.
    pub store: Option<std::path::PathBuf>,
    /// Whether the deployment and ReplicaSet controllers and the scheduler run (off, as
    /// `kube-controller-manager --controllers=-deployment,-replicaset`: whoever wants a
    /// Deployment status writes it).
    pub workload_controllers: bool,
    /// Whether the controllers of kube-controller-manager run at all — garbage collection,
    /// namespace termination, the CSR signer, default ServiceAccounts and root CA
    /// ConfigMaps, and the workload controllers (off: an API server alone, as envtest runs
    /// kube-apiserver; only the apiextensions server's CRD cleanup runs).
    pub controller_manager: bool,
    /// How long after its deletion a namespace's content starts to go (kube-controller-manager's
    /// `namespaceDeletionGracePeriod`, 5 s, which has no flag).
    pub namespace_deletion_grace: jiff::SignedDuration,
    /// The wall time the controllers that run on a schedule (CronJobs) read: the system's,
    /// or a [`ManualClock`](super::ManualClock)'s in tests.
    pub clock: super::Clock,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            history: 8192,
            history_bytes: super::store::HISTORY_BYTES,
            broadcast: super::store::BROADCAST_CAPACITY,
            bookmark_interval: std::time::Duration::from_secs(15),
            git_version: "v1.32.0-fleetctl".to_string(),
            store: None,
            workload_controllers: true,
            controller_manager: true,
            namespace_deletion_grace: jiff::SignedDuration::from_secs(5),
            clock: super::Clock::system(),
        }
    }
}

/// Everything a request handler or a built-in controller needs.
pub struct ApiState {
    /// Served resource types.
    pub registry: Registry,
    /// Stored objects.
    pub store: Arc<Store>,
    /// The admission plugins every write passes.
    pub admission: super::admission::Chain,
    /// Settings.
    pub settings: Settings,
    /// CA, serving certificate, token signer and authorizer.
    pub security: super::security::Security,
}

impl ApiState {
    /// The storage of `rt`: the API verbs on its objects.
    pub fn resource<'a>(&'a self, rt: &'a ResourceType) -> Storage<'a> {
        Storage::new(self, rt)
    }

    /// The stored objects, read-only.
    pub fn reader(&self) -> Reader {
        Reader::new(self.store.clone())
    }

    /// What admission and a kind's hooks get of the server.
    pub fn context(&self) -> Context<'_> {
        Context { registry: &self.registry, store: self.reader(), authorizer: &self.security.authorizer }
    }

    /// Whether `user` may do `attributes`.
    pub fn allowed(&self, user: &User, attributes: &Attributes) -> bool {
        self.context().allowed(user, attributes)
    }
}

/// Shared handle to the state.
pub type Shared = Arc<ApiState>;
