//! `fleetctl upgrade (NAME… | --all | -l SELECTOR | --placement NAME) --to VERSION`: Act II, as a progressive
//! rollout — a canary wave, then waves of `--wave-size` (each soaked before the next, or
//! without a soak rolling: the next cluster starts as one ends), a failed cluster rolled
//! back, and a stop once more than `--max-failures` failed.

use std::time::Duration;

use clap::Args;

use super::connect::{self, Right, Role, connect};
use super::exit::CommandError;
use super::flags::{DryRunFlags, HubFlags, OutputFlags, PlacementFlags, WaitFlags, positive_duration};
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::signals::until_stopped;
use crate::lifecycle::import::{placed, select};
use crate::lifecycle::rollout::{Rollout, RolloutResult, WaveSize, rollout};
use crate::lifecycle::upgrade::{UpgradeOptions, valid_version};

/// `fleetctl upgrade …`
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// Clusters to upgrade, in this order.
    #[arg(
        required_unless_present_any = ["all", "selector", "placement"],
        conflicts_with_all = ["all", "selector", "placement"]
    )]
    names: Vec<String>,
    /// Every cluster.
    #[arg(long, conflicts_with_all = ["selector", "placement"])]
    all: bool,
    /// Clusters matching this label selector (e.g. env=prod,tier!=edge).
    #[arg(
        short = 'l',
        long = "selector",
        value_name = "SELECTOR",
        value_parser = super::selector::parse,
        conflicts_with = "placement"
    )]
    selector: Option<String>,
    #[command(flatten)]
    placement: PlacementFlags,
    /// The klusterlet version to run (e.g. 0.2.0).
    #[arg(long = "to", value_name = "VERSION", value_parser = parse_version)]
    version: String,
    /// The size of the first wave, which may not fail at all.
    #[arg(long, value_name = "N", default_value_t = 0)]
    canary: usize,
    /// How many clusters each wave upgrades at once: a number, or a share of the clusters
    /// (25%).
    #[arg(long, visible_alias = "parallel", value_name = "N|P%", default_value = "1", value_parser = WaveSize::parse)]
    wave_size: WaveSize,
    /// How many clusters may fail before the rollout stops (the canary wave tolerates none).
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_failures: usize,
    /// How long a wave's clusters must stay Available before the next wave starts.
    #[arg(long, value_name = "DURATION", value_parser = fleetctl_kube::duration::parse)]
    soak: Option<Duration>,
    /// How long each cluster has to run the new version and be Available (default: half of
    /// --timeout with rollbacks, which get the other half; else --timeout).
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    progress_deadline: Option<Duration>,
    /// Leave a cluster that failed as it is, rather than restoring its previous version.
    #[arg(long)]
    no_rollback: bool,
    /// Take over the klusterlet a cluster joined with by itself (`clusteradm join`, upstream's
    /// klusterlet): the hub installs fleetctl's, whose operator retires the other and takes
    /// over its agents with their registration and what they applied. Without it such a
    /// cluster is refused: a hub never replaces a klusterlet it did not install unless told to.
    #[arg(long)]
    adopt_klusterlet: bool,
    /// Record the version and return without waiting (one wave, no rollback).
    #[arg(long, conflicts_with_all = ["canary", "soak", "max_failures", "progress_deadline", "no_rollback"])]
    no_wait: bool,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
    #[command(flatten)]
    dry_run: DryRunFlags,
}

/// What an upgrade needs on the hub, checked before anything is written.
const HUB_RIGHTS: [Right; 1] = [Right::new("patch", "cluster.open-cluster-management.io", "managedclusters")];

fn parse_version(text: &str) -> Result<String, String> {
    if valid_version(text) {
        Ok(text.to_string())
    } else {
        Err(format!("invalid version {text:?}: use a release version such as 0.2.0 or v0.2.0"))
    }
}

/// Runs `upgrade`.
pub async fn run(args: UpgradeArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let prepared = async {
        let (hub, _) = connect(&args.hub.selection(), Role::Hub).await?;
        let names = match (&args.selector, args.all, &args.placement.placement) {
            (Some(selector), _, _) => select(&hub, selector).await?,
            (None, true, _) => select(&hub, "").await?,
            (None, false, Some(placement)) => placed(&hub, &args.placement.namespace, placement).await?,
            (None, false, None) => args.names.clone(),
        };
        if args.dry_run.dry_run.is_none() {
            connect::check_rights(&hub, Role::Hub, None, &HUB_RIGHTS).await?;
        }
        Ok::<_, CommandError>((hub, names))
    };
    let (hub, names) = match until_stopped(prepared).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(error)) => return report::fail(&printer, error),
        Err(stop) => return report::fail(&printer, report::interrupted(stop)),
    };
    let rollback = !args.no_rollback && !args.no_wait && args.dry_run.dry_run.is_none();
    // --timeout bounds the whole command: a cluster that fails needs time for its rollback.
    let deadline = if rollback { args.wait.timeout / 2 } else { args.wait.timeout };
    let options = UpgradeOptions {
        version: args.version.clone(),
        wait: !args.no_wait && args.dry_run.dry_run.is_none(),
        timeout: args.progress_deadline.unwrap_or(deadline),
        dry_run: args.dry_run.dry_run,
        adopt_klusterlet: args.adopt_klusterlet,
    };
    let plan = Rollout {
        canary: args.canary,
        // Without waiting there is nothing to wait between waves for.
        wave_size: if args.no_wait || args.dry_run.dry_run.is_some() { WaveSize::Percent(100) } else { args.wave_size },
        max_failures: args.max_failures,
        soak: args.soak.unwrap_or_default(),
        rollback,
    };
    let reporter = Reporter::new(&printer);
    let observer = |event| reporter.show(event);
    let mut done = RolloutResult::planned(&names, &plan);
    let result = until_stopped(rollout(&hub, &options, &plan, deadline, &observer, &mut done)).await;
    reporter.finish();
    let summary = done.summary();
    let unfinished = done.unfinished();
    let mut results: report::Results =
        done.clusters.into_iter().map(|(name, result)| (name, result.map_err(CommandError::from))).collect();
    match result {
        Ok(Ok(())) => {}
        Ok(Err(error)) => return report::fail(&printer, error.into()),
        // What finished keeps its result; the others say what they had done.
        Err(stop) => results.extend(report::stopped(&reporter, &unfinished, stop)),
    }
    report::finish_with(&printer, &reporter, results, Some(summary))
}

impl UpgradeArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> Duration {
        self.wait.timeout
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::Cli;

    #[test]
    fn the_version_is_a_release_version() {
        assert!(Cli::try_parse_from(["fleetctl", "upgrade", "c1", "--to", "v0.2.0"]).is_ok());
        let error = Cli::try_parse_from(["fleetctl", "upgrade", "c1", "--to", "latest"]).expect_err("not a release");
        assert_eq!(error.exit_code(), 2);
        assert!(error.to_string().contains("invalid version \"latest\""), "{error}");
    }

    #[test]
    fn waiting_for_nothing_leaves_no_rollout_to_shape() {
        for flag in [&["--canary", "1"][..], &["--soak", "1m"], &["--no-rollback"], &["--max-failures", "2"]] {
            let args = [&["fleetctl", "upgrade", "--all", "--to", "0.2.0", "--no-wait"][..], flag].concat();
            let error = Cli::try_parse_from(args).expect_err("conflict");
            assert_eq!(error.kind(), clap::error::ErrorKind::ArgumentConflict, "{flag:?}");
        }
        let parallel = ["fleetctl", "upgrade", "--all", "--to", "0.2.0", "--parallel", "25%"];
        assert!(Cli::try_parse_from(parallel).is_ok(), "--parallel is --wave-size");
    }

    #[test]
    fn a_placement_chooses_the_clusters_alone() {
        let placed = ["fleetctl", "upgrade", "--placement", "canary", "-n", "apps", "--to", "0.2.0"];
        assert!(Cli::try_parse_from(placed).is_ok());
        for other in [&["c1"][..], &["-l", "env=prod"], &["--all"]] {
            let args = [&["fleetctl", "upgrade", "--placement", "canary", "--to", "0.2.0"][..], other].concat();
            let error = Cli::try_parse_from(args).expect_err("conflict");
            assert_eq!(error.kind(), clap::error::ErrorKind::ArgumentConflict, "{other:?}");
            assert_eq!(error.exit_code(), 2);
        }
    }
}
