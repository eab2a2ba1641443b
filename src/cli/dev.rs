//! `fleetctl dev`: the embedded dev cluster.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::devcluster::serve::{self, ServeOptions};

/// `fleetctl dev …`
#[derive(Debug, Args)]
pub struct DevArgs {
    #[command(subcommand)]
    command: DevCommand,
}

#[derive(Debug, Subcommand)]
enum DevCommand {
    /// Run one Kubernetes-API-compatible server in the foreground until interrupted.
    Serve {
        /// Where to write the kubeconfig (written once the server is ready, mode 0600).
        #[arg(long, value_name = "FILE")]
        kubeconfig: PathBuf,
        /// Name of the cluster, user and context in the kubeconfig.
        #[arg(long, default_value = "dev")]
        name: String,
        /// Port on 127.0.0.1 (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Keep objects in this directory, each write on disk before it is acknowledged, and
        /// resume from it on the next start (default: in memory only, gone on exit).
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
    },
}

/// Runs a `dev` subcommand.
pub async fn run(args: DevArgs) -> anyhow::Result<()> {
    match args.command {
        DevCommand::Serve { kubeconfig, name, port, store } => {
            serve::run(ServeOptions { kubeconfig, name, port, store }).await?;
        }
    }
    Ok(())
}
