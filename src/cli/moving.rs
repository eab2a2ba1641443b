//! `fleetctl move (NAME… | -l SELECTOR | --all) --to-hub-context CONTEXT`: managed clusters
//! move to another hub, `--parallel` at a time, their workloads untouched.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::Args;
use thiserror::Error;

use super::connect::{self, Right, Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{DryRunFlags, HubFlags, OutputFlags, WaitFlags};
use super::many;
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::signals::until_stopped;
use crate::lifecycle::import::select;
use crate::lifecycle::moving::{Hubs, MoveOptions, move_cluster};

/// `fleetctl move …`
#[derive(Debug, Args)]
pub struct MoveArgs {
    /// The clusters to move.
    #[arg(required_unless_present_any = ["selector", "all"], conflicts_with_all = ["selector", "all"])]
    names: Vec<String>,
    /// The clusters matching this label selector (e.g. env=staging,tier!=edge).
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR", value_parser = super::selector::parse)]
    selector: Option<String>,
    /// Every cluster of the hub.
    #[arg(long, conflicts_with = "selector")]
    all: bool,
    /// Kubeconfig of the hub the clusters move to (default: the hub's file).
    #[arg(long, value_name = "FILE")]
    to_hub_kubeconfig: Option<PathBuf>,
    /// Context of the hub the clusters move to.
    #[arg(long, value_name = "NAME", required_unless_present = "to_hub_kubeconfig")]
    to_hub_context: Option<String>,
    /// How many clusters to move at once.
    #[arg(long, value_name = "N", default_value = "5", value_parser = super::flags::parallel)]
    parallel: NonZeroUsize,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
    #[command(flatten)]
    dry_run: DryRunFlags,
}

/// What a move needs on the hub the clusters leave, and on the one they join, checked
/// before anything is written.
const FROM_RIGHTS: [Right; 3] = [
    Right::new("patch", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("delete", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("create", "", "secrets"),
];
const TO_RIGHTS: [Right; 3] = [
    Right::new("create", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("create", "work.open-cluster-management.io", "manifestworks"),
    Right::new("patch", "agent.open-cluster-management.io", "klusterletaddonconfigs"),
];

/// Why a move did not start.
#[derive(Debug, Error)]
enum MoveError {
    /// Both hubs are the same.
    #[error("the hub to move to is the hub the clusters are on ({0}): name another with --to-hub-context")]
    SameHub(String),
    /// The selector (or `--all`) found no cluster.
    #[error("no cluster matches {0}: list them with `fleetctl get clusters`")]
    NoneSelected(String),
}

impl Fault for MoveError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::SameHub(_) => ExitStatus::Usage,
            Self::NoneSelected(_) => ExitStatus::Refused,
        }
    }
}

/// Runs `move`.
pub async fn run(args: MoveArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let prepared = async {
        let (from, from_config) = connect(&args.hub.selection(), Role::Hub).await?;
        let to_selection = args.hub.selection_over(None, None);
        let to_selection = fleetctl_kube::Selection {
            path: args.to_hub_kubeconfig.clone().or(to_selection.path),
            context: args.to_hub_context.clone(),
            flag: "--to-hub-kubeconfig",
            ..to_selection
        };
        let (to, to_config) = connect(&to_selection, Role::NewHub).await?;
        let to_url = to_config.cluster_url.to_string();
        if to_url == from_config.cluster_url.to_string() {
            return Err(MoveError::SameHub(to_url).into());
        }
        let names = match (&args.selector, args.all) {
            (Some(selector), _) => select(&from, selector).await?,
            (None, true) => select(&from, "").await?,
            (None, false) => args.names.clone(),
        };
        if names.is_empty() {
            let chooser = match &args.selector {
                Some(selector) => format!("{selector:?}"),
                None => "--all: the hub has no clusters".to_string(),
            };
            return Err(MoveError::NoneSelected(chooser).into());
        }
        if args.dry_run.dry_run.is_none() {
            connect::check_rights(&from, Role::Hub, None, &FROM_RIGHTS).await?;
            connect::check_rights(&to, Role::NewHub, None, &TO_RIGHTS).await?;
        }
        Ok::<_, CommandError>((from, to, to_url, names))
    };
    let (from, to, to_url, names) = match until_stopped(prepared).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(error)) => return report::fail(&printer, error),
        Err(stop) => return report::fail(&printer, report::interrupted(stop)),
    };
    let hubs = Hubs { from: &from, to: &to, to_url: &to_url };
    let reporter = Reporter::new(&printer);
    let results = many::each(&names, args.parallel, &reporter, |i| {
        let options = MoveOptions { name: names[i].clone(), timeout: args.wait.timeout, dry_run: args.dry_run.dry_run };
        let reporter = &reporter;
        async move { Ok(move_cluster(hubs, &options, &|event| reporter.show(event)).await?) }
    })
    .await;
    reporter.finish();
    report::finish(&printer, &reporter, results)
}

impl MoveArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.wait.timeout
    }
}
