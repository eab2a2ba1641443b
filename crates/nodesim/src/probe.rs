//! Container probes as the kubelet runs them (`pkg/kubelet/prober`): startup, readiness
//! and liveness, each with its initial delay, period, timeout and thresholds.
//!
//! - A result changes only after `successThreshold` successes or `failureThreshold`
//!   failures in a row; a probe that errors or times out is a failure.
//! - A container is not ready until its readiness probe succeeds, and not started until
//!   its startup probe does; readiness and liveness are not probed before it has started,
//!   and readiness is probed at once when it has (the kubelet's status sync triggers it).
//! - A liveness or startup probe that fails past its threshold kills the container, which
//!   then restarts as the Pod's `restartPolicy` says.
//! - The first probe comes after the initial delay, and at the earliest after
//!   [`super::Timing::first_probe`]: the kubelet notices a started container at its next
//!   relist (every second), not at once.
//! - `httpGet` (HTTP, or HTTPS without verifying the certificate, see [`http`]),
//!   `tcpSocket` and `grpc` ([`grpc`]) connect to their `host` or else the Pod's address
//!   (a loopback address of its own for a Pod on the host's network, into its network for
//!   one with a network of its own, see [`super::network`]); `exec` ([`exec`]) runs where the container runs.
//! - A container the simulator reports running without a process (an image that is neither
//!   fleetctl's nor in podman's storage) is not probed — nothing listens — and is ready
//!   once it runs.
//!
//! Ports: a fleetctl container on the host's network serves its health endpoint on a port
//! the simulator picks (those Pods share the host's ports), so a probe aimed at the port its manifest gives
//! `FLEETCTL_HEALTH_ADDR` goes to the picked one; any other port is probed as declared.

mod exec;
mod grpc;
mod http;
mod tls;

use std::convert::Infallible;
use std::net::Ipv4Addr;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Probe};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use tokio::time::{Instant, MissedTickBehavior};

pub(super) use exec::Exec;
use grpc::GrpcCheck;
use http::HttpGet;

/// The `User-Agent` of the kubelet's HTTP and gRPC probes (`kube-probe/<major>.<minor>`).
const USER_AGENT: &str = "kube-probe/1.32";

/// Which probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Startup,
    Readiness,
    Liveness,
}

impl Kind {
    /// As the kubelet's messages name it.
    pub(super) fn title(self) -> &'static str {
        match self {
            Self::Startup => "Startup",
            Self::Readiness => "Readiness",
            Self::Liveness => "Liveness",
        }
    }
}

/// Where a container's probes connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ports {
    /// The Pod's address: where probes connect when they name no host.
    pub pod: Ipv4Addr,
    /// The health port its manifest declares, and the one it was given instead.
    pub health: Option<(u16, u16)>,
}

impl Ports {
    fn actual(self, port: u16) -> u16 {
        match self.health {
            Some((declared, given)) if declared == port => given,
            _ => port,
        }
    }
}

/// What a probe does.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    Http(HttpGet),
    Tcp {
        host: String,
        port: u16,
    },
    Grpc(GrpcCheck),
    Exec(Vec<String>),
    /// A probe that can never run (a named port the container does not declare): it fails.
    Invalid(String),
}

/// One probe of a container, with its timings (defaulted by the API server).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Check {
    kind: Kind,
    action: Action,
    initial_delay: Duration,
    period: Duration,
    timeout: Duration,
    success_threshold: u32,
    failure_threshold: u32,
}

fn seconds(value: Option<i32>, default: u64) -> Duration {
    Duration::from_secs(value.and_then(|v| u64::try_from(v).ok()).unwrap_or(default))
}

fn count(value: Option<i32>, default: u32) -> u32 {
    value.and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0).unwrap_or(default)
}

/// The port number a probe names: a number, or the name of one of the container's ports.
fn port_of(port: &IntOrString, container: &Container) -> Result<u16, String> {
    match port {
        IntOrString::Int(number) => u16::try_from(*number).map_err(|_| format!("invalid port number: {number}")),
        IntOrString::String(name) => {
            if let Ok(number) = name.parse::<u16>() {
                return Ok(number);
            }
            container
                .ports
                .iter()
                .flatten()
                .find(|p| p.name.as_deref() == Some(name.as_str()))
                .and_then(|p| u16::try_from(p.container_port).ok())
                .ok_or_else(|| format!("couldn't find port: {name} in {}", container.name))
        }
    }
}

/// The host a probe names, else the Pod's address.
fn host_of(host: Option<&String>, pod: Ipv4Addr) -> String {
    host.filter(|h| !h.is_empty()).cloned().unwrap_or_else(|| pod.to_string())
}

impl Action {
    fn of(probe: &Probe, container: &Container, ports: Ports) -> Self {
        let port = |port: &IntOrString| port_of(port, container).map(|p| ports.actual(p));
        if let Some(get) = &probe.http_get {
            match port(&get.port) {
                Ok(port) => Self::Http(HttpGet {
                    tls: get.scheme.as_deref() == Some("HTTPS"),
                    host: host_of(get.host.as_ref(), ports.pod),
                    port,
                    path: get.path.clone().filter(|p| !p.is_empty()).unwrap_or_else(|| "/".into()),
                    headers: get.http_headers.iter().flatten().map(|h| (h.name.clone(), h.value.clone())).collect(),
                }),
                Err(why) => Self::Invalid(why),
            }
        } else if let Some(tcp) = &probe.tcp_socket {
            match port(&tcp.port) {
                Ok(port) => Self::Tcp { host: host_of(tcp.host.as_ref(), ports.pod), port },
                Err(why) => Self::Invalid(why),
            }
        } else if let Some(grpc) = &probe.grpc {
            match u16::try_from(grpc.port) {
                Ok(declared) => Self::Grpc(GrpcCheck {
                    host: ports.pod.to_string(),
                    port: ports.actual(declared),
                    service: grpc.service.clone().unwrap_or_default(),
                }),
                Err(_) => Self::Invalid(format!("invalid port number: {}", grpc.port)),
            }
        } else if let Some(exec) = &probe.exec {
            Self::Exec(exec.command.clone().unwrap_or_default())
        } else {
            Self::Invalid("the probe names no action".into())
        }
    }
}

impl Action {
    /// Runs it once (an exec action through `exec`), without a time limit: `Err` says why
    /// it failed.
    async fn run(&self, exec: &Exec) -> Result<(), String> {
        match self {
            Self::Http(get) => get.probe().await,
            Self::Tcp { host, port } => fleetctl_apimachinery::dial::tcp(host, *port).await.map(drop),
            Self::Grpc(check) => check.probe().await,
            Self::Exec(command) => exec.probe(command).await,
            Self::Invalid(why) => Err(why.clone()),
        }
    }
}

/// Runs a lifecycle hook (`preStop`) as the kubelet's handler runner does: `exec` where the
/// container runs, `httpGet` and `tcpSocket` as a probe's, `sleep` here; with no time limit
/// of its own (its caller bounds it by the grace period). `Err` says why it failed.
pub(super) async fn run_hook(
    handler: &LifecycleHandler,
    container: &Container,
    ports: Ports,
    exec: &Exec,
) -> Result<(), String> {
    if let Some(sleep) = &handler.sleep {
        let seconds = u64::try_from(sleep.seconds).map_err(|_| format!("invalid sleep seconds: {}", sleep.seconds))?;
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        return Ok(());
    }
    let probe = Probe {
        exec: handler.exec.clone(),
        http_get: handler.http_get.clone(),
        tcp_socket: handler.tcp_socket.clone(),
        ..Probe::default()
    };
    Action::of(&probe, container, ports).run(exec).await
}

impl Check {
    fn of(kind: Kind, probe: &Probe, container: &Container, ports: Ports) -> Self {
        Self {
            kind,
            action: Action::of(probe, container, ports),
            initial_delay: seconds(probe.initial_delay_seconds, 0),
            period: seconds(probe.period_seconds, 10).max(Duration::from_secs(1)),
            timeout: seconds(probe.timeout_seconds, 1).max(Duration::from_secs(1)),
            success_threshold: count(probe.success_threshold, 1),
            failure_threshold: count(probe.failure_threshold, 3),
        }
    }

    /// Runs the probe once (an exec probe through `exec`): `Err` says why it failed, as
    /// the kubelet's event does.
    async fn probe(&self, exec: &Exec) -> Result<(), String> {
        match tokio::time::timeout(self.timeout, self.action.run(exec)).await {
            Ok(result) => result,
            Err(_) => Err(format!("probe timed out after {}s", self.timeout.as_secs())),
        }
    }
}

/// A probe's results so far: its current verdict and how many results in a row agree.
struct Results {
    state: bool,
    last: Option<bool>,
    run: u32,
}

impl Results {
    /// Readiness starts failed, liveness passed, startup not yet passed.
    fn new(kind: Kind) -> Self {
        Self { state: kind == Kind::Liveness, last: None, run: 0 }
    }

    /// Takes one result; the verdict when it changes (its threshold reached).
    fn observe(&mut self, check: &Check, passed: bool) -> Option<bool> {
        if self.last == Some(passed) {
            self.run = self.run.saturating_add(1);
        } else {
            self.last = Some(passed);
            self.run = 1;
        }
        let threshold = if passed { check.success_threshold } else { check.failure_threshold };
        (self.run >= threshold && self.state != passed).then(|| {
            self.state = passed;
            passed
        })
    }
}

/// What the probes tell the container's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Report {
    /// The startup probe passed.
    Started,
    /// Readiness changed.
    Ready(bool),
    /// A probe failed (the kubelet's `Unhealthy` event): which, and why.
    Failed(Kind, String),
}

/// A container's probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Probes {
    startup: Option<Check>,
    readiness: Option<Check>,
    liveness: Option<Check>,
}

impl Probes {
    /// The probes a container declares, with its health port mapped.
    pub(super) fn of(container: &Container, ports: Ports) -> Self {
        let check = |kind, probe: &Option<Probe>| probe.as_ref().map(|p| Check::of(kind, p, container, ports));
        Self {
            startup: check(Kind::Startup, &container.startup_probe),
            readiness: check(Kind::Readiness, &container.readiness_probe),
            liveness: check(Kind::Liveness, &container.liveness_probe),
        }
    }

    /// Whether the container counts as started as soon as it runs (it has no startup probe).
    pub(super) fn started_at_once(&self) -> bool {
        self.startup.is_none()
    }

    /// Whether the container counts as ready as soon as it has started.
    pub(super) fn ready_at_once(&self) -> bool {
        self.readiness.is_none()
    }

    /// Probes a container that started at `since` until a liveness or startup probe fails
    /// past its threshold; returns the kubelet's message for killing it. `first` is the
    /// earliest the first probe runs after the start.
    pub(super) async fn run(
        &self,
        since: Instant,
        first: Duration,
        exec: &Exec,
        report: &(dyn Fn(Report) + Sync),
    ) -> String {
        let watch = |check, from| watch(check, since, first, from, exec, report);
        let mut readiness_start = since;
        if let Some(startup) = &self.startup {
            if let Some(killed) = watch(startup, since).await {
                return killed;
            }
            report(Report::Started);
            // Probed at once now that the container has started.
            readiness_start = Instant::now();
        }
        let readiness = async {
            if let Some(check) = &self.readiness {
                // Readiness never kills: its watch runs until dropped.
                let _ = watch(check, readiness_start).await;
            }
            std::future::pending::<Infallible>().await
        };
        let liveness = async {
            match &self.liveness {
                Some(check) => watch(check, Instant::now()).await,
                None => None,
            }
        };
        tokio::select! {
            never = readiness => match never {},
            Some(killed) = liveness => killed,
        }
    }
}

/// Runs one probe from `from` (and after its initial delay since `since`) every period;
/// for liveness and startup, returns the kill message once it fails past its threshold
/// (startup also returns `None` once it passes); readiness runs until dropped.
async fn watch(
    check: &Check,
    since: Instant,
    first: Duration,
    from: Instant,
    exec: &Exec,
    report: &(dyn Fn(Report) + Sync),
) -> Option<String> {
    let start = from.max(since + check.initial_delay.max(first));
    let mut ticks = tokio::time::interval_at(start, check.period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut results = Results::new(check.kind);
    loop {
        ticks.tick().await;
        let outcome = check.probe(exec).await;
        if let Err(why) = &outcome {
            report(Report::Failed(check.kind, why.clone()));
        }
        let Some(verdict) = results.observe(check, outcome.is_ok()) else { continue };
        match (check.kind, verdict) {
            (Kind::Readiness, ready) => report(Report::Ready(ready)),
            (Kind::Startup, true) => return None,
            (Kind::Liveness, true) => {}
            (kind @ (Kind::Startup | Kind::Liveness), false) => {
                return Some(format!("failed {} probe, will be restarted", kind.title().to_lowercase()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn container(probes: serde_json::Value) -> Container {
        let mut value = json!({"name": "c", "image": "fleetctl", "ports": [{"name": "health", "containerPort": 8000}]});
        if let (Some(object), Some(extra)) = (value.as_object_mut(), probes.as_object()) {
            object.extend(extra.clone());
        }
        serde_json::from_value(value).unwrap()
    }

    /// The kubelet's `worker.doProbe`: the result is set only when `failureThreshold`
    /// failures (or `successThreshold` successes) come in a row.
    #[test]
    fn a_result_changes_only_after_its_threshold_in_a_row() {
        let c = container(
            json!({"readinessProbe": {"tcpSocket": {"port": 1}, "failureThreshold": 3, "successThreshold": 2}}),
        );
        let probes = Probes::of(&c, Ports { pod: Ipv4Addr::LOCALHOST, health: None });
        let check = probes.readiness.unwrap();
        let mut results = Results::new(Kind::Readiness);
        assert_eq!(results.observe(&check, true), None, "one success of two");
        assert_eq!(results.observe(&check, true), Some(true));
        assert_eq!(results.observe(&check, false), None);
        assert_eq!(results.observe(&check, false), None);
        assert_eq!(results.observe(&check, true), None, "a success breaks the run of failures");
        for _ in 0..2 {
            assert_eq!(results.observe(&check, false), None);
        }
        assert_eq!(results.observe(&check, false), Some(false), "the third failure in a row");
    }

    #[test]
    fn a_probe_on_the_declared_health_port_goes_to_the_given_one_and_named_ports_resolve() {
        let c = container(json!({
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": "health"}},
            "readinessProbe": {"httpGet": {"port": 9000}},
            "startupProbe": {"tcpSocket": {"port": "nope"}},
        }));
        let probes = Probes::of(&c, Ports { pod: Ipv4Addr::LOCALHOST, health: Some((8000, 41234)) });
        let action = |check: Option<Check>| check.unwrap().action;
        let get = |port, path: &str| HttpGet {
            tls: false,
            host: "127.0.0.1".into(),
            port,
            path: path.into(),
            headers: vec![],
        };
        assert_eq!(action(probes.liveness.clone()), Action::Http(get(41234, "/healthz")));
        assert_eq!(action(probes.readiness.clone()), Action::Http(get(9000, "/")));
        assert_eq!(action(probes.startup.clone()), Action::Invalid("couldn't find port: nope in c".into()));
    }

    #[test]
    fn every_kind_of_probe_is_run() {
        let c = container(json!({
            "readinessProbe": {"exec": {"command": ["cat", "/tmp/ready"]}},
            "livenessProbe": {"httpGet": {"port": 8000, "scheme": "HTTPS", "host": "localhost"}},
            "startupProbe": {"grpc": {"port": 8000, "service": "s"}},
        }));
        let probes = Probes::of(&c, Ports { pod: Ipv4Addr::LOCALHOST, health: Some((8000, 41234)) });
        assert_eq!(probes.readiness.unwrap().action, Action::Exec(vec!["cat".into(), "/tmp/ready".into()]));
        let Action::Http(get) = probes.liveness.unwrap().action else { panic!("an httpGet probe") };
        assert_eq!((get.tls, get.host.as_str(), get.port), (true, "localhost", 41234));
        assert_eq!(
            probes.startup.unwrap().action,
            Action::Grpc(GrpcCheck { host: "127.0.0.1".into(), port: 41234, service: "s".into() })
        );
    }
}
