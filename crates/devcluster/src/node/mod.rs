//! The node simulator: the dev cluster's kubelet and deployment controller in one.
//!
//! It watches the cluster's Deployments. Each replica becomes a Pod object on the
//! simulated node; each container of a Pod whose image is the fleetctl image (its
//! repository ends in `fleetctl`) runs as a child process of the image's entrypoint, the
//! in-cluster executable `fleetctld`, with the container's args and env, plus a kubeconfig
//! holding a TokenRequest token of the Pod's ServiceAccount. A container `command` runs
//! another executable of the image instead, found beside the entrypoint.
//! Containers of other images are reported running without a process. Deployment and
//! Pod status say what really runs.
//!
//! Lifecycle, as a kubelet would do it:
//! - a changed Pod template (or a Deployment recreated under the same name) replaces
//!   the Pods: the old processes get SIGTERM, then SIGKILL after the grace period, and
//!   new ones start;
//! - a process that exits is restarted after a back-off (200 ms doubling up to 5 s,
//!   back to 200 ms after 10 s up) and its `restartCount` goes up;
//! - replicas = 0, a deleted (or deleting) Deployment or a deleted Pod stops the processes;
//! - each replica is its own Pod and process (replicas: 3 runs three processes, which
//!   is how leader election between them can be tried);
//! - stdout and stderr go to `<dir>/logs/<node>/<namespace>_<deployment>.log`, and
//!   the Pod kubeconfigs live in `<dir>/pods/<node>/` (0600), removed with the Pod.
//!
//! In-process mode ([`RunMode::InProcess`]) runs containers as tasks of this process
//! through a runner the caller provides, so that scale runs need no process per agent.
//!
//! Everything is driven by watch events; the only timers are the restart back-off and
//! the termination grace period.

pub mod container;
pub mod credentials;
mod deployment;
mod pod;
pub mod process;
pub mod status;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, ListParams};
use kube::runtime::watcher::Event;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use container::Podman;
use process::Isolation;
use status::NODE_LABEL;

/// A container the in-process runner is asked to run.
#[derive(Debug, Clone)]
pub struct InProcessCommand {
    /// The executable the container's command names instead of the `fleetctl` entrypoint.
    pub command: Option<String>,
    /// The container's args (without the executable).
    pub args: Vec<String>,
    /// Its environment (resolved, with `KUBECONFIG` and `FLEETCTL_HEALTH_ADDR` set).
    pub env: Vec<(String, String)>,
    /// The kubeconfig of the Pod's ServiceAccount.
    pub kubeconfig: PathBuf,
}

/// Runs a container inside the cluster process. The future ending counts as the
/// container exiting with the code it returns; the simulator drops (aborts) it to stop
/// the container.
pub type InProcessRunner = Arc<dyn Fn(InProcessCommand) -> BoxFuture<'static, i32> + Send + Sync>;

/// How fleetctl containers run.
#[derive(Clone)]
pub enum RunMode {
    /// As child processes of this program (the image's entrypoint, `fleetctld`).
    Process {
        /// The program (the container's args are passed to it).
        program: PathBuf,
        /// How each process sees the cluster.
        isolation: Isolation,
    },
    /// As tasks of this process, through the runner.
    InProcess(InProcessRunner),
}

impl std::fmt::Debug for RunMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Process { program, isolation } => {
                f.debug_struct("Process").field("program", program).field("isolation", isolation).finish()
            }
            Self::InProcess(_) => f.write_str("InProcess"),
        }
    }
}

/// The simulator's timers.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// How long a container has between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// The first restart delay after a container exits.
    pub backoff_start: Duration,
    /// The longest restart delay.
    pub backoff_max: Duration,
    /// A container up this long has its restart delay reset.
    pub backoff_reset: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            grace: Duration::from_secs(2),
            backoff_start: Duration::from_millis(200),
            backoff_max: Duration::from_secs(5),
            backoff_reset: Duration::from_secs(10),
        }
    }
}

/// What the simulator needs.
#[derive(Clone)]
pub struct NodeConfig {
    /// The node's name: `spec.nodeName` of its Pods, and the folder of its logs (the
    /// dev environment names it after the cluster).
    pub name: String,
    /// An admin client of the cluster.
    pub client: Client,
    /// The API server URL written into Pod kubeconfigs.
    pub server_url: String,
    /// The address Pods reach the API server at in-cluster (`KUBERNETES_SERVICE_HOST`).
    pub service_addr: SocketAddr,
    /// Where images of local podman storage run as containers (else the fleetctl image
    /// runs as processes or tasks, and other images are reported running).
    pub podman: Option<Podman>,
    /// The cluster CA (PEM) written into Pod kubeconfigs.
    pub ca_pem: String,
    /// The dev directory: logs go to `logs/<name>/`, Pod kubeconfigs to `pods/<name>/`.
    pub dir: PathBuf,
    /// Processes or tasks.
    pub mode: RunMode,
    /// Timers.
    pub timing: Timing,
}

/// Why the simulator could not start.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// Its directories could not be created.
    #[error("creating {}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The Pods of a previous run could not be removed.
    #[error("removing the Pods a previous run of node {node} left")]
    StalePods {
        /// The node.
        node: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
}

/// What every part of the simulator shares.
pub(crate) struct Node {
    config: NodeConfig,
}

impl Node {
    fn client(&self) -> Client {
        self.config.client.clone()
    }

    fn timing(&self) -> Timing {
        self.config.timing
    }

    fn pods_dir(&self) -> PathBuf {
        self.config.dir.join("pods").join(&self.config.name)
    }

    /// Where a Deployment's containers log.
    fn log_path(&self, namespace: &str, deployment: &str) -> PathBuf {
        log_path(&self.config.dir, &self.config.name, namespace, deployment)
    }

    /// Where a Pod's credentials go.
    fn pod_dir(&self, namespace: &str, pod: &str) -> PathBuf {
        self.pods_dir().join(format!("{namespace}_{pod}"))
    }

    /// What names this node's containers in podman (its label value).
    fn container_label(&self) -> String {
        container_label(&self.config.dir, &self.config.name)
    }
}

/// The value of [`container::NODE_LABEL`] on the containers of node `node` under a dev
/// directory.
pub fn container_label(dir: &Path, node: &str) -> String {
    dir.join("pods").join(node).display().to_string()
}

/// The log file of a Deployment's containers on a node, under a dev directory.
pub fn log_path(dir: &Path, node: &str, namespace: &str, deployment: &str) -> PathBuf {
    dir.join("logs").join(node).join(format!("{namespace}_{deployment}.log"))
}

/// A running simulator; stop it with [`NodeSimulator::shutdown`] (dropping it stops
/// the watch, and the processes die with their handles).
pub struct NodeSimulator {
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl NodeSimulator {
    /// Removes what a previous run on this node left (Pods, their credentials and
    /// containers), then starts watching Deployments.
    pub async fn start(config: NodeConfig) -> Result<Self, NodeError> {
        let node = Arc::new(Node { config });
        let pods_dir = node.pods_dir();
        let logs_dir = node.config.dir.join("logs").join(&node.config.name);
        for dir in [&pods_dir, &logs_dir] {
            process::private_dir(dir).map_err(|source| NodeError::Dir { path: dir.clone(), source })?;
        }
        // Their tokens belong to Pods that no longer run.
        if let Ok(entries) = std::fs::read_dir(&pods_dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let removed = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
                if let Err(e) = removed {
                    tracing::warn!(path = %path.display(), error = %e, "removing what an earlier Pod left");
                }
            }
        }
        if let Some(podman) = &node.config.podman {
            podman.remove_node(&node.container_label()).await;
        }
        remove_stale_pods(&node).await?;
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(run(node, stopped));
        Ok(Self { stop, task })
    }

    /// Stops every container (SIGTERM, then SIGKILL after the grace period), removes
    /// their Pods, and returns once all are gone.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Err(e) = (&mut self.task).await {
            tracing::warn!(error = %e, "node simulator ended abnormally");
        }
    }
}

/// A durable store keeps the Pods of processes that died with the previous cluster
/// process; they would claim to run.
async fn remove_stale_pods(node: &Node) -> Result<(), NodeError> {
    let api: Api<Pod> = Api::all(node.client());
    let selector = format!("{NODE_LABEL}={}", node.config.name);
    let stale = |source| NodeError::StalePods { node: node.config.name.clone(), source };
    let pods = api.list(&ListParams::default().labels(&selector)).await.map_err(stale)?;
    for pod in pods {
        let namespace = pod.namespace().unwrap_or_default();
        match Api::<Pod>::namespaced(node.client(), &namespace).delete(&pod.name_any(), &DeleteParams::default()).await
        {
            Ok(_) | Err(kube::Error::Api(_)) => {}
            Err(e) => return Err(stale(e)),
        }
    }
    Ok(())
}

type Key = (String, String);

fn key_of<K: ResourceExt>(object: &K) -> Key {
    (object.namespace().unwrap_or_default(), object.name_any())
}

/// How the dispatcher reaches one Deployment's worker.
struct Worker {
    desired: watch::Sender<Option<Arc<Deployment>>>,
    pod_gone: mpsc::UnboundedSender<String>,
}

/// Dispatches Deployment events to one worker per Deployment, and Pod deletions to the
/// worker owning the Pod.
async fn run(node: Arc<Node>, mut stop: watch::Receiver<bool>) {
    let deployments = watcher(Api::<Deployment>::all(node.client()), watcher::Config::default()).default_backoff();
    let pods_config = watcher::Config::default().labels(&format!("{NODE_LABEL}={}", node.config.name));
    let pods = watcher(Api::<Pod>::all(node.client()), pods_config).default_backoff();
    let mut deployments = std::pin::pin!(deployments);
    let mut pods = std::pin::pin!(pods);
    let mut workers: HashMap<Key, Worker> = HashMap::new();
    let mut tasks = JoinSet::new();
    let mut listed: HashSet<Key> = HashSet::new();
    loop {
        tokio::select! {
            _ = stop.wait_for(|stopped| *stopped) => break,
            event = deployments.next() => match event {
                Some(Ok(Event::Init)) => listed.clear(),
                Some(Ok(Event::InitApply(d))) => {
                    listed.insert(key_of(&d));
                    dispatch(&node, &mut workers, &mut tasks, d);
                }
                // A relist: Deployments deleted while the watch was down are gone.
                Some(Ok(Event::InitDone)) => {
                    workers.retain(|key, worker| {
                        let keep = listed.contains(key);
                        if !keep {
                            let _ = worker.desired.send(None);
                        }
                        keep
                    });
                }
                Some(Ok(Event::Apply(d))) => dispatch(&node, &mut workers, &mut tasks, d),
                Some(Ok(Event::Delete(d))) => {
                    if let Some(worker) = workers.remove(&key_of(&d)) {
                        let _ = worker.desired.send(None);
                    }
                }
                Some(Err(e)) => tracing::debug!(error = %e, "deployment watch (retrying)"),
                None => break,
            },
            event = pods.next() => match event {
                // Deleted, or marked for deletion (finalizers pending): the kubelet's cue
                // to stop the Pod's containers; its worker replaces it.
                Some(Ok(Event::Delete(pod))) => pod_gone(&workers, &pod),
                Some(Ok(Event::Apply(pod))) if pod.metadata.deletion_timestamp.is_some() => pod_gone(&workers, &pod),
                Some(Err(e)) => tracing::debug!(error = %e, "pod watch (retrying)"),
                _ => {}
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    for worker in workers.values() {
        let _ = worker.desired.send(None);
    }
    drop(workers);
    while tasks.join_next().await.is_some() {}
}

/// Tells the worker of the Pod's Deployment that the Pod is gone.
fn pod_gone(workers: &HashMap<Key, Worker>, pod: &Pod) {
    let owner = pod.owner_references().iter().find(|o| o.kind == "Deployment").map(|o| o.name.clone());
    if let Some(worker) = owner.and_then(|owner| workers.get(&(pod.namespace().unwrap_or_default(), owner))) {
        let _ = worker.pod_gone.send(pod.name_any());
    }
}

fn dispatch(node: &Arc<Node>, workers: &mut HashMap<Key, Worker>, tasks: &mut JoinSet<()>, d: Deployment) {
    let key = key_of(&d);
    let d = Arc::new(d);
    if let Some(worker) = workers.get(&key)
        && worker.desired.send(Some(d.clone())).is_ok()
    {
        return;
    }
    let (desired, receiver) = watch::channel(Some(d));
    let (pod_gone, gone) = mpsc::unbounded_channel();
    tasks.spawn(deployment::run(node.clone(), key.clone(), receiver, gone));
    workers.insert(key, Worker { desired, pod_gone });
}
