//! The dev environment (`fleetctl dev up|down|status|logs`): a hub and N managed dev
//! clusters, each a `fleetctl dev serve --node-simulator` process of its own, started
//! in the background and recorded in a directory:
//!
//! ```text
//! DIR/state.json            the clusters: name, URL, pid, kubeconfig; whether the hub is bare (0600)
//! DIR/kubeconfig            contexts hub, cluster1, … (0600)
//! DIR/<name>.kubeconfig     one admin kubeconfig per cluster (0600)
//! DIR/logs/<name>.log       each cluster process's log
//! DIR/logs/<name>/<ns>_<deployment>.log   the logs of the Deployments it runs
//! DIR/pods/<name>/          the kubeconfigs of its Pods (0600)
//! DIR/<name>/store          its durable store (with `--durable`)
//! ```
//!
//! Each cluster process leads a process group of its own, and the containers its node
//! simulator starts stay in that group: `dev down` stops the group, so even the
//! containers of a cluster process that was SIGKILLed do not survive it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use kube::Client;
use kube::api::Api;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::wait::await_condition;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use fleetctl_apimachinery::private_file::write_private;
use fleetctl_kube::kubeconfig::{self, Endpoint};
use fleetctl_nodesim::process::{open_log, private_dir};

use fleetctl_kube::{ApplyError, ApplyOptions, apply};
use fleetctl_nodesim::container::Podman;
use fleetctl_nodesim::container_label;

/// The hub's name: its context, its log and its kubeconfig file.
pub const HUB: &str = "hub";

const STATE_FILE: &str = "state.json";
pub(crate) const MERGED_KUBECONFIG: &str = "kubeconfig";

/// The longest a cluster process may take to write its kubeconfig.
const STARTUP_WAIT: Duration = Duration::from_secs(10);
/// How often the startup wait looks for the kubeconfig.
const STARTUP_CHECK: Duration = Duration::from_millis(10);
/// How long `/readyz` may take to answer `dev status`.
const READY_CHECK: Duration = Duration::from_secs(2);

/// What `dev up` starts.
#[derive(Debug, Clone)]
pub struct UpOptions {
    /// The environment's directory (created 0700).
    pub dir: PathBuf,
    /// How many managed clusters (`cluster1`…).
    pub clusters: usize,
    /// The fleetctl executable the cluster processes run (`fleetctl dev serve`).
    pub program: PathBuf,
    /// What the hub gets installed with; `None`: a bare hub, a plain Kubernetes API with
    /// nothing of fleetctl on it (as `kind create cluster` gives), for another hub (OCM's
    /// `clusteradm init`) or a later `fleetctl hub install`.
    pub hub: Option<HubInstall>,
    /// Keep each cluster's objects on disk (`DIR/<name>/store`), so that the next
    /// `dev up` resumes them.
    pub durable: bool,
    /// Run agents and controllers as tasks of the cluster processes, not as processes.
    pub in_process: bool,
    /// Run images of local podman storage as podman containers (see
    /// [`Podman::from_env`]).
    pub podman: bool,
    /// How long the hub controller may take to become Available.
    pub timeout: Duration,
}

impl UpOptions {
    /// Whether the hub comes up bare (nothing installed on it).
    pub fn bare_hub(&self) -> bool {
        self.hub.is_none()
    }
}

/// The objects of a hub installation, in order (CRDs first), for the hub at an endpoint —
/// the address and CA people (and managed clusters) reach it at.
pub type RenderHub = Arc<dyn Fn(&Endpoint) -> Vec<Value> + Send + Sync>;

/// The hub installation `dev up` applies, and the Deployment in it that must become
/// Available before the environment is ready.
#[derive(Clone)]
pub struct HubInstall {
    /// The objects to apply.
    pub render: RenderHub,
    /// Namespace of the hub controller's Deployment.
    pub namespace: String,
    /// Name of the hub controller's Deployment.
    pub controller: String,
}

impl std::fmt::Debug for HubInstall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubInstall").field("namespace", &self.namespace).field("controller", &self.controller).finish()
    }
}

/// One cluster of the environment, as `state.json` records it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClusterRecord {
    /// Its name and context.
    pub name: String,
    /// Its API server URL (empty until it is ready).
    pub url: String,
    /// The pid of its `dev serve` process, which is also its process group.
    pub pid: u32,
    /// Its admin kubeconfig.
    pub kubeconfig: PathBuf,
    /// The log of its process.
    pub log: PathBuf,
}

/// The environment, as `state.json` records it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EnvState {
    /// The fleetctl executable the clusters run (to recognise their processes).
    pub program: PathBuf,
    /// Whether the clusters run images of local podman storage as containers.
    #[serde(default)]
    pub podman: bool,
    /// Whether `dev up` started the hub bare (`--bare-hub`): it installed nothing of
    /// fleetctl on it. What was installed since is the hub's to say.
    #[serde(default)]
    pub bare_hub: bool,
    /// The kubeconfig with a context per cluster.
    pub kubeconfig: PathBuf,
    /// The hub first, then the managed clusters.
    pub clusters: Vec<ClusterRecord>,
}

/// How one cluster is doing, for `dev status`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ClusterStatus {
    /// What `state.json` says.
    pub record: ClusterRecord,
    /// Its process runs.
    pub alive: bool,
    /// Its `/readyz` answered ok.
    pub ready: bool,
}

/// How `dev down` left a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Stopped {
    /// It stopped on SIGTERM.
    Terminated,
    /// It had to be SIGKILLed (or something of its process group did).
    Killed,
    /// It was not running.
    AlreadyGone,
}

/// Why a dev environment operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// No state directory could be determined.
    #[error("no directory for the dev environment: set XDG_STATE_HOME or HOME, or pass --dir")]
    NoDir,
    /// `dev up` while one runs.
    #[error("a dev environment already runs in {}: `fleetctl dev down` first, or pass another --dir", dir.display())]
    AlreadyRunning {
        /// Its directory.
        dir: PathBuf,
    },
    /// `dev down`/`status` without one.
    #[error("no dev environment in {}: start one with `fleetctl dev up`", dir.display())]
    NotRunning {
        /// The directory.
        dir: PathBuf,
    },
    /// `--clusters` out of range.
    #[error("--clusters must be between 0 and 99, not {0}")]
    Clusters(usize),
    /// A file could not be read or written.
    #[error("{action} {}", path.display())]
    Io {
        /// What was done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `state.json` is not ours.
    #[error("reading {}: {source}", path.display())]
    State {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A cluster process could not be started.
    #[error("starting cluster {name} ({})", program.display())]
    Spawn {
        /// The cluster.
        name: String,
        /// The executable.
        program: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A cluster process ended during startup.
    #[error("cluster {name} stopped while starting ({status}); its log {} ends with:\n{tail}", log.display())]
    Exited {
        /// The cluster.
        name: String,
        /// How it ended.
        status: String,
        /// Its log.
        log: PathBuf,
        /// The last lines of the log.
        tail: String,
    },
    /// A cluster process did not write its kubeconfig in time.
    #[error("cluster {name} did not start within {}s; see {}", STARTUP_WAIT.as_secs(), log.display())]
    StartupTimeout {
        /// The cluster.
        name: String,
        /// Its log.
        log: PathBuf,
    },
    /// A kubeconfig could not be used.
    #[error("loading the kubeconfig {}", path.display())]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// A kubeconfig a cluster process wrote names no server.
    #[error("reading the kubeconfig {}", path.display())]
    KubeconfigText {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: kubeconfig::TextError,
    },
    /// A cluster did not answer.
    #[error("cluster {name} does not answer")]
    Unreachable {
        /// The cluster.
        name: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// Installing the hub failed.
    #[error("installing the hub")]
    Install(#[source] ApplyError),
    /// The hub controller did not become Available.
    #[error("the hub controller did not become Available within {}s; see `fleetctl dev logs hub {namespace}/{name}`", timeout.as_secs())]
    HubController {
        /// Its Deployment's namespace.
        namespace: String,
        /// Its Deployment.
        name: String,
        /// The time it had.
        timeout: Duration,
    },
    /// Watching the hub controller failed.
    #[error("watching the hub controller")]
    HubWatch(#[source] kube::runtime::wait::Error),
    /// No such log.
    #[error("no log {}{}", path.display(), if available.is_empty() { String::new() } else { format!("; there are: {}", available.join(", ")) })]
    NoLog {
        /// The file looked for.
        path: PathBuf,
        /// The Deployment logs of that cluster (`namespace/name`).
        available: Vec<String>,
    },
    /// No cluster of that name in the environment.
    #[error("the dev environment has no cluster {name}: it has {}", available.join(", "))]
    NoCluster {
        /// The name given.
        name: String,
        /// Its clusters.
        available: Vec<String>,
    },
    /// A restart of a cluster whose objects would not survive it.
    #[error("cluster {0} keeps its objects in memory only: a restart would lose them (`dev up --durable`)")]
    NotDurable(String),
    /// A Deployment name found in several namespaces.
    #[error("deployment {name} is in several namespaces: pass one of {}", candidates.join(", "))]
    Ambiguous {
        /// The name given.
        name: String,
        /// `namespace/name` candidates.
        candidates: Vec<String>,
    },
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> EnvError + 'a {
    move |source| EnvError::Io { action, path: path.to_path_buf(), source }
}

/// The default directory: `$XDG_STATE_HOME/fleetctl/dev`, else `~/.local/state/fleetctl/dev`.
pub fn default_dir() -> Result<PathBuf, EnvError> {
    let absolute = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(state) = absolute("XDG_STATE_HOME") {
        return Ok(state.join("fleetctl").join("dev"));
    }
    absolute("HOME").map(|home| home.join(".local/state/fleetctl/dev")).ok_or(EnvError::NoDir)
}

/// The names of the environment's clusters: `hub`, `cluster1`…
pub fn cluster_names(clusters: usize) -> Vec<String> {
    std::iter::once(HUB.to_string()).chain((1..=clusters).map(|i| format!("cluster{i}"))).collect()
}

fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// Reads `state.json`; `NotRunning` if there is none.
pub fn read_state(dir: &Path) -> Result<EnvState, EnvError> {
    let path = state_path(dir);
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(EnvError::NotRunning { dir: dir.to_path_buf() });
        }
        Err(e) => return Err(io("reading", &path)(e)),
    };
    serde_json::from_slice(&text).map_err(|source| EnvError::State { path, source })
}

fn write_state(dir: &Path, state: &EnvState) -> Result<(), EnvError> {
    let path = state_path(dir);
    let text = serde_json::to_vec_pretty(state).map_err(|source| EnvError::State { path: path.clone(), source })?;
    write_private(&path, &text).map_err(io("writing", &path))
}

/// Starts the hub and the managed clusters, installs the hub controllers (the objects
/// `fleetctl hub install` applies, through the same apply) unless the hub is to be bare,
/// waits until every cluster answers `/readyz` and the hub controller Deployment is
/// Available, writes the kubeconfigs and `state.json`, and returns, leaving the clusters
/// running. On failure it stops what it started.
pub async fn up(options: &UpOptions) -> Result<EnvState, EnvError> {
    if options.clusters > 99 {
        return Err(EnvError::Clusters(options.clusters));
    }
    let dir = &options.dir;
    private_dir(&dir.join("logs")).map_err(io("creating", dir))?;
    match read_state(dir) {
        Ok(state) if state.clusters.iter().any(|c| is_ours(&state, c)) => {
            return Err(EnvError::AlreadyRunning { dir: dir.clone() });
        }
        Ok(_) | Err(EnvError::NotRunning { .. } | EnvError::State { .. }) => {}
        Err(e) => return Err(e),
    }
    let mut state = EnvState {
        program: options.program.canonicalize().unwrap_or_else(|_| options.program.clone()),
        podman: options.podman,
        bare_hub: options.bare_hub(),
        kubeconfig: dir.join(MERGED_KUBECONFIG),
        clusters: Vec::new(),
    };
    let mut children = Vec::new();
    let started = spawn_all(options, &mut state, &mut children);
    // Recorded before anything can fail, so that `dev down` can always clean up.
    let outcome = match started {
        Ok(()) => match write_state(dir, &state) {
            Ok(()) => wait_ready(options, &mut state, &mut children).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    if let Err(e) = outcome {
        stop_children(&mut children).await;
        let _ = std::fs::remove_file(state_path(dir));
        return Err(e);
    }
    write_state(dir, &state)?;
    Ok(state)
}

fn spawn_all(options: &UpOptions, state: &mut EnvState, children: &mut Vec<Child>) -> Result<(), EnvError> {
    use std::os::unix::process::CommandExt;
    let dir = &options.dir;
    for name in cluster_names(options.clusters) {
        let kubeconfig = dir.join(format!("{name}.kubeconfig"));
        // Its appearance is the signal that the new process is ready.
        match std::fs::remove_file(&kubeconfig) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("removing", &kubeconfig)(e)),
        }
        let log = dir.join("logs").join(format!("{name}.log"));
        let stdout = open_log(&log).map_err(io("opening", &log))?;
        let stderr = stdout.try_clone().map_err(io("opening", &log))?;
        let mut command = Command::new(&options.program);
        command.arg("dev").arg("serve").arg("--kubeconfig").arg(&kubeconfig).args(["--name", &name]);
        command.arg("--node-simulator").arg("--node-dir").arg(dir);
        if options.durable {
            command.arg("--store").arg(dir.join(&name).join("store"));
        }
        if options.in_process {
            command.args(["--node-mode", "in-process"]);
        }
        if options.podman {
            command.arg("--podman");
        }
        // A group of its own: a Ctrl-C in the terminal that ran `dev up` does not reach
        // it, and `dev down` can stop it with everything it started.
        command.stdin(Stdio::null()).stdout(stdout).stderr(stderr).process_group(0);
        let child = command.spawn().map_err(|source| EnvError::Spawn {
            name: name.clone(),
            program: options.program.clone(),
            source,
        })?;
        state.clusters.push(ClusterRecord { name, url: String::new(), pid: child.id(), kubeconfig, log });
        children.push(child);
    }
    Ok(())
}

async fn wait_ready(options: &UpOptions, state: &mut EnvState, children: &mut [Child]) -> Result<(), EnvError> {
    let waits = state.clusters.iter().zip(children.iter_mut()).map(|(record, child)| async move {
        let client = started(record, child).await?;
        if record.name == HUB
            && let Some(hub) = &options.hub
        {
            let kubeconfig = Kubeconfig::read_from(&record.kubeconfig)
                .map_err(|source| EnvError::Kubeconfig { path: record.kubeconfig.clone(), source })?;
            let endpoint = kubeconfig::endpoint(&kubeconfig)
                .map_err(|source| EnvError::KubeconfigText { path: record.kubeconfig.clone(), source })?;
            install_hub(&client, hub, &endpoint, options.timeout).await?;
        }
        Ok::<_, EnvError>(())
    });
    futures::future::try_join_all(waits).await?;
    write_merged_kubeconfig(state)
}

/// Records each cluster's URL from its kubeconfig and writes the kubeconfig with a context
/// per cluster.
fn write_merged_kubeconfig(state: &mut EnvState) -> Result<(), EnvError> {
    // Each cluster process names its kubeconfig's entries after itself (`dev serve --name`).
    let mut merged = Kubeconfig { current_context: Some(HUB.into()), ..Kubeconfig::default() };
    for record in &mut state.clusters {
        let config = Kubeconfig::read_from(&record.kubeconfig)
            .map_err(|source| EnvError::Kubeconfig { path: record.kubeconfig.clone(), source })?;
        record.url = kubeconfig::endpoint(&config)
            .map_err(|source| EnvError::KubeconfigText { path: record.kubeconfig.clone(), source })?
            .server;
        merged.clusters.extend(config.clusters);
        merged.auth_infos.extend(config.auth_infos);
        merged.contexts.extend(config.contexts);
    }
    let yaml = kubeconfig::to_yaml(&merged);
    write_private(&state.kubeconfig, yaml.as_bytes()).map_err(io("writing", &state.kubeconfig))
}

/// A client for the context `context` of a kubeconfig file.
pub async fn client_for(path: &Path, context: Option<&str>) -> Result<Client, EnvError> {
    let kubeconfig = |source| EnvError::Kubeconfig { path: path.to_path_buf(), source };
    let file = Kubeconfig::read_from(path).map_err(kubeconfig)?;
    let options = KubeConfigOptions { context: context.map(str::to_string), ..KubeConfigOptions::default() };
    let config = kube::Config::from_custom_kubeconfig(file, &options).await.map_err(kubeconfig)?;
    Client::try_from(config)
        .map_err(|source| EnvError::Unreachable { name: context.unwrap_or_default().to_string(), source })
}

/// Waits for a cluster process to write its kubeconfig (it does so once it serves),
/// then checks `/readyz` through it.
async fn started(record: &ClusterRecord, child: &mut Child) -> Result<Client, EnvError> {
    let deadline = Instant::now() + STARTUP_WAIT;
    // A bounded wait on a file another process writes: without a file-notification
    // dependency, looking every few milliseconds is the simplest event source, and the
    // wait ends early when the process exits.
    while !record.kubeconfig.exists() {
        if let Some(status) = child.try_wait().map_err(io("waiting for", &record.log))? {
            return Err(EnvError::Exited {
                name: record.name.clone(),
                status: status.to_string(),
                log: record.log.clone(),
                tail: tail(&record.log, 20),
            });
        }
        if Instant::now() >= deadline {
            return Err(EnvError::StartupTimeout { name: record.name.clone(), log: record.log.clone() });
        }
        tokio::time::sleep(STARTUP_CHECK).await;
    }
    let client = client_for(&record.kubeconfig, None).await?;
    readyz(&client).await.map_err(|source| EnvError::Unreachable { name: record.name.clone(), source })?;
    Ok(client)
}

async fn readyz(client: &Client) -> Result<(), kube::Error> {
    let request = axum::http::Request::get("/readyz").body(Vec::new()).map_err(kube::Error::HttpError)?;
    client.request_text(request).await.map(|_| ())
}

/// Applies the hub installation and waits for the hub controller to be Available.
async fn install_hub(
    client: &Client,
    hub: &HubInstall,
    endpoint: &Endpoint,
    timeout: Duration,
) -> Result<(), EnvError> {
    apply(client, &(hub.render)(endpoint), &ApplyOptions::default()).await.map_err(EnvError::Install)?;
    let api: Api<Deployment> = Api::namespaced(client.clone(), &hub.namespace);
    let available = await_condition(api, &hub.controller, is_available);
    match tokio::time::timeout(timeout, available).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(EnvError::HubWatch(e)),
        Err(_) => {
            Err(EnvError::HubController { namespace: hub.namespace.clone(), name: hub.controller.clone(), timeout })
        }
    }
}

/// Whether a Deployment's current generation is Available.
pub fn is_available(deployment: Option<&Deployment>) -> bool {
    let Some(deployment) = deployment else { return false };
    let Some(status) = &deployment.status else { return false };
    status.observed_generation >= deployment.metadata.generation
        && status.available_replicas.unwrap_or(0) >= 1
        && status.conditions.iter().flatten().any(|c| c.type_ == "Available" && c.status == "True")
}

/// The last `lines` lines of a file.
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Stops the processes `up` started: SIGTERM, then SIGKILL for their whole groups
/// (containers their simulators had started go too), and reaps them.
async fn stop_children(children: &mut [Child]) {
    for child in children.iter() {
        signal(child.id(), Signal::SIGTERM);
    }
    // Our own children, but std's wait blocks: try_wait every few milliseconds, bounded.
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && children.iter_mut().any(|c| matches!(c.try_wait(), Ok(None))) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for child in children.iter_mut() {
        if let Ok(pid) = i32::try_from(child.id()) {
            let _ = nix::sys::signal::killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = child.wait();
    }
}

/// Whether `pid` is still the cluster process the record names (not a reused pid).
fn is_ours(state: &EnvState, record: &ClusterRecord) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{}/cmdline", record.pid)) else { return false };
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let kubeconfig = record.kubeconfig.as_os_str().as_encoded_bytes();
    let serves = args.windows(2).any(|w| w[0] == b"dev" && w[1] == b"serve");
    serves && args.contains(&kubeconfig) && runs_program(record.pid, &state.program)
}

/// The executable process `pid` runs (a rebuilt binary shows as "… (deleted)").
fn executable(pid: u32) -> Option<PathBuf> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let exe = exe.to_string_lossy();
    Some(PathBuf::from(exe.strip_suffix(" (deleted)").unwrap_or(&exe)))
}

/// Whether process `pid` runs `program`.
fn runs_program(pid: u32, program: &Path) -> bool {
    executable(pid).is_some_and(|exe| exe == program)
}

/// Processes of process group `pgid` that run `program` or another executable beside it
/// (`fleetctld`): the containers of a cluster.
fn group_members(pgid: u32, program: &Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Fields after the command name (which may hold spaces): state, ppid, pgrp.
            let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
            after.split_whitespace().nth(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid)
        })
        .filter(|pid| executable(*pid).is_some_and(|exe| exe.parent() == program.parent()))
        .collect()
}

fn signal(pid: u32, signal: Signal) {
    if let Ok(pid) = i32::try_from(pid) {
        let _ = kill(Pid::from_raw(pid), signal);
    }
}

/// Stops every cluster of the environment: SIGTERM (each stops its containers within
/// their grace period), then after `grace` SIGKILL for whatever of its process group
/// still runs. Removes `state.json` and the kubeconfigs (their CAs die with the
/// clusters); the logs stay.
pub async fn down(dir: &Path, grace: Duration) -> Result<Vec<(String, Stopped)>, EnvError> {
    let state = read_state(dir)?;
    let outcome = stop(&state, &state.clusters.iter().collect::<Vec<_>>(), grace).await;
    // A container whose `podman run` was killed outlives it: remove it by its node.
    if state.podman {
        let podman = Podman::from_env();
        for record in &state.clusters {
            podman.remove_node(&container_label(dir, &record.name)).await;
            fleetctl_nodesim::network::remove_node(&container_label(dir, &record.name)).await;
        }
    }
    for path in state.clusters.iter().map(|r| r.kubeconfig.clone()).chain([state.kubeconfig.clone(), state_path(dir)]) {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("removing", &path)(e)),
        }
    }
    Ok(outcome)
}

/// Stops clusters: SIGTERM (each stops its containers within their grace period), then
/// after `grace` SIGKILL for whatever of its process group still runs.
async fn stop(state: &EnvState, records: &[&ClusterRecord], grace: Duration) -> Vec<(String, Stopped)> {
    let mut outcome: Vec<(String, Stopped)> = Vec::new();
    for record in records {
        // A live cluster process stops its containers itself; those of one that died
        // (SIGKILL) are told directly.
        let targets = match is_ours(state, record) {
            true => vec![record.pid],
            false => group_members(record.pid, &state.program),
        };
        for pid in &targets {
            signal(*pid, Signal::SIGTERM);
        }
        let stopped = if targets.is_empty() { Stopped::AlreadyGone } else { Stopped::Terminated };
        outcome.push((record.name.clone(), stopped));
    }
    // These processes are not our children, so there is nothing to wait on: look at
    // /proc every few milliseconds, for at most the grace period.
    let deadline = Instant::now() + grace;
    let running = || records.iter().any(|r| is_ours(state, r) || !group_members(r.pid, &state.program).is_empty());
    while running() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for (record, (_, stopped)) in records.iter().zip(outcome.iter_mut()) {
        let leader = is_ours(state, record).then_some(record.pid);
        let members = group_members(record.pid, &state.program);
        for pid in leader.into_iter().chain(members) {
            signal(pid, Signal::SIGKILL);
            *stopped = Stopped::Killed;
        }
    }
    outcome
}

/// Restarts one running cluster of a durable environment on its store and port, with the
/// command line it runs, taking `rotate_ca` — a step of rotating its CA — while it is
/// stopped; waits until it answers again and rewrites the kubeconfigs (a rotated CA changes
/// the bundle they trust). What it runs restarts with it, as on a rebooted node.
pub async fn restart(
    dir: &Path,
    name: &str,
    rotate_ca: Option<fleetctl_apiserver::CaRotation>,
    grace: Duration,
) -> Result<ClusterRecord, EnvError> {
    use std::os::unix::ffi::OsStringExt;
    use std::os::unix::process::CommandExt;
    let mut state = read_state(dir)?;
    let available = || state.clusters.iter().map(|c| c.name.clone()).collect();
    let index = state
        .clusters
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| EnvError::NoCluster { name: name.to_string(), available: available() })?;
    let record = state.clusters[index].clone();
    if !is_ours(&state, &record) {
        return Err(EnvError::NotRunning { dir: dir.to_path_buf() });
    }
    let proc = PathBuf::from(format!("/proc/{}/cmdline", record.pid));
    let cmdline = std::fs::read(&proc).map_err(io("reading", &proc))?;
    let mut args: Vec<std::ffi::OsString> = cmdline
        .split(|b| *b == 0)
        .skip(1)
        .filter(|a| !a.is_empty())
        .map(|a| std::ffi::OsString::from_vec(a.to_vec()))
        .collect();
    if !args.iter().any(|a| a == "--store") {
        return Err(EnvError::NotDurable(name.to_string()));
    }
    // The same port, so that everything that reaches the cluster reaches it again.
    let port = record.url.rsplit(':').next().unwrap_or_default().to_string();
    for flag in ["--port", "--rotate-ca"] {
        if let Some(at) = args.iter().position(|a| a == flag) {
            args.drain(at..(at + 2).min(args.len()));
        }
    }
    args.extend(["--port".into(), port.into()]);
    if let Some(step) = rotate_ca {
        args.extend(["--rotate-ca".into(), step.as_arg().into()]);
    }
    stop(&state, &[&record], grace).await;
    // Its appearance is the signal that the new process is ready.
    match std::fs::remove_file(&record.kubeconfig) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io("removing", &record.kubeconfig)(e)),
    }
    let stdout = open_log(&record.log).map_err(io("opening", &record.log))?;
    let stderr = stdout.try_clone().map_err(io("opening", &record.log))?;
    let mut child = Command::new(&state.program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|source| EnvError::Spawn { name: name.to_string(), program: state.program.clone(), source })?;
    state.clusters[index].pid = child.id();
    write_state(dir, &state)?;
    started(&state.clusters[index], &mut child).await?;
    write_merged_kubeconfig(&mut state)?;
    write_state(dir, &state)?;
    Ok(state.clusters[index].clone())
}

/// Each cluster: does its process run, does it answer `/readyz`.
pub async fn status(dir: &Path) -> Result<(EnvState, Vec<ClusterStatus>), EnvError> {
    let state = read_state(dir)?;
    let checks = state.clusters.iter().map(|record| {
        let state = &state;
        async move {
            let alive = is_ours(state, record);
            let ready = alive && ready(record).await;
            ClusterStatus { record: record.clone(), alive, ready }
        }
    });
    let statuses = futures::future::join_all(checks).await;
    Ok((state, statuses))
}

async fn ready(record: &ClusterRecord) -> bool {
    let Ok(client) = client_for(&record.kubeconfig, None).await else { return false };
    matches!(tokio::time::timeout(READY_CHECK, readyz(&client)).await, Ok(Ok(())))
}

/// The log of a cluster process, or of one of its Deployments (`name` or
/// `namespace/name`).
pub fn log_file(dir: &Path, cluster: &str, deployment: Option<&str>) -> Result<PathBuf, EnvError> {
    let available = || deployment_logs(dir, cluster);
    let path = match deployment {
        None => dir.join("logs").join(format!("{cluster}.log")),
        Some(spec) => match spec.split_once('/') {
            Some((namespace, name)) => fleetctl_nodesim::log_path(dir, cluster, namespace, name),
            None => {
                let candidates: Vec<String> =
                    available().into_iter().filter(|c| c.rsplit('/').next() == Some(spec)).collect();
                match candidates.as_slice() {
                    [one] => {
                        let (namespace, name) = one.split_once('/').unwrap_or_default();
                        fleetctl_nodesim::log_path(dir, cluster, namespace, name)
                    }
                    [] => fleetctl_nodesim::log_path(dir, cluster, "*", spec),
                    _ => return Err(EnvError::Ambiguous { name: spec.to_string(), candidates }),
                }
            }
        },
    };
    if path.is_file() { Ok(path) } else { Err(EnvError::NoLog { path, available: available() }) }
}

/// The Deployments of a cluster that have logs, as `namespace/name`.
fn deployment_logs(dir: &Path, cluster: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("logs").join(cluster)) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".log")).map(str::to_string))
        .filter_map(|n| n.split_once('_').map(|(ns, name)| format!("{ns}/{name}")))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_are_the_hub_then_numbered() {
        assert_eq!(cluster_names(2), ["hub", "cluster1", "cluster2"]);
        assert_eq!(cluster_names(0), ["hub"]);
    }

    #[test]
    fn deployment_logs_are_found_by_name_or_namespace_and_name() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs/c1");
        std::fs::create_dir_all(&logs).unwrap();
        for file in ["a_web.log", "b_web.log", "a_api.log"] {
            std::fs::write(logs.join(file), "x").unwrap();
        }
        std::fs::write(dir.path().join("logs/c1.log"), "x").unwrap();
        assert_eq!(log_file(dir.path(), "c1", None).unwrap(), dir.path().join("logs/c1.log"));
        assert_eq!(log_file(dir.path(), "c1", Some("api")).unwrap(), logs.join("a_api.log"));
        assert_eq!(log_file(dir.path(), "c1", Some("b/web")).unwrap(), logs.join("b_web.log"));
        assert!(matches!(log_file(dir.path(), "c1", Some("web")), Err(EnvError::Ambiguous { .. })));
        match log_file(dir.path(), "c1", Some("nope")) {
            Err(EnvError::NoLog { available, .. }) => assert_eq!(available, ["a/api", "a/web", "b/web"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_state_recorded_before_bare_hubs_existed_has_a_hub_with_fleetctl_installed() {
        let old = r#"{"program": "/bin/fleetctl", "kubeconfig": "/d/kubeconfig", "clusters": []}"#;
        let state: EnvState = serde_json::from_str(old).unwrap();
        assert!(!state.bare_hub && !state.podman);
    }

    #[test]
    fn a_missing_state_means_not_running() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read_state(dir.path()), Err(EnvError::NotRunning { .. })));
    }
}
