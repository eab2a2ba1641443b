//! `fleetctl upgrade (NAME… | --all | -l SELECTOR) --to VERSION`: Act II.

use clap::Args;

use super::connect::{Role, connect};
use super::exit::CommandError;
use super::flags::{HubFlags, OutputFlags, WaitFlags};
use super::outcome;
use super::printer::Printer;
use super::progress::Reporter;
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
    #[arg(long = "to", value_name = "VERSION", value_parser = parse_version)]
    version: String,
    /// How many clusters upgrade at once.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Record the version and return without waiting.
    #[arg(long)]
    no_wait: bool,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
}

fn parse_version(text: &str) -> Result<String, String> {
    if valid_version(text) {
        Ok(text.to_string())
    } else {
        Err(format!("invalid version {text:?}: use a release version such as 0.2.0 or v0.2.0"))
    }
}

/// Runs `upgrade`.
pub async fn run(args: UpgradeArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_output(args.output.output);
    let (hub, _) = connect(&args.hub.selection(), Role::Hub).await?;
    let names = match (&args.selector, args.all) {
        (Some(selector), _) => select(&hub, selector).await?,
        (None, true) => select(&hub, "").await?,
        (None, false) => args.names,
    };
    let options = UpgradeOptions { version: args.version, wait: !args.no_wait, timeout: args.wait.timeout };
    let reporter = Reporter::new(&printer);
    let result = upgrade_all(&hub, &names, args.parallel, &options, &|event| reporter.show(event)).await;
    reporter.finish();
    for outcome in result? {
        outcome::print(&printer, &outcome)?;
    }
    Ok(())
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
}
