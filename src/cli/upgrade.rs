//! `fleetctl upgrade (NAME… | --all | -l SELECTOR) --to VERSION`: Act II.

use std::num::NonZeroUsize;

use clap::Args;

use super::connect::{Role, connect};
use super::exit::CommandError;
use super::flags::{HubFlags, OutputFlags, WaitFlags};
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::signals::until_stopped;
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
    #[arg(long, default_value_t = NonZeroUsize::MIN)]
    parallel: NonZeroUsize,
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
    let (hub, _) = match connect(&args.hub.selection(), Role::Hub).await {
        Ok(connected) => connected,
        Err(error) => return report::fail(&printer, error.into()),
    };
    let names = match (&args.selector, args.all) {
        (Some(selector), _) => select(&hub, selector).await,
        (None, true) => select(&hub, "").await,
        (None, false) => Ok(args.names),
    };
    let names = match names {
        Ok(names) => names,
        Err(error) => return report::fail(&printer, error.into()),
    };
    let options = UpgradeOptions { version: args.version, wait: !args.no_wait, timeout: args.wait.timeout };
    let reporter = Reporter::new(&printer);
    let observer = |event| reporter.show(event);
    let result = until_stopped(upgrade_all(&hub, &names, args.parallel, &options, &observer)).await;
    reporter.finish();
    let results = match result {
        Ok(Ok(results)) => {
            results.into_iter().map(|(name, result)| (name, result.map_err(CommandError::from))).collect()
        }
        Ok(Err(error)) => return report::fail(&printer, error.into()),
        Err(signal) => report::stopped(&reporter, &names, signal),
    };
    report::finish(&printer, &reporter, results)
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
