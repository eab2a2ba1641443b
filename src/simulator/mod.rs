//! The fleet simulator: thousands of managed clusters in one process, each running the
//! real klusterlet against a real hub.
//!
//! Each simulated cluster is an [`InProcessServer`] — a whole dev API server of its own
//! (store, CRDs, RBAC, garbage collector, namespace lifecycle) without a listener — and a
//! [`kubelet`] that runs the Deployments of the fleetctl image as tasks on a client of
//! that server. Importing one is what a person does: the import library operation
//! ([`crate::lifecycle::import`]) writes the hub objects, waits for the import secret and
//! applies `crds.yaml` and `import.yaml` to the cluster; from there on nothing is
//! simulated but the machine: the klusterlet operator of the import manifests renders the
//! registration and work agents, the kubelet runs them, and they do what they do on any
//! cluster — bootstrap CSR, certificate, `hub-kubeconfig-secret`, lease renewals with
//! jitter, status and claims; applying the klusterlet works and every other ManifestWork
//! and reporting their status; upgrade by a new Klusterlet image, detach by the
//! Klusterlet's removal.
//!
//! Why this design:
//! - the managed side costs a function call per request, not a socket and a TLS session
//!   (a `dev serve` process per cluster costs ~33 MiB; see [`InProcessServer`] for why a
//!   server per cluster rather than one store with a keyspace per cluster);
//! - the hub side is not simulated at all: every agent talks to the hub over HTTPS with
//!   its own client certificate, as a real agent does, so what the hub sees — connections,
//!   TLS, authentication, RBAC, lease and status traffic — is what a real fleet would
//!   bring;
//! - what is left out is what no figure depends on and what would cost a hub request per
//!   cluster every 30 s: the operator's hub connection check
//!   ([`OperatorSettings::hub_connection_check`](fleetctl_agent::operator::OperatorSettings)),
//!   the addon agents (reported running, not run) and health endpoints.

mod kubelet;

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::Client;
use kube::api::Api;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher;
use parking_lot::Mutex;

use crate::lifecycle::LifecycleError;
use crate::lifecycle::import::{self, ImportOptions, imported};
use fleetctl_api::ManagedCluster;
use fleetctl_apiserver::in_process::InProcessServer;
use fleetctl_apiserver::{ServerConfig, Settings, StartError};

/// The label every imported simulated cluster carries (`true`), so that fleet commands
/// can select them (`fleetctl detach -l simulated=true`).
pub const SIMULATED_LABEL: &str = "simulated";

/// The name prefix of the clusters `fleetctl dev fleet` simulates (`sim-00001`…).
pub const PREFIX: &str = "sim";

/// Watch events each resource of a simulated cluster keeps for resuming watches, and the
/// depth of its change broadcast: its agents watch a handful of objects each.
const WATCH_DEPTH: usize = 64;

/// The API server settings of a simulated cluster: shallow watch buffers, and no
/// workload controllers (the [`kubelet`] reports Deployments itself, without Pods).
pub fn cluster_settings() -> Settings {
    Settings { history: WATCH_DEPTH, broadcast: WATCH_DEPTH, workload_controllers: false, ..Settings::default() }
}

/// One simulated managed cluster.
pub struct SimulatedCluster {
    name: String,
    server: InProcessServer,
    client: Client,
    kubelet: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for SimulatedCluster {
    fn drop(&mut self) {
        self.stop_agents();
    }
}

impl SimulatedCluster {
    /// Starts the cluster's API server and kubelet (it runs nothing until something is
    /// deployed on it). Must run inside a Tokio runtime.
    pub fn start(name: &str) -> Result<Self, StartError> {
        let config =
            ServerConfig { name: name.to_string(), port: 0, settings: cluster_settings(), ..ServerConfig::default() };
        let server = InProcessServer::start(&config)?;
        let client = server.client();
        let kubelet = Some(tokio::spawn(kubelet::run(client.clone())));
        Ok(Self { name: name.to_string(), server, client, kubelet })
    }

    /// Its name (and its ManagedCluster's, once imported).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A superuser client of its API server.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Its API server, for in-process inspection.
    pub fn server(&self) -> &InProcessServer {
        &self.server
    }

    /// Stops everything the cluster runs, as a machine that lost power: the agents tell
    /// the hub nothing, their lease goes stale. The API server stays.
    pub fn stop_agents(&mut self) {
        if let Some(kubelet) = self.kubelet.take() {
            kubelet.abort();
        }
    }
}

/// Starts `count` simulated clusters named `<prefix>-00001`….
pub fn start_fleet(prefix: &str, count: usize) -> Result<Vec<SimulatedCluster>, StartError> {
    (1..=count).map(|i| SimulatedCluster::start(&format!("{prefix}-{i:05}"))).collect()
}

/// How a fleet import went: for each cluster, the time from the start of its import to
/// the hub seeing it Available.
#[derive(Debug, Clone, Default)]
pub struct FleetImport {
    /// Per cluster, in the order the clusters became Available.
    pub per_cluster: Vec<(String, Duration)>,
}

/// Imports every cluster of `fleet` into the hub (`hub_url` is the hub as the clusters
/// reach it), at most `parallel` imports at once, and waits until the hub sees all of
/// them Available — one watch of the ManagedClusters for the whole fleet, started before
/// the first import.
pub async fn import_fleet(
    hub: &Client,
    hub_url: &str,
    fleet: &[SimulatedCluster],
    parallel: NonZeroUsize,
    timeout: Duration,
) -> Result<FleetImport, LifecycleError> {
    let started: Mutex<HashMap<String, Instant>> = Mutex::new(HashMap::with_capacity(fleet.len()));
    let available = wait_available(hub, fleet.iter().map(SimulatedCluster::name), &started);
    let imports = futures::stream::iter(fleet)
        .map(|cluster| {
            let started = &started;
            async move {
                let options = ImportOptions {
                    labels: [(SIMULATED_LABEL.to_string(), "true".to_string())].into(),
                    wait: false,
                    ..ImportOptions::new(cluster.name(), timeout)
                };
                started.lock().entry(cluster.name().to_string()).or_insert_with(Instant::now);
                import::import(hub, hub_url, Some(cluster.client()), &options, &|_| {}).await.map(|_| ())
            }
        })
        .buffer_unordered(parallel.get())
        .fold(Ok(()), |all: Result<(), LifecycleError>, one| async move { all.and(one) });
    // A failed import ends the wait: that fleet will never be all Available (on a hub
    // without the OCM kinds, no watch of ManagedClusters ever succeeds).
    let all = async { tokio::try_join!(imports, available).map(|((), available)| available) };
    match tokio::time::timeout(timeout, all).await {
        Ok(result) => result,
        Err(_) => {
            Err(LifecycleError::Timeout { what: format!("{} clusters to be available", fleet.len()), after: timeout })
        }
    }
}

/// Watches the ManagedClusters until every one of `names` is Available, timing each from
/// its entry in `started`.
async fn wait_available<'a>(
    hub: &Client,
    names: impl Iterator<Item = &'a str>,
    started: &Mutex<HashMap<String, Instant>>,
) -> Result<FleetImport, LifecycleError> {
    let mut waiting: std::collections::HashSet<String> = names.map(str::to_string).collect();
    let mut result = FleetImport { per_cluster: Vec::with_capacity(waiting.len()) };
    let mut events = watcher::watcher(Api::<ManagedCluster>::all(hub.clone()), watcher::Config::default())
        .default_backoff()
        .applied_objects()
        .boxed();
    while !waiting.is_empty() {
        let cluster = match events.next().await {
            Some(Ok(cluster)) => cluster,
            Some(Err(error)) => {
                tracing::debug!(%error, "watching the managed clusters; the watch restarts");
                continue;
            }
            None => return Err(LifecycleError::Failed("the watch of the managed clusters ended".into())),
        };
        let name = cluster.metadata.name.clone().unwrap_or_default();
        if imported(&cluster) && waiting.remove(&name) {
            let since = started.lock().get(&name).map(Instant::elapsed).unwrap_or_default();
            result.per_cluster.push((name, since));
        }
    }
    Ok(result)
}
