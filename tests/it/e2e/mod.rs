//! End to end on `fleetctl dev up`: real processes for every dev cluster, the hub
//! controllers and the klusterlet agents.

mod addon_versions;
mod addons;
mod auto_import;
mod bare_hub;
pub mod cli;
mod exit_codes;
mod fleet;
mod fleet_file;
mod heal;
pub mod image;
mod intent;
mod lifecycle;
mod moving;
mod upstream_ocm;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kube::Client;
use kube::config::{KubeConfigOptions, Kubeconfig};

/// A `dev up` environment, taken down on drop.
pub struct DevUp {
    pub dir: tempfile::TempDir,
    /// The fleetctl binary that runs it.
    program: PathBuf,
    /// What `dev up` said.
    pub stderr: String,
}

impl DevUp {
    /// An environment whose in-cluster roles run as `fleetctld` processes.
    pub fn start(clusters: usize) -> Self {
        let fleetctl = Path::new(env!("CARGO_BIN_EXE_fleetctl"));
        let fleetctld = fleetctl.with_file_name("fleetctld");
        assert!(
            fleetctld.is_file(),
            "no {} beside fleetctl: run the tests from the workspace root (`cargo nextest run`), which builds it",
            fleetctld.display()
        );
        Self::start_with(fleetctl, clusters)
    }

    /// An environment run by `program` (a fleetctl binary).
    pub fn start_with(program: &Path, clusters: usize) -> Self {
        Self::up(program, clusters, &[])
    }

    /// An environment whose `dev up` gets `args` too (`--podman`, `--image …`).
    pub fn start_args(clusters: usize, args: &[&str]) -> Self {
        Self::up(Path::new(env!("CARGO_BIN_EXE_fleetctl")), clusters, args)
    }

    fn up(program: &Path, clusters: usize, args: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let output = Command::new(program)
            .args(["dev", "up", "--clusters", &clusters.to_string(), "--dir"])
            .arg(dir.path())
            .args(args)
            .output()
            .expect("dev up runs");
        assert!(
            output.status.success(),
            "dev up failed: {}\n{}",
            String::from_utf8_lossy(&output.stderr),
            logs(&dir.path().join("logs"))
        );
        Self { dir, program: program.to_path_buf(), stderr: String::from_utf8_lossy(&output.stderr).into_owned() }
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// The API server URL of a context, as the kubeconfig names it.
    pub fn server(&self, context: &str) -> String {
        let config = Kubeconfig::read_from(self.kubeconfig()).expect("kubeconfig");
        let named = config.contexts.iter().find(|c| c.name == context).expect("context");
        let cluster = named.context.as_ref().map(|c| c.cluster.clone()).expect("cluster of the context");
        let found = config.clusters.iter().find(|c| c.name == cluster).expect("cluster");
        found.cluster.as_ref().and_then(|c| c.server.clone()).expect("server")
    }

    /// A client for a context (`hub`, `cluster1`, …).
    pub async fn client(&self, context: &str) -> Client {
        client_for(&self.kubeconfig(), context).await
    }

    /// Runs the built binary with this environment's kubeconfig.
    pub fn fleetctl(&self, args: &[&str]) -> std::process::Output {
        self.fleetctl_command(args).output().expect("fleetctl runs")
    }

    /// The built binary's command line with this environment's kubeconfig, to run it in
    /// the background.
    pub fn fleetctl_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(args)
            .env("KUBECONFIG", self.kubeconfig())
            .env_remove("FLEETCTL_HUB_KUBECONFIG")
            .env("NO_COLOR", "1");
        command
    }

    /// Every log of this environment, for a failure message.
    pub fn logs(&self) -> String {
        logs(&self.dir.path().join("logs"))
    }

    /// Pids of this environment's processes whose command line contains all of `needles`:
    /// its cluster processes and what they run, each cluster process leading a process
    /// group of its own.
    pub fn pids(&self, needles: &[&str]) -> Vec<u32> {
        let state: serde_json::Value =
            serde_json::from_slice(&std::fs::read(self.dir.path().join("state.json")).expect("state.json"))
                .expect("state.json is JSON");
        let groups: Vec<u64> =
            state["clusters"].as_array().into_iter().flatten().filter_map(|c| c["pid"].as_u64()).collect();
        let mut pids = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
            let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // After the command's closing parenthesis: state, ppid, pgrp.
            let group = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<u64>().ok());
            if needles.iter().all(|n| cmdline.contains(n)) && group.is_some_and(|g| groups.contains(&g)) {
                pids.push(pid);
            }
        }
        pids
    }
}

/// Every log under `dir`, for a failure message.
fn logs(dir: &Path) -> String {
    let mut text = String::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let body = std::fs::read_to_string(&path).unwrap_or_default();
                text.push_str(&format!("--- {}\n{body}\n", path.display()));
            }
        }
    }
    text
}

impl Drop for DevUp {
    fn drop(&mut self) {
        let _ = Command::new(&self.program).args(["dev", "down", "--dir"]).arg(self.dir.path()).output();
    }
}

pub async fn client_for(path: &Path, context: &str) -> Client {
    let kubeconfig = Kubeconfig::read_from(path).expect("kubeconfig");
    let options = KubeConfigOptions { context: Some(context.to_string()), ..KubeConfigOptions::default() };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options).await.expect("config");
    Client::try_from(config).expect("client")
}

pub const WAIT: Duration = Duration::from_secs(30);
