//! The node simulator: the dev cluster's kubelet.
//!
//! It registers its Node (capacity and allocatable from this machine, Ready, a heartbeat
//! Lease in `kube-node-lease` renewed every 10 s, as a kubelet does) and runs the Pods the
//! scheduler binds to it (`spec.nodeName`); the apiserver's deployment and ReplicaSet
//! controllers make those Pods. Each container of a Pod whose image is the fleetctl
//! image (its repository ends in `fleetctl`) runs as a child process of the image's
//! entrypoint, the in-cluster executable `fleetctld`, with the container's args and
//! env (resolved as kubelet resolves them, see [`env`]), its volumes (Secret, ConfigMap,
//! emptyDir, downwardAPI, projected: see [`pod_volumes`] and [`mounts`]), plus a kubeconfig
//! holding a TokenRequest token of the Pod's ServiceAccount bound to the Pod (valid while the
//! Pod object exists). A
//! container `command` runs another executable of the image instead, found beside the
//! entrypoint. Containers of other images are reported running without a process. Pod
//! status says what really runs.
//!
//! Lifecycle, as a kubelet would do it:
//! - a Pod marked for deletion (the API server keeps a Pod on a node for its grace period)
//!   has its processes stopped as the kubelet's `killContainer` stops them — each
//!   container's preStop hook, then SIGTERM, then SIGKILL once the Pod's
//!   `deletionGracePeriodSeconds` (which the hook and SIGTERM share; at least 2 s after the
//!   hook) are spent, a wait that ends as soon as the process exits — keeping its
//!   credentials' files until they have stopped, and is then deleted for good with a grace
//!   period of 0, as the kubelet ends a graceful deletion (its token dies with the object);
//!   a Pod already gone from the API (deleted with a grace period of 0) gets the kubelet's
//!   override of 1 s and no hook;
//! - a process that exits is restarted with the kubelet's back-off (see [`Timing`]): at
//!   once the first time, then 10 s after its next exit, doubling up to 5 min, and afresh
//!   once 10 min pass between two exits; meanwhile it waits in `CrashLoopBackOff`, its
//!   `lastState.terminated` says how the last run ended, and its `restartCount` goes up;
//! - each replica is its own Pod and process (replicas: 3 runs three processes, which
//!   is how leader election between them can be tried);
//! - stdout and stderr go to the container's log (see [`logs`]), served through the
//!   node's kubelet endpoint to `kubectl logs`, and also to
//!   `<dir>/logs/<node>/<namespace>_<deployment>.log` for `fleetctl dev logs`; the Pod
//!   kubeconfigs live in `<dir>/pods/<node>/<namespace>_<pod>_<uid>/` (0600), its volumes in
//!   `volumes/<name>/` there, all removed with the Pod once its containers have stopped.
//!
//! In-process mode ([`RunMode::InProcess`]) runs containers as tasks of this process
//! through a runner the caller provides, so that scale runs need no process per agent.
//!
//! Containers are probed as their manifests say (see [`probe`]): a readiness probe keeps
//! a container unready until it passes, and a failing liveness probe restarts it.
//!
//! It talks to its API server only as a client (kube-rs, with the credentials it was
//! given), as a kubelet does: it links nothing of the server.
//!
//! Everything is driven by watch events (a Pod's Secrets and ConfigMaps are watched by
//! name); the only timers are the restart back-off, the termination grace period, the
//! probes, the heartbeat and the refresh of projected tokens.

mod atomic_writer;
mod backoff;
pub mod container;
pub mod credentials;
mod downward;
mod env;
mod kubelet;
pub mod logs;
mod mounts;
pub mod network;
mod pod;
mod pod_volumes;
mod probe;
pub mod process;
mod register;
mod sources;
pub mod status;
mod tokens;
mod volumes;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{ObjectReference, Pod};
use kube::api::{Api, DeleteParams, Preconditions};
use kube::runtime::WatchStreamExt;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use tokio::sync::watch;
use tokio::task::JoinSet;

use container::Podman;
use pod::{PodHandle, Termination};
use process::Isolation;

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

/// The simulator's timers. The defaults are the kubelet's; tests and dev environments
/// that want a crashing container back sooner shorten the back-off here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// How long a container has between SIGTERM and SIGKILL when the simulator itself stops
    /// (`dev down`): not a Pod deletion — a deleted Pod's containers get the Pod's grace
    /// period, as the kubelet gives them — so kept short for the dev environment.
    pub shutdown_grace: Duration,
    /// The restart delay after the second exit in a row (the first restarts at once), as
    /// the kubelet's `backOffPeriod`.
    pub backoff_start: Duration,
    /// The longest restart delay (the kubelet's `MaxContainerBackOff`).
    pub backoff_max: Duration,
    /// Two exits further apart than this start the back-off afresh (the kubelet forgets a
    /// container's back-off after twice its maximum).
    pub backoff_reset: Duration,
    /// The earliest a started container is probed (see [`probe`]).
    pub first_probe: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        let backoff_max = Duration::from_secs(300);
        Self {
            shutdown_grace: Duration::from_secs(2),
            backoff_start: Duration::from_secs(10),
            backoff_max,
            backoff_reset: backoff_max * 2,
            // The kubelet's relist period: when it notices that a container started.
            first_probe: Duration::from_secs(1),
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
    /// The addresses outside it that a Pod with a network of its own reaches (the API
    /// servers of the dev environment), asked each time such a Pod starts.
    pub reach: Reach,
}

/// The loopback addresses a Pod with a network of its own reaches: see [`NodeConfig::reach`].
pub type Reach = Arc<dyn Fn() -> Vec<SocketAddr> + Send + Sync>;

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
    /// The kubelet endpoint could not listen.
    #[error("opening the kubelet endpoint on 127.0.0.1")]
    Kubelet {
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The Node could not be registered.
    #[error("registering node {node}")]
    Register {
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
    /// Its containers' logs.
    logs: Arc<logs::Logs>,
    /// Where its kubelet endpoint listens.
    kubelet: SocketAddr,
    /// Its Events (as `kubelet`, instance the node).
    recorder: Recorder,
    /// The addresses of its Pods that have a network of their own.
    addresses: Arc<network::Addresses>,
}

impl Node {
    /// The node's address and kubelet port, as its Node object says.
    fn address(&self) -> SocketAddr {
        self.kubelet
    }

    fn client(&self) -> Client {
        self.config.client.clone()
    }

    fn timing(&self) -> Timing {
        self.config.timing
    }

    /// Files an Event about `object`; a failure to write it is only logged, as the
    /// kubelet's events are best effort.
    fn event(&self, object: &ObjectReference, type_: EventType, reason: &str, action: &str, note: String) {
        let recorder = self.recorder.clone();
        let object = object.clone();
        let event = Event { type_, reason: reason.into(), note: Some(note), action: action.into(), secondary: None };
        tokio::spawn(async move {
            if let Err(e) = recorder.publish(&event, &object).await {
                tracing::debug!(error = %e, reason = %event.reason, "writing an event");
            }
        });
    }

    fn pods_dir(&self) -> PathBuf {
        self.config.dir.join("pods").join(&self.config.name)
    }

    /// Where a Deployment's containers log.
    fn log_path(&self, namespace: &str, deployment: &str) -> PathBuf {
        log_path(&self.config.dir, &self.config.name, namespace, deployment)
    }

    /// Where a Pod's credentials and volumes go: named by its uid too (as kubelet's
    /// `/var/lib/kubelet/pods/<uid>`), so that a Pod recreated under its name while the old
    /// one stops has files of its own, which the old one's removal leaves alone.
    fn pod_dir(&self, namespace: &str, pod: &str, uid: &str) -> PathBuf {
        self.pods_dir().join(format!("{namespace}_{pod}_{uid}"))
    }

    /// What names this node's containers in podman (its label value).
    fn container_label(&self) -> String {
        container_label(&self.config.dir, &self.config.name)
    }
}

/// An error and its causes on one line, as `{:#}` prints them (for Pod logs and Events).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
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
    /// Removes what a previous run on this node left (Pod credentials and containers),
    /// registers the Node, then runs the Pods bound to it.
    pub async fn start(config: NodeConfig) -> Result<Self, NodeError> {
        let logs_dir = config.dir.join("logs").join(&config.name);
        let logs = Arc::new(logs::Logs::new(&logs_dir));
        let listener =
            tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.map_err(|source| NodeError::Kubelet { source })?;
        let kubelet = listener.local_addr().map_err(|source| NodeError::Kubelet { source })?;
        let reporter = Reporter { controller: "kubelet".into(), instance: Some(config.name.clone()) };
        let recorder = Recorder::new(config.client.clone(), reporter);
        let addresses = Arc::default();
        let node = Arc::new(Node { config, logs: logs.clone(), kubelet, recorder, addresses });
        let pods_dir = node.pods_dir();
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
            network::remove_node(&node.container_label()).await;
        }
        register::register(&node)
            .await
            .map_err(|source| NodeError::Register { node: node.config.name.clone(), source })?;
        let endpoint = tokio::spawn(kubelet::serve(listener, logs));
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            run(node, stopped).await;
            endpoint.abort();
        });
        Ok(Self { stop, task })
    }

    /// Stops every container (SIGTERM, then SIGKILL after [`Timing::shutdown_grace`]: the
    /// dev environment going down is no Pod deletion, so no preStop hook) and returns
    /// once all are gone (the Pods stay, as a stopped kubelet leaves them).
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Err(e) = (&mut self.task).await {
            tracing::warn!(error = %e, "node simulator ended abnormally");
        }
    }
}

type Key = (String, String);

fn key_of<K: ResourceExt>(object: &K) -> Key {
    (object.namespace().unwrap_or_default(), object.name_any())
}

/// Runs the Pods bound to this node, one worker per Pod (a Pod recreated under the same
/// name is a new Pod), and stops a Pod's containers once it is deleted or marked for
/// deletion. Pods bound to the node before it started (a durable store's) run again.
async fn run(node: Arc<Node>, mut stop: watch::Receiver<bool>) {
    let heartbeat = tokio::spawn(register::run(node.clone(), stop.clone()));
    let selector = format!("spec.nodeName={}", node.config.name);
    let pods = watcher(Api::<Pod>::all(node.client()), watcher::Config::default().fields(&selector)).default_backoff();
    let mut pods = std::pin::pin!(pods);
    let mut pods_of_node =
        Pods { stopped: stop.clone(), running: HashMap::new(), stopping: JoinSet::new(), deleting: HashSet::new() };
    let mut listed: HashSet<Key> = HashSet::new();
    loop {
        let event = tokio::select! {
            _ = stop.wait_for(|stopped| *stopped) => break,
            event = pods.next() => event,
            // Reaps Pods whose containers have stopped.
            Some(done) = pods_of_node.stopping.join_next(), if !pods_of_node.stopping.is_empty() => {
                if let Ok(Some(pod)) = done {
                    pods_of_node.deleting.remove(&pod);
                }
                continue;
            }
        };
        match event {
            Some(Ok(watcher::Event::Init)) => listed.clear(),
            Some(Ok(watcher::Event::InitApply(pod))) => {
                listed.insert(key_of(&pod));
                pods_of_node.dispatch(&node, pod);
            }
            // A relist: Pods deleted while the watch was down are gone.
            Some(Ok(watcher::Event::InitDone)) => {
                let gone: Vec<Key> = pods_of_node.running.keys().filter(|k| !listed.contains(*k)).cloned().collect();
                for key in gone {
                    pods_of_node.stop(&key);
                }
            }
            Some(Ok(watcher::Event::Apply(pod))) => pods_of_node.dispatch(&node, pod),
            Some(Ok(watcher::Event::Delete(pod))) => pods_of_node.stop(&key_of(&pod)),
            Some(Err(e)) => tracing::debug!(error = %e, "pod watch (retrying)"),
            None => break,
        }
    }
    let Pods { running, mut stopping, .. } = pods_of_node;
    let shutdown = Termination::Override(node.timing().shutdown_grace);
    for handle in running.into_values() {
        stopping.spawn(async move {
            handle.stop(shutdown).await;
            None
        });
    }
    while stopping.join_next().await.is_some() {}
    heartbeat.abort();
}

/// The Pods this node runs, and those whose containers are being stopped (their grace
/// periods run side by side).
struct Pods {
    /// The simulator stopping.
    stopped: watch::Receiver<bool>,
    running: HashMap<Key, PodHandle>,
    /// Stops under way; a stop for a deletion yields its Pod (key and uid) once it is done.
    stopping: JoinSet<Option<(Key, String)>>,
    /// Pods (key and uid) marked for deletion whose containers are being stopped.
    deleting: HashSet<(Key, String)>,
}

/// The grace period the kubelet gives a Pod that is gone from the API (deleted with a grace
/// period of 0): its pod workers' least, 1 s, as an override.
const GONE_GRACE: Duration = Duration::from_secs(1);

impl Pods {
    /// Stops the containers of a Pod that is gone.
    fn stop(&mut self, key: &Key) {
        if let Some(handle) = self.running.remove(key) {
            self.stopping.spawn(async move {
                handle.stop(Termination::Override(GONE_GRACE)).await;
                None
            });
        }
    }

    /// Starts a Pod that is new to this node; stops one replaced by another of the same
    /// name; stops one marked for deletion (the kubelet's cue) and then deletes it for
    /// good, as the kubelet ends a graceful deletion once its containers are gone.
    fn dispatch(&mut self, node: &Arc<Node>, pod: Pod) {
        let key = key_of(&pod);
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        if self.running.get(&key).is_some_and(|handle| handle.uid() != uid) {
            self.stop(&key);
        }
        if pod.metadata.deletion_timestamp.is_some() {
            if !self.deleting.insert((key.clone(), uid.clone())) {
                return;
            }
            let handle = self.running.remove(&key);
            let api: Api<Pod> = Api::namespaced(node.client(), &key.0);
            let stop = self.stopped.clone();
            let termination = Termination::of(&pod);
            self.stopping.spawn(async move {
                if let Some(handle) = handle {
                    handle.stop(termination).await;
                }
                finish_deletion(&api, &key.1, uid.clone(), stop).await;
                Some((key, uid))
            });
            return;
        }
        if self.running.contains_key(&key) || finished(&pod) {
            return;
        }
        self.running.insert(key, PodHandle::start(node.clone(), &pod));
    }
}

/// Deletes a Pod whose containers have stopped, with a grace period of 0 and its uid as a
/// precondition (a Pod recreated under the name is not touched). A failure is tried again
/// after a growing pause, as the kubelet's status manager does, until the simulator stops.
async fn finish_deletion(api: &Api<Pod>, name: &str, uid: String, mut stop: watch::Receiver<bool>) {
    let preconditions = Preconditions { uid: Some(uid), resource_version: None };
    let params =
        DeleteParams { grace_period_seconds: Some(0), preconditions: Some(preconditions), ..DeleteParams::default() };
    let mut pause = Duration::from_millis(100);
    loop {
        match api.delete(name, &params).await {
            Ok(_) => return,
            Err(kube::Error::Api(status)) if status.code == 404 || status.code == 409 => return,
            Err(e) => tracing::warn!(pod = name, error = %e, "deleting a stopped pod (trying again)"),
        }
        tokio::select! {
            _ = stop.wait_for(|stopped| *stopped) => return,
            () = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// A Pod whose containers ran to completion or failed for good is not run again.
fn finished(pod: &Pod) -> bool {
    matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}
