//! Importing a fleet: the wall time of one `fleetctl import --contexts c1,…,cN` against N
//! sequential `fleetctl import cI --cluster-context cI`, on one `dev up --clusters N`
//! (the fleet is detached in between, with one `fleetctl detach c1 … cN`).
//!
//! ```sh
//! cargo build --workspace --release && cargo run --release --example fleet_import_bench [-- CLUSTERS [PARALLEL]]
//! ```

#[path = "support/binary.rs"]
mod binary;
#[path = "support/dev_fleet.rs"]
mod dev_fleet;
use std::time::Duration;

use anyhow::Result;
use dev_fleet::DevFleet;

/// The wall times measured.
struct Figures {
    at_once: Duration,
    one_by_one: Duration,
    detached: Duration,
}

/// One import of every cluster, a detach of all, then one import after the other.
fn measure(fleet: &DevFleet, parallel: usize) -> Result<Figures> {
    let (binary, kubeconfig, names) = (&fleet.binary, &fleet.kubeconfig, &fleet.names);
    let hub = ["--hub-context", "hub", "--timeout", "10m"];

    let contexts = names.join(",");
    let parallel_text = parallel.to_string();
    let at_once = binary::timed(
        binary,
        kubeconfig,
        &[&["import", "--contexts", &contexts, "--parallel", &parallel_text][..], &hub].concat(),
    )?;
    let detach: Vec<&str> = ["detach", "--yes", "--parallel", &parallel_text]
        .into_iter()
        .chain(names.iter().map(String::as_str))
        .chain(hub)
        .collect();
    let detached = binary::timed(binary, kubeconfig, &detach)?;

    let mut one_by_one = Duration::ZERO;
    for name in names {
        one_by_one +=
            binary::timed(binary, kubeconfig, &[&["import", name, "--cluster-context", name][..], &hub].concat())?;
    }
    Ok(Figures { at_once, one_by_one, detached })
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let clusters: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(20);
    let parallel: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(clusters);
    let fleet = DevFleet::up(clusters).await?;
    let up = fleet.up;
    // Down on a failure too: the clusters are processes of their own and would outlive
    // this one (and the folder their kubeconfig is in).
    let measured = measure(&fleet, parallel);
    let down = fleet.down().await;
    let Figures { at_once, one_by_one, detached } = measured?;
    down?;

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
