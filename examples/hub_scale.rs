//! Hub controller at scale: N ManagedClusters (1,000 unless told) created at once on a dev
//! hub; prints the seconds until all N import secrets exist, the controller's peak RSS, and
//! the requests the hub answered meanwhile.
//!
//! The hub controller runs as its own process (`fleetctld hub`), so its RSS
//! is its own. Build the binary first:
//!
//! ```sh
//! cargo build --workspace --release && cargo run --release --example hub_scale [-- CLUSTERS]
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/process.rs"]
mod process;
#[path = "support/requests.rs"]
mod requests;
use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use fleetctl_api::{ManagedCluster, crds};
use fleetctl_apiserver::{ApiServer, ServerConfig};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};

/// The dev hub's API server allocates as in `fleetctl dev serve` (see `src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<()> {
    let clusters: usize = std::env::args().nth(1).map(|n| n.parse()).transpose()?.unwrap_or(1000);
    let binary = binary::fleetctld()?;
    let server = ApiServer::start(ServerConfig { name: "hub".into(), port: 0, ..ServerConfig::default() }).await?;
    let dir = tempfile::tempdir()?;
    let kubeconfig_path = dir.path().join("hub.kubeconfig");
    std::fs::write(&kubeconfig_path, serde_yaml::to_string(&server.kubeconfig("hub"))?)?;
    let options = KubeConfigOptions::default();
    let client = Client::try_from(
        kube::Config::from_custom_kubeconfig(Kubeconfig::read_from(&kubeconfig_path)?, &options).await?,
    )?;
    let crd_api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds::hub() {
        crd_api.create(&PostParams::default(), &crd).await?;
    }
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": "open-cluster-management-hub"}}))?,
        )
        .await?;
    let mut controller = Command::new(&binary)
        .args(["hub", "--kubeconfig"])
        .arg(&kubeconfig_path)
        .env("FLEETCTL_HEALTH_ADDR", "127.0.0.1:0")
        .env("FLEETCTL_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .context("starting the hub controller")?;
    let pid = controller.id();

    // Count import secrets as they appear, from before the first cluster exists.
    let secrets: Api<Secret> = Api::all(client.clone());
    let config =
        watcher::Config::default().labels("managedcluster-import-controller.open-cluster-management.io/import-secret");
    let mut appeared = watcher(secrets, config).applied_objects().boxed();

    let requests_before = requests::Requests::read(&client).await?;
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    println!("hub_scale: {clusters} ManagedClusters created at once on a dev hub ({cpus} CPUs)");
    let started = Instant::now();
    let api: Api<ManagedCluster> = Api::all(client.clone());
    let creates = futures::stream::iter(0..clusters)
        .map(|i| {
            let api = api.clone();
            async move { api.create(&PostParams::default(), &ManagedCluster::accepted(&format!("scale-{i:04}"))).await }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>();
    let created = creates.await?;
    let created_in = started.elapsed();
    let mut seen = HashSet::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while seen.len() < clusters {
        let secret = tokio::time::timeout_at(deadline, appeared.try_next())
            .await
            .context("import secrets in 120 s")??
            .context("watch ended")?;
        seen.insert(secret.namespace().unwrap_or_default());
    }
    let all_secrets = started.elapsed();
    let rss = process::peak_rss_kib(pid);
    let requests = requests::Requests::read(&client).await?.since(&requests_before);
    let _ = controller.kill();
    let _ = controller.wait();
    println!("  created {} clusters in {:.2} s", created.len(), created_in.as_secs_f64());
    println!(
        "  all {clusters} import secrets exist after {:.2} s (goal: ≤ 5 s at 1,000, ≤ 60 s at 10,000)",
        all_secrets.as_secs_f64()
    );
    match rss {
        Some(kib) => println!("  hub controller peak RSS {:.1} MiB (goal ≤ 500 MiB at 10,000)", kib as f64 / 1024.0),
        None => println!("  hub controller peak RSS: unavailable"),
    }
    println!(
        "  requests answered until then: {} ({:.1} per cluster), the most frequent:",
        requests.total(),
        requests.total() as f64 / clusters.max(1) as f64
    );
    requests.print_top(15, clusters);
    Ok(())
}
