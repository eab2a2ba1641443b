//! What the node simulator reports, computed without I/O: which images it runs and Pod
//! status.

use k8s_openapi::api::core::v1::Container;
use serde_json::{Value, json};

/// The node's address, which a Pod on the host's network reports as its own too (its
/// processes run on this machine); a Pod with a network of its own has its own address.
pub const HOST_IP: &str = "127.0.0.1";

/// Whether an image is the fleetctl image: its repository's last path segment is
/// `fleetctl`, whatever the registry, tag or digest.
pub fn is_fleetctl_image(image: &str) -> bool {
    let without_digest = image.split('@').next().unwrap_or_default();
    // A tag follows the last ':' only when no '/' comes after it (else it is a registry port).
    let repository = match without_digest.rfind(':') {
        Some(colon) if !without_digest[colon..].contains('/') => &without_digest[..colon],
        _ => without_digest,
    };
    repository.rsplit('/').next() == Some("fleetctl")
}

/// How one container of a simulated Pod is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerState {
    /// The container's name.
    pub name: String,
    /// Its image.
    pub image: String,
    /// Running, or why not.
    pub phase: ContainerPhase,
    /// How often it was restarted.
    pub restart_count: i32,
    /// `process://<pid>`, `task://<n>` or `simulated://…`: what runs it.
    pub container_id: Option<String>,
    /// How the previous run ended (`lastState.terminated`).
    pub last_exit: Option<Exited>,
    /// Whether its startup probe has passed (or it has none) since it last started.
    pub started: bool,
    /// Whether its readiness probe passes (or it has none) since it last started.
    pub ready: bool,
}

/// One run of a container that has ended (`state.terminated`, `lastState.terminated`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exited {
    /// Its exit code.
    pub code: i32,
    /// When it started.
    pub started: String,
    /// When it ended.
    pub finished: String,
}

impl Exited {
    fn status(&self) -> Value {
        json!({"terminated": {
            "exitCode": self.code, "reason": exit_reason(self.code),
            "startedAt": self.started, "finishedAt": self.finished,
        }})
    }
}

/// The state of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerPhase {
    /// Not started yet, or between restarts, with upstream's reason
    /// (`ContainerCreating`, `CrashLoopBackOff`, `CreateContainerConfigError`) and message.
    Waiting {
        /// Why.
        reason: String,
        /// The kubelet's words for it (`back-off 10s restarting failed container=…`).
        message: Option<String>,
    },
    /// Running since the given time.
    Running(String),
    /// Ran to its end and is not restarted (restartPolicy `Never`, or `OnFailure` after
    /// exit code 0).
    Terminated(Exited),
}

impl ContainerPhase {
    /// Waiting for `reason`, with no more to say.
    pub fn waiting(reason: &str) -> Self {
        Self::Waiting { reason: reason.to_string(), message: None }
    }
}

/// The reason the kubelet gives a container that ended with `code`.
fn exit_reason(code: i32) -> &'static str {
    if code == 0 { "Completed" } else { "Error" }
}

impl ContainerState {
    /// A container about to be created.
    pub fn new(container: &Container) -> Self {
        Self {
            name: container.name.clone(),
            image: container.image.clone().unwrap_or_default(),
            phase: ContainerPhase::waiting("ContainerCreating"),
            restart_count: 0,
            container_id: None,
            last_exit: None,
            started: false,
            ready: false,
        }
    }

    /// Runs from now on (started and ready as its probes say: at once without them).
    pub fn run(&mut self, since: String, started: bool, ready: bool) {
        self.phase = ContainerPhase::Running(since);
        self.started = started;
        self.ready = started && ready;
    }

    /// Whether it runs and its readiness probe passes.
    pub fn ready(&self) -> bool {
        self.ready && self.is_running()
    }

    /// Whether it runs and its startup probe has passed.
    fn started(&self) -> bool {
        self.started && self.is_running()
    }

    fn is_running(&self) -> bool {
        matches!(self.phase, ContainerPhase::Running(_))
    }

    fn status(&self) -> Value {
        let state = match &self.phase {
            ContainerPhase::Waiting { reason, message: None } => json!({"waiting": {"reason": reason}}),
            ContainerPhase::Waiting { reason, message: Some(message) } => {
                json!({"waiting": {"reason": reason, "message": message}})
            }
            ContainerPhase::Running(since) => json!({"running": {"startedAt": since}}),
            ContainerPhase::Terminated(exited) => exited.status(),
        };
        let mut status = json!({
            "name": self.name, "image": self.image, "imageID": self.image,
            "ready": self.ready(), "started": self.started(),
            "restartCount": self.restart_count, "state": state,
            "lastState": {},
        });
        if let Some(id) = &self.container_id {
            status["containerID"] = json!(id);
        }
        if let Some(exited) = &self.last_exit {
            status["lastState"] = exited.status();
        }
        status
    }
}

/// The exit codes of the containers, when every one has terminated for good.
fn exit_codes(containers: &[ContainerState]) -> Option<Vec<i32>> {
    containers
        .iter()
        .map(|c| match c.phase {
            ContainerPhase::Terminated(Exited { code, .. }) => Some(code),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .filter(|codes| !codes.is_empty())
}

/// A Pod's status: always scheduled on the simulated node; Running, Ready when all its
/// containers run; once every container has terminated for good, Succeeded when all
/// exited with 0, else Failed (not ready, reason `PodCompleted`, as the kubelet says).
pub fn pod_status(containers: &[ContainerState], start_time: &str, pod_ip: &str) -> Value {
    let ready = !containers.is_empty() && containers.iter().all(ContainerState::ready);
    let flag = if ready { "True" } else { "False" };
    let (phase, not_ready_reason) = match exit_codes(containers) {
        Some(codes) if codes.iter().all(|code| *code == 0) => ("Succeeded", Some("PodCompleted")),
        Some(_) => ("Failed", Some("PodCompleted")),
        None => ("Running", None),
    };
    let condition = |kind: &str, status: &str| match not_ready_reason {
        Some(reason) if status == "False" => json!({"type": kind, "status": status, "reason": reason}),
        _ => json!({"type": kind, "status": status}),
    };
    json!({
        "phase": phase,
        "conditions": [
            condition("PodScheduled", "True"),
            condition("Initialized", "True"),
            condition("ContainersReady", flag),
            condition("Ready", flag),
        ],
        "hostIP": HOST_IP,
        "hostIPs": [{"ip": HOST_IP}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": start_time,
        "containerStatuses": containers.iter().map(ContainerState::status).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fleetctl_image_is_known_by_its_repository() {
        for image in [
            "quay.io/fleetctl/fleetctl:0.1.0",
            "fleetctl",
            "fleetctl:dev",
            "localhost:5000/fleetctl",
            "x/fleetctl@sha256:ab",
        ] {
            assert!(is_fleetctl_image(image), "{image}");
        }
        for image in
            ["quay.io/fleetctl/other:1", "nginx", "fleetctl-agent:1", "localhost:5000/x:fleetctl", "fleetctl/nginx"]
        {
            assert!(!is_fleetctl_image(image), "{image}");
        }
    }

    #[test]
    fn a_pod_is_ready_when_its_containers_run_and_pass_their_readiness_probes() {
        let container: Container = serde_json::from_value(json!({"name": "c", "image": "nginx"})).unwrap();
        let mut c = ContainerState::new(&container);
        assert_eq!(pod_status(std::slice::from_ref(&c), "t", HOST_IP)["conditions"][3]["status"], "False");
        c.run("t".into(), true, false);
        let status = pod_status(std::slice::from_ref(&c), "t", HOST_IP);
        assert_eq!(status["conditions"][3]["status"], "False", "running, its readiness probe not passed yet");
        assert_eq!(status["containerStatuses"][0]["started"], true);
        c.ready = true;
        let status = pod_status(&[c], "t", "10.244.0.3");
        assert_eq!(status["conditions"][3]["status"], "True");
        assert_eq!(status["containerStatuses"][0]["ready"], true);
        assert_eq!((&status["podIP"], &status["hostIP"]), (&json!("10.244.0.3"), &json!(HOST_IP)));
    }

    /// The kubelet's `getPhase`: every container terminated, all with 0 → Succeeded, any
    /// other code → Failed; a container still running keeps the Pod Running.
    #[test]
    fn a_pod_whose_containers_all_ended_succeeded_or_failed_by_their_exit_codes() {
        let container: Container = serde_json::from_value(json!({"name": "c", "image": "busybox"})).unwrap();
        let ended = |code| {
            let mut c = ContainerState::new(&container);
            c.phase = ContainerPhase::Terminated(Exited { code, started: "s".into(), finished: "f".into() });
            c
        };
        let status = pod_status(&[ended(0), ended(0)], "t", HOST_IP);
        assert_eq!(status["phase"], "Succeeded");
        assert_eq!(status["conditions"][3], json!({"type": "Ready", "status": "False", "reason": "PodCompleted"}));
        let state = &status["containerStatuses"][0]["state"]["terminated"];
        assert_eq!((state["exitCode"].as_i64(), state["reason"].as_str()), (Some(0), Some("Completed")));
        assert_eq!(pod_status(&[ended(0), ended(3)], "t", HOST_IP)["phase"], "Failed");
        let mut running = ContainerState::new(&container);
        running.run("t".into(), true, true);
        assert_eq!(pod_status(&[ended(0), running], "t", HOST_IP)["phase"], "Running");
    }
}
