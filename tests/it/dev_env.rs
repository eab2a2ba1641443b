//! The node simulator and the dev environment: `dev up`, its clusters running their
//! Deployments as processes, `dev status`, `dev down`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use fleetctl_nodesim::{InProcessCommand, NodeConfig, NodeSimulator, RunMode, Timing};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Event, Pod, ServiceAccount};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::wait::await_condition;
use kube::{Client, ResourceExt};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

use crate::support::cluster::TestCluster;

pub(crate) const WAIT: Duration = Duration::from_secs(10);
pub(crate) const IMAGE: &str = "quay.io/fleetctl/fleetctl:0.1.0";

pub(crate) fn deployment(name: &str, image: &str, args: Value, extra_spec: Value) -> Deployment {
    let mut pod_spec = json!({"containers": [{
        "name": "main", "image": image, "args": args,
        "env": [
            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "FLEETCTL_HEALTH_ADDR", "value": "0.0.0.0:8000"},
        ],
    }]});
    if let (Some(spec), Some(extra)) = (pod_spec.as_object_mut(), extra_spec.as_object()) {
        spec.extend(extra.clone());
    }
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec},
        },
    }))
    .expect("deployment")
}

pub(crate) fn available(d: Option<&Deployment>) -> bool {
    fleetctl_devcluster::env::is_available(d)
}

pub(crate) async fn wait_deployment(api: &Api<Deployment>, name: &str, what: &str, cond: impl Fn(&Deployment) -> bool) {
    let waited = await_condition(api.clone(), name, move |d: Option<&Deployment>| d.is_some_and(&cond));
    tokio::time::timeout(WAIT, waited).await.unwrap_or_else(|_| panic!("timed out waiting: {what}")).expect("watch");
}

/// Waits until the Pods of `app` satisfy `cond` (woken by each watch event).
pub(crate) async fn wait_pods(api: &Api<Pod>, app: &str, what: &str, cond: impl Fn(&[Pod]) -> bool) -> Vec<Pod> {
    use futures::{FutureExt, StreamExt};
    use kube::runtime::{reflector, watcher};
    let (reader, writer) = reflector::store();
    let mut events =
        reflector(writer, watcher(api.clone(), watcher::Config::default().labels(&format!("app={app}")))).boxed();
    let wait = async {
        loop {
            events.next().await.expect("watch goes on").expect("watch event");
            if reader.wait_until_ready().now_or_never().is_none() {
                continue;
            }
            let pods: Vec<Pod> = reader.state().iter().map(|p| (**p).clone()).collect();
            if cond(&pods) {
                return pods;
            }
        }
    };
    tokio::time::timeout(WAIT, wait).await.unwrap_or_else(|_| panic!("timed out waiting: {what}"))
}

pub(crate) fn container(pod: &Pod) -> Value {
    serde_json::to_value(pod).expect("pod")["status"]["containerStatuses"][0].clone()
}

pub(crate) fn running(pods: &[Pod]) -> bool {
    pods.len() == 1 && container(&pods[0])["ready"] == true
}

// ---------------------------------------------------------------------------
// The simulator in process, with an in-process runner the test controls.

/// What the fake runner saw.
pub(crate) struct Started {
    pub(crate) command: InProcessCommand,
}

pub(crate) struct Fake {
    pub(crate) started: mpsc::UnboundedReceiver<Started>,
    pub(crate) stopped: mpsc::UnboundedReceiver<Vec<String>>,
    pub(crate) crash: Arc<Notify>,
}

/// A runner whose containers run until aborted, or until `crash` is notified.
pub(crate) fn fake_runner() -> (RunMode, Fake) {
    let (started_tx, started) = mpsc::unbounded_channel();
    let (stopped_tx, stopped) = mpsc::unbounded_channel();
    let crash = Arc::new(Notify::new());
    let crash_in = crash.clone();
    let runner = Arc::new(move |command: InProcessCommand| {
        struct Guard(Vec<String>, mpsc::UnboundedSender<Vec<String>>);
        impl Drop for Guard {
            fn drop(&mut self) {
                let _ = self.1.send(self.0.clone());
            }
        }
        let guard = Guard(command.args.clone(), stopped_tx.clone());
        let _ = started_tx.send(Started { command });
        let crash = crash_in.clone();
        Box::pin(async move {
            let _guard = guard;
            crash.notified().await;
            1
        }) as futures::future::BoxFuture<'static, i32>
    });
    (RunMode::InProcess(runner), Fake { started, stopped, crash })
}

pub(crate) async fn next<T>(rx: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    tokio::time::timeout(WAIT, rx.recv()).await.unwrap_or_else(|_| panic!("timed out: {what}")).expect(what)
}

pub(crate) fn env_of(command: &InProcessCommand, name: &str) -> Option<String> {
    command.env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
}

/// A simulator with kubelet's timers but a short shutdown grace.
pub(crate) async fn simulated(c: &TestCluster, dir: &Path, mode: RunMode) -> NodeSimulator {
    simulated_with(c, dir, mode, Timing { shutdown_grace: Duration::from_millis(500), ..Timing::default() }).await
}

/// A simulator with the given timers.
pub(crate) async fn simulated_with(c: &TestCluster, dir: &Path, mode: RunMode, timing: Timing) -> NodeSimulator {
    let config = NodeConfig {
        name: "node1".into(),
        client: c.client.clone(),
        server_url: c.server.url(),
        service_addr: c.server.service_addr(),
        podman: None,
        ca_pem: c.server.ca_pem().to_string(),
        dir: dir.to_path_buf(),
        mode,
        timing,
        reach: {
            let own = [c.server.addr(), c.server.service_addr()];
            std::sync::Arc::new(move || own.to_vec())
        },
    };
    NodeSimulator::start(config).await.expect("simulator starts")
}

#[tokio::test]
async fn the_simulator_runs_fleetctl_deployments_and_reports_them_truthfully() {
    use std::os::unix::fs::PermissionsExt;
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mode, mut fake) = fake_runner();
    let simulator = simulated(&c, dir.path(), mode).await;
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let accounts: Api<ServiceAccount> = Api::namespaced(c.client.clone(), "default");

    // Its ServiceAccount does not exist yet: no token, no process, not Available.
    let agent = deployment("agent", IMAGE, json!(["agent", "operator"]), json!({"serviceAccountName": "agent-sa"}));
    deployments.create(&PostParams::default(), &agent).await.unwrap();
    wait_deployment(&deployments, "agent", "unavailable while the SA is missing", |d| {
        let status = d.status.clone().unwrap_or_default();
        status.observed_generation == Some(1)
            && status.conditions.unwrap_or_default().iter().any(|c| c.type_ == "Available" && c.status == "False")
    })
    .await;
    assert!(fake.started.try_recv().is_err(), "nothing runs without its service account");

    let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": "agent-sa"}})).unwrap();
    accounts.create(&PostParams::default(), &sa).await.unwrap();
    let first = next(&mut fake.started, "the agent starts once its SA exists").await.command;
    assert_eq!(first.args, ["agent", "operator"]);
    assert_eq!(env_of(&first, "POD_NAMESPACE").as_deref(), Some("default"));
    let health = env_of(&first, "FLEETCTL_HEALTH_ADDR").unwrap();
    let health: std::net::SocketAddr = health.parse().unwrap();
    assert!(health.ip().is_loopback(), "on the Pod's loopback address: {health}");
    assert!(health.port() != 0 && health.port() != 8000, "a port of its own, not the manifest's: {health}");
    // In process, the role gets the Pod's kubeconfig as its flag (the environment is shared).
    assert_eq!(env_of(&first, "KUBECONFIG"), None);
    assert!(first.kubeconfig.ends_with("kubeconfig") && first.kubeconfig.starts_with(dir.path().join("pods/node1")));
    assert!(env_of(&first, "HOSTNAME").is_some_and(|h| h.starts_with("agent-")));
    assert_eq!(std::fs::metadata(&first.kubeconfig).unwrap().permissions().mode() & 0o777, 0o600);

    // The kubeconfig authenticates as the ServiceAccount.
    let file = Kubeconfig::read_from(&first.kubeconfig).unwrap();
    let config = kube::Config::from_custom_kubeconfig(file, &KubeConfigOptions::default()).await.unwrap();
    let as_sa = Client::try_from(config).unwrap();
    let denied = Api::<Pod>::namespaced(as_sa, "kube-system").list(&ListParams::default()).await.unwrap_err();
    match denied {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 403, "authenticated, not authorised: {status:?}");
            assert!(status.message.contains("system:serviceaccount:default:agent-sa"), "{}", status.message);
        }
        other => panic!("{other:?}"),
    }

    wait_deployment(&deployments, "agent", "Available", |d| available(Some(d))).await;
    let running_pods = wait_pods(&pods, "agent", "a running pod", running).await;
    let pod = &running_pods[0];
    assert_eq!(pod.labels().get("app").map(String::as_str), Some("agent"));
    // Deployment → ReplicaSet → Pod, as kube-controller-manager makes them, bound to the node.
    let owner = &pod.owner_references()[0];
    assert_eq!(owner.kind, "ReplicaSet");
    assert!(owner.name.starts_with("agent-"), "{}", owner.name);
    assert_eq!(pod.spec.as_ref().and_then(|s| s.node_name.as_deref()), Some("node1"));
    let status = serde_json::to_value(pod).unwrap()["status"].clone();
    assert_eq!(status["phase"], "Running");
    let ip: std::net::Ipv4Addr = status["podIP"].as_str().unwrap().parse().unwrap();
    assert!(ip.is_loopback() && ip != std::net::Ipv4Addr::LOCALHOST, "a loopback address of the Pod's own: {ip}");
    assert!(container(pod)["containerID"].as_str().unwrap().starts_with("task://"));
    assert_eq!(container(pod)["image"], IMAGE);

    // It exits: restarted after the back-off, restartCount 1.
    fake.crash.notify_one();
    assert_eq!(next(&mut fake.stopped, "the crashed task ends").await, ["agent", "operator"]);
    next(&mut fake.started, "restarted").await;
    wait_pods(&pods, "agent", "restartCount 1", |p| running(p) && container(&p[0])["restartCount"] == 1).await;

    // A changed template rolls: with one replica (25% surge rounds up to one Pod, 25%
    // unavailable down to none) the new Pod starts, and the old one stops once it is ready.
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "args": ["agent", "work"]}]}}}});
    deployments.patch("agent", &PatchParams::default(), &Patch::Strategic(patch)).await.unwrap();
    assert_eq!(next(&mut fake.started, "new starts").await.command.args, ["agent", "work"]);
    assert_eq!(next(&mut fake.stopped, "old stops").await, ["agent", "operator"]);
    let replaced =
        wait_pods(&pods, "agent", "the new pod alone", |p| running(p) && p[0].name_any() != pod.name_any()).await;
    wait_deployment(&deployments, "agent", "Available at generation 2", |d| {
        available(Some(d)) && d.status.as_ref().and_then(|s| s.observed_generation) == Some(2)
    })
    .await;
    assert!(!first.kubeconfig.exists(), "the old pod's credentials are removed with it");

    // Someone deletes the Pod: it is marked for its grace period, its container stops, the
    // kubelet then deletes it for good, and a new Pod replaces it.
    let marked = pods.delete(&replaced[0].name_any(), &DeleteParams::default()).await.unwrap();
    let marked = marked.left().expect("a running pod stays until its kubelet has stopped it");
    assert_eq!(marked.metadata.deletion_grace_period_seconds, Some(30));
    next(&mut fake.stopped, "the deleted pod's container stops").await;
    let (name, uid) = (marked.name_any(), marked.uid().unwrap());
    let deleted = await_condition(pods.clone(), &name, kube::runtime::conditions::is_deleted(&uid));
    tokio::time::timeout(WAIT, deleted).await.expect("the kubelet deletes the stopped pod").unwrap();
    next(&mut fake.started, "a replacement starts").await;
    wait_pods(&pods, "agent", "a replacement pod", |p| running(p) && p[0].name_any() != replaced[0].name_any()).await;

    // Three replicas are three containers; zero is none, and still Available.
    let scale = |n: i32| Patch::Merge(json!({"spec": {"replicas": n}}));
    deployments.patch("agent", &PatchParams::default(), &scale(3)).await.unwrap();
    for _ in 0..2 {
        next(&mut fake.started, "scaled up").await;
    }
    wait_deployment(&deployments, "agent", "3 ready", |d| d.status.as_ref().and_then(|s| s.ready_replicas) == Some(3))
        .await;
    deployments.patch("agent", &PatchParams::default(), &scale(0)).await.unwrap();
    for _ in 0..3 {
        next(&mut fake.stopped, "scaled down").await;
    }
    wait_pods(&pods, "agent", "no pods", <[Pod]>::is_empty).await;
    wait_deployment(&deployments, "agent", "0 replicas, Available", |d| {
        available_zero(d) && d.status.as_ref().and_then(|s| s.replicas) == Some(0)
    })
    .await;

    // Other images run without a process.
    let web = deployment("web", "nginx:1.27", json!([]), json!({}));
    deployments.create(&PostParams::default(), &web).await.unwrap();
    wait_deployment(&deployments, "web", "web Available", |d| available(Some(d))).await;
    let web_pods = wait_pods(&pods, "web", "web running", running).await;
    assert!(container(&web_pods[0])["containerID"].as_str().unwrap().starts_with("simulated://"));

    // Deleting a Deployment stops its containers and removes its Pods.
    deployments.patch("agent", &PatchParams::default(), &scale(1)).await.unwrap();
    next(&mut fake.started, "scaled to one").await;
    deployments.delete("agent", &DeleteParams::default()).await.unwrap();
    next(&mut fake.stopped, "deleted: stopped").await;
    wait_pods(&pods, "agent", "pods removed", <[Pod]>::is_empty).await;

    simulator.shutdown().await;
    assert!(fake.started.try_recv().is_err(), "nothing started after shutdown");
    let logs = std::fs::read_to_string(dir.path().join("logs/node1/default_agent.log")).unwrap();
    assert!(logs.contains("waiting for service account default/agent-sa"), "{logs}");
}

fn available_zero(d: &Deployment) -> bool {
    d.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Available" && c.status == "True"))
}

#[tokio::test]
async fn a_restarted_simulator_runs_the_pods_bound_to_its_node_again() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let left: Pod = serde_json::from_value(json!({"metadata": {"name": "left", "labels": {"app": "left"}},
        "spec": {"nodeName": "node1", "containers": [{"name": "c", "image": "x"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &left).await.unwrap();
    let (mode, _fake) = fake_runner();
    let simulator = simulated(&c, dir.path(), mode).await;
    wait_pods(&pods, "left", "the pod it was given runs again", running).await;
    simulator.shutdown().await;
}

/// Waits for an Event about Pods of the default namespace with this reason and a message
/// containing `text`.
pub(crate) async fn wait_event(c: &TestCluster, reason: &str, text: &str) -> Event {
    use futures::StreamExt;
    use kube::runtime::{WatchStreamExt, watcher};
    let events: Api<Event> = Api::namespaced(c.client.clone(), "default");
    let mut stream = watcher(events, watcher::Config::default()).applied_objects().boxed();
    let wait = async {
        loop {
            let event = stream.next().await.expect("watch goes on").expect("watch event");
            if event.reason.as_deref() == Some(reason) && event.message.as_deref().is_some_and(|m| m.contains(text)) {
                return event;
            }
        }
    };
    tokio::time::timeout(WAIT, wait).await.unwrap_or_else(|_| panic!("timed out waiting for a {reason} event: {text}"))
}

/// The kubelet's prober (`pkg/kubelet/prober/worker.go`): a container is unready until its
/// readiness probe passes and again after `failureThreshold` failures; a liveness probe
/// that fails `failureThreshold` times kills the container, which restarts; each failure
/// is an `Unhealthy` Event, the kill a `Killing` one. The probes reach the health port the
/// manifest declares (8000) at the port the simulator gave the container.
#[tokio::test]
async fn probes_gate_readiness_and_a_failing_liveness_probe_restarts_the_container() {
    use fleetctl_kube::runner::health::{self, Health};
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let runner = Arc::new(move |command: InProcessCommand| {
        let started_tx = started_tx.clone();
        Box::pin(async move {
            let addr = env_of(&command, "FLEETCTL_HEALTH_ADDR").unwrap().parse().unwrap();
            let state = Health::default();
            let (_, server) = health::serve(addr, state.clone()).await.unwrap();
            let _ = started_tx.send((state, server));
            std::future::pending::<i32>().await
        }) as futures::future::BoxFuture<'static, i32>
    });
    let simulator = simulated(&c, dir.path(), RunMode::InProcess(runner)).await;
    let mut probed = serde_json::to_value(deployment("probed", IMAGE, json!(["hub"]), json!({}))).unwrap();
    let probe = |path: &str, failures: i32| json!({"httpGet": {"path": path, "port": 8000}, "periodSeconds": 1, "failureThreshold": failures});
    let main = &mut probed["spec"]["template"]["spec"]["containers"][0];
    main["readinessProbe"] = probe("/readyz", 3);
    main["livenessProbe"] = probe("/healthz", 2);
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    deployments.create(&PostParams::default(), &serde_json::from_value(probed).unwrap()).await.unwrap();

    let (state, server) = next(&mut started, "the container starts").await;
    wait_event(&c, "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503").await;
    let pod = &wait_pods(&pods, "probed", "a pod", |p| p.len() == 1).await[0];
    let status = container(pod);
    assert_eq!((status["started"].as_bool(), status["ready"].as_bool()), (Some(true), Some(false)), "{status}");
    assert!(!available(deployments.get("probed").await.ok().as_ref()), "not Available while its pod is unready");

    state.set_ready(true);
    wait_pods(&pods, "probed", "ready once its probe passes", running).await;
    wait_deployment(&deployments, "probed", "Available", |d| available(Some(d))).await;

    state.set_ready(false);
    wait_pods(&pods, "probed", "unready after three failures", |p| p.len() == 1 && container(&p[0])["ready"] == false)
        .await;

    // Its health endpoint goes away: the liveness probe fails twice and the kubelet kills it.
    server.abort();
    wait_event(&c, "Killing", "Container main failed liveness probe, will be restarted").await;
    let (state, _server) = next(&mut started, "the container starts again").await;
    let restarted = wait_pods(&pods, "probed", "restarted once", |p| {
        p.len() == 1 && container(&p[0])["restartCount"] == 1 && container(&p[0])["state"]["running"].is_object()
    })
    .await;
    assert!(container(&restarted[0])["lastState"]["terminated"].is_object(), "{}", container(&restarted[0]));
    assert_eq!(container(&restarted[0])["ready"], false, "a restarted container is unready until probed again");
    state.set_ready(true);
    wait_pods(&pods, "probed", "ready again", running).await;
    simulator.shutdown().await;
}

// ---------------------------------------------------------------------------
// The dev environment through the built binary.

const FLEETCTL: &str = env!("CARGO_BIN_EXE_fleetctl");

fn fleetctl(args: &[&str]) -> std::process::Output {
    Command::new(FLEETCTL).args(args).output().expect("fleetctl runs")
}

/// Whether a process runs (a zombie, waiting for a parent that left, does not).
fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_string));
    matches!(state.as_deref(), Some(s) if s != "Z" && s != "X")
}

async fn gone(pid: u32) {
    let wait = async {
        while alive(pid) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, wait).await.unwrap_or_else(|_| panic!("process {pid} still runs"));
}

fn pid_of(pod: &Pod) -> u32 {
    let id = container(pod)["containerID"].as_str().unwrap_or_default().to_string();
    id.strip_prefix("process://").and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("a process id: {id}"))
}

async fn context_client(kubeconfig: &Path, context: &str) -> Client {
    let file = Kubeconfig::read_from(kubeconfig).expect("kubeconfig");
    let options = KubeConfigOptions { context: Some(context.into()), ..KubeConfigOptions::default() };
    let config = kube::Config::from_custom_kubeconfig(file, &options).await.expect("context");
    Client::try_from(config).expect("client")
}

/// Stops the environment even when an assertion fails first.
struct Down(PathBuf);

impl Drop for Down {
    fn drop(&mut self) {
        let _ = fleetctl(&["dev", "down", "--dir", &self.0.display().to_string()]);
    }
}

#[tokio::test]
async fn dev_up_runs_a_hub_and_clusters_whose_deployments_are_processes() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("env");
    let dir_arg = dir.display().to_string();
    let up = fleetctl(&["dev", "up", "--clusters", "2", "--dir", &dir_arg]);
    let _down = Down(dir.clone());
    assert!(up.status.success(), "dev up: {}", String::from_utf8_lossy(&up.stderr));
    let state: Value = serde_json::from_slice(&std::fs::read(dir.join("state.json")).unwrap()).unwrap();
    let pids: Vec<u32> =
        state["clusters"].as_array().unwrap().iter().map(|c| c["pid"].as_u64().unwrap() as u32).collect();
    assert_eq!(pids.len(), 3);
    for file in ["kubeconfig", "hub.kubeconfig", "cluster1.kubeconfig", "cluster2.kubeconfig", "state.json"] {
        assert_eq!(std::fs::metadata(dir.join(file)).unwrap().permissions().mode() & 0o777, 0o600, "{file}");
    }
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);

    // Every context works; the hub runs its controller as a process.
    let kubeconfig = dir.join("kubeconfig");
    for context in ["hub", "cluster1", "cluster2"] {
        let client = context_client(&kubeconfig, context).await;
        client.apiserver_version().await.unwrap_or_else(|e| panic!("{context}: {e}"));
    }
    let hub = context_client(&kubeconfig, "hub").await;
    let hub_deployments: Api<Deployment> = Api::namespaced(hub.clone(), "open-cluster-management-hub");
    let controller = hub_deployments.get("fleetctl-hub-controller").await.unwrap();
    assert!(available(Some(&controller)), "dev up returns once the hub controller is Available");
    let hub_pods = Api::<Pod>::namespaced(hub, "open-cluster-management-hub");
    let controller_pods = wait_pods(&hub_pods, "fleetctl-hub-controller", "the controller's pod", running).await;
    let controller_pid = pid_of(&controller_pods[0]);
    assert!(alive(controller_pid));

    // A new template rolls the controller: its new pod becomes ready while the old one
    // still leads (readiness is not leadership), so the rollout (maxUnavailable 0) ends.
    let bump = json!({"spec": {"template": {"metadata": {"annotations": {"example.com/revision": "2"}}}}});
    hub_deployments.patch("fleetctl-hub-controller", &PatchParams::default(), &Patch::Merge(bump)).await.unwrap();
    wait_deployment(&hub_deployments, "fleetctl-hub-controller", "the controller's rollout to end", |d| {
        let s = d.status.clone().unwrap_or_default();
        s.observed_generation == d.metadata.generation
            && (s.replicas, s.updated_replicas, s.available_replicas) == (Some(1), Some(1), Some(1))
    })
    .await;
    gone(controller_pid).await;

    let status = fleetctl(&["dev", "status", "--dir", &dir_arg]);
    let table = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success());
    for name in ["hub", "cluster1", "cluster2"] {
        let row =
            table.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| panic!("{table}"));
        assert!(row.trim_end().ends_with("yes"), "{name} ready: {table}");
    }

    // On cluster1: a fleetctl Deployment runs as a process (here, a klusterlet operator
    // with no Klusterlet to reconcile: a harmless role that runs until SIGTERM).
    let c1 = context_client(&kubeconfig, "cluster1").await;
    let deployments: Api<Deployment> = Api::namespaced(c1.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c1.clone(), "default");
    let sleeper = deployment("sleeper", IMAGE, json!(["agent", "operator"]), json!({}));
    deployments.create(&PostParams::default(), &sleeper).await.unwrap();
    wait_deployment(&deployments, "sleeper", "sleeper Available", |d| available(Some(d))).await;
    let first = wait_pods(&pods, "sleeper", "sleeper running", running).await;
    let pid = pid_of(&first[0]);
    assert!(alive(pid));

    // Killed: the simulator restarts it.
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    let restarted = wait_pods(&pods, "sleeper", "restarted", |p| {
        running(p) && container(&p[0])["restartCount"] == 1 && pid_of(&p[0]) != pid
    })
    .await;
    let second = pid_of(&restarted[0]);
    assert!(alive(second));

    // A new template: the old process stops, a new one runs.
    let patch = json!({"spec": {"template": {"metadata": {"labels": {"app": "sleeper", "v": "2"}}}}});
    deployments.patch("sleeper", &PatchParams::default(), &Patch::Merge(patch)).await.unwrap();
    let third = wait_pods(&pods, "sleeper", "replaced", |p| running(p) && pid_of(&p[0]) != second).await;
    gone(second).await;
    let third = pid_of(&third[0]);

    // Another image: Available, no process.
    let web = deployment("web", "nginx:1.27", json!([]), json!({}));
    deployments.create(&PostParams::default(), &web).await.unwrap();
    wait_deployment(&deployments, "web", "web Available", |d| available(Some(d))).await;

    // Deleted: its process stops and its Pods go.
    deployments.delete("sleeper", &DeleteParams::default()).await.unwrap();
    gone(third).await;
    wait_pods(&pods, "sleeper", "sleeper pods gone", <[Pod]>::is_empty).await;

    let logs = fleetctl(&["dev", "logs", "cluster1", "sleeper", "--dir", &dir_arg]);
    let logs = String::from_utf8_lossy(&logs.stdout);
    assert!(logs.contains(&format!("process://{pid} exited with code 137")), "{logs}");

    let again = fleetctl(&["dev", "up", "--dir", &dir_arg]);
    assert!(!again.status.success(), "one environment per directory");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already runs"));

    // A restart would lose what a cluster without a store holds; an unknown one is a usage error.
    let restart = fleetctl(&["dev", "restart", "hub", "--dir", &dir_arg]);
    assert_eq!(restart.status.code(), Some(4), "{}", String::from_utf8_lossy(&restart.stderr));
    assert!(String::from_utf8_lossy(&restart.stderr).contains("in memory only"));
    let restart = fleetctl(&["dev", "restart", "cluster9", "--dir", &dir_arg]);
    assert_eq!(restart.status.code(), Some(2), "{}", String::from_utf8_lossy(&restart.stderr));
    assert!(String::from_utf8_lossy(&restart.stderr).contains("hub, cluster1, cluster2"));

    // A cluster process SIGKILLed cannot stop its containers; `dev down` still ends them.
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pids[0] as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    gone(pids[0]).await;

    // Down: every cluster process and every container process ends.
    let down = fleetctl(&["dev", "down", "--dir", &dir_arg]);
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
    for pid in pids.into_iter().chain([controller_pid]) {
        gone(pid).await;
    }
    assert!(!dir.join("state.json").exists());
    let status = fleetctl(&["dev", "status", "--dir", &dir_arg]);
    assert!(!status.status.success(), "no environment any more");
    // Down with nothing running is done already, as `kind delete cluster` says.
    let again = fleetctl(&["dev", "down", "--dir", &dir_arg]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to stop"));
}
