//! One Pod bound to the node: its containers' processes (or tasks), its
//! ServiceAccount credentials, its logs and its status.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::authentication::v1::{BoundObjectReference, TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{Container, ObjectReference, Pod, PodSpec, ServiceAccount};
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::events::EventType;
use kube::runtime::wait::await_condition;
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{Notify, OnceCell, watch};
use tokio::time::Instant;

use super::Node;
use super::RunMode;
use super::backoff::{self, Backoff};
use super::credentials::Credentials;
use super::logs::Sink;
use super::probe::{Exec, Ports, Probes, Report};
use super::process::{self, Isolation, Launch};
use super::status::{
    ContainerPhase, ContainerState, Exited, PodFields, container_env, expand, is_fleetctl_image, pod_status,
};

/// Lifetime asked for Pod tokens: they are not refreshed, and a year outlives any dev
/// session (the server grants up to two).
const TOKEN_SECONDS: i64 = 365 * 24 * 3600;

/// What the node holds of a running Pod.
pub(super) struct PodHandle {
    name: String,
    uid: String,
    stop: watch::Sender<bool>,
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
        let namespace = object.namespace().unwrap_or_default();
        let uid = object.metadata.uid.clone().unwrap_or_default();
        let spec = object.spec.clone().unwrap_or_default();
        let containers = spec.containers.clone();
        let shared = Arc::new(Shared {
            containers: Mutex::new(containers.iter().map(ContainerState::new).collect()),
            changed: Notify::new(),
        });
        let service_account = spec
            .service_account_name
            .clone()
            .or_else(|| spec.service_account.clone())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "default".to_string());
        let pod = PodInfo {
            log: node.log_path(&namespace, &workload_name(object)),
            credentials_dir: node.pod_dir(&namespace, &name),
            fields: PodFields {
                namespace,
                name: name.clone(),
                uid: uid.clone(),
                service_account,
                node: node.config.name.clone(),
                labels: object.labels().clone(),
            },
            restart_policy: RestartPolicy::of(&spec),
            containers,
            credentials: OnceCell::new(),
        };
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(run(node, pod, shared, stopped));
        Self { name, uid, stop, task }
    }

    /// The uid of the Pod it runs.
    pub(super) fn uid(&self) -> &str {
        &self.uid
    }

    /// Stops its containers (SIGTERM, grace, SIGKILL) and removes its files.
    pub(super) async fn stop(self) {
        let _ = self.stop.send(true);
        if let Err(e) = self.task.await {
            tracing::warn!(pod = %self.name, error = %e, "pod task ended abnormally");
        }
    }
}

/// Everything about a Pod its tasks read.
struct PodInfo {
    log: PathBuf,
    /// Where its ServiceAccount's files go.
    credentials_dir: PathBuf,
    fields: PodFields,
    restart_policy: RestartPolicy,
    containers: Vec<Container>,
    /// The ServiceAccount's files, once written (shared by the containers).
    credentials: OnceCell<Credentials>,
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
    #[error("requesting a token: {0}")]
    Token(#[source] kube::Error),
    #[error("waiting for the service account: {0}")]
    Wait(#[source] kube::runtime::wait::Error),
    #[error("the token request was answered without a token")]
    NoToken,
    #[error("writing the service account's files: {0}")]
    Write(#[source] std::io::Error),
}

impl PodInfo {
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
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            namespace: Some(self.namespace().to_string()),
            name: Some(self.name().to_string()),
            uid: Some(self.fields.uid.clone()),
            field_path: Some(format!("spec.containers{{{}}}", container.name)),
            ..ObjectReference::default()
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
        let api: Api<ServiceAccount> = Api::namespaced(node.client(), self.namespace());
        let sa = &self.fields.service_account;
        let pod = BoundObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: Some(self.name().to_string()),
            uid: Some(self.fields.uid.clone()),
        };
        let request = TokenRequest {
            spec: TokenRequestSpec {
                expiration_seconds: Some(TOKEN_SECONDS),
                bound_object_ref: Some(pod),
                ..TokenRequestSpec::default()
            },
            ..TokenRequest::default()
        };
        loop {
            match api.create_token_request(sa, &PostParams::default(), &request).await {
                Ok(issued) => {
                    let token = issued.status.map(|s| s.token).filter(|t| !t.is_empty());
                    let token = token.ok_or(CredentialError::NoToken)?;
                    let credentials = Credentials::under(&self.credentials_dir);
                    credentials
                        .write(&node.config.server_url, &node.config.ca_pem, self.namespace(), &token)
                        .map_err(CredentialError::Write)?;
                    return Ok(credentials);
                }
                // The Pod is gone: the node stops it.
                Err(kube::Error::Api(status)) if status.code == 404 && status.message.starts_with("pods ") => {
                    return Err(CredentialError::Token(kube::Error::Api(status)));
                }
                Err(kube::Error::Api(status)) if status.code == 404 => {
                    process::log_line(
                        &self.log,
                        &format!("pod {}: waiting for service account {}/{sa}", self.name(), self.namespace()),
                    );
                    await_condition(api.clone(), sa, |sa: Option<&ServiceAccount>| sa.is_some())
                        .await
                        .map_err(CredentialError::Wait)?;
                }
                Err(e) => return Err(CredentialError::Token(e)),
            }
        }
    }
}

/// The Pod's life: run its containers, keep its status, and on stop end the
/// containers and remove its credentials and logs.
async fn run(node: Arc<Node>, pod: PodInfo, shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let api: Api<Pod> = Api::namespaced(node.client(), pod.namespace());
    let start_time = now();
    let pod = Arc::new(pod);
    let containers: Vec<_> = (0..pod.containers.len())
        .map(|index| tokio::spawn(run_container(node.clone(), pod.clone(), shared.clone(), index, stop.clone())))
        .collect();
    let mut written: Option<Value> = None;
    let mut stop_status = stop.clone();
    loop {
        let status = pod_status(&shared.containers.lock(), &start_time);
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
    if let Err(e) = std::fs::remove_dir_all(&pod.credentials_dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(pod = %pod.name(), error = %e, "removing the pod's credentials");
    }
    node.logs.remove(pod.namespace(), pod.name(), &pod.fields.uid);
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
    let podman = match &node.config.podman {
        Some(podman) if podman.has_image(&image).await => Some(podman),
        _ => None,
    };
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
    loop {
        let credentials = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            credentials = pod.credentials(&node) => credentials,
        };
        let credentials = match credentials {
            Ok(credentials) => credentials,
            Err(e) => {
                if !waiting.retry("CreateContainerConfigError", format!("{label}: {e}"), &mut backoff, &mut stop).await
                {
                    return;
                }
                continue;
            }
        };
        let health = match free_port() {
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
        let launch = launch(&pod, container, credentials, output.clone(), health);
        let probes = Probes::of(container, Ports { health: declared_health_port(container).map(|p| (p, health)) });
        let name = format!("{}-{}", pod.name(), container.name);
        let started = match (&node.config.mode, &podman) {
            (_, Some(podman)) => {
                podman.spawn(&image, &name, &node.container_label(), node.config.service_addr, &launch)
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
        process::log_line(&pod.log, &format!("{label}: started {id}: {}", launch.command_line()));
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
        let code = match exited {
            Exit::Exited(code) => code,
            Exit::Stopped => {
                let code = running.terminate(node.timing().grace).await;
                output.close();
                process::log_line(&pod.log, &format!("{label}: {id} stopped (exit code {code})"));
                return;
            }
            Exit::Unhealthy(killed) => {
                let message = format!("Container {} {killed}", container.name);
                process::log_line(&pod.log, &format!("{label}: {message}"));
                node.event(&pod.reference(container), EventType::Normal, "Killing", "Kill", message);
                running.terminate(node.timing().grace).await
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

/// A container that could not be started.
struct Waiting<'a> {
    pod: &'a PodInfo,
    shared: &'a Shared,
    index: usize,
}

impl Waiting<'_> {
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

/// A free port on 127.0.0.1 for a container's health endpoint. The container binds it a
/// moment later; should another process take it meanwhile, the container fails, exits
/// and gets another port when it restarts.
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

/// The port of the health address a container's manifest declares (`FLEETCTL_HEALTH_ADDR`).
fn declared_health_port(container: &Container) -> Option<u16> {
    let var = container.env.iter().flatten().find(|v| v.name == "FLEETCTL_HEALTH_ADDR")?;
    var.value.as_deref()?.rsplit_once(':')?.1.parse().ok()
}

/// The container's args and env as the kubelet would give them, plus the simulator's: a
/// health address of its own, a log level, and the Pod name as host name. How it finds the
/// API server (its ServiceAccount's files, or a kubeconfig) is for the runtime to say.
fn launch(pod: &PodInfo, container: &Container, credentials: Credentials, output: Sink, health: u16) -> Launch {
    let (mut env, skipped) = container_env(container.env.as_deref().unwrap_or_default(), &pod.fields);
    if !skipped.is_empty() {
        process::log_line(
            &pod.log,
            &format!(
                "pod {}: variables from secrets, config maps or resources are not supported, left out: {}",
                pod.name(),
                skipped.join(", ")
            ),
        );
    }
    let mut set = |name: &str, value: String, replace: bool| {
        if replace || !env.iter().any(|(n, _)| n == name) {
            env.retain(|(n, _)| n != name);
            env.push((name.to_string(), value));
        }
    };
    set("FLEETCTL_HEALTH_ADDR", format!("127.0.0.1:{health}"), true);
    set("HOSTNAME", pod.name().to_string(), true);
    set("FLEETCTL_LOG", "info".to_string(), false);
    // `command` replaces the image's entrypoint: its first word names the executable.
    let mut command = container.command.clone().unwrap_or_default().into_iter();
    let executable = command.next();
    let args = command.chain(container.args.clone().unwrap_or_default()).map(|a| expand(&a, &env)).collect();
    Launch { command: executable, args, env, credentials, output }
}
