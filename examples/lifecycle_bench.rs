//! The three acts on `dev up`, timed: median wall time of `fleetctl import`, `upgrade`
//! and `detach` over five rounds, then the steady-state RSS of the klusterlet agents and
//! the hub writes per minute with one managed cluster (every kind, through the store revision).
//!
//! ```sh
//! cargo build --release && cargo run --release --example lifecycle_bench [-- ROUNDS] [fleetctl=PATH]
//! ```
//!
//! The dev environment runs the `fleetctld` beside the `fleetctl` it is given (see the
//! README for the agents' memory as a pod runs them, from the image).

#[path = "support/binary.rs"]
mod binary;
#[path = "support/process.rs"]
mod process;
use std::time::Duration;

use anyhow::{Context, Result};
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl_devcluster::env::{self, UpOptions};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams};

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.iter().find(|a| !a.contains('=')).map(|n| n.parse()).transpose()?.unwrap_or(5);
    let binary = binary::fleetctl(args.iter().find_map(|a| a.strip_prefix("fleetctl=")))?;
    let dir = tempfile::tempdir()?;
    let printer = Printer::new(&TerminalFlags::default());
    let options = up_options(&printer, binary.clone(), dir.path().to_path_buf(), 1, None, Duration::from_secs(60));
    let hub_ctx = ["--hub-context", "hub", "--cluster-context", "cluster1"];
    // Upgrade talks to the hub only.
    let hub_only = &hub_ctx[..2];
    let (mut imports, mut upgrades, mut detaches) = (Vec::new(), Vec::new(), Vec::new());
    // Each round on a fresh environment, as a person would run the acts once per cluster.
    for _ in 0..rounds {
        let round_dir = tempfile::tempdir()?;
        let state = env::up(&UpOptions { dir: round_dir.path().to_path_buf(), ..options.clone() }).await?;
        let kubeconfig = state.kubeconfig.clone();
        imports.push(binary::timed(&binary, &kubeconfig, &[&["import", "cluster1"][..], &hub_ctx].concat())?);
        upgrades.push(binary::timed(
            &binary,
            &kubeconfig,
            &[&["upgrade", "cluster1", "--to", "0.2.0"][..], hub_only].concat(),
        )?);
        detaches.push(binary::timed(&binary, &kubeconfig, &[&["detach", "cluster1", "--yes"][..], &hub_ctx].concat())?);
        env::down(round_dir.path(), Duration::from_secs(2)).await?;
    }
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    println!("lifecycle_bench on dev up ({cpus} CPUs), median of {rounds}:");
    println!("  import  {:>7.3} s (target ≤ 2 s)", median(imports).as_secs_f64());
    println!("  upgrade {:>7.3} s (target ≤ 3 s)", median(upgrades).as_secs_f64());
    println!("  detach  {:>7.3} s (target ≤ 3 s)", median(detaches).as_secs_f64());

    let state = env::up(&options).await?;
    let kubeconfig = state.kubeconfig.clone();
    // Steady state: import once more, let it settle, then look.
    binary::timed(&binary, &kubeconfig, &[&["import", "cluster1"][..], &hub_ctx].concat())?;
    tokio::time::sleep(Duration::from_secs(10)).await;
    // The managed cluster's dev server leads the process group of the pods it runs.
    let cluster = state.clusters.iter().find(|c| c.name == "cluster1").context("cluster1 in the environment")?;
    for (name, needle) in
        [("operator", "agent operator"), ("registration", "agent registration"), ("work", "agent work")]
    {
        let rss: Vec<String> = process::pids_in_group(cluster.pid, needle)
            .into_iter()
            .filter_map(process::rss_kib)
            .map(|kib| format!("{:.1} MiB", kib as f64 / 1024.0))
            .collect();
        println!("  {name:<12} agent RSS {} (target ≤ 8 MiB)", rss.join(", "));
    }
    let hub = env::client_for(&kubeconfig, Some("hub")).await?;
    let window = Duration::from_secs(65);
    let before = revision(&hub).await?;
    tokio::time::sleep(window).await;
    let writes = revision(&hub).await? - before;
    println!(
        "  hub writes in {}s with cluster1 imported: {writes}, every kind (the hub controller's leader lease \
         included; target: one lease renewal per leaseDurationSeconds = 60 s, plus the leader lease)",
        window.as_secs()
    );
    env::down(dir.path(), Duration::from_secs(2)).await?;
    Ok(())
}

/// The hub's store revision: a write of any kind moves it (a list's resourceVersion).
async fn revision(hub: &kube::Client) -> Result<u64> {
    let list = Api::<Namespace>::all(hub.clone()).list_metadata(&ListParams::default().limit(1)).await?;
    Ok(list.metadata.resource_version.context("a list without resourceVersion")?.parse()?)
}
