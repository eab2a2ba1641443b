//! The executables an example drives: `fleetctl` and the in-cluster `fleetctld`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

/// `explicit` when given, else the `fleetctl` built beside this example
/// (`target/<profile>/examples/<name>` → `target/<profile>/fleetctl`), so the figures
/// follow the profile the example was run with.
#[allow(dead_code, reason = "not every example runs the CLI")]
pub fn fleetctl(explicit: Option<&str>) -> Result<PathBuf> {
    built("fleetctl", explicit)
}

/// The in-cluster executable built beside this example (see [`fleetctl`]).
#[allow(dead_code, reason = "not every example runs an in-cluster role itself")]
pub fn fleetctld() -> Result<PathBuf> {
    built("fleetctld", None)
}

fn built(name: &str, explicit: Option<&str>) -> Result<PathBuf> {
    let binary = match explicit {
        Some(path) => PathBuf::from(path),
        None => {
            let exe = std::env::current_exe().context("finding this example's path")?;
            exe.parent().and_then(|d| d.parent()).map(|d| d.join(name)).context("locating the target directory")?
        }
    };
    ensure!(
        binary.is_file(),
        "no {name} binary at {}: build it first (cargo build --workspace --release) or pass its path",
        binary.display()
    );
    Ok(binary)
}

/// Runs `binary args…` against `kubeconfig` and returns how long it took; a failure is an
/// error with its stderr.
#[allow(dead_code, reason = "not every example times CLI commands")]
pub fn timed(binary: &Path, kubeconfig: &Path, args: &[&str]) -> Result<Duration> {
    let started = Instant::now();
    let output = Command::new(binary).args(args).env("KUBECONFIG", kubeconfig).env("NO_COLOR", "1").output()?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        bail!("fleetctl {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(elapsed)
}
