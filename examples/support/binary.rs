//! The `fleetctl` binary an example drives.

use std::path::PathBuf;

use anyhow::{Context, Result, ensure};

/// `explicit` when given, else the `fleetctl` built beside this example
/// (`target/<profile>/examples/<name>` → `target/<profile>/fleetctl`), so the figures
/// follow the profile the example was run with.
pub fn fleetctl(explicit: Option<&str>) -> Result<PathBuf> {
    let binary = match explicit {
        Some(path) => PathBuf::from(path),
        None => {
            let exe = std::env::current_exe().context("finding this example's path")?;
            exe.parent()
                .and_then(|d| d.parent())
                .map(|d| d.join("fleetctl"))
                .context("locating the target directory")?
        }
    };
    ensure!(
        binary.is_file(),
        "no fleetctl binary at {}: build it first (cargo build --release) or pass its path",
        binary.display()
    );
    Ok(binary)
}
