//! One Pod bound to the node: its containers' processes (or tasks), its
//! ServiceAccount credentials, its volumes (see [`super::pod_volumes`]), its containers'
//! environment (see [`super::env`]), its logs and its status.
//!
//! A container starts once the volumes it mounts are set up and its environment can be
//! made; until then it waits, as kubelet's do, with the reason `ContainerCreating` (and a
//! `FailedMount` Event) or `CreateContainerConfigError` (and a `Failed` Event), and is
//! started as soon as the watch of the missing Secret or ConfigMap reports it.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, LifecycleHandler, ObjectReference, Pod, PodSpec};
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::events::EventType;
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{Notify, OnceCell, watch};
use tokio::time::Instant;

use super::Node;
use super::RunMode;
use super::backoff::{self, Backoff};
use super::container::Sandbox;
use super::credentials::Credentials;
use super::downward::PodFields;
use super::env::{self, EnvContext, expand};
use super::logs::Sink;
use super::mounts::{self, Mount};
use super::network::{PodNetwork, host_network_address};
use super::pod_volumes::{PodVolumes, Prepared};
use super::probe::{self, Exec, Ports, Probes, Report};
use super::process::{self, Isolation, Launch};
use super::status::{ContainerPhase, ContainerState, Exited, is_fleetctl_image, pod_status};
use super::tokens::{self, Ask, TokenError};

/// Lifetime asked for Pod tokens: they are not refreshed, and a year outlives any dev
/// session (the server grants up to two).
const TOKEN_SECONDS: i64 = 365 * 24 * 3600;

/// The kubelet's `minimumGracePeriodInSeconds`: the least a container gets between SIGTERM
/// and SIGKILL after its preStop hook, however much of the grace period the hook used.
const MIN_GRACE: Duration = Duration::from_secs(2);

/// How a Pod's containers are stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Termination {
    /// The kubelet's `killContainer`: the preStop hook, then SIGTERM, then SIGKILL once the
    /// grace period — which the hook and SIGTERM share — is spent; SIGTERM always gets at
    /// least [`MIN_GRACE`], however long the hook took.
    Graceful(Duration),
    /// SIGTERM, then SIGKILL after this long, with no hook: the kubelet's grace period
    /// override (a Pod already gone from the API), or the simulator shutting down.
    Override(Duration),
}

impl Termination {
    /// The kubelet's grace period for a Pod (`setTerminationGracePeriod`): its
    /// `deletionGracePeriodSeconds` once it is marked for deletion, else its
    /// `spec.terminationGracePeriodSeconds`, else [`MIN_GRACE`].
    pub(super) fn of(pod: &Pod) -> Self {
        let seconds = pod
            .metadata
            .deletion_grace_period_seconds
            .or_else(|| pod.spec.as_ref().and_then(|spec| spec.termination_grace_period_seconds));
        let grace = seconds.map_or(MIN_GRACE, |s| Duration::from_secs(s.max(0).unsigned_abs()));
        Self::Graceful(grace)
    }
}

/// What the node holds of a running Pod.
pub(super) struct PodHandle {
    name: String,
    uid: String,
    stop: watch::Sender<bool>,
    /// How its containers stop when `stop` fires.
    termination: Arc<Mutex<Termination>>,
    task: tokio::task::JoinHandle<()>,
}

/// What a Pod's tasks share.
struct Shared {
    containers: Mutex<Vec<ContainerState>>,
    /// A container changed: the Pod status is written again.
    changed: Notify,
}

impl Shared {
    fn update(&self, index: usize, change: impl FnOnce(&mut ContainerState)) {
        if let Some(container) = self.containers.lock().get_mut(index) {
            change(container);
        }
        self.changed.notify_one();
    }
}

/// The name `fleetctl dev logs` knows a Pod's containers by: its Deployment's (its
/// ReplicaSet's name without the template hash), else its controller's, else its own.
fn workload_name(pod: &Pod) -> String {
    let owner = pod.owner_references().iter().find(|o| o.controller == Some(true)).map(|o| o.name.clone());
    let Some(owner) = owner else { return pod.name_any() };
    let hash = pod.labels().get("pod-template-hash").map(|h| format!("-{h}"));
    match hash.and_then(|h| owner.strip_suffix(&h).map(str::to_string)) {
        Some(deployment) => deployment,
        None => owner,
    }
}

impl PodHandle {
    /// Starts running a Pod bound to this node.
    pub(super) fn start(node: Arc<Node>, object: &Pod) -> Self {
        let name = object.name_any();
        let uid = object.metadata.uid.clone().unwrap_or_default();
        let termination = Arc::new(Mutex::new(Termination::of(object)));
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(run(node, object.clone(), termination.clone(), stopped));
        Self { name, uid, stop, termination, task }
    }

    /// The uid of the Pod it runs.
    pub(super) fn uid(&self) -> &str {
        &self.uid
    }

    /// Stops its containers as `termination` says and removes its files.
    pub(super) async fn stop(self, termination: Termination) {
        *self.termination.lock() = termination;
        let _ = self.stop.send(true);
        if let Err(e) = self.task.await {
            tracing::warn!(pod = %self.name, error = %e, "pod task ended abnormally");
        }
    }
}

/// Everything about a Pod its tasks read.
struct PodInfo {
    /// Its address.
    ip: Ipv4Addr,
    /// For each container, whether podman runs it (its image is in podman's storage).
    in_podman: Vec<bool>,
    /// Its network namespace, when it has a network of its own (else it is on the host's).
    netns: Option<PathBuf>,
    log: PathBuf,
    /// Where its ServiceAccount's files go.
    credentials_dir: PathBuf,
    fields: PodFields,
    restart_policy: RestartPolicy,
    containers: Vec<Container>,
    /// The ServiceAccount's files, once written (shared by the containers).
    credentials: OnceCell<Credentials>,
    /// Its volumes.
    volumes: Arc<PodVolumes>,
    /// What its volumes publish for the containers (`None` until they are first set up).
    prepared: watch::Receiver<Option<Arc<Prepared>>>,
    /// How its containers stop: the Pod's grace period (which a liveness kill uses too) until
    /// the node says otherwise.
    termination: Arc<Mutex<Termination>>,
}

/// When the kubelet starts a container that exited again (`spec.restartPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RestartPolicy {
    Always,
    OnFailure,
    Never,
}

impl RestartPolicy {
    /// The Pod's policy (`Always` when it names none, as defaulting does).
    fn of(spec: &PodSpec) -> Self {
        match spec.restart_policy.as_deref() {
            Some("OnFailure") => Self::OnFailure,
            Some("Never") => Self::Never,
            _ => Self::Always,
        }
    }

    /// Whether a container that exited with `code` runs again.
    fn restarts(self, code: i32) -> bool {
        match self {
            Self::Always => true,
            Self::OnFailure => code != 0,
            Self::Never => false,
        }
    }
}

/// How long a container with nothing to run (an image that is neither fleetctl's nor in
/// podman's storage) runs when its Pod may complete (a Job's): it then exits with 0.
const SIMULATED_RUN: Duration = Duration::from_secs(1);

/// Why a container could not get its ServiceAccount's token.
#[derive(Debug, thiserror::Error)]
enum CredentialError {
    #[error("issuing the service account's token")]
    Token(#[source] TokenError),
    #[error("writing the service account's files")]
    Write(#[source] std::io::Error),
}

impl PodInfo {
    /// What the Pod `object` runs with: in `network` (if it has one of its own), its
    /// containers podman runs marked in `in_podman`; its volumes publish through `prepared`.
    fn new(
        node: &Node,
        object: &Pod,
        network: Option<&PodNetwork>,
        in_podman: Vec<bool>,
        termination: Arc<Mutex<Termination>>,
        prepared: watch::Receiver<Option<Arc<Prepared>>>,
    ) -> Self {
        let name = object.name_any();
        let namespace = object.namespace().unwrap_or_default();
        let uid = object.metadata.uid.clone().unwrap_or_default();
        let spec = object.spec.clone().unwrap_or_default();
        let containers = spec.containers.clone();
        let service_account = spec
            .service_account_name
            .clone()
            .or_else(|| spec.service_account.clone())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "default".to_string());
        let log = node.log_path(&namespace, &workload_name(object));
        let credentials_dir = node.pod_dir(&namespace, &name, &uid);
        let ip = network.map_or_else(|| host_network_address(&uid), PodNetwork::ip);
        let fields = PodFields {
            namespace,
            name: name.clone(),
            uid: uid.clone(),
            service_account,
            node: node.config.name.clone(),
            labels: object.labels().clone(),
            annotations: object.annotations().clone(),
            pod_ip: ip.to_string(),
        };
        let volumes = Arc::new(PodVolumes {
            root: credentials_dir.join("volumes"),
            fields: fields.clone(),
            volumes: spec.volumes.clone().unwrap_or_default(),
            containers: containers.clone(),
            reference: pod_reference(object),
            log: log.clone(),
        });
        Self {
            ip,
            in_podman,
            netns: network.map(PodNetwork::path),
            log,
            credentials_dir,
            fields,
            restart_policy: RestartPolicy::of(&spec),
            containers,
            credentials: OnceCell::new(),
            volumes,
            prepared,
            termination,
        }
    }

    fn namespace(&self) -> &str {
        &self.fields.namespace
    }

    fn name(&self) -> &str {
        &self.fields.name
    }

    /// The Pod as the kubelet's messages name it (`format.Pod`: `name_namespace(uid)`).
    fn format(&self) -> String {
        format!("{}_{}({})", self.name(), self.namespace(), self.fields.uid)
    }

    /// One of its containers, as the kubelet's Events name it.
    fn reference(&self, container: &Container) -> ObjectReference {
        ObjectReference {
            field_path: Some(format!("spec.containers{{{}}}", container.name)),
            ..self.volumes.reference.clone()
        }
    }

    /// A token of the Pod's ServiceAccount bound to the Pod (valid while the Pod object
    /// exists, as the kubelet's projected tokens are), written as a kubelet projects it (and
    /// as a kubeconfig); waits (through a watch) for the ServiceAccount if it does not exist
    /// yet. The files stay until the Pod's containers have stopped.
    async fn credentials(&self, node: &Node) -> Result<Credentials, CredentialError> {
        let credentials = self.credentials.get_or_try_init(|| self.issue_credentials(node)).await?;
        Ok(credentials.clone())
    }

    async fn issue_credentials(&self, node: &Node) -> Result<Credentials, CredentialError> {
        let ask = Ask {
            namespace: self.namespace(),
            service_account: &self.fields.service_account,
            pod: Some((self.name(), &self.fields.uid)),
            audience: None,
            seconds: TOKEN_SECONDS,
            log: &self.log,
        };
        let token = tokens::request(node.client(), &ask).await.map_err(CredentialError::Token)?;
        let credentials = Credentials::under(&self.credentials_dir);
        credentials
            .write(&node.config.server_url, &node.config.ca_pem, self.namespace(), &token)
            .map_err(CredentialError::Write)?;
        Ok(credentials)
    }
}

/// The Pod's life: give it a network of its own if podman runs its containers, set up its
/// volumes, run its containers, keep its status, and on stop end the containers, then its
/// volumes' sync, and remove its credentials, volumes, logs and network.
async fn run(node: Arc<Node>, object: Pod, termination: Arc<Mutex<Termination>>, stop: watch::Receiver<bool>) {
    let start_time = now();
    let in_podman = in_podman_storage(&node, &object).await;
    let network = network_of(&node, &object, &in_podman).await;
    let (prepared, prepared_rx) = watch::channel(None);
    let pod = PodInfo::new(&node, &object, network.as_ref(), in_podman, termination, prepared_rx);
    let shared = Arc::new(Shared {
        containers: Mutex::new(pod.containers.iter().map(ContainerState::new).collect()),
        changed: Notify::new(),
    });
    let api: Api<Pod> = Api::namespaced(node.client(), pod.namespace());
    let pod = Arc::new(pod);
    let volumes = tokio::spawn(pod.volumes.clone().run(node.clone(), prepared, stop.clone()));
    let containers: Vec<_> = (0..pod.containers.len())
        .map(|index| tokio::spawn(run_container(node.clone(), pod.clone(), shared.clone(), index, stop.clone())))
        .collect();
    let mut written: Option<Value> = None;
    let mut stop_status = stop.clone();
    loop {
        let status = pod_status(&shared.containers.lock(), &start_time, &pod.ip.to_string());
        if written.as_ref() != Some(&status) {
            let patch = Patch::Merge(serde_json::json!({ "status": status }));
            match api.patch_status(pod.name(), &PatchParams::default(), &patch).await {
                Ok(_) => written = Some(status),
                // Deleted: the node hears of it and stops us.
                Err(kube::Error::Api(e)) if e.code == 404 => written = Some(status),
                Err(e) => tracing::warn!(pod = %pod.name(), error = %e, "writing pod status"),
            }
        }
        tokio::select! {
            _ = stop_status.wait_for(|s| *s) => break,
            () = shared.changed.notified() => {}
        }
    }
    futures::future::join_all(containers).await;
    if let Err(e) = volumes.await {
        tracing::warn!(pod = %pod.name(), error = %e, "pod volumes task ended abnormally");
    }
    if let Err(e) = std::fs::remove_dir_all(&pod.credentials_dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(pod = %pod.name(), error = %e, "removing the pod's credentials");
    }
    node.logs.remove(pod.namespace(), pod.name(), &pod.fields.uid);
    if let Some(network) = network {
        network.remove().await;
    }
}

/// The Pod, as Events name it.
fn pod_reference(object: &Pod) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Pod".into()),
        namespace: object.namespace(),
        name: Some(object.name_any()),
        uid: object.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}

/// Which of the Pod's containers podman runs: those whose image is in its local storage
/// (none without podman). Asked once per Pod.
async fn in_podman_storage(node: &Node, object: &Pod) -> Vec<bool> {
    let containers = object.spec.iter().flat_map(|spec| &spec.containers);
    let Some(podman) = &node.config.podman else { return containers.map(|_| false).collect() };
    let asked = containers.map(|c| async move { podman.has_image(c.image.as_deref().unwrap_or_default()).await });
    futures::future::join_all(asked).await
}

/// A network of its own for a Pod that is not on the host's network and has a container
/// podman runs (an image of its storage); `None` — the host's network — otherwise, or when
/// the network cannot be made (said in a Warning Event, as the kubelet's
/// `FailedCreatePodSandBox`, and the Pod runs on the host's network).
async fn network_of(node: &Node, object: &Pod, in_podman: &[bool]) -> Option<PodNetwork> {
    let spec = object.spec.as_ref()?;
    if spec.host_network == Some(true) || !in_podman.contains(&true) {
        return None;
    }
    let uid = object.metadata.uid.as_deref().unwrap_or_default();
    let reach = (node.config.reach)();
    match PodNetwork::create(&node.container_label(), uid, node.addresses.clone(), &reach).await {
        Ok(network) => Some(network),
        Err(e) => {
            let message =
                format!("Failed to create pod sandbox: {}; the Pod runs on the host's network", super::error_chain(&e));
            tracing::warn!(pod = %object.name_any(), "{message}");
            node.event(
                &pod_reference(object),
                EventType::Warning,
                "FailedCreatePodSandBox",
                "CreatePodSandbox",
                message,
            );
            None
        }
    }
}

fn now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// One container: a process (or task) for the fleetctl image, restarted when it exits as
/// the Pod's restartPolicy says; for any other image a container that is simply reported
/// running (or, in a Pod that may complete, that runs [`SIMULATED_RUN`] and exits with 0).
async fn run_container(
    node: Arc<Node>,
    pod: Arc<PodInfo>,
    shared: Arc<Shared>,
    index: usize,
    mut stop: watch::Receiver<bool>,
) {
    let Some(container) = pod.containers.get(index) else { return };
    let image = container.image.clone().unwrap_or_default();
    // An image of local podman storage runs as a container; the fleetctl image otherwise
    // as a process (or task) of the entrypoint; any other image is only reported running.
    let podman = node.config.podman.as_ref().filter(|_| pod.in_podman.get(index) == Some(&true));
    let pod_key = (pod.namespace(), pod.name(), pod.fields.uid.as_str());
    if podman.is_none() && !is_fleetctl_image(&image) {
        let id = format!("simulated://{}/{}", pod.name(), container.name);
        // Nothing runs, so nothing is written: its log is there, and empty.
        let sink = node.logs.open(pod_key, &container.name, 0, &pod.log);
        let started = now();
        shared.update(index, |c| {
            c.run(started.clone(), true, true);
            c.container_id = Some(id);
        });
        let ends = !pod.restart_policy.restarts(0);
        let ran = ends
            && tokio::select! {
                _ = stop.wait_for(|s| *s) => false,
                () = tokio::time::sleep(SIMULATED_RUN) => true,
            };
        if ran {
            let finished = now();
            shared.update(index, |c| c.phase = ContainerPhase::Terminated(Exited { code: 0, started, finished }));
        }
        let _ = stop.wait_for(|s| *s).await;
        sink.close();
        return;
    }
    let label = format!("pod {} container {}", pod.name(), container.name);
    let mut backoff = Backoff::new(node.timing());
    let mut restarts = 0;
    let waiting = Waiting { pod: &pod, shared: &shared, index };
    let mut prepared = pod.prepared.clone();
    loop {
        let Some(ready) = waiting.prepare(&node, container, &mut prepared, &mut stop).await else { return };
        let credentials = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            credentials = pod.credentials(&node) => credentials,
        };
        let credentials = match credentials {
            Ok(credentials) => credentials,
            Err(e) => {
                if !waiting
                    .retry(
                        "CreateContainerConfigError",
                        format!("{label}: {}", super::error_chain(&e)),
                        &mut backoff,
                        &mut stop,
                    )
                    .await
                {
                    return;
                }
                continue;
            }
        };
        // On the host's network, a fleetctl container's health endpoint gets a port of its
        // own; in a network of its own it listens where its manifest says.
        let health = match pod.netns.as_ref().map_or_else(|| free_port(pod.ip).map(Some), |_| Ok(None)) {
            Ok(port) => port,
            Err(e) => {
                let why = format!("{label}: no port for its health endpoint: {e}");
                if !waiting.retry("RunContainerError", why, &mut backoff, &mut stop).await {
                    return;
                }
                continue;
            }
        };
        let output = node.logs.open(pod_key, &container.name, restarts, &pod.log);
        let launch = launch(&pod, container, ready, credentials, output.clone(), health);
        let ports =
            Ports { pod: pod.ip, health: health.and_then(|given| declared_health_port(container).map(|p| (p, given))) };
        let probes = Probes::of(container, ports);
        let name = format!("{}-{}", pod.name(), container.name);
        let started = match (&node.config.mode, &podman) {
            (_, Some(podman)) => {
                let sandbox = Sandbox {
                    node_label: node.container_label(),
                    service: node.config.service_addr,
                    netns: pod.netns.clone(),
                };
                podman.spawn(&image, &name, &sandbox, &launch)
            }
            (RunMode::Process { program, isolation }, None) => {
                process::spawn_process(program, *isolation, node.config.service_addr, &launch)
            }
            (RunMode::InProcess(runner), None) => Ok(process::spawn_task(runner, &launch)),
        };
        let mut running = match started {
            Ok(running) => running,
            Err(e) => {
                output.close();
                if !waiting
                    .retry("RunContainerError", format!("{label}: cannot start: {e}"), &mut backoff, &mut stop)
                    .await
                {
                    return;
                }
                continue;
            }
        };
        let id = running.container_id();
        let written: Vec<String> =
            container.command.iter().flatten().skip(1).chain(container.args.iter().flatten()).cloned().collect();
        process::log_line(&pod.log, &format!("{label}: started {id}: {}", launch.command_line(&written)));
        let started = now();
        shared.update(index, |c| {
            c.run(started.clone(), probes.started_at_once(), probes.ready_at_once());
            c.container_id = Some(id.clone());
            c.restart_count = restarts;
        });
        let up_since = Instant::now();
        let exec = match podman {
            Some(podman) => Exec::Podman { podman: podman.clone(), container: name },
            None => {
                let isolation = match &node.config.mode {
                    RunMode::Process { isolation, .. } => *isolation,
                    RunMode::InProcess(_) => Isolation::Kubeconfig,
                };
                let env = process::container_env(&launch, isolation, node.config.service_addr);
                Exec::Host { env, process: running.pid() }
            }
        };
        let report = |report: Report| on_probe(&node, &pod, &shared, index, &probes, report);
        let exited = tokio::select! {
            code = running.wait() => Exit::Exited(code),
            _ = stop.wait_for(|s| *s) => Exit::Stopped,
            killed = probes.run(up_since, node.timing().first_probe, &exec, &report) => Exit::Unhealthy(killed),
        };
        let kill = Kill { node: &node, pod: &pod, container, ports, exec: &exec };
        let code = match exited {
            Exit::Exited(code) => code,
            Exit::Stopped => {
                let code = kill.kill(running).await;
                output.close();
                process::log_line(&pod.log, &format!("{label}: {id} stopped (exit code {code})"));
                return;
            }
            Exit::Unhealthy(killed) => {
                let message = format!("Container {} {killed}", container.name);
                process::log_line(&pod.log, &format!("{label}: {message}"));
                node.event(&pod.reference(container), EventType::Normal, "Killing", "Kill", message);
                kill.kill(running).await
            }
        };
        output.close();
        process::log_line(&pod.log, &format!("{label}: {id} exited with code {code}"));
        let exited = Exited { code, started, finished: now() };
        if !pod.restart_policy.restarts(code) {
            shared.update(index, |c| c.phase = ContainerPhase::Terminated(exited));
            return;
        }
        let exited_at = Instant::now();
        let delay = backoff.delay_after(exited_at);
        let waiting = (!delay.is_zero()).then(|| {
            let message = format!(
                "back-off {} restarting failed container={} pod={}",
                backoff::go_duration(delay),
                container.name,
                pod.format()
            );
            let note = format!("Back-off restarting failed container {} in pod {}", container.name, pod.format());
            node.event(&pod.reference(container), EventType::Warning, "BackOff", "Backoff", note);
            ContainerPhase::Waiting { reason: "CrashLoopBackOff".into(), message: Some(message) }
        });
        shared.update(index, |c| {
            c.last_exit = Some(exited);
            if let Some(waiting) = waiting {
                c.phase = waiting;
            }
        });
        if !backoff::wait(exited_at, delay, &mut stop).await {
            return;
        }
        restarts += 1;
    }
}

/// What stopping a running container needs: where its preStop hook runs.
struct Kill<'a> {
    node: &'a Node,
    pod: &'a PodInfo,
    container: &'a Container,
    ports: Ports,
    exec: &'a Exec,
}

impl Kill<'_> {
    /// Stops the container as its Pod's termination says; returns its exit code. A preStop hook that
    /// fails or overruns the grace period is reported (a `FailedPreStopHook` Event) and the
    /// container stopped all the same, as the kubelet does.
    async fn kill(&self, running: process::Running) -> i32 {
        let termination = *self.pod.termination.lock();
        let grace = match termination {
            Termination::Override(grace) => grace,
            Termination::Graceful(grace) => {
                let hook = self.container.lifecycle.as_ref().and_then(|l| l.pre_stop.as_ref());
                let used = match hook {
                    Some(hook) if !grace.is_zero() => self.pre_stop(hook, grace).await,
                    _ => Duration::ZERO,
                };
                grace.saturating_sub(used).max(MIN_GRACE)
            }
        };
        running.terminate(grace).await
    }

    /// Runs the preStop hook for at most `grace`; returns how long it took.
    async fn pre_stop(&self, hook: &LifecycleHandler, grace: Duration) -> Duration {
        let started = Instant::now();
        let ran = tokio::time::timeout(grace, probe::run_hook(hook, self.container, self.ports, self.exec)).await;
        let failed = match ran {
            Ok(Ok(())) => None,
            Ok(Err(why)) => Some(format!("PreStopHook failed: {why}")),
            Err(_) => Some(format!("PreStopHook did not complete within its grace period of {}s", grace.as_secs())),
        };
        if let Some(message) = failed {
            let label = format!("pod {} container {}", self.pod.name(), self.container.name);
            process::log_line(&self.pod.log, &format!("{label}: {message}"));
            let reference = self.pod.reference(self.container);
            self.node.event(&reference, EventType::Warning, "FailedPreStopHook", "Kill", message);
        }
        started.elapsed()
    }
}

/// A container that could not be started.
struct Waiting<'a> {
    pod: &'a PodInfo,
    shared: &'a Shared,
    index: usize,
}

/// Why a container cannot be created yet: its status reason, and what it and its Event say.
struct NotReady {
    reason: &'static str,
    message: String,
}

impl NotReady {
    fn config(error: &dyn std::error::Error) -> Self {
        Self { reason: "CreateContainerConfigError", message: format!("Error: {}", super::error_chain(error)) }
    }
}

/// What a container is created with, once it can be: its environment and mounts.
struct Ready {
    env: Vec<(String, String)>,
    mounts: Vec<Mount>,
}

impl Waiting<'_> {
    /// The container's environment and mounts once the volumes it mounts are set up and its
    /// environment can be made. Until then its status says why (`ContainerCreating`, or
    /// `CreateContainerConfigError` with a `Failed` Event) and it waits for the Pod's volumes
    /// to publish a change (a Secret or ConfigMap appearing). `None` once the Pod stops.
    async fn prepare(
        &self,
        node: &Node,
        container: &Container,
        prepared: &mut watch::Receiver<Option<Arc<Prepared>>>,
        stop: &mut watch::Receiver<bool>,
    ) -> Option<Ready> {
        let mut reported: Option<String> = None;
        loop {
            let current = prepared.borrow_and_update().clone();
            if let Some(current) = current {
                match self.ready(container, &current) {
                    Ok(ready) => return Some(ready),
                    Err(not_ready) => {
                        if reported.as_ref() != Some(&not_ready.message) {
                            let line =
                                format!("pod {} container {}: {}", self.pod.name(), container.name, not_ready.message);
                            process::log_line(&self.pod.log, &line);
                            if not_ready.reason != "ContainerCreating" {
                                let reference = self.pod.reference(container);
                                node.event(
                                    &reference,
                                    EventType::Warning,
                                    "Failed",
                                    "Create",
                                    not_ready.message.clone(),
                                );
                            }
                            reported = Some(not_ready.message.clone());
                        }
                        // As kubelet: a configuration error says why in the status too;
                        // ContainerCreating says it in events only.
                        let message = (not_ready.reason != "ContainerCreating").then_some(not_ready.message);
                        self.shared.update(self.index, |c| {
                            c.phase = ContainerPhase::Waiting { reason: not_ready.reason.into(), message }
                        });
                    }
                }
            }
            tokio::select! {
                _ = stop.wait_for(|s| *s) => return None,
                changed = prepared.changed() => changed.ok()?,
            }
        }
    }

    /// The container's environment and mounts from what the Pod's volumes published.
    fn ready(&self, container: &Container, prepared: &Prepared) -> Result<Ready, NotReady> {
        for mount in container.volume_mounts.iter().flatten() {
            if let Some(failure) = prepared.failures.get(&mount.name) {
                let message = format!("volume {:?} is not set up: {}", mount.name, super::error_chain(failure));
                return Err(NotReady { reason: "ContainerCreating", message });
            }
        }
        let pod = self.pod;
        let context = EnvContext { pod: &pod.fields, containers: &pod.containers, sources: &prepared.sources };
        let env = env::container_env(container, &context).map_err(|e| NotReady::config(&e))?;
        let mounts = mounts::mounts_of(container, |name| pod.volumes.dir(name), &env)
            .map_err(|e| NotReady::config(&e))?
            .into_iter()
            .map(mounts::resolve)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NotReady::config(&e))?;
        Ok(Ready { env, mounts })
    }

    /// Says why in the Pod's log and its status (`reason`), then waits out the back-off;
    /// `false` once the Pod stops meanwhile.
    async fn retry(&self, reason: &str, why: String, backoff: &mut Backoff, stop: &mut watch::Receiver<bool>) -> bool {
        process::log_line(&self.pod.log, &why);
        self.shared
            .update(self.index, |c| c.phase = ContainerPhase::Waiting { reason: reason.into(), message: Some(why) });
        let failed = Instant::now();
        backoff::wait(failed, backoff.delay_after(failed), stop).await
    }
}

/// How a container's run ended.
enum Exit {
    /// Its process exited with this code.
    Exited(i32),
    /// Its Pod is stopping.
    Stopped,
    /// A liveness or startup probe failed: the kubelet kills it.
    Unhealthy(String),
}

/// What a container's probes found, into its status and the Pod's Events.
fn on_probe(node: &Node, pod: &PodInfo, shared: &Shared, index: usize, probes: &Probes, report: Report) {
    let Some(container) = pod.containers.get(index) else { return };
    match report {
        Report::Started => {
            let ready = probes.ready_at_once();
            shared.update(index, |c| {
                c.started = true;
                c.ready = ready;
            });
        }
        Report::Ready(ready) => shared.update(index, |c| c.ready = ready),
        Report::Failed(kind, why) => {
            let message = format!("{} probe failed: {why}", kind.title());
            node.event(&pod.reference(container), EventType::Warning, "Unhealthy", "Probe", message);
        }
    }
}

/// A free port on the Pod's address for a container's health endpoint. The container binds
/// it a moment later; should another process take it meanwhile, the container fails, exits
/// and gets another port when it restarts.
fn free_port(ip: Ipv4Addr) -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind((ip, 0))?.local_addr()?.port())
}

/// The port of the health address a container's manifest declares (`FLEETCTL_HEALTH_ADDR`).
fn declared_health_port(container: &Container) -> Option<u16> {
    let var = container.env.iter().flatten().find(|v| v.name == "FLEETCTL_HEALTH_ADDR")?;
    var.value.as_deref()?.rsplit_once(':')?.1.parse().ok()
}

/// The container's args and env as the kubelet would give them, plus the simulator's: a
/// health address of its own, a log level, and the Pod name as host name. How it finds the
/// API server (its ServiceAccount's files, or a kubeconfig) is for the runtime to say.
fn launch(
    pod: &PodInfo,
    container: &Container,
    ready: Ready,
    credentials: Credentials,
    output: Sink,
    health: Option<u16>,
) -> Launch {
    let Ready { mut env, mounts } = ready;
    let mut set = |name: &str, value: String, replace: bool| {
        if replace || !env.iter().any(|(n, _)| n == name) {
            env.retain(|(n, _)| n != name);
            env.push((name.to_string(), value));
        }
    };
    if let Some(health) = health {
        set("FLEETCTL_HEALTH_ADDR", format!("{}:{health}", pod.ip), true);
    }
    set("HOSTNAME", pod.name().to_string(), true);
    set("FLEETCTL_LOG", "info".to_string(), false);
    // `command` replaces the image's entrypoint: its first word names the executable.
    let mut command = container.command.clone().unwrap_or_default().into_iter();
    let executable = command.next().map(|c| expand(&c, &env));
    let args = command.chain(container.args.clone().unwrap_or_default()).map(|a| expand(&a, &env)).collect();
    Launch { command: executable, args, env, credentials, mounts, output }
}
