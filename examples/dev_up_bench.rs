//! Figure: the time `fleetctl dev up --clusters 2` takes to return, which it does once
//! the hub and both managed clusters answer `/readyz` and the hub controller
//! Deployment is Available (its process started by the hub's node simulator). Each
//! run starts from nothing (a new directory, in-memory stores) and is followed by
//! `dev down`. Prints every run and the median next to the target; asserts nothing.
//!
//! ```text
//! cargo build --release && cargo run --release --example dev_up_bench
//! cargo run --example dev_up_bench -- fleetctl=target/debug/fleetctl runs=9 clusters=2
//! ```
//!
//! The fleetctl binary is the `fleetctl` beside the examples folder the example runs
//! from (`target/<profile>/fleetctl`, so build it in the same profile first), or the
//! one given as `fleetctl=PATH`.

#[path = "support/binary.rs"]
mod binary;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

/// Target on the 2-core reference machine.
const TARGET: Duration = Duration::from_secs(3);

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |key: &str| args.iter().find_map(|a| a.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')));
    let number = |key: &str, default: usize| -> Result<usize> {
        get(key).map_or(Ok(default), |v| v.parse().with_context(|| format!("{key}={v} is not a whole number")))
    };
    let runs = number("runs", 5)?;
    let clusters = number("clusters", 2)?;
    ensure!(runs > 0, "runs must be ≥ 1");
    let fleetctl = binary::fleetctl(get("fleetctl"))?;
    println!("dev up --clusters {clusters} with {}", fleetctl.display());

    let mut times = Vec::with_capacity(runs);
    for run in 1..=runs {
        let tmp = tempfile::tempdir().context("a temporary directory")?;
        let dir = tmp.path().join("dev").display().to_string();
        let started = Instant::now();
        let up = Command::new(&fleetctl)
            .args(["dev", "up", "--clusters", &clusters.to_string(), "--dir", &dir])
            .output()
            .context("running dev up")?;
        let elapsed = started.elapsed();
        let down = Command::new(&fleetctl).args(["dev", "down", "--dir", &dir]).output().context("running dev down")?;
        if !up.status.success() {
            bail!("dev up failed: {}", String::from_utf8_lossy(&up.stderr));
        }
        ensure!(down.status.success(), "dev down failed: {}", String::from_utf8_lossy(&down.stderr));
        println!("  run {run}: {:>7.1} ms", elapsed.as_secs_f64() * 1000.0);
        times.push(elapsed);
    }
    times.sort();
    let median = times[times.len() / 2];
    let verdict = if median <= TARGET { "within" } else { "OVER" };
    println!(
        "dev up --clusters {clusters} to ready: median {:.1} ms of {runs} runs ({verdict} the {} s target)",
        median.as_secs_f64() * 1000.0,
        TARGET.as_secs()
    );
    Ok(())
}
