//! `fleetctl import NAME…`: Act I from the command line, for one cluster or many at once
//! (`--contexts`, `--all-contexts`), `--parallel` at a time.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use clap::Args;
use thiserror::Error;

use super::connect::{self, Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{ClusterFlags, HubFlags, OutputFlags, WaitFlags};
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::targets::{self, Named, Target};
use super::{many, signals::until_stopped};
use crate::lifecycle::Outcome;
use crate::lifecycle::import::{AddonSettings, AutoImport, ImportOptions, Imported, check_label, import};

/// `fleetctl import …`
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The clusters' names on the hub (DNS-1123 labels), each reached through the context
    /// `--cluster-context` gives it, or NAME=CONTEXT.
    #[arg(value_name = "NAME[=CONTEXT]", required_unless_present_any = ["contexts", "all_contexts"])]
    names: Vec<String>,
    /// Import the clusters of these contexts, each named as its context (NAME=CONTEXT to
    /// name it otherwise), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "CONTEXT", conflicts_with_all = ["names", "all_contexts"])]
    contexts: Vec<String>,
    /// Import the cluster of every context of --cluster-kubeconfig but the hub's, each named
    /// as its context.
    #[arg(long, requires = "cluster_kubeconfig", conflicts_with = "names")]
    all_contexts: bool,
    /// How many clusters to import at once.
    #[arg(long, value_name = "N", default_value = "5", value_parser = super::flags::parallel)]
    parallel: NonZeroUsize,
    /// A label for the ManagedClusters (repeatable).
    #[arg(short = 'l', long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    labels: Vec<(String, String)>,
    /// Addons to enable, comma-separated (e.g. search-collector,cert-policy-controller).
    #[arg(long, value_delimiter = ',')]
    addons: Vec<String>,
    /// Stop once the manifests are applied to the targets.
    #[arg(long)]
    no_wait: bool,
    /// Print the one-line command to run on the target instead of applying it (one NAME).
    #[arg(long, conflicts_with_all = ["contexts", "all_contexts"])]
    print_command: bool,
    /// Let the hub apply the import manifests itself: write each target's kubeconfig
    /// (its context alone) into the cluster's auto-import-secret, which the hub deletes
    /// once it has imported the cluster.
    #[arg(long, conflicts_with = "print_command")]
    auto: bool,
    /// Import even if a target is joined to another hub.
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

/// `--print-command` for more than one cluster.
#[derive(Debug, Error)]
#[error("--print-command prints the command of one cluster: name only one")]
struct OneCommand;

impl Fault for OneCommand {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Usage
    }
}

fn parse_label(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("invalid label {text:?}: write it as key=value"))?;
    check_label(key, value)?;
    Ok((key.to_string(), value.to_string()))
}

/// Runs `import`.
pub async fn run(args: ImportArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_output(args.output.output);
    let (hub, hub_config) = match until_stopped(connect(&args.hub.selection(), Role::Hub)).await {
        Ok(Ok(connected)) => connected,
        Ok(Err(error)) => return report::fail(&printer, error.into()),
        Err(signal) => return report::fail(&printer, report::interrupted(signal)),
    };
    let hub_url = hub_config.cluster_url.to_string();
    let named = Named { names: &args.names, contexts: &args.contexts, all_contexts: args.all_contexts };
    let targets = match targets::targets(named, &args.cluster, &args.hub, &hub_url, !args.print_command) {
        Ok((targets, skipped)) => {
            for context in skipped {
                printer.note(&format!("skipping context {context}: it is the hub"));
            }
            targets
        }
        Err(error) => return report::fail(&printer, error.into()),
    };
    let reporter = Reporter::new(&printer);
    if args.print_command {
        let [target] = targets.as_slice() else { return report::fail(&printer, OneCommand.into()) };
        let result = until_stopped(import_one(&args, &hub, &hub_url, target, &reporter)).await;
        reporter.finish();
        return match result {
            Ok(Ok(Imported::Command(command))) => Ok(printer.data(&format!("{command}\n"))?),
            Ok(Ok(Imported::Already(outcome) | Imported::Done(outcome))) => {
                report::finish(&printer, &reporter, vec![(target.name.clone(), Ok(outcome))])
            }
            Ok(Err(error)) => report::finish(&printer, &reporter, vec![(target.name.clone(), Err(error))]),
            Err(signal) => report::finish(&printer, &reporter, report::stopped(&reporter, &names_of(target), signal)),
        };
    }
    let names = targets::names(&targets);
    let results = many::each(&names, args.parallel, &reporter, |i| {
        let (args, hub, hub_url, reporter, target) = (&args, &hub, &hub_url, &reporter, &targets[i]);
        async move { outcome(import_one(args, hub, hub_url, target, reporter).await?) }
    })
    .await;
    reporter.finish();
    report::finish(&printer, &reporter, results)
}

fn names_of(target: &Target) -> [String; 1] {
    [target.name.clone()]
}

fn outcome(imported: Imported) -> Result<Outcome, CommandError> {
    match imported {
        Imported::Already(outcome) | Imported::Done(outcome) => Ok(outcome),
        // Only `--print-command` asks for the command, and it is run on its own.
        Imported::Command(_) => Err(OneCommand.into()),
    }
}

/// Imports one cluster: its target must be usable and answer (part of the import's own
/// preflight); with `--print-command` no target is needed.
async fn import_one(
    args: &ImportArgs,
    hub: &kube::Client,
    hub_url: &str,
    target: &Target,
    reporter: &Reporter,
) -> Result<Imported, CommandError> {
    let (client, auto_import) = if args.print_command {
        (None, None)
    } else {
        let selection = args.cluster.selection(&args.hub, target.context.clone());
        let client = connect::client(&selection, Role::Target).await?.0;
        let auto_import = match args.auto {
            true => Some(AutoImport::Kubeconfig(
                fleetctl_kube::standalone(&selection)
                    .map_err(|source| connect::ConnectError::Config { role: Role::Target, source })?,
            )),
            false => None,
        };
        (Some(client), auto_import)
    };
    let options = ImportOptions {
        name: target.name.clone(),
        labels: args.labels.iter().cloned().collect::<BTreeMap<_, _>>(),
        addons: args.addons.clone(),
        addon_settings: AddonSettings::default(),
        wait: !args.no_wait,
        print_command: args.print_command,
        auto_import,
        force: args.force,
        adopt_namespace: args.adopt_namespace,
        timeout: args.wait.timeout,
    };
    Ok(import(hub, hub_url, client.as_ref(), &options, &|event| reporter.show(event)).await?)
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
