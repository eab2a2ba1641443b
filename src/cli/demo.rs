//! `fleetctl demo`: the three acts on an embedded dev environment, told as they happen.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use kube::Client;
use kube::api::{Api, PostParams};
use parking_lot::Mutex;
use serde_json::json;
use thiserror::Error;

use super::dev::{current_exe, up_options};
use super::exit::{CommandError, ExitStatus, Fault};
use super::printer::{PrintError, Printer};
use crate::lifecycle::detach::{DetachOptions, detach};
use crate::lifecycle::import::{ImportOptions, import};
use crate::lifecycle::upgrade::{UpgradeOptions, upgrade};
use crate::lifecycle::{LifecycleError, Progress, wait_for};
use fleetctl_api::{Manifest, ManifestWork};
use fleetctl_devcluster::env::{self, EnvError};

/// `fleetctl demo`
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Leave the dev environment running afterwards (and say where it is).
    #[arg(long)]
    keep: bool,
}

const WAIT: Duration = Duration::from_secs(60);

/// Why the demo stopped.
#[derive(Debug, Error)]
enum DemoError {
    /// No temporary directory.
    #[error("making a directory for the demo")]
    TempDir(#[source] std::io::Error),
    /// `dev up` failed.
    #[error("starting the dev environment")]
    Up(#[source] EnvError),
    /// `dev down` failed.
    #[error("stopping the dev environment")]
    Down(#[source] EnvError),
    /// A cluster of the environment cannot be reached.
    #[error("connecting to {cluster}")]
    Connect {
        /// The cluster.
        cluster: &'static str,
        /// Why.
        #[source]
        source: EnvError,
    },
    /// The environment's kubeconfig cannot be read.
    #[error("reading the environment's kubeconfig {}", .path.display())]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// The environment's kubeconfig names no hub.
    #[error("the environment's kubeconfig {} has no hub cluster", .0.display())]
    NoHub(PathBuf),
    /// One of the acts failed.
    #[error("{what}")]
    Act {
        /// The act and its cluster (`importing cluster1`).
        what: String,
        /// Why.
        #[source]
        source: LifecycleError,
    },
    /// The interlude's ManifestWork could not be created.
    #[error("creating the sample work")]
    SampleWork(#[source] kube::Error),
    /// The story could not be told.
    #[error(transparent)]
    Print(#[from] PrintError),
}

impl Fault for DemoError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Act { source, .. } => source.exit_status(),
            Self::Up(source) | Self::Down(source) | Self::Connect { source, .. } => source.exit_status(),
            Self::TempDir(_) | Self::Kubeconfig { .. } | Self::NoHub(_) | Self::SampleWork(_) | Self::Print(_) => {
                ExitStatus::Failure
            }
        }
    }
}

fn failed(what: String) -> impl FnOnce(LifecycleError) -> DemoError {
    move |source| DemoError::Act { what, source }
}

/// Tells the story on stdout: one line per step, with the time since the start. The first
/// line that cannot be written ends the demo (see [`Story::told`]).
struct Story<'a> {
    printer: &'a Printer,
    started: Instant,
    failed: Mutex<Option<PrintError>>,
}

impl Story<'_> {
    fn say(&self, text: &str) {
        if let Err(e) = self.printer.data(text) {
            self.failed.lock().get_or_insert(e);
        }
    }

    fn act(&self, title: &str) {
        self.say(&format!("\n== {title}\n"));
    }

    fn line(&self, what: &str) {
        self.say(&format!("[{:>6.2}s] {what}\n", self.started.elapsed().as_secs_f64()));
    }

    fn progress(&self, event: Progress) {
        if let Progress::Finished { cluster, step, elapsed } = event {
            self.line(&format!("{cluster}: {step} ({:.2}s)", elapsed.as_secs_f64()));
        } else if let Progress::Note { cluster, message } = event {
            self.line(&format!("{cluster}: {message}"));
        }
    }

    /// Whether every line reached stdout.
    fn told(&self) -> Result<(), PrintError> {
        self.failed.lock().take().map_or(Ok(()), Err)
    }
}

/// The version after ours (the next minor release): the demo upgrades to it.
fn next_version() -> String {
    // Cargo takes only semantic versions, whose minor version is a number.
    #[allow(clippy::expect_used)]
    let minor: u64 = env!("CARGO_PKG_VERSION_MINOR").parse().expect("Cargo's minor version is a number");
    format!("{}.{}.0", env!("CARGO_PKG_VERSION_MAJOR"), minor + 1)
}

/// Runs the demo; fails on the first step that fails.
pub async fn run(args: DemoArgs, printer: &Printer) -> Result<(), CommandError> {
    let story = Story { printer, started: Instant::now(), failed: Mutex::new(None) };
    let program = current_exe()?;
    let dir = tempfile::Builder::new().prefix("fleetctl-demo-").tempdir().map_err(DemoError::TempDir)?;
    let dir_path: PathBuf = dir.path().to_path_buf();
    story.act("The stage: a hub and two managed clusters (fleetctl dev up)");
    let options = up_options(printer, program, dir_path.clone(), 2, None, WAIT);
    let state = env::up(&options).await.map_err(DemoError::Up)?;
    story.line(&format!("hub, cluster1 and cluster2 are up; the hub controller runs ({})", state.kubeconfig.display()));
    let result = acts(&story, &state.kubeconfig).await;
    if args.keep {
        story.say(&format!("\nThe environment keeps running: export KUBECONFIG={}\n", state.kubeconfig.display()));
        story.say(&format!("Stop it with: fleetctl dev down --dir {}\n", dir_path.display()));
        let _kept = dir.keep();
    } else {
        env::down(&dir_path, Duration::from_secs(2)).await.map_err(DemoError::Down)?;
        story.line("dev environment stopped");
    }
    result?;
    story.told()?;
    Ok(())
}

async fn acts(story: &Story<'_>, kubeconfig: &Path) -> Result<(), DemoError> {
    let client = |cluster: &'static str| async move {
        env::client_for(kubeconfig, Some(cluster)).await.map_err(|source| DemoError::Connect { cluster, source })
    };
    let hub = client("hub").await?;
    let hub_url = hub_server(kubeconfig)?;
    let observer = |event| story.progress(event);

    story.act("Act I — import: the hub accepts each cluster, the klusterlet joins");
    let mut targets = Vec::new();
    for name in ["cluster1", "cluster2"] {
        let target = client(name).await?;
        let options = ImportOptions {
            labels: [("environment".to_string(), "demo".to_string())].into(),
            ..ImportOptions::new(name, WAIT)
        };
        import(&hub, &hub_url, Some(&target), &options, &observer)
            .await
            .map_err(failed(format!("importing {name}")))?;
        story.line(&format!("{name} joined and is available"));
        targets.push((name, target));
    }

    story.act("Interlude — the hub deploys a workload through a ManifestWork");
    sample_work(&hub).await?;
    story.line("cluster1 runs the sample ConfigMap and Deployment the hub asked for");

    let version = next_version();
    story.act(&format!("Act II — upgrade: cluster1's klusterlet moves to {version}"));
    let options = UpgradeOptions::waiting(version.clone(), WAIT);
    upgrade(&hub, "cluster1", &options, &observer).await.map_err(failed("upgrading cluster1".into()))?;
    story.line(&format!("cluster1's agents were replaced and report {version}"));

    story.act("Act III — detach: the agents leave, the hub forgets");
    for (name, target) in &targets {
        let options =
            DetachOptions { name: (*name).to_string(), wait: true, force: true, timeout: WAIT, dry_run: None };
        detach(&hub, Some(target), &options, &observer).await.map_err(failed(format!("detaching {name}")))?;
        story.line(&format!("{name} detached: no klusterlet on it, nothing of it on the hub"));
    }
    Ok(())
}

async fn sample_work(hub: &Client) -> Result<(), DemoError> {
    let work = ManifestWork::for_cluster(
        "cluster1",
        "demo-sample",
        vec![
            Manifest(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "demo", "namespace": "default"}, "data": {"hello": "fleet"}}),
            ),
            Manifest(
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "demo", "namespace": "default"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "demo"}},
                         "template": {"metadata": {"labels": {"app": "demo"}}, "spec": {"containers": [{"name": "demo", "image": "nginx:1.27"}]}}}}),
            ),
        ],
    );
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
    works.create(&PostParams::default(), &work).await.map_err(DemoError::SampleWork)?;
    wait_for(works, "demo-sample", "the sample work to be applied", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied() && w.is_available())
    })
    .await
    .map_err(failed("deploying the sample work".into()))?;
    Ok(())
}

/// The hub's API server URL, as the environment's kubeconfig names it.
fn hub_server(kubeconfig: &Path) -> Result<String, DemoError> {
    let config = kube::config::Kubeconfig::read_from(kubeconfig)
        .map_err(|source| DemoError::Kubeconfig { path: kubeconfig.to_path_buf(), source })?;
    config
        .clusters
        .iter()
        .find(|c| c.name == "hub")
        .and_then(|c| c.cluster.as_ref()?.server.clone())
        .ok_or_else(|| DemoError::NoHub(kubeconfig.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::upgrade::valid_version;

    #[test]
    fn the_demo_upgrades_to_the_next_minor_release() {
        let next = next_version();
        assert!(valid_version(&next), "{next}");
        let minor = |v: &str| v.split('.').nth(1).and_then(|m| m.parse::<u64>().ok());
        assert_eq!(minor(&next), minor(fleetctl_api::names::VERSION).map(|m| m + 1));
    }
}
