//! `fleetctld addon search-collector|cert-policy-controller|iam-policy-controller`: an
//! addon agent, on a managed cluster.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use fleetctl_agent::addon::{self, AddonKind, AddonOptions, DEFAULT_LEASE_SECONDS};
use fleetctl_api::addon::DEFAULT_ADDON_INSTALL_NAMESPACE;
use fleetctl_kube::Selection;

use crate::RoleError;

/// `fleetctld addon …`
#[derive(Debug, Args)]
pub struct AddonArgs {
    #[command(subcommand)]
    command: AddonCommand,
    /// Kubeconfig of the managed cluster (default: in-cluster config inside a pod, else KUBECONFIG).
    #[arg(long, global = true, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The addon namespace (where the lease and the status ConfigMap live).
    #[arg(long, global = true, default_value = DEFAULT_ADDON_INSTALL_NAMESPACE, env = "POD_NAMESPACE")]
    namespace: String,
    /// How often the addon renews its lease; it turns Unknown after three missed renewals.
    #[arg(long, global = true, default_value_t = DEFAULT_LEASE_SECONDS, env = "FLEETCTL_ADDON_LEASE_SECONDS",
          value_parser = clap::value_parser!(u64).range(1..))]
    lease_seconds: u64,
}

#[derive(Debug, Subcommand)]
enum AddonCommand {
    /// Count objects by kind and namespace.
    SearchCollector,
    /// Report TLS certificates that expired or expire soon.
    CertPolicyController {
        /// A certificate expiring within this window is non-compliant.
        #[arg(long, default_value = "30d", value_parser = fleetctl_kube::duration::parse)]
        window: Duration,
    },
    /// Report the subjects bound to cluster-admin.
    IamPolicyController {
        /// More cluster-admin subjects than this is non-compliant.
        #[arg(long, default_value_t = addon::iam::DEFAULT_MAX)]
        max: usize,
    },
}

/// Runs an addon agent until SIGTERM.
pub async fn run(args: AddonArgs) -> Result<(), RoleError> {
    let kind = match args.command {
        AddonCommand::SearchCollector => AddonKind::Search,
        AddonCommand::CertPolicyController { window } => AddonKind::Cert { window },
        AddonCommand::IamPolicyController { max } => AddonKind::Iam { max },
    };
    addon::run(AddonOptions {
        local: Selection::in_cluster_or(args.kubeconfig, None),
        namespace: args.namespace,
        lease_interval: Duration::from_secs(args.lease_seconds),
        kind,
    })
    .await?;
    Ok(())
}
