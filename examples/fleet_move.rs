//! `fleetctl move --all` of N simulated clusters between two dev hubs, then the loss of the
//! hub they moved to: the figures of issue 40.
//!
//! Two `dev up` hubs without managed clusters; N clusters simulated in this process
//! ([`fleetctl::simulator`]) are imported into the first, each is sent a ConfigMap work, and
//! then `fleetctl move --all` (the binary, timed as a person runs it) moves them to the second.
//! Printed: the time until all are Available on the new hub, the clusters left on the old hub,
//! the work's ConfigMaps deleted or re-created on the clusters (their uids before and after),
//! and the new hub's steady writes afterwards. Then `fleetctl hub backup --recovery-hub-context`
//! names the first hub (empty again) the recovery hub, the second is SIGKILLed (its store, in
//! its memory, goes with it), `hub restore` is run on the first, and printed are the seconds
//! until all N are Available there again by themselves, and the ConfigMaps re-created.
//!
//! ```sh
//! cargo build --workspace --release
//! cargo run --release --example fleet_move -- --clusters 1000 [--parallel 50] [--steady 60] [--settle 30] [--recover-after 20]
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/requests.rs"]
mod requests;
#[path = "support/steady.rs"]
mod steady;

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl::simulator::{SimulatedCluster, import_fleet, start_fleet};
use fleetctl_api::ManagedCluster;
use fleetctl_devcluster::env;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, ListParams};
use kube::runtime::WatchStreamExt;

/// How long the import and the move of the whole fleet may each take.
const TIMEOUT: Duration = Duration::from_secs(3600);

struct Args {
    clusters: usize,
    parallel: usize,
    steady: Duration,
    settle: Duration,
    recover_after: u64,
}

fn args() -> Result<Args> {
    let mut parsed = Args {
        clusters: 1000,
        parallel: 50,
        steady: Duration::from_secs(60),
        settle: Duration::from_secs(30),
        recover_after: 20,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--clusters" => parsed.clusters = value.parse()?,
            "--parallel" => parsed.parallel = value.parse()?,
            "--steady" => parsed.steady = Duration::from_secs(value.parse()?),
            "--settle" => parsed.settle = Duration::from_secs(value.parse()?),
            "--recover-after" => parsed.recover_after = value.parse()?,
            other => bail!(
                "unknown flag {other}: --clusters N --parallel K --steady SECONDS --settle SECONDS --recover-after SECONDS"
            ),
        }
    }
    Ok(parsed)
}

/// The simulator's allocator is the `fleetctl` binary's (see `src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<()> {
    let args = args()?;
    if std::env::var_os("FLEETCTL_LOG").is_some() {
        fleetctl_kube::runner::init_logging(0, false);
    }
    let binary = binary::fleetctl(None)?;
    let printer = Printer::new(&TerminalFlags::default());
    let (old_dir, new_dir) = (tempfile::tempdir()?, tempfile::tempdir()?);
    let up = |dir: &Path| up_options(&printer, binary.clone(), dir.to_path_buf(), 0, None, Duration::from_secs(120));
    let old = env::up(&up(old_dir.path())).await?;
    let new = env::up(&up(new_dir.path())).await;
    let outcome = match &new {
        Ok(new) => run(&args, &binary, &old, new).await,
        Err(_) => Ok(String::new()),
    };
    for dir in [old_dir.path(), new_dir.path()] {
        // The second hub was SIGKILLed: what is left of it goes.
        if let Err(error) = env::down(dir, Duration::from_secs(5)).await {
            println!("  taking {} down: {error:#}", dir.display());
        }
    }
    new?;
    println!("fleet_move: N={} {}", args.clusters, outcome?);
    Ok(())
}

async fn run(args: &Args, binary: &Path, old: &env::EnvState, new: &env::EnvState) -> Result<String> {
    let n = args.clusters;
    let cpus = std::thread::available_parallelism().map_or(0, NonZeroUsize::get);
    let old_hub = env::client_for(&old.kubeconfig, Some(env::HUB)).await?;
    let new_hub = env::client_for(&new.kubeconfig, Some(env::HUB)).await?;
    let old_url = &old.clusters.first().context("the old hub")?.url;
    println!("fleet_move: {n} simulated clusters, two dev hubs, {cpus} CPUs");

    let fleet = start_fleet("sim", n)?;
    let parallel = NonZeroUsize::new(32).context("32")?;
    let started = Instant::now();
    import_fleet(&old_hub, old_url, &fleet, parallel, TIMEOUT).await?;
    println!("  imported into the old hub in {:.1} s", started.elapsed().as_secs_f64());
    let work = steady::work_to_all(&old_hub, &fleet).await?;
    println!("  a ConfigMap work to every cluster: all Applied after {work:.1} s");
    let before = note_uids(&fleet).await?;

    let wave = args.parallel.to_string();
    let (old_config, new_config) = (old.kubeconfig.to_string_lossy(), new.kubeconfig.to_string_lossy());
    let started = Instant::now();
    let moved = std::process::Command::new(binary)
        .args(["move", "--all", "--parallel", &wave, "--timeout", "60m", "-o", "json"])
        .args(["--hub-kubeconfig", &old_config, "--hub-context", env::HUB])
        .args(["--to-hub-kubeconfig", &new_config, "--to-hub-context", env::HUB])
        .output()?;
    let seconds = started.elapsed().as_secs_f64();
    let report: serde_json::Value = serde_json::from_slice(&moved.stdout).context("move -o json")?;
    let results = report["clusters"].as_array().context("the move report's clusters")?;
    let not_moved: Vec<&serde_json::Value> = results.iter().filter(|c| c["result"] != "moved").collect();
    let available = Api::<ManagedCluster>::all(new_hub.clone())
        .list(&ListParams::default())
        .await?
        .items
        .iter()
        .filter(|c| c.is_available())
        .count();
    println!(
        "  move --all --parallel {wave}: {seconds:.1} s (exit {:?}); Available on the new hub: {available}/{n}; not moved: {}",
        moved.status.code(),
        not_moved.len()
    );
    for result in not_moved.iter().take(3) {
        println!("    {}: {} {}", result["cluster"], result["result"], result["error"]);
    }
    let left = Api::<ManagedCluster>::all(old_hub.clone()).list_metadata(&ListParams::default()).await?.items.len();
    println!("  left on the old hub: {left} clusters (goal 0)");
    let after = note_uids(&fleet).await?;
    let changed = before.iter().filter(|(cluster, uid)| after.get(*cluster) != Some(uid)).count();
    println!("  the work's ConfigMaps deleted or re-created on the clusters: {changed} of {n} (goal 0)");

    tokio::time::sleep(args.settle).await;
    let (writes, events) = steady::steady_state(&new_hub, args.steady, n).await?;
    println!(
        "  the new hub's steady state over {} s: writes {writes:.1}/s, watch events {events:.1}/s",
        args.steady.as_secs()
    );
    let recovery = lose_the_hub(args, binary, old, new, &fleet).await?;
    Ok(format!(
        "move={seconds:.1}s available={available} not_moved={} left_on_old={left} recreated={changed} writes={writes:.1}/s \
         events={events:.1}/s {recovery} parallel={wave} cpus={cpus}",
        not_moved.len()
    ))
}

/// The hub the fleet moved to names the other its recovery hub, is SIGKILLed, and the backup
/// is restored on the other: the seconds until every cluster is Available there by itself.
async fn lose_the_hub(
    args: &Args,
    binary: &Path,
    recovery: &env::EnvState,
    lost: &env::EnvState,
    fleet: &[SimulatedCluster],
) -> Result<String> {
    let n = fleet.len();
    let before = note_uids(fleet).await?;
    let file = lost.kubeconfig.with_file_name("fleet-backup.yaml");
    let file_text = file.to_string_lossy();
    let (lost_config, recovery_config) = (lost.kubeconfig.to_string_lossy(), recovery.kubeconfig.to_string_lossy());
    let after = format!("{}s", args.recover_after);
    let started = Instant::now();
    let backup = std::process::Command::new(binary)
        .args(["hub", "backup", "-o", &file_text, "--timeout", "30m", "--recover-after", &after])
        .args(["--hub-kubeconfig", &lost_config, "--hub-context", env::HUB])
        .args(["--recovery-hub-kubeconfig", &recovery_config, "--recovery-hub-context", env::HUB])
        .output()?;
    if !backup.status.success() {
        bail!("hub backup failed: {}", String::from_utf8_lossy(&backup.stderr));
    }
    let backup_seconds = started.elapsed().as_secs_f64();
    let size = std::fs::metadata(&file)?.len();
    println!("  hub backup with a recovery hub: {backup_seconds:.1} s, {size} bytes");
    // Every klusterlet holds the recovery hub's kubeconfig before the hub goes.
    let secret = fleetctl_api::names::RECOVERY_HUB_SECRET;
    let agents = fleetctl_api::names::AGENT_NAMESPACE;
    for cluster in fleet {
        let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(cluster.client().clone(), agents);
        fleetctl::lifecycle::wait_for(secrets, secret, "the recovery kubeconfig", TIMEOUT, |s: Option<&_>| s.is_some())
            .await?;
    }
    let hub = lost.clusters.first().context("the hub")?;
    let group = nix::unistd::Pid::from_raw(-i32::try_from(hub.pid)?);
    nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL)?;
    let lost_at = Instant::now();
    let restored = std::process::Command::new(binary)
        .args(["hub", "restore", "-f", &file_text, "--timeout", "30m"])
        .args(["--hub-kubeconfig", &recovery_config, "--hub-context", env::HUB])
        .output()?;
    if !restored.status.success() {
        bail!("hub restore failed: {}", String::from_utf8_lossy(&restored.stderr));
    }
    let recovery_hub = env::client_for(&recovery.kubeconfig, Some(env::HUB)).await?;
    let clusters: Api<ManagedCluster> = Api::all(recovery_hub);
    let mut events =
        kube::runtime::watcher(clusters, kube::runtime::watcher::Config::default()).applied_objects().boxed();
    let mut waiting: std::collections::HashSet<String> = fleet.iter().map(|c| c.name().to_string()).collect();
    while !waiting.is_empty() {
        let cluster: ManagedCluster = events.try_next().await?.context("the cluster watch ended")?;
        if cluster.is_joined() && cluster.is_available() {
            waiting.remove(&cluster.name_any());
        }
    }
    let back = lost_at.elapsed().as_secs_f64();
    let after_uids = note_uids(fleet).await?;
    let changed = before.iter().filter(|(cluster, uid)| after_uids.get(*cluster) != Some(uid)).count();
    println!(
        "  the hub SIGKILLed: all {n} Available on the recovery hub {back:.1} s later (recover-after {}), by \
         themselves; ConfigMaps re-created: {changed}",
        after
    );
    Ok(format!("backup={backup_seconds:.1}s recovered={back:.1}s recover_after={after} recovery_recreated={changed}"))
}

/// The uid of the work's ConfigMap on each cluster.
async fn note_uids(fleet: &[SimulatedCluster]) -> Result<BTreeMap<String, String>> {
    futures::stream::iter(fleet)
        .map(|cluster| async move {
            let config_maps: Api<ConfigMap> = Api::namespaced(cluster.client().clone(), "default");
            let uid = config_maps.get(steady::FLEET_NOTE).await?.uid().context("a ConfigMap without a uid")?;
            anyhow::Ok((cluster.name().to_string(), uid))
        })
        .buffer_unordered(32)
        .try_collect()
        .await
}
