//! `fleetctl detach NAME`: Act III.

use clap::Args;
use thiserror::Error;

use super::connect::{self, Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{ClusterFlags, HubFlags, OutputFlags, WaitFlags};
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::signals::until_stopped;
use crate::lifecycle::Outcome;
use crate::lifecycle::detach::{DetachOptions, detach};

/// `fleetctl detach …`
#[derive(Debug, Args)]
pub struct DetachArgs {
    /// The cluster to detach.
    name: String,
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
}

/// Why detach did not start.
#[derive(Debug, Error)]
enum ConfirmError {
    /// No one to ask, and no `--yes`.
    #[error("detaching {0} needs confirmation: pass --yes when not on a terminal")]
    NoTerminal(String),
    /// The person said no.
    #[error("not confirmed: nothing changed")]
    Declined,
}

impl Fault for ConfirmError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::NoTerminal(_) => ExitStatus::Usage,
            Self::Declined => ExitStatus::Refused,
        }
    }
}

/// Runs `detach`.
pub async fn run(args: DetachArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_output(args.output.output);
    let reporter = Reporter::new(&printer);
    let name = args.name.clone();
    let result = until_stopped(execute(args, &printer, &reporter)).await;
    reporter.finish();
    let results = match result {
        Ok(result) => vec![(name, result)],
        Err(signal) => report::stopped(&reporter, &[name], signal),
    };
    report::finish(&printer, &reporter, results)
}

async fn execute(args: DetachArgs, printer: &Printer, reporter: &Reporter) -> Result<Outcome, CommandError> {
    let (hub, _) = connect(&args.hub.selection(), Role::Hub).await?;
    // A target that was named must be usable; it need not answer (it may be the reason
    // for the detach).
    let target = if args.cluster.named() {
        Some(connect::client(&args.cluster.selection(&args.hub), Role::Target).await?.0)
    } else {
        None
    };
    if !args.yes {
        confirm(printer, &args.name)?;
    }
    let options = DetachOptions { name: args.name, wait: !args.no_wait, force: args.force, timeout: args.wait.timeout };
    Ok(detach(&hub, target.as_ref(), &options, &|event| reporter.show(event)).await?)
}

fn confirm(printer: &Printer, name: &str) -> Result<(), CommandError> {
    if !printer.can_prompt() {
        return Err(ConfirmError::NoTerminal(name.to_string()).into());
    }
    let question = format!("Detach cluster {name} from the hub, removing its klusterlet?");
    if !printer.confirm(&question)? {
        return Err(ConfirmError::Declined.into());
    }
    Ok(())
}
