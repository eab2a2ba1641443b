//! `fleetctl addon search-collector|cert-policy-controller|iam-policy-controller`: an addon
//! agent, on a managed cluster.
//!
//! The hub's addon ManifestWork runs the same agent through `fleetctl-addon`, a second
//! executable of the image built from this module alone: an addon agent must stay within
//! 10 MiB of resident memory, and the pages it maps of the full binary (the dev cluster,
//! the hub controllers, the CLI) were most of its footprint.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand};

use super::{Threads, block_on, init_logging};
use crate::addon::{self, AddonKind, AddonOptions, DEFAULT_LEASE_SECONDS, EXECUTABLE};
use crate::api::addon::DEFAULT_ADDON_INSTALL_NAMESPACE;
use crate::kube::Selection;

/// Run an addon agent of fleetctl on a managed cluster (what the hub's addon works run).
#[derive(Debug, Parser)]
#[command(name = EXECUTABLE, version)]
pub struct AddonCli {
    #[command(flatten)]
    addon: AddonArgs,
    /// More log output (-v debug, -vv trace); FLEETCTL_LOG overrides it.
    #[arg(short, long, global = true, action = ArgAction::Count)]
    verbose: u8,
}

impl AddonCli {
    /// Runs the addon agent until SIGTERM; the exit code says how it ended.
    pub fn run(self) -> ExitCode {
        init_logging(self.verbose);
        block_on(Threads::One, run(self.addon))
    }
}

/// `fleetctl addon …`
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
    #[arg(long, global = true, default_value_t = DEFAULT_LEASE_SECONDS, env = "FLEETCTL_ADDON_LEASE_SECONDS")]
    lease_seconds: u64,
}

#[derive(Debug, Subcommand)]
enum AddonCommand {
    /// Count objects by kind and namespace.
    SearchCollector,
    /// Report TLS certificates that expired or expire soon.
    CertPolicyController {
        /// A certificate expiring within this window is non-compliant.
        #[arg(long, default_value = "30d", value_parser = crate::duration::parse)]
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
pub async fn run(args: AddonArgs) -> anyhow::Result<()> {
    let kind = match args.command {
        AddonCommand::SearchCollector => AddonKind::Search,
        AddonCommand::CertPolicyController { window } => AddonKind::Cert { window },
        AddonCommand::IamPolicyController { max } => AddonKind::Iam { max },
    };
    addon::run(AddonOptions {
        local: Selection::in_cluster_or(args.kubeconfig, None),
        namespace: args.namespace,
        lease_interval: Duration::from_secs(args.lease_seconds.max(1)),
        kind,
    })
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_addon_executable_takes_what_fleetctl_addon_takes() {
        AddonCli::command().debug_assert();
        let cli = AddonCli::try_parse_from([EXECUTABLE, "cert-policy-controller", "--window", "7d", "-v"]);
        let cli = cli.map_err(|e| e.to_string()).unwrap();
        assert_eq!(cli.verbose, 1);
        assert!(
            matches!(cli.addon.command, AddonCommand::CertPolicyController { window } if window.as_secs() == 7 * 86_400)
        );
        assert!(AddonCli::try_parse_from([EXECUTABLE, "no-such-addon"]).is_err());
    }
}
