//! Running a container of an image that exists in local podman storage, as a pod would
//! run: in its Pod's network (see [`super::network`]; else the host's), the container's args and environment, its volumes bound at their
//! mount paths (see [`super::mounts`]), the Pod's ServiceAccount files at
//! `/var/run/secrets/kubernetes.io/serviceaccount` (read-only) unless a volume is mounted
//! there, and the API server at `KUBERNETES_SERVICE_HOST`/`PORT`.
//!
//! `podman run` stays in the foreground as a child of the cluster process: it forwards
//! SIGTERM to the container, and it dies with the cluster process like any other
//! container's process. A container left by a `podman run` that was killed is removed by
//! name ([`remove`]); every container carries the label [`NODE_LABEL`] with its node, so
//! that `dev down` finds what a killed cluster process left ([`remove_node`]).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;

use super::credentials::SERVICE_ACCOUNT_MOUNT;
use super::process::{Launch, Running, capture};

/// The label on every container the simulator starts: `<dev dir>/<node>`.
pub const NODE_LABEL: &str = "fleetctl.io/dev-node";

/// Where a container runs: its node, the API server's in-cluster address, and its Pod's
/// network namespace (the host's network without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The label its containers carry ([`NODE_LABEL`]).
    pub node_label: String,
    /// `KUBERNETES_SERVICE_HOST`/`PORT`.
    pub service: SocketAddr,
    /// The Pod's network namespace (a file under `/run/netns`).
    pub netns: Option<PathBuf>,
}

/// How to run podman: the program, the options every call gets (storage driver, OCI
/// runtime, cgroup manager) and its environment (`CONTAINERS_CONF`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Podman {
    /// The podman executable.
    pub program: PathBuf,
    /// Options before the podman command (`--storage-driver vfs`, …).
    pub options: Vec<String>,
    /// Variables podman runs with.
    pub env: Vec<(String, String)>,
}

impl Podman {
    /// podman as `FLEETCTL_PODMAN_OPTIONS` (options before every podman command, split at
    /// spaces, e.g. `--storage-driver vfs --runtime runc`) and the environment
    /// (`CONTAINERS_CONF`, …) say.
    pub fn from_env() -> Self {
        let options = std::env::var("FLEETCTL_PODMAN_OPTIONS").unwrap_or_default();
        let env = ["CONTAINERS_CONF", "CONTAINERS_STORAGE_CONF", "PATH", "HOME", "TMPDIR", "XDG_RUNTIME_DIR"]
            .into_iter()
            .filter_map(|name| std::env::var(name).ok().map(|value| (name.to_string(), value)))
            .collect();
        Self {
            program: PathBuf::from("podman"),
            options: options.split_whitespace().map(str::to_string).collect(),
            env,
        }
    }

    fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.options).envs(self.env.iter().map(|(k, v)| (k, v))).stdin(Stdio::null());
        command
    }

    /// Whether `image` is in local storage (nothing is pulled).
    pub async fn has_image(&self, image: &str) -> bool {
        let mut command = self.command();
        command.args(["image", "exists", image]).stdout(Stdio::null()).stderr(Stdio::null());
        command.status().await.is_ok_and(|status| status.success())
    }

    /// Starts `image` as the container `name` of `launch`, its output appended to the log.
    pub fn spawn(&self, image: &str, name: &str, sandbox: &Sandbox, launch: &Launch) -> std::io::Result<Running> {
        let mut command = self.command();
        command.args(run_args(image, name, sandbox, launch)).stdout(Stdio::piped()).stderr(Stdio::piped());
        // If the handle is dropped without an orderly stop, podman goes with it.
        command.kill_on_drop(true);
        let mut child = command.spawn()?;
        let pid = child.id().unwrap_or_default();
        let output = capture(&mut child, &launch.output);
        Ok(Running::Process {
            child: Box::new(child),
            pid,
            container: Some(Box::new((self.clone(), name.to_string()))),
            output,
        })
    }

    /// `podman exec` of `command` in the container `name` (an exec probe).
    pub(crate) fn exec(&self, name: &str, command: &[String]) -> tokio::process::Command {
        let mut exec = self.command();
        exec.arg("exec").arg(name).args(command);
        exec
    }

    /// Removes the container `name` at once (a `podman run` that was killed leaves it).
    pub async fn remove(&self, name: &str) {
        let mut command = self.command();
        command.args(["rm", "--force", "--time", "0", "--ignore", name]).stdout(Stdio::null()).stderr(Stdio::null());
        if let Err(e) = command.status().await {
            tracing::debug!(container = name, error = %e, "removing a container");
        }
    }

    /// Removes every container the simulator started for `node_label`.
    pub async fn remove_node(&self, node_label: &str) {
        let mut list = self.command();
        list.args(["ps", "--all", "--quiet", "--filter"]).arg(format!("label={NODE_LABEL}={node_label}"));
        let Ok(output) = list.stderr(Stdio::null()).output().await else { return };
        for id in String::from_utf8_lossy(&output.stdout).split_whitespace() {
            self.remove(id).await;
        }
    }
}

/// The `podman run` command line of a container.
fn run_args(image: &str, name: &str, sandbox: &Sandbox, launch: &Launch) -> Vec<OsString> {
    let network = match &sandbox.netns {
        Some(netns) => {
            let mut network = OsString::from("ns:");
            network.push(netns);
            network
        }
        None => "host".into(),
    };
    let mut args: Vec<OsString> = vec!["run".into(), "--rm".into(), "--replace".into(), "--network".into(), network];
    args.extend(["--name".into(), name.into()]);
    args.extend(["--label".into(), format!("{NODE_LABEL}={}", sandbox.node_label).into()]);
    let credentials = (launch.credentials.service_account.as_path(), SERVICE_ACCOUNT_MOUNT, true);
    let volumes = launch.mounts.iter().map(|m| (m.source.as_path(), m.target.as_str(), m.read_only));
    let mounted = launch.mounts.iter().any(|m| m.target.trim_end_matches('/') == SERVICE_ACCOUNT_MOUNT);
    for (source, target, read_only) in (!mounted).then_some(credentials).into_iter().chain(volumes) {
        let mut volume = OsString::from(source.as_os_str());
        volume.push(format!(":{target}"));
        if read_only {
            volume.push(":ro");
        }
        args.extend(["--volume".into(), volume]);
    }
    let service_env = [
        ("KUBERNETES_SERVICE_HOST".to_string(), sandbox.service.ip().to_string()),
        ("KUBERNETES_SERVICE_PORT".to_string(), sandbox.service.port().to_string()),
    ];
    for (key, value) in launch.env.iter().chain(&service_env) {
        args.extend(["--env".into(), format!("{key}={value}").into()]);
    }
    if let Some(command) = &launch.command {
        args.extend(["--entrypoint".into(), command.into()]);
    }
    args.push(image.into());
    args.extend(launch.args.iter().map(OsString::from));
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::Credentials;
    use crate::mounts::Mount;

    #[test]
    fn a_container_runs_as_a_pod_with_its_service_account_and_the_service_address() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            command: None,
            args: vec!["agent".into(), "work".into()],
            env: vec![("POD_NAMESPACE".into(), "ns".into())],
            credentials: Credentials::under(dir.path()),
            mounts: vec![Mount { source: "/d/pods/p/volumes/cfg".into(), target: "/etc/cfg".into(), read_only: false }],
            output: super::super::logs::Sink::detached(dir.path().join("run.log"), dir.path().join("x.log")),
        };
        let sandbox = Sandbox { node_label: "/d/c1".into(), service: "127.0.0.2:6443".parse().unwrap(), netns: None };
        let args: Vec<String> = run_args("quay.io/fleetctl/fleetctl:0.1.0", "c1-pod-work", &sandbox, &launch)
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let joined = args.join(" ");
        assert!(joined.starts_with("run --rm --replace --network host --name c1-pod-work"), "{joined}");
        let mount = format!(
            "{}:/var/run/secrets/kubernetes.io/serviceaccount:ro",
            launch.credentials.service_account.display()
        );
        assert!(args.windows(2).any(|w| w[0] == "--volume" && w[1] == mount), "{joined}");
        assert!(args.windows(2).any(|w| w[0] == "--volume" && w[1] == "/d/pods/p/volumes/cfg:/etc/cfg"), "{joined}");
        for env in ["POD_NAMESPACE=ns", "KUBERNETES_SERVICE_HOST=127.0.0.2", "KUBERNETES_SERVICE_PORT=6443"] {
            assert!(args.windows(2).any(|w| w[0] == "--env" && w[1] == env), "{env} in {joined}");
        }
        assert!(!joined.contains("KUBECONFIG"), "a container finds its cluster as a pod does");
        assert!(joined.ends_with("quay.io/fleetctl/fleetctl:0.1.0 agent work"), "{joined}");
        assert!(args.windows(2).any(|w| w[0] == "--label" && w[1] == "fleetctl.io/dev-node=/d/c1"));
    }

    #[test]
    fn a_pods_network_and_a_volume_at_the_service_account_path_replace_the_hosts_and_the_simulators_files() {
        let dir = tempfile::tempdir().unwrap();
        let volume =
            |source: &str, target: &str, read_only| Mount { source: source.into(), target: target.into(), read_only };
        let launch = Launch {
            command: None,
            args: vec![],
            env: vec![],
            credentials: Credentials::under(dir.path()),
            mounts: vec![
                volume("/v/kube-api-access-x", SERVICE_ACCOUNT_MOUNT, true),
                volume("/v/boot/kubeconfig", "/spoke/bootstrap/kubeconfig", true),
            ],
            output: super::super::logs::Sink::detached(dir.path().join("run.log"), dir.path().join("x.log")),
        };
        let sandbox = Sandbox {
            node_label: "/d/c1".into(),
            service: "127.0.0.2:6443".parse().unwrap(),
            netns: Some("/run/netns/fleetctl-0-x".into()),
        };
        let args: Vec<String> = run_args("img", "c1-pod-x", &sandbox, &launch)
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(args.windows(2).any(|w| w[0] == "--network" && w[1] == "ns:/run/netns/fleetctl-0-x"), "{args:?}");
        let volumes: Vec<&str> = args.windows(2).filter(|w| w[0] == "--volume").map(|w| w[1].as_str()).collect();
        assert_eq!(
            volumes,
            [
                "/v/kube-api-access-x:/var/run/secrets/kubernetes.io/serviceaccount:ro",
                "/v/boot/kubeconfig:/spoke/bootstrap/kubeconfig:ro"
            ]
        );
    }
}
