//! Importing a fleet: the wall time of one `fleetctl import --contexts c1,…,cN` against N
//! sequential `fleetctl import cI --cluster-context cI`, on one `dev up --clusters N`
//! (the fleet is detached in between, with one `fleetctl detach c1 … cN`).
//!
//! ```sh
//! cargo build --workspace --release && cargo run --release --example fleet_import_bench [-- CLUSTERS [PARALLEL]]
//! ```

#[path = "support/binary.rs"]
mod binary;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl_devcluster::env;

fn timed(binary: &Path, kubeconfig: &Path, args: &[&str]) -> Result<Duration> {
    let started = Instant::now();
    let output = Command::new(binary).args(args).env("KUBECONFIG", kubeconfig).env("NO_COLOR", "1").output()?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        bail!("fleetctl {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(elapsed)
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let clusters: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(20);
    let parallel: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(clusters);
    let binary = binary::fleetctl(None)?;
    let dir = tempfile::tempdir()?;
    let printer = Printer::new(&TerminalFlags::default());
    let options =
        up_options(&printer, binary.clone(), dir.path().to_path_buf(), clusters, None, Duration::from_secs(300));
    let started = Instant::now();
    let state = env::up(&options).await?;
    let up = started.elapsed();
    let kubeconfig = state.kubeconfig.clone();
    let names: Vec<String> = (1..=clusters).map(|i| format!("cluster{i}")).collect();
    let hub = ["--hub-context", "hub", "--timeout", "10m"];

    let contexts = names.join(",");
    let parallel_text = parallel.to_string();
    let at_once = timed(
        &binary,
        &kubeconfig,
        &[&["import", "--contexts", &contexts, "--parallel", &parallel_text][..], &hub].concat(),
    )?;
    let detach: Vec<&str> = ["detach", "--yes", "--parallel", &parallel_text]
        .into_iter()
        .chain(names.iter().map(String::as_str))
        .chain(hub)
        .collect();
    let detached = timed(&binary, &kubeconfig, &detach)?;

    let mut one_by_one = Duration::ZERO;
    for name in &names {
        one_by_one += timed(&binary, &kubeconfig, &[&["import", name, "--cluster-context", name][..], &hub].concat())?;
    }
    env::down(dir.path(), Duration::from_secs(5)).await?;

    println!("fleet_import_bench on dev up --clusters {clusters} (up in {:.1} s):", up.as_secs_f64());
    println!("  import --contexts ({clusters} clusters, --parallel {parallel}) {:>8.2} s", at_once.as_secs_f64());
    println!("  {clusters} sequential imports                         {:>8.2} s", one_by_one.as_secs_f64());
    println!(
        "  speed-up                                          {:>8.2}×",
        one_by_one.as_secs_f64() / at_once.as_secs_f64()
    );
    println!("  detach of all {clusters} (--parallel {parallel})                  {:>8.2} s", detached.as_secs_f64());
    Ok(())
}
