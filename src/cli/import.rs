//! `fleetctl import NAME`: Act I from the command line.

use std::collections::BTreeMap;

use clap::Args;

use super::connect::{self, Role, connect};
use super::exit::CommandError;
use super::flags::{ClusterFlags, HubFlags, OutputFlags, WaitFlags};
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::signals::until_stopped;
use crate::lifecycle::import::{ImportOptions, Imported, check_label, import};

/// `fleetctl import …`
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The cluster's name on the hub (a DNS-1123 label).
    name: String,
    /// A label for the ManagedCluster (repeatable).
    #[arg(short = 'l', long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    labels: Vec<(String, String)>,
    /// Addons to enable, comma-separated (e.g. search-collector,cert-policy-controller).
    #[arg(long, value_delimiter = ',')]
    addons: Vec<String>,
    /// Stop once the manifests are applied to the target.
    #[arg(long)]
    no_wait: bool,
    /// Print the one-line command to run on the target instead of applying it.
    #[arg(long)]
    print_command: bool,
    /// Import even if the target is joined to another hub.
    #[arg(long)]
    force: bool,
    /// Use the hub namespace of the cluster's name although it exists already and was not
    /// made for this cluster; detach then keeps it and what it holds.
    #[arg(long)]
    adopt_namespace: bool,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    cluster: ClusterFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
}

fn parse_label(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("invalid label {text:?}: write it as key=value"))?;
    check_label(key, value)?;
    Ok((key.to_string(), value.to_string()))
}

/// Runs `import`.
pub async fn run(args: ImportArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_output(args.output.output);
    let reporter = Reporter::new(&printer);
    let name = args.name.clone();
    let result = until_stopped(execute(args, &reporter)).await;
    reporter.finish();
    let result = match result {
        Ok(Ok(Imported::Command(command))) => return Ok(printer.data(&format!("{command}\n"))?),
        Ok(Ok(Imported::Already(outcome) | Imported::Done(outcome))) => Ok(outcome),
        Ok(Err(error)) => Err(error),
        Err(signal) => return report::finish(&printer, &reporter, report::stopped(&reporter, &[name], signal)),
    };
    report::finish(&printer, &reporter, vec![(name, result)])
}

async fn execute(args: ImportArgs, reporter: &Reporter) -> Result<Imported, CommandError> {
    let (hub, hub_config) = connect(&args.hub.selection(), Role::Hub).await?;
    // The target answering is part of the import's own preflight.
    let target = if args.print_command {
        None
    } else {
        Some(connect::client(&args.cluster.selection(&args.hub), Role::Target).await?.0)
    };
    let options = ImportOptions {
        name: args.name,
        labels: args.labels.into_iter().collect::<BTreeMap<_, _>>(),
        addons: args.addons,
        wait: !args.no_wait,
        print_command: args.print_command,
        force: args.force,
        adopt_namespace: args.adopt_namespace,
        timeout: args.wait.timeout,
    };
    let hub_url = hub_config.cluster_url.to_string();
    Ok(import(&hub, &hub_url, target.as_ref(), &options, &|event| reporter.show(event)).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_key_value_pairs() {
        assert_eq!(parse_label("env=prod"), Ok(("env".into(), "prod".into())));
        assert_eq!(parse_label("empty="), Ok(("empty".into(), String::new())));
        assert!(parse_label("novalue").is_err());
        assert!(parse_label("=x").is_err());
        assert!(parse_label("bad key=x").is_err());
        assert!(parse_label("env=two words").is_err());
        assert!(parse_label("fleetctl.io/x=y").is_err());
    }
}
