//! A hub outage under a simulated fleet: how hard the fleet knocks at the hub's address while
//! the hub is down, and how long it takes to come back once the hub returns.
//!
//! The hub is a durable `dev up` environment without managed clusters (its API server a
//! `fleetctl dev serve` process, its controller a `fleetctld hub` process in that server's
//! process group); N clusters are simulated in this process, as `fleetctl dev fleet` runs
//! them ([`fleetctl::simulator`]), with a 10 s lease so that every agent meets the outage.
//! The outage stops the hub's process group (API server and controller, as a control
//! plane that goes down) and holds its port: every connection the fleet opens to the hub
//! meanwhile is accepted and closed at once, and counted — a request finds no connection to
//! the hub and opens one (the agents' hub clients multiplex their requests on one
//! connection per identity, so concurrent requests of one agent may share an attempt). The
//! hub then starts again on its store and port, and the figures are the seconds until every
//! cluster has renewed its lease and is Available again, and until a ManifestWork created
//! at the return is Applied on every cluster, with the requests the hub answered meanwhile.
//!
//! ```sh
//! cargo build --workspace --release && cargo run --release --example hub_outage -- [--clusters 100] [--outage 60]
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/process.rs"]
mod process;
#[path = "support/requests.rs"]
mod requests;

use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl::simulator::{SimulatedCluster, import_fleet, start_fleet};
use fleetctl_api::conditions as c;
use fleetctl_api::names::CLUSTER_LEASE;
use fleetctl_api::work::Manifest;
use fleetctl_api::{ManagedCluster, ManifestWork};
use fleetctl_devcluster::env::{self, ClusterRecord, UpOptions};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The lease the agents renew at: the hub's grace (5 periods) is shorter than the outage,
/// and every agent's renewal falls into it.
const SHORT_LEASE_SECONDS: i32 = 10;
/// How long the fleet's import, and its return after the outage, may take.
const TIMEOUT: Duration = Duration::from_secs(900);

struct Args {
    clusters: usize,
    outage: Duration,
}

fn args() -> Result<Args> {
    let mut parsed = Args { clusters: 100, outage: Duration::from_secs(60) };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--clusters" => parsed.clusters = value.parse()?,
            "--outage" => parsed.outage = Duration::from_secs(value.parse()?),
            other => bail!("unknown flag {other}: --clusters N --outage SECONDS"),
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
    let dir = tempfile::tempdir()?;
    let printer = Printer::new(&TerminalFlags::default());
    let options = UpOptions {
        durable: true,
        ..up_options(&printer, binary.clone(), dir.path().to_path_buf(), 0, None, Duration::from_secs(120))
    };
    let state = env::up(&options).await?;
    let hub = state.clusters.first().context("the hub")?.clone();
    let mut restarted: Option<u32> = None;
    let outcome = run(&args, &binary, &state.kubeconfig, &hub, &mut restarted).await;
    if let Some(group) = restarted {
        stop_group(group).await;
    }
    env::down(dir.path(), Duration::from_secs(5)).await?;
    println!("hub_outage: N={} outage={}s {}", args.clusters, args.outage.as_secs(), outcome?);
    Ok(())
}

async fn run(
    args: &Args,
    binary: &Path,
    kubeconfig: &Path,
    hub_record: &ClusterRecord,
    restarted: &mut Option<u32>,
) -> Result<String> {
    let n = args.clusters;
    let hub = env::client_for(kubeconfig, Some(env::HUB)).await?;
    let fleet = start_fleet("sim", n)?;
    let parallel = NonZeroUsize::new(32).context("32")?;
    let started = Instant::now();
    import_fleet(&hub, &hub_record.url, &fleet, parallel, TIMEOUT).await?;
    println!("hub_outage: {n} simulated clusters Available after {:.1} s", started.elapsed().as_secs_f64());
    shorten_leases(&hub, &fleet).await?;

    // The outage: the hub's process group stops, and its port answers nothing but counts.
    let command = command_line(hub_record.pid)?;
    stop_group(hub_record.pid).await;
    let port: u16 = hub_record.url.rsplit(':').next().context("the hub's port")?.parse()?;
    let per_second = count_connections(port, args.outage).await?;
    let total: u64 = per_second.iter().sum();
    let outage_seconds = args.outage.as_secs_f64();
    let tenth = (per_second.len() / 10).max(1);
    let first: u64 = per_second.iter().take(tenth).sum();
    let last: u64 = per_second.iter().rev().take(tenth).sum();
    println!(
        "  during the {outage_seconds:.0} s outage: {total} connections to the hub's address, {:.1}/s \
         ({:.2}/s per cluster); first {tenth} s {:.1}/s, last {tenth} s {:.1}/s",
        total as f64 / outage_seconds,
        total as f64 / outage_seconds / n.max(1) as f64,
        first as f64 / tenth as f64,
        last as f64 / tenth as f64,
    );
    println!("  per second: {per_second:?}");

    // The return.
    *restarted = Some(start_hub(binary, &command, hub_record, port).await?);
    let back = Instant::now();
    let hub = env::client_for(kubeconfig, Some(env::HUB)).await?;
    let answered_before = requests::Requests::read(&hub).await?;
    let (available, applied) = tokio::try_join!(all_renewed_and_available(&hub, &fleet), work_to_all(&hub, &fleet))?;
    let answered = requests::Requests::read(&hub).await?.since(&answered_before);
    let converged = back.elapsed().as_secs_f64();
    println!(
        "  after the return: every lease renewed and every cluster Available in {available:.1} s; \
         a new ManifestWork Applied on every cluster in {applied:.1} s"
    );
    println!(
        "  the hub answered {} requests until then ({:.1} per cluster):",
        answered.total(),
        answered.total() as f64 / n.max(1) as f64
    );
    answered.print_top(10, n);
    Ok(format!(
        "outage_connections_per_s={:.1} available_after={available:.1}s work_after={applied:.1}s converged={converged:.1}s \
         requests_to_converge={}",
        total as f64 / outage_seconds,
        answered.total()
    ))
}

/// Shortens every cluster's lease and waits until each agent has renewed at the new period.
async fn shorten_leases(hub: &Client, fleet: &[SimulatedCluster]) -> Result<()> {
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let mut leases = applied(Api::<Lease>::all(hub.clone()), watcher::Config::default());
    futures::stream::iter(fleet)
        .map(|cluster| {
            let patch = serde_json::json!({ "spec": { "leaseDurationSeconds": SHORT_LEASE_SECONDS } });
            let clusters = clusters.clone();
            async move { clusters.patch(cluster.name(), &PatchParams::default(), &Patch::Merge(patch)).await.map(|_| ()) }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>()
        .await?;
    let mut short: HashSet<String> = HashSet::new();
    while short.len() < fleet.len() {
        let lease = leases.next().await.context("the lease watch ended")?;
        if lease.spec.as_ref().and_then(|s| s.lease_duration_seconds) == Some(SHORT_LEASE_SECONDS) {
            short.insert(lease.namespace().unwrap_or_default());
        }
    }
    Ok(())
}

/// The command line of a running process.
fn command_line(pid: u32) -> Result<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).context("reading the hub's command line")?;
    Ok(raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect())
}

/// Stops a dev cluster's process group (the server stops its containers on SIGTERM, the
/// rest is killed after five seconds) and returns once none of it runs.
async fn stop_group(group: u32) {
    let _ = kill(Pid::from_raw(group as i32), Signal::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(5);
    // Not our children (or, the server, one `dev up` started and did not keep): nothing to
    // wait on but /proc, as `dev down` does.
    while !running_in_group(group).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for pid in running_in_group(group) {
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
    while !running_in_group(group).is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The processes of `group` that have not exited (a process that exited but is not reaped
/// yet — the server, whose parent is this program — has ended all the same).
fn running_in_group(group: u32) -> Vec<u32> {
    let exited = |pid: &u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).is_none_or(|state| state == "Z")
    };
    process::pids_in_group(group, "").into_iter().filter(|pid| !exited(pid)).collect()
}

/// Holds `port` for `outage`, accepting and closing every connection; the count per second.
async fn count_connections(port: u16, outage: Duration) -> Result<Vec<u64>> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.context("holding the hub's port")?;
    let seconds = usize::try_from(outage.as_secs()).context("the outage's length")?;
    let counts: Arc<Vec<AtomicU64>> = Arc::new((0..seconds).map(|_| AtomicU64::new(0)).collect());
    let started = Instant::now();
    let accepting = async {
        loop {
            if let Ok((stream, _)) = listener.accept().await {
                drop(stream);
                let second = usize::try_from(started.elapsed().as_secs()).unwrap_or(usize::MAX);
                if let Some(count) = counts.get(second) {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    };
    let _ = tokio::time::timeout(outage, accepting).await;
    Ok(counts.iter().map(|c| c.load(Ordering::Relaxed)).collect())
}

/// Starts the hub again with its command line on its port (as `dev restart` does), logging
/// where it logged; returns its process group once it answers (its kubeconfig, rewritten
/// when it is ready).
async fn start_hub(binary: &Path, command: &[String], record: &ClusterRecord, port: u16) -> Result<u32> {
    use std::os::unix::process::CommandExt;
    let mut args: Vec<String> = command.iter().skip(1).cloned().collect();
    if let Some(at) = args.iter().position(|a| a == "--port") {
        args.drain(at..(at + 2).min(args.len()));
    }
    args.extend(["--port".to_string(), port.to_string()]);
    std::fs::remove_file(&record.kubeconfig).context("removing the hub's kubeconfig")?;
    let log = std::fs::OpenOptions::new().append(true).open(&record.log)?;
    let child = std::process::Command::new(binary)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("starting the hub again")?;
    let group = child.id();
    let deadline = Instant::now() + Duration::from_secs(60);
    // The kubeconfig appears once the server answers (`dev up` and `dev restart` wait the same way).
    while !record.kubeconfig.is_file() {
        if Instant::now() > deadline {
            bail!("the hub did not come back within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(group)
}

/// Seconds until every cluster of `fleet` has renewed its lease since now and is Available.
async fn all_renewed_and_available(hub: &Client, fleet: &[SimulatedCluster]) -> Result<f64> {
    let started = Instant::now();
    let since = jiff::Timestamp::now();
    let names: HashSet<String> = fleet.iter().map(|c| c.name().to_string()).collect();
    let mut renewed: HashSet<String> = HashSet::new();
    let mut available: HashSet<String> = HashSet::new();
    let only_cluster_leases = watcher::Config::default().fields(&format!("metadata.name={CLUSTER_LEASE}"));
    let leases = applied(Api::<Lease>::all(hub.clone()), only_cluster_leases).map(Seen::Lease);
    let clusters = applied(Api::<ManagedCluster>::all(hub.clone()), watcher::Config::default()).map(Seen::Cluster);
    let mut seen = futures::stream::select(leases, clusters);
    let deadline = tokio::time::sleep(TIMEOUT);
    tokio::pin!(deadline);
    while !names.iter().all(|name| renewed.contains(name) && available.contains(name)) {
        let next = tokio::select! {
            next = seen.next() => next.context("the watches ended")?,
            () = &mut deadline => bail!("the fleet did not come back within {TIMEOUT:?}"),
        };
        match next {
            Seen::Lease(lease) => {
                let renewal = lease.spec.as_ref().and_then(|s| s.renew_time.as_ref()).map(|t| t.0);
                if renewal.is_some_and(|at| at >= since) {
                    renewed.insert(lease.namespace().unwrap_or_default());
                }
            }
            Seen::Cluster(cluster) => {
                if c::is_true(cluster.conditions(), c::MANAGED_CLUSTER_AVAILABLE) {
                    available.insert(cluster.name_any());
                } else {
                    available.remove(&cluster.name_any());
                }
            }
        }
    }
    Ok(started.elapsed().as_secs_f64())
}

enum Seen {
    Lease(Lease),
    Cluster(ManagedCluster),
}

/// Seconds from creating a ConfigMap work for every cluster until all are Applied.
async fn work_to_all(hub: &Client, fleet: &[SimulatedCluster]) -> Result<f64> {
    let config_map = ConfigMap {
        metadata: ObjectMeta {
            name: Some("after-outage".into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        data: Some([("note".to_string(), "the hub is back".to_string())].into()),
        ..ConfigMap::default()
    };
    let manifest = Manifest::from_object(&config_map)?;
    let mut waiting: HashSet<String> = fleet.iter().map(|c| c.name().to_string()).collect();
    let only = watcher::Config::default().fields("metadata.name=after-outage");
    let mut works = applied(Api::<ManifestWork>::all(hub.clone()), only);
    let started = Instant::now();
    let creates = futures::stream::iter(fleet)
        .map(|cluster| {
            let work = ManifestWork::for_cluster(cluster.name(), "after-outage", vec![manifest.clone()]);
            let api: Api<ManifestWork> = Api::namespaced(hub.clone(), cluster.name());
            async move { api.create(&PostParams::default(), &work).await.map(|_| ()) }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>();
    let watch = async {
        while !waiting.is_empty() {
            let work = works.next().await.context("the watch ended")?;
            if work.is_applied() {
                waiting.remove(&work.namespace().unwrap_or_default());
            }
        }
        anyhow::Ok(())
    };
    let (created, watched) = tokio::join!(creates, watch);
    created?;
    watched?;
    Ok(started.elapsed().as_secs_f64())
}

/// The objects a watch applies, its errors waited out with kube-runtime's default backoff
/// and left out (the hub may still be settling when a watch starts).
fn applied<K>(api: Api<K>, config: watcher::Config) -> BoxStream<'static, K>
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
{
    watcher(api, config).default_backoff().applied_objects().filter_map(|object| async move { object.ok() }).boxed()
}
