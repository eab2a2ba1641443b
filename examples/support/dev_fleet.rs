//! A `dev up --clusters N` for the fleet benchmarks: the fleetctl binary that runs it, its
//! folder, and the clusters' names.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl_devcluster::env;

/// A running dev environment; [`DevFleet::down`] takes it down.
pub struct DevFleet {
    /// The fleetctl binary.
    pub binary: PathBuf,
    /// The environment's folder.
    pub dir: tempfile::TempDir,
    /// Its kubeconfig (contexts `hub`, `cluster1`…).
    pub kubeconfig: PathBuf,
    /// `cluster1`…`clusterN`.
    pub names: Vec<String>,
    /// How long `dev up` took.
    pub up: Duration,
}

impl DevFleet {
    /// Starts a hub and `clusters` managed clusters with the binary beside this program.
    pub async fn up(clusters: usize) -> Result<Self> {
        let binary = super::binary::fleetctl(None)?;
        let dir = tempfile::tempdir()?;
        let printer = Printer::new(&TerminalFlags::default());
        let options =
            up_options(&printer, binary.clone(), dir.path().to_path_buf(), clusters, None, Duration::from_secs(300));
        let started = Instant::now();
        let state = env::up(&options).await?;
        let up = started.elapsed();
        let names = (1..=clusters).map(|i| format!("cluster{i}")).collect();
        Ok(Self { binary, dir, kubeconfig: state.kubeconfig, names, up })
    }

    /// Takes the environment down.
    pub async fn down(self) -> Result<()> {
        env::down(self.dir.path(), Duration::from_secs(5)).await?;
        Ok(())
    }
}
