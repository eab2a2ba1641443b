//! `fleetctl detach (NAME… | -l SELECTOR | --all | --placement NAME)`: Act III, for one cluster or many at once.

use std::num::NonZeroUsize;

use clap::Args;
use thiserror::Error;

use super::connect::{self, Right, Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{ClusterFlags, DryRunFlags, HubFlags, OutputFlags, PlacementFlags, WaitFlags};
use super::many;
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::signals::until_stopped;
use super::targets::{self, Named, Reach, Target};
use crate::lifecycle::Outcome;
use crate::lifecycle::detach::{DetachOptions, detach};
use crate::lifecycle::import::{placed, select};

/// `fleetctl detach …`
#[derive(Debug, Args)]
pub struct DetachArgs {
    /// The clusters to detach; NAME=CONTEXT (or --cluster-context once per NAME) names the
    /// target, so that detach can remove the klusterlet directly when the hub cannot.
    #[arg(
        value_name = "NAME[=CONTEXT]",
        required_unless_present_any = ["selector", "all", "placement"],
        conflicts_with_all = ["selector", "all", "placement"]
    )]
    names: Vec<String>,
    /// The clusters matching this label selector (e.g. env=staging,tier!=edge).
    #[arg(
        short = 'l',
        long = "selector",
        value_name = "SELECTOR",
        value_parser = super::selector::parse,
        conflicts_with = "placement"
    )]
    selector: Option<String>,
    /// Every cluster of the hub.
    #[arg(long, conflicts_with_all = ["selector", "placement"])]
    all: bool,
    #[command(flatten)]
    placement: PlacementFlags,
    /// How many clusters to detach at once.
    #[arg(long, value_name = "N", default_value = "5", value_parser = super::flags::parallel)]
    parallel: NonZeroUsize,
    /// Do not ask (needed when not on a terminal).
    #[arg(long, short = 'y')]
    yes: bool,
    /// When the agents do not answer within --timeout, clean the hub anyway.
    #[arg(long)]
    force: bool,
    /// Start the detach and return.
    #[arg(long)]
    no_wait: bool,
    #[command(flatten)]
    hub: HubFlags,
    /// The target, if given, lets detach remove the klusterlet directly when the hub cannot.
    #[command(flatten)]
    cluster: ClusterFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
    #[command(flatten)]
    dry_run: DryRunFlags,
}

/// What a detach needs on the hub, checked before anything is deleted (the forced cleanup
/// writes the cluster's status as its agent would).
pub(super) const HUB_RIGHTS: [Right; 2] = [
    Right::new("delete", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("patch", "cluster.open-cluster-management.io", "managedclusters/status"),
];

/// Why detach did not start.
#[derive(Debug, Error)]
enum ConfirmError {
    /// No one to ask, and no `--yes`.
    #[error("detaching {0} needs confirmation: pass --yes when not on a terminal")]
    NoTerminal(String),
    /// The selector matched no cluster (or `--all` found none, or the placement selected none).
    #[error("no cluster matches {0}: list them with `fleetctl get clusters`")]
    NoneSelected(String),
    /// The person said no.
    #[error("not confirmed: nothing changed")]
    Declined,
}

impl Fault for ConfirmError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::NoTerminal(_) => ExitStatus::Usage,
            Self::Declined | Self::NoneSelected(_) => ExitStatus::Refused,
        }
    }
}

/// Runs `detach`.
pub async fn run(args: DetachArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let prepared = async {
        let (hub, hub_config) = connect(&args.hub.selection(), Role::Hub).await?;
        let targets = chosen(&args, &hub, &hub_config.cluster_url.to_string()).await?;
        if args.dry_run.dry_run.is_none() {
            connect::check_rights(&hub, Role::Hub, None, &HUB_RIGHTS).await?;
        }
        Ok::<_, CommandError>((hub, targets))
    };
    let (hub, targets) = match until_stopped(prepared).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(error)) => return report::fail(&printer, error),
        Err(stop) => return report::fail(&printer, report::interrupted(stop)),
    };
    let names = targets::names(&targets);
    if !args.yes
        && args.dry_run.dry_run.is_none()
        && let Err(error) = confirm(&printer, &names)
    {
        return report::fail(&printer, error);
    }
    let reporter = Reporter::new(&printer);
    let results = many::each(&names, args.parallel, &reporter, |i| {
        let (args, hub, reporter, target) = (&args, &hub, &reporter, &targets[i]);
        async move { detach_one(args, hub, target, reporter).await }
    })
    .await;
    reporter.finish();
    report::finish(&printer, &reporter, results)
}

/// The clusters named, or those the selector matches.
async fn chosen(args: &DetachArgs, hub: &kube::Client, hub_url: &str) -> Result<Vec<Target>, CommandError> {
    let (names, chooser) = match (&args.selector, args.all, &args.placement.placement) {
        (Some(selector), _, _) => (select(hub, selector).await?, format!("{selector:?}")),
        (None, true, _) => (select(hub, "").await?, "\"\"".to_string()),
        (None, false, Some(placement)) => {
            let namespace = &args.placement.namespace;
            (placed(hub, namespace, placement).await?, format!("placement {namespace}/{placement}"))
        }
        (None, false, None) => {
            let named = Named { names: &args.names, contexts: &[], all_contexts: false };
            return Ok(targets::targets(named, &args.cluster, &args.hub, hub_url, Reach::IfGiven)?.0);
        }
    };
    if names.is_empty() {
        return Err(ConfirmError::NoneSelected(chooser).into());
    }
    Ok(names.into_iter().map(|name| Target { name, context: None, defaulted: false }).collect())
}

/// Detaches one cluster. A target that was named must be usable; it need not answer (it
/// may be the reason for the detach).
async fn detach_one(
    args: &DetachArgs,
    hub: &kube::Client,
    target: &Target,
    reporter: &Reporter,
) -> Result<Outcome, CommandError> {
    let client = if args.cluster.has_kubeconfig() || target.context.is_some() {
        let selection = args.cluster.selection(&args.hub, target.context.clone());
        Some(connect::client(&selection, Role::Target).await?.0)
    } else {
        None
    };
    // --timeout bounds the whole command: with --force, the agents get half of it and the
    // forced cleanup the rest.
    let timeout = if args.force { args.wait.timeout / 2 } else { args.wait.timeout };
    let options = DetachOptions {
        name: target.name.clone(),
        wait: !args.no_wait,
        force: args.force,
        timeout,
        dry_run: args.dry_run.dry_run,
    };
    Ok(detach(hub, client.as_ref(), &options, &|event| reporter.show(event)).await?)
}

/// Asks before detaching `names`: refused when no one can answer (pass --yes), or when the
/// answer is no.
pub(super) fn confirm(printer: &Printer, names: &[String]) -> Result<(), CommandError> {
    let clusters = names.join(", ");
    if !printer.can_prompt() {
        return Err(ConfirmError::NoTerminal(clusters).into());
    }
    let question = match names {
        [name] => format!("Detach cluster {name} from the hub, removing its klusterlet?"),
        _ => format!("Detach {} clusters ({clusters}) from the hub, removing their klusterlets?", names.len()),
    };
    if !printer.confirm(&question)? {
        return Err(ConfirmError::Declined.into());
    }
    Ok(())
}

impl DetachArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.wait.timeout
    }
}
