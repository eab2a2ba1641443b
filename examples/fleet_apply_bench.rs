//! Fleets as code on one `dev up --clusters N`: the time of `fleetctl plan -f FLEET` on an
//! empty hub and the changes it shows, of `fleetctl apply -f FLEET` importing them all
//! (`--parallel P`), the changes a second plan shows (0), and the time of `apply --prune
//! --yes` once one cluster has left the file.
//!
//! ```sh
//! cargo build --workspace --release && cargo run --release --example fleet_apply_bench [-- CLUSTERS [PARALLEL]]
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/dev_fleet.rs"]
mod dev_fleet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use dev_fleet::DevFleet;

/// A fleet file of `names`, each reached through the context of its name.
fn fleet_file(path: &Path, names: &[String]) -> Result<()> {
    let mut text = String::from(
        "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nhub: {context: hub}\ndefaults:\n  labels: {env: bench}\nclusters:\n",
    );
    for name in names {
        text.push_str(&format!("  - name: {name}\n"));
    }
    Ok(std::fs::write(path, text)?)
}

/// Runs `fleetctl plan -o json`: how long it took and how many changes it planned.
fn plan(binary: &Path, kubeconfig: &Path, file: &str, prune: bool) -> Result<(Duration, usize)> {
    let mut args = vec!["plan", "-f", file, "-o", "json"];
    if prune {
        args.push("--prune");
    }
    let started = Instant::now();
    let output = Command::new(binary).args(&args).env("KUBECONFIG", kubeconfig).output()?;
    let elapsed = started.elapsed();
    ensure!(output.status.success(), "plan failed: {}", String::from_utf8_lossy(&output.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let changes = plan["changes"].as_array().context("the plan's changes")?.len();
    Ok((elapsed, changes))
}

/// What was measured: each step's wall time, and the changes the plans showed.
struct Figures {
    first_plan: Duration,
    planned: usize,
    applied: Duration,
    rerun_plan: Duration,
    left: usize,
    rerun_apply: Duration,
    pruned: Duration,
    to_prune: usize,
    after_prune: usize,
}

/// Plan, apply, plan and apply again, then apply --prune once the last cluster left the file.
fn measure(fleet: &DevFleet, parallel: usize) -> Result<Figures> {
    let (binary, kubeconfig, names) = (&fleet.binary, &fleet.kubeconfig, &fleet.names);
    let path = fleet.dir.path().join("fleet.yaml");
    fleet_file(&path, names)?;
    let file = path.to_string_lossy().to_string();
    let parallel_text = parallel.to_string();

    let (first_plan, planned) = plan(binary, kubeconfig, &file, false)?;
    let apply = ["apply", "-f", &file, "--parallel", &parallel_text, "--timeout", "10m"];
    let applied = binary::timed(binary, kubeconfig, &apply)?;
    let (rerun_plan, left) = plan(binary, kubeconfig, &file, true)?;
    let rerun_apply = binary::timed(binary, kubeconfig, &apply)?;
    fleet_file(&path, &names[..names.len().saturating_sub(1)])?;
    let (_, to_prune) = plan(binary, kubeconfig, &file, true)?;
    let pruned = binary::timed(binary, kubeconfig, &[&apply[..], &["--prune", "--yes"]].concat())?;
    let (_, after_prune) = plan(binary, kubeconfig, &file, true)?;
    Ok(Figures { first_plan, planned, applied, rerun_plan, left, rerun_apply, pruned, to_prune, after_prune })
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let clusters: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(20);
    let parallel: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(10);
    let fleet = DevFleet::up(clusters).await?;
    let up = fleet.up;
    // Down on a failure too: the clusters are processes of their own and would outlive
    // this one (and the folder their kubeconfig is in).
    let measured = measure(&fleet, parallel);
    let down = fleet.down().await;
    let figures = measured?;
    down?;

    println!("fleet_apply_bench on dev up --clusters {clusters} (up in {:.1} s):", up.as_secs_f64());
    println!(
        "  plan on the empty hub               {:>8.2} s  ({} changes)",
        figures.first_plan.as_secs_f64(),
        figures.planned
    );
    println!("  apply (--parallel {parallel:>2})                {:>8.2} s", figures.applied.as_secs_f64());
    println!(
        "  plan again                          {:>8.2} s  ({} changes)",
        figures.rerun_plan.as_secs_f64(),
        figures.left
    );
    println!("  apply again (nothing to do)         {:>8.2} s", figures.rerun_apply.as_secs_f64());
    println!(
        "  apply --prune, one left the file    {:>8.2} s  ({} change; {} after)",
        figures.pruned.as_secs_f64(),
        figures.to_prune,
        figures.after_prune
    );
    Ok(())
}
