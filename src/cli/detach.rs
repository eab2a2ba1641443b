//! `fleetctl detach NAME`: Act III.

use clap::Args;
use thiserror::Error;

use super::connect::{self, Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{ClusterFlags, HubFlags, OutputFlags, WaitFlags};
use super::outcome;
use super::printer::Printer;
use super::progress::Reporter;
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
    let (hub, _) = connect(&args.hub.selection(), Role::Hub).await?;
    // A target that was named must be usable; it need not answer (it may be the reason
    // for the detach).
    let target = if args.cluster.named() {
        Some(connect::client(&args.cluster.selection(&args.hub), Role::Target).await?.0)
    } else {
        None
    };
    if !args.yes {
        confirm(&printer, &args.name)?;
    }
    let options = DetachOptions { name: args.name, wait: !args.no_wait, force: args.force, timeout: args.wait.timeout };
    let reporter = Reporter::new(&printer);
    let result = detach(&hub, target.as_ref(), &options, &|event| reporter.show(event)).await;
    reporter.finish();
    outcome::print(&printer, &result?)?;
    Ok(())
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
