//! `fleetctl upgrade (NAME… | --all | -l SELECTOR) --to VERSION`: Act II.

use clap::Args;

use super::Global;
use super::progress::Reporter;
use crate::lifecycle::LifecycleError;
use crate::lifecycle::import::select;
use crate::lifecycle::upgrade::{UpgradeOptions, upgrade_all, valid_version};

/// `fleetctl upgrade …`
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// Clusters to upgrade.
    #[arg(required_unless_present_any = ["all", "selector"], conflicts_with_all = ["all", "selector"])]
    names: Vec<String>,
    /// Every cluster.
    #[arg(long, conflicts_with = "selector")]
    all: bool,
    /// Clusters matching this label selector.
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    selector: Option<String>,
    /// The klusterlet version to run (e.g. 0.2.0).
    #[arg(long = "to", value_name = "VERSION")]
    version: String,
    /// How many clusters upgrade at once.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Record the version and return without waiting.
    #[arg(long)]
    no_wait: bool,
}

/// Runs `upgrade`.
pub async fn run(args: UpgradeArgs, global: &Global) -> anyhow::Result<()> {
    if !valid_version(&args.version) {
        return Err(LifecycleError::Usage(format!(
            "invalid version {:?}: use a release version such as 0.2.0 or v0.2.0",
            args.version
        ))
        .into());
    }
    let (hub, _) = fleetctl_kube::client(&global.hub_selection())
        .await
        .map_err(|e| LifecycleError::Refused(format!("{:#}", anyhow::Error::from(e))))?;
    let names = if args.all {
        select(&hub, "").await?
    } else if let Some(selector) = &args.selector {
        select(&hub, selector).await?
    } else {
        args.names
    };
    if names.is_empty() {
        return Err(LifecycleError::Refused("no cluster matches: list them with `fleetctl get clusters`".into()).into());
    }
    let options = UpgradeOptions { version: args.version, wait: !args.no_wait, timeout: global.timeout() };
    let reporter = Reporter::new(global.quiet_progress());
    let result = upgrade_all(&hub, &names, args.parallel, &options, &|event| reporter.show(event)).await;
    reporter.finish();
    for outcome in result? {
        global.print_outcome(&outcome)?;
    }
    Ok(())
}
