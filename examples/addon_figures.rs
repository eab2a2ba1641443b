//! Figures of the addons on `fleetctl dev up --clusters 1`: the time from the start of
//! `fleetctl import --addons search-collector,cert-policy-controller,iam-policy-controller`
//! until it returns (it waits for the cluster and every addon to be Available), and each
//! addon agent's steady-state resident memory (`VmRSS`; `RssAnon`, the memory of the
//! process itself; `Pss`, which shares the executable's pages among the processes mapping
//! them). The agents run `fleetctld`, found beside `fleetctl`, so the figures follow
//! the build profile, or the `fleetctld` beside the `fleetctl=` given (the README runs
//! the image's, as a pod does).
//! Each run starts a new environment and takes it down after. Asserts nothing.
//!
//! ```text
//! cargo build --release && cargo run --release --example addon_figures
//! cargo run --example addon_figures -- fleetctl=target/debug/fleetctl runs=3 settle=10
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/process.rs"]
mod process;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

const ADDONS: [&str; 3] = ["search-collector", "cert-policy-controller", "iam-policy-controller"];
/// Targets on the 2-core reference machine.
const IMPORT_TARGET: Duration = Duration::from_secs(3);
const RSS_TARGET_MIB: f64 = 7.0;

/// `(VmRSS, RssAnon, Pss)` of one process, in MiB.
type Memory = (f64, f64, f64);

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |key: &str| args.iter().find_map(|a| a.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')));
    let number = |key: &str, default: u64| -> Result<u64> {
        get(key).map_or(Ok(default), |v| v.parse().with_context(|| format!("{key}={v} is not a whole number")))
    };
    let runs = number("runs", 3)?;
    let settle = Duration::from_secs(number("settle", 15)?);
    ensure!(runs > 0, "runs must be ≥ 1");
    let fleetctl = binary::fleetctl(get("fleetctl"))?;
    println!("addons on dev up --clusters 1 with {}", fleetctl.display());

    let mut times = Vec::new();
    for run in 1..=runs {
        let tmp = tempfile::tempdir().context("a temporary directory")?;
        let dir = tmp.path().join("dev");
        let result = one_run(&fleetctl, &dir, settle);
        let down = Command::new(&fleetctl).args(["dev", "down", "--dir"]).arg(&dir).output();
        let (elapsed, rss) = result?;
        ensure!(down.is_ok_and(|d| d.status.success()), "dev down failed");
        println!("  run {run}: import → all addons Available {:>7.1} ms", elapsed.as_secs_f64() * 1000.0);
        for (addon, (vm, anon, pss)) in ADDONS.iter().zip(rss) {
            println!(
                "         {addon:<24} VmRSS {vm:>5.1} MiB   RssAnon {anon:>4.1} MiB   Pss {pss:>4.1} MiB   \
                 (target ≤ {RSS_TARGET_MIB} MiB)"
            );
        }
        times.push(elapsed);
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "median import → all addons Available: {:.1} ms (target ≤ {:?})",
        median.as_secs_f64() * 1000.0,
        IMPORT_TARGET
    );
    Ok(())
}

/// One environment: the import time and the memory of each addon agent.
fn one_run(fleetctl: &Path, dir: &Path, settle: Duration) -> Result<(Duration, Vec<Memory>)> {
    let up = Command::new(fleetctl).args(["dev", "up", "--clusters", "1", "--dir"]).arg(dir).output()?;
    if !up.status.success() {
        bail!("dev up failed: {}", String::from_utf8_lossy(&up.stderr));
    }
    let started = Instant::now();
    let import = Command::new(fleetctl)
        .args(["-q", "import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "--addons"])
        .arg(ADDONS.join(","))
        .env("KUBECONFIG", dir.join("kubeconfig"))
        .output()?;
    let elapsed = started.elapsed();
    if !import.status.success() {
        bail!("import failed: {}", String::from_utf8_lossy(&import.stderr));
    }
    // Steady state: past start-up, a few scans and lease renewals.
    std::thread::sleep(settle);
    let rss = ADDONS.iter().map(|addon| memory(dir, addon)).collect::<Result<Vec<_>>>()?;
    Ok((elapsed, rss))
}

/// `(VmRSS, RssAnon, Pss)` in MiB of the addon agent of this environment (Pss shares each
/// page of the executable among the processes that map it).
fn memory(dir: &Path, addon: &str) -> Result<Memory> {
    // The managed cluster's dev server leads the process group of the pods it runs.
    let state = fleetctl_devcluster::env::read_state(dir)?;
    let cluster = state.clusters.iter().find(|c| c.name == "cluster1").context("cluster1 in the environment")?;
    let pid = *process::pids_in_group(cluster.pid, &format!("addon {addon}"))
        .first()
        .with_context(|| format!("no {addon} process"))?;
    let mib = |kib: Option<u64>| kib.map(|kib| kib as f64 / 1024.0).with_context(|| format!("the memory of {addon}"));
    Ok((mib(process::rss_kib(pid))?, mib(process::anon_kib(pid))?, mib(process::pss_kib(pid))?))
}
