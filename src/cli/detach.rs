//! `fleetctl detach NAME`: Act III.

use std::io::IsTerminal;

use clap::Args;

use super::Global;
use super::progress::Reporter;
use crate::lifecycle::LifecycleError;
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
}

/// Runs `detach`.
pub async fn run(args: DetachArgs, global: &Global) -> anyhow::Result<()> {
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return Err(LifecycleError::Usage(format!(
                "detaching {} needs confirmation: pass --yes when not on a terminal",
                args.name
            ))
            .into());
        }
        let question = format!("Detach cluster {} from the hub, removing its klusterlet?", args.name);
        let confirmed = dialoguer::Confirm::new().with_prompt(question).default(false).interact().unwrap_or(false);
        if !confirmed {
            return Err(LifecycleError::Refused("not confirmed: nothing changed".into()).into());
        }
    }
    let pair = global.clusters();
    let (hub, _) = fleetctl_kube::client(&pair.hub)
        .await
        .map_err(|e| LifecycleError::Refused(format!("{:#}", anyhow::Error::from(e))))?;
    // The target is optional: it lets detach remove the klusterlet directly when the hub cannot.
    let target = if global.names_target() {
        fleetctl_kube::client(&pair.target).await.ok().map(|(client, _)| client)
    } else {
        None
    };
    let options = DetachOptions { name: args.name, wait: !args.no_wait, force: args.force, timeout: global.timeout() };
    let reporter = Reporter::new(global.quiet_progress());
    let result = detach(&hub, target.as_ref(), &options, &|event| reporter.show(event)).await;
    reporter.finish();
    global.print_outcome(&result?)?;
    Ok(())
}
