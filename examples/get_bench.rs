//! The figure for `fleetctl get clusters`: its wall time against `kubectl get managedclusters`
//! on a hub with 1,000 clusters, as a ratio (target ≤ 0.5). It prints figures; it asserts
//! nothing.
//!
//! ```text
//! cargo build --release && cargo run --release --example get_bench
//! cargo run --release --example get_bench -- target/debug/fleetctl n=2000 runs=9
//! ```
//!
//! An in-process dev cluster (on its own runtime, so the measured processes compete only
//! with the server) gets the OCM CRDs and `n` ManagedClusters with the status an agent
//! reports. Both commands run with the same kubeconfig; kubectl gets a private `HOME` whose
//! discovery cache one warm-up run fills, as on a person's laptop. Each is timed end to end
//! (process start to exit, output to /dev/null) `runs` times; the medians are compared.

#[path = "support/binary.rs"]
mod binary;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use fleetctl_api::{ManagedCluster, crds};
use fleetctl_apiserver::{ApiServer, ServerConfig};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;

/// The target ratio fleetctl / kubectl.
const TARGET_RATIO: f64 = 0.5;
/// Concurrent requests while filling the hub.
const FILL_CONCURRENCY: usize = 16;

struct Config {
    fleetctl: PathBuf,
    clusters: usize,
    runs: usize,
}

impl Config {
    fn load() -> Result<Self> {
        let (mut clusters, mut runs, mut explicit) = (1000, 5, None);
        for arg in std::env::args().skip(1) {
            match arg.split_once('=') {
                Some(("n", v)) => clusters = v.replace(['_', ','], "").parse().context("n=<count>")?,
                Some(("runs", v)) => runs = v.parse().context("runs=<count>")?,
                Some((key, _)) => bail!("unknown option {key} (n=, runs=, or the fleetctl path)"),
                None => explicit = Some(arg),
            }
        }
        ensure!(runs > 0, "runs must be at least 1");
        Ok(Self { fleetctl: binary::fleetctl(explicit.as_deref())?, clusters, runs })
    }
}

fn main() -> Result<()> {
    let config = Config::load()?;
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-server")
        .enable_all()
        .build()
        .context("server runtime")?;
    let server = server_rt
        .block_on(ApiServer::start(ServerConfig { name: "bench".into(), port: 0, ..ServerConfig::default() }))
        .context("starting the dev cluster")?;
    let kubeconfig_doc = server.kubeconfig("bench");

    let dir = tempfile::tempdir().context("temporary directory")?;
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, serde_json::to_vec(&kubeconfig_doc)?).context("writing the kubeconfig")?;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home)?;

    let filled = Instant::now();
    server_rt.block_on(fill(kubeconfig_doc, config.clusters))?;
    println!("hub: {} ManagedClusters with status, filled in {:.1?}", config.clusters, filled.elapsed());

    let fleetctl = |kc: &Path| {
        let mut command = Command::new(&config.fleetctl);
        command.args(["get", "clusters", "--hub-kubeconfig"]).arg(kc);
        command
    };
    let kubectl = |kc: &Path| {
        let mut command = Command::new("kubectl");
        command.arg("--kubeconfig").arg(kc).args(["get", "managedclusters"]).env("HOME", &home);
        command
    };
    let ours = measure("fleetctl get clusters", || fleetctl(&kubeconfig), config.clusters, config.runs)?;
    let theirs = measure("kubectl get managedclusters", || kubectl(&kubeconfig), config.clusters, config.runs)?;
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    println!(
        "ratio fleetctl/kubectl: {ratio:.2} (target ≤ {TARGET_RATIO}) {}",
        if ratio <= TARGET_RATIO { "ok" } else { "MISSED" }
    );
    drop(server);
    server_rt.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// Creates the CRDs and `n` clusters, each with the conditions, version, capacity and claims
/// an agent reports.
async fn fill(kubeconfig: Kubeconfig, n: usize) -> Result<()> {
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    let client = Client::try_from(config)?;
    let crd_api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds::hub() {
        crd_api.create(&PostParams::default(), &crd).await.context("creating a CRD")?;
    }
    let clusters: Api<ManagedCluster> = Api::all(client);
    futures::stream::iter(0..n)
        .map(|i| {
            let clusters = clusters.clone();
            async move {
                let name = format!("cluster-{i:04}");
                let mut cluster = ManagedCluster::accepted(&name);
                cluster.metadata.labels = Some([("env".to_string(), ["prod", "staging"][i % 2].to_string())].into());
                clusters.create(&PostParams::default(), &cluster).await.context("creating a cluster")?;
                clusters
                    .patch_status(&name, &PatchParams::default(), &Patch::Merge(status(i)))
                    .await
                    .context("reporting a cluster's status")?;
                anyhow::Ok(())
            }
        })
        .buffer_unordered(FILL_CONCURRENCY)
        .try_collect::<Vec<()>>()
        .await?;
    Ok(())
}

fn status(i: usize) -> serde_json::Value {
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let condition = |type_: &str, reason: &str| json!({"type": type_, "status": "True", "reason": reason, "message": reason, "lastTransitionTime": now});
    // One in ten has lost its lease, so not every row is the same.
    let available = if i.is_multiple_of(10) {
        json!({"type": "ManagedClusterConditionAvailable", "status": "Unknown",
               "reason": "ManagedClusterLeaseUpdateStopped", "message": "Registration agent stopped updating its lease.",
               "lastTransitionTime": now})
    } else {
        condition("ManagedClusterConditionAvailable", "ManagedClusterAvailable")
    };
    json!({"status": {
        "conditions": [
            condition("HubAcceptedManagedCluster", "HubClusterAdminAccepted"),
            condition("ManagedClusterJoined", "ManagedClusterJoined"),
            available,
        ],
        "capacity": {"cpu": "16", "memory": "64551700Ki", "pods": "250"},
        "allocatable": {"cpu": "15500m", "memory": "63400724Ki", "pods": "250"},
        "version": {"kubernetes": "v1.33.2"},
        "clusterClaims": [
            {"name": "id.k8s.io", "value": format!("00000000-0000-4000-8000-{i:012}")},
            {"name": "kubeversion.open-cluster-management.io", "value": "v1.33.2"},
            {"name": "klusterlet-version.fleetctl.io", "value": "0.1.0"},
        ],
    }})
}

/// Runs the command once to warm caches, then `runs` times; prints and returns the median.
/// Checks the output has a row per cluster, so a failing command cannot look fast.
fn measure(label: &str, command: impl Fn() -> Command, clusters: usize, runs: usize) -> Result<Duration> {
    let warm = command().stderr(Stdio::inherit()).output().with_context(|| format!("running {label}"))?;
    ensure!(warm.status.success(), "{label} failed: {}", warm.status);
    let rows = String::from_utf8_lossy(&warm.stdout).lines().count();
    ensure!(rows == clusters + 1, "{label} printed {rows} lines for {clusters} clusters");
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let status = command()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("running {label}"))?;
        times.push(start.elapsed());
        ensure!(status.success(), "{label} failed: {status}");
    }
    times.sort();
    let median = times[times.len() / 2];
    let all: Vec<String> = times.iter().map(|t| format!("{:.0}", t.as_secs_f64() * 1000.0)).collect();
    println!(
        "{label}: median {:.1} ms over {runs} runs (sorted, ms: {})",
        median.as_secs_f64() * 1000.0,
        all.join(" ")
    );
    Ok(median)
}
