//! `fleetctl demo`: the three acts on an embedded dev environment, told as they happen.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use kube::Client;
use kube::api::{Api, PostParams};
use serde_json::json;

use crate::lifecycle::detach::{DetachOptions, detach};
use crate::lifecycle::import::{ImportOptions, import};
use crate::lifecycle::upgrade::{UpgradeOptions, upgrade};
use crate::lifecycle::{Progress, wait_for};
use fleetctl_api::names::VERSION;
use fleetctl_api::{Manifest, ManifestWork};
use fleetctl_devcluster::env;

/// `fleetctl demo`
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Leave the dev environment running afterwards (and say where it is).
    #[arg(long)]
    keep: bool,
}

const WAIT: Duration = Duration::from_secs(60);

/// Tells the story: one line per step, with the time since the start.
struct Story(Instant);

impl Story {
    fn act(&self, title: &str) {
        println!("\n== {title}");
    }

    fn line(&self, what: &str) {
        println!("[{:>6.2}s] {what}", self.0.elapsed().as_secs_f64());
    }

    fn progress(&self, event: Progress) {
        if let Progress::Finished { cluster, step, elapsed } = event {
            self.line(&format!("{cluster}: {step} ({:.2}s)", elapsed.as_secs_f64()));
        } else if let Progress::Note { cluster, message } = event {
            self.line(&format!("{cluster}: {message}"));
        }
    }
}

/// The version after ours: the demo upgrades to it.
fn next_version() -> String {
    let mut parts: Vec<u64> = VERSION.split('.').filter_map(|p| p.parse().ok()).collect();
    parts.resize(3, 0);
    format!("{}.{}.0", parts[0], parts[1] + 1)
}

/// Runs the demo; fails on the first step that fails.
pub async fn run(args: DemoArgs) -> anyhow::Result<()> {
    let story = Story(Instant::now());
    let dir = tempfile::Builder::new().prefix("fleetctl-demo-").tempdir().context("making a directory for the demo")?;
    let dir_path: PathBuf = dir.path().to_path_buf();
    story.act("The stage: a hub and two managed clusters (fleetctl dev up)");
    let program = std::env::current_exe().context("finding the fleetctl executable")?;
    let options = super::dev::up_options(program, dir_path.clone(), 2, None, WAIT)?;
    let state = env::up(&options).await.context("starting the dev environment")?;
    story.line(&format!("hub, cluster1 and cluster2 are up; the hub controller runs ({})", state.kubeconfig.display()));
    let result = acts(&story, &state.kubeconfig).await;
    if args.keep {
        println!("\nThe environment keeps running: export KUBECONFIG={}", state.kubeconfig.display());
        println!("Stop it with: fleetctl dev down --dir {}", dir_path.display());
        let _kept = dir.keep();
    } else {
        env::down(&dir_path, Duration::from_secs(2)).await.context("stopping the dev environment")?;
        story.line("dev environment stopped");
    }
    result
}

async fn acts(story: &Story, kubeconfig: &std::path::Path) -> anyhow::Result<()> {
    let hub = env::client_for(kubeconfig, Some("hub")).await?;
    let hub_url = hub_server(kubeconfig)?;
    let observer = |event| story.progress(event);

    story.act("Act I — import: the hub accepts each cluster, the klusterlet joins");
    let mut targets = Vec::new();
    for name in ["cluster1", "cluster2"] {
        let target = env::client_for(kubeconfig, Some(name)).await?;
        let options = ImportOptions {
            name: name.into(),
            labels: [("environment".to_string(), "demo".to_string())].into(),
            addons: Vec::new(),
            wait: true,
            print_command: false,
            force: false,
            timeout: WAIT,
        };
        import(&hub, &hub_url, Some(&target), &options, &observer)
            .await
            .with_context(|| format!("importing {name}"))?;
        story.line(&format!("{name} joined and is available"));
        targets.push((name, target));
    }

    story.act("Interlude — the hub deploys a workload through a ManifestWork");
    sample_work(&hub).await?;
    story.line("cluster1 runs the sample ConfigMap and Deployment the hub asked for");

    let version = next_version();
    story.act(&format!("Act II — upgrade: cluster1's klusterlet moves to {version}"));
    let options = UpgradeOptions { version: version.clone(), wait: true, timeout: WAIT };
    upgrade(&hub, "cluster1", &options, &observer).await.context("upgrading cluster1")?;
    story.line(&format!("cluster1's agents were replaced and report {version}"));

    story.act("Act III — detach: the agents leave, the hub forgets");
    for (name, target) in &targets {
        let options = DetachOptions { name: (*name).to_string(), wait: true, force: true, timeout: WAIT };
        detach(&hub, Some(target), &options, &observer).await.with_context(|| format!("detaching {name}"))?;
        story.line(&format!("{name} detached: no klusterlet on it, nothing of it on the hub"));
    }
    Ok(())
}

async fn sample_work(hub: &Client) -> anyhow::Result<()> {
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
    works.create(&PostParams::default(), &work).await.context("creating the sample work")?;
    wait_for(works, "demo-sample", "the sample work to be applied", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied() && w.is_available())
    })
    .await?;
    Ok(())
}

fn hub_server(kubeconfig: &std::path::Path) -> anyhow::Result<String> {
    let config = kube::config::Kubeconfig::read_from(kubeconfig).context("reading the environment's kubeconfig")?;
    config
        .clusters
        .iter()
        .find(|c| c.name == "hub")
        .and_then(|c| c.cluster.as_ref()?.server.clone())
        .context("the environment's kubeconfig has no hub cluster")
}
