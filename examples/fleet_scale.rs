//! A fleet of N simulated clusters against a dev hub: the figures of issue 15.
//!
//! The hub is a `dev up` environment without managed clusters: its API server is a
//! `fleetctl dev serve` process and its controller a `fleetctld hub` process of its own,
//! so each one's memory and CPU are its own. The N clusters are simulated in this process
//! ([`fleetctl::simulator`]: an in-process API server per cluster, the real klusterlet on
//! it, HTTPS with a certificate of its own to the hub) and imported with the import
//! library operation, 32 at a time, as `fleetctl import` does for each. The fleet-wide
//! commands are the `fleetctl` binary, timed as a person runs them.
//!
//! ```sh
//! cargo build --workspace --release
//! cargo run --release --example fleet_scale -- --clusters 1000 [--parallel 32] [--upgrade-parallel 100] [--steady 120] [--settle 60]
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/process.rs"]
mod process;
#[path = "support/requests.rs"]
mod requests;
#[path = "support/steady.rs"]
mod steady;

use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl::simulator::{SIMULATED_LABEL, SimulatedCluster, import_fleet, start_fleet};
use fleetctl_api::conditions as c;
use fleetctl_api::{ManagedCluster, ManifestWork};
use fleetctl_devcluster::env;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use kube::discovery::{Discovery, verbs};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};

/// The lease the agents renew at during the outage phase (the hub's grace is 5 periods).
const SHORT_LEASE_SECONDS: i32 = 10;
/// How long the import of the whole fleet may take: an hour, so that a run that misses the
/// 10-minute goal still measures everything after it (10,000 clusters on two cores took
/// longer than 30 minutes).
const TIMEOUT: Duration = Duration::from_secs(3600);

struct Args {
    clusters: usize,
    parallel: NonZeroUsize,
    upgrade_parallel: usize,
    steady: Duration,
    settle: Duration,
}

fn args() -> Result<Args> {
    let mut parsed = Args {
        clusters: 1000,
        parallel: NonZeroUsize::new(32).context("32")?,
        upgrade_parallel: 100,
        steady: Duration::from_secs(120),
        settle: Duration::from_secs(60),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--clusters" => parsed.clusters = value.parse()?,
            "--parallel" => parsed.parallel = value.parse()?,
            "--upgrade-parallel" => parsed.upgrade_parallel = value.parse()?,
            "--steady" => parsed.steady = Duration::from_secs(value.parse()?),
            "--settle" => parsed.settle = Duration::from_secs(value.parse()?),
            other => bail!(
                "unknown flag {other}: --clusters N --parallel K --upgrade-parallel K --steady SECONDS --settle SECONDS"
            ),
        }
    }
    Ok(parsed)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).map_or(0.0, Duration::as_secs_f64)
}

fn mib(kib: Option<u64>) -> f64 {
    kib.unwrap_or_default() as f64 / 1024.0
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
    let n = args.clusters;
    let binary = binary::fleetctl(None)?;
    let dir = tempfile::tempdir()?;
    let printer = Printer::new(&TerminalFlags::default());
    let options = up_options(&printer, binary.clone(), dir.path().to_path_buf(), 0, None, Duration::from_secs(120));
    let state = env::up(&options).await?;
    let outcome = run(&args, &binary, &state).await;
    env::down(dir.path(), Duration::from_secs(5)).await?;
    let summary = outcome?;
    println!("fleet_scale: N={n} {summary}");
    Ok(())
}

async fn run(args: &Args, binary: &Path, state: &env::EnvState) -> Result<String> {
    let n = args.clusters;
    let cpus = std::thread::available_parallelism().map_or(0, NonZeroUsize::get);
    let hub_record = state.clusters.first().context("the hub")?;
    let api_server = hub_record.pid;
    let controller =
        *process::pids_in_group(api_server, "fleetctld hub").first().context("the hub controller process")?;
    let hub = env::client_for(&state.kubeconfig, Some(env::HUB)).await?;
    let kubeconfig = state.kubeconfig.as_path();
    let hub_flags = ["--hub-context", env::HUB];
    println!("fleet_scale: {n} simulated clusters on a dev hub, {cpus} CPUs");

    // Import.
    let me = std::process::id();
    let before = process::rss_kib(me).unwrap_or_default();
    let fleet = start_fleet("sim", n)?;
    let started = Instant::now();
    let imported = import_fleet(&hub, &hub_record.url, &fleet, args.parallel, TIMEOUT).await?;
    let all_available = started.elapsed().as_secs_f64();
    let mut times: Vec<Duration> = imported.per_cluster.iter().map(|(_, t)| *t).collect();
    times.sort();
    let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
    let per_cluster_kib = (process::rss_kib(me).unwrap_or_default().saturating_sub(before)) / n.max(1) as u64;
    println!(
        "  all {n} Available after {all_available:.1} s (import → Available per cluster: p50 {p50:.1} s, p99 {p99:.1} s; {} at once)",
        args.parallel
    );
    println!(
        "  simulator memory per cluster {:.2} MiB (RSS delta / N, agents' hub TLS included; goal ≤ 1 MiB)",
        per_cluster_kib as f64 / 1024.0
    );

    // Steady state.
    let objects = count_objects(&hub).await?;
    println!("  dev hub API server objects {objects}");
    // What the import set going (the klusterlet works' status, first renewals) ends
    // within a lease period; the window starts after it.
    tokio::time::sleep(args.settle).await;
    let (writes, events) = steady::steady_state(&hub, args.steady, n).await?;
    let lease_rate = n as f64 / f64::from(fleetctl_api::cluster::DEFAULT_LEASE_DURATION_SECONDS);
    println!(
        "  steady state over {} s: hub writes {writes:.1}/s (goal ≤ 1.1 × N / lease period = {:.1}/s), watch events {events:.1}/s",
        args.steady.as_secs(),
        1.1 * lease_rate
    );

    // Upgrade: every cluster, whatever fails (a failure is a figure here, not a stop), and
    // a cluster that fails is left as it failed, for the report below to show where it is.
    let wave = args.upgrade_parallel.to_string();
    let all = n.to_string();
    let started = Instant::now();
    let upgraded = std::process::Command::new(binary)
        .args([
            "upgrade",
            "--all",
            "--to",
            "0.2.0",
            "--parallel",
            &wave,
            "--max-failures",
            &all,
            "--no-rollback",
            "-o",
            "json",
        ])
        .args(hub_flags)
        .env("KUBECONFIG", kubeconfig)
        .output()?;
    let upgrade = started.elapsed();
    let report: serde_json::Value = serde_json::from_slice(&upgraded.stdout).context("upgrade -o json")?;
    let results = report["clusters"].as_array().context("the upgrade report's clusters")?;
    let not_upgraded: Vec<&serde_json::Value> = results.iter().filter(|c| c["result"] != "running 0.2.0").collect();
    let failed: Vec<&str> = not_upgraded.iter().filter_map(|c| c["cluster"].as_str()).collect();
    println!(
        "  upgrade --all --to 0.2.0 --parallel {wave}: {:.1} s; not upgraded: {} {failed:?}",
        upgrade.as_secs_f64(),
        failed.len()
    );
    for result in not_upgraded.iter().take(3) {
        println!("    {}: {}", result["cluster"], result["result"]);
        if let Some(cluster) = fleet.iter().find(|c| Some(c.name()) == result["cluster"].as_str()) {
            println!("{}", straggler(&hub, cluster).await?);
        }
    }

    // A ManifestWork to every cluster.
    let work = steady::work_to_all(&hub, &fleet).await?;
    println!("  a ManifestWork to every cluster: all Applied after {work:.1} s");

    // Fleet-wide reads.
    let get = binary::timed(binary, kubeconfig, &[&["get", "clusters"][..], &hub_flags].concat())?;
    let wide = binary::timed(binary, kubeconfig, &[&["get", "clusters", "-o", "wide"][..], &hub_flags].concat())?;
    println!("  get clusters {:.2} s, get clusters -o wide {:.2} s", get.as_secs_f64(), wide.as_secs_f64());

    // 10% of the agents stop.
    let mut fleet = fleet;
    let (unknown_after, false_unknown) = outage(&hub, &mut fleet).await?;
    println!(
        "  10% of agents stopped (lease {SHORT_LEASE_SECONDS} s, grace 5): all Unknown after {unknown_after:.1} s; false Unknown among the others: {false_unknown}"
    );

    // Detach.
    let parallel = args.parallel.to_string();
    let selector = format!("{SIMULATED_LABEL}=true");
    let detach = binary::timed(
        binary,
        kubeconfig,
        &[&["detach", "-l", &selector, "--yes", "--parallel", &parallel, "--timeout", "10m"][..], &hub_flags].concat(),
    )?;
    let left = Api::<ManagedCluster>::all(hub.clone()).list_metadata(&ListParams::default()).await?.items.len();
    let namespaces = Api::<Namespace>::all(hub.clone()).list_metadata(&ListParams::default()).await?;
    let left_namespaces = namespaces.items.iter().filter(|ns| ns.name_any().starts_with("sim-")).count();
    println!(
        "  detach of all {n} ({parallel} at once): {:.1} s; left: {left} clusters, {left_namespaces} cluster namespaces",
        detach.as_secs_f64()
    );

    let controller_rss = mib(process::peak_rss_kib(controller));
    let controller_cpu = process::cpu_seconds(controller).unwrap_or_default();
    let api_rss = mib(process::peak_rss_kib(api_server));
    let api_cpu = process::cpu_seconds(api_server).unwrap_or_default();
    println!("  hub controller peak RSS {controller_rss:.0} MiB (goal ≤ 500 MiB at 10,000), CPU {controller_cpu:.0} s");
    println!("  dev hub API server peak RSS {api_rss:.0} MiB (goal ≤ 2 GiB at 10,000), CPU {api_cpu:.0} s");
    Ok(format!(
        "available={all_available:.1}s p50={p50:.1}s p99={p99:.1}s sim_per_cluster={:.2}MiB controller_rss={controller_rss:.0}MiB \
         controller_cpu={controller_cpu:.0}s apiserver_rss={api_rss:.0}MiB objects={objects} writes={writes:.1}/s events={events:.1}/s \
         upgrade={:.1}s work={work:.1}s unknown={unknown_after:.1}s false_unknown={false_unknown} get={:.2}s get_wide={:.2}s detach={:.1}s cpus={cpus}",
        per_cluster_kib as f64 / 1024.0,
        upgrade.as_secs_f64(),
        get.as_secs_f64(),
        wide.as_secs_f64(),
        detach.as_secs_f64(),
    ))
}

/// Every object the hub stores, over every listable resource discovery names.
/// Where a cluster that did not report the new version stands, on the hub and on the
/// cluster: its version claim and conditions, its works' conditions, the Klusterlet's
/// images, and the agents' Deployments and Pods.
async fn straggler(hub: &Client, cluster: &SimulatedCluster) -> Result<String> {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::Pod;
    let name = cluster.name();
    let mut out = format!("  straggler {name}:");
    let managed = Api::<ManagedCluster>::all(hub.clone()).get(name).await?;
    let status = managed.status.unwrap_or_default();
    let claims: Vec<String> = status.cluster_claims.iter().map(|c| format!("{}={}", c.name, c.value)).collect();
    let conditions: Vec<String> = status.conditions.iter().map(|c| format!("{}={}", c.type_, c.status)).collect();
    out += &format!("\n    hub: claims {claims:?} conditions {conditions:?}");
    for work in Api::<ManifestWork>::namespaced(hub.clone(), name).list(&ListParams::default()).await? {
        let conditions: Vec<String> = work
            .status
            .iter()
            .flat_map(|s| &s.conditions)
            .map(|c| format!("{}={} (gen {:?})", c.type_, c.status, c.observed_generation))
            .collect();
        out += &format!("\n    work {} generation {:?}: {conditions:?}", work.name_any(), work.metadata.generation);
    }
    let klusterlets =
        Api::<fleetctl_api::Klusterlet>::all(cluster.client().clone()).list(&ListParams::default()).await?;
    for k in klusterlets {
        out += &format!(
            "\n    klusterlet {}: registration {} work {} generation {:?}",
            k.name_any(),
            k.spec.registration_image_pull_spec,
            k.spec.work_image_pull_spec,
            k.metadata.generation
        );
    }
    let agents = fleetctl_api::names::AGENT_NAMESPACE;
    for d in Api::<Deployment>::namespaced(cluster.client().clone(), agents).list(&ListParams::default()).await? {
        let images: Vec<String> = d
            .spec
            .iter()
            .flat_map(|s| &s.template.spec)
            .flat_map(|p| &p.containers)
            .filter_map(|c| c.image.clone())
            .collect();
        let status = d.status.unwrap_or_default();
        out += &format!(
            "\n    deployment {}: {images:?} replicas {:?} updated {:?} available {:?}",
            d.metadata.name.unwrap_or_default(),
            status.replicas,
            status.updated_replicas,
            status.available_replicas
        );
    }
    for p in Api::<Pod>::namespaced(cluster.client().clone(), agents).list(&ListParams::default()).await? {
        let images: Vec<String> = p.spec.iter().flat_map(|s| &s.containers).filter_map(|c| c.image.clone()).collect();
        let phase = p.status.and_then(|s| s.phase);
        let deleting = p.metadata.deletion_timestamp.is_some();
        out += &format!("\n    pod {}: {images:?} {phase:?} deleting {deleting}", p.metadata.name.unwrap_or_default());
    }
    Ok(out)
}

/// The hub's objects, counted in pages of 500 as kubectl reads a list: one unpaged list
/// of 30,000 secrets would be the API server's peak memory, not the fleet's.
async fn count_objects(hub: &Client) -> Result<usize> {
    let discovery = Discovery::new(hub.clone()).run().await?;
    let mut total = 0;
    for group in discovery.groups() {
        for (resource, capabilities) in group.recommended_resources() {
            if !capabilities.supports_operation(verbs::LIST) {
                continue;
            }
            let api: Api<DynamicObject> = Api::all_with(hub.clone(), &resource);
            let mut params = ListParams::default().limit(500);
            loop {
                let Ok(page) = api.list_metadata(&params).await else { break };
                total += page.items.len();
                match page.metadata.continue_ {
                    Some(token) if !token.is_empty() => params = params.continue_token(&token),
                    _ => break,
                }
            }
        }
    }
    Ok(total)
}

/// Shortens every cluster's lease, waits until each agent renews at the short period,
/// stops every tenth cluster's agents, and returns the seconds until the hub has marked
/// all of them Unknown and how many of the others it marked Unknown until then.
async fn outage(hub: &Client, fleet: &mut [SimulatedCluster]) -> Result<(f64, usize)> {
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let mut renewed_short: HashSet<String> = HashSet::new();
    let mut leases = watcher(Api::<Lease>::all(hub.clone()), watcher::Config::default()).applied_objects().boxed();
    futures::stream::iter(fleet.iter())
        .map(|cluster| {
            let patch = serde_json::json!({ "spec": { "leaseDurationSeconds": SHORT_LEASE_SECONDS } });
            let clusters = clusters.clone();
            async move { clusters.patch(cluster.name(), &PatchParams::default(), &Patch::Merge(patch)).await.map(|_| ()) }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>()
        .await?;
    while renewed_short.len() < fleet.len() {
        let lease = leases.try_next().await?.context("the lease watch ended")?;
        if lease.spec.as_ref().and_then(|s| s.lease_duration_seconds) == Some(SHORT_LEASE_SECONDS) {
            renewed_short.insert(lease.namespace().unwrap_or_default());
        }
    }
    drop(leases);
    let mut events = watcher(clusters, watcher::Config::default()).applied_objects().boxed();
    let stopped: HashSet<String> = fleet.iter().step_by(10).map(|c| c.name().to_string()).collect();
    for cluster in fleet.iter_mut().step_by(10) {
        cluster.stop_agents();
    }
    let started = Instant::now();
    let mut unknown: HashSet<String> = HashSet::new();
    let mut false_unknown: HashSet<String> = HashSet::new();
    while !stopped.iter().all(|name| unknown.contains(name)) {
        let cluster = events.try_next().await?.context("the cluster watch ended")?;
        let name = cluster.name_any();
        if c::has_status(cluster.conditions(), c::MANAGED_CLUSTER_AVAILABLE, c::UNKNOWN) {
            if stopped.contains(&name) {
                unknown.insert(name);
            } else {
                false_unknown.insert(name);
            }
        }
    }
    Ok((started.elapsed().as_secs_f64(), false_unknown.len()))
}
