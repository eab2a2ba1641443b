//! The command line: clap definitions, one module per subcommand, the printer every command
//! writes through, and the exit status every error carries.

mod apply;
mod argv;
mod completion;
mod connect;
mod demo;
mod describe;
mod detach;
pub mod dev;
mod envtest;
mod examples;
pub mod exit;
pub mod flags;
mod get;
mod hub;
mod hub_backup;
mod import;
mod logging;
mod many;
mod moving;
mod placements;
mod plan;
pub mod printer;
mod progress;
mod report;
mod selector;
mod signals;
mod targets;
mod template;
mod upgrade;
mod version;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fleetctl_devcluster::envtest::Personality;
use thiserror::Error;

use exit::{CommandError, ExitStatus, Fault};
use flags::TerminalFlags;
use printer::Printer;

/// Manage a fleet of Kubernetes clusters from one hub (Open Cluster Management compatible).
#[derive(Debug, Parser)]
#[command(
    name = "fleetctl",
    version,
    about,
    after_help = concat!(
        "Examples:\n  fleetctl dev up --clusters 2\n  fleetctl import cluster1 --hub-context hub\n  \
         fleetctl get clusters -o wide\n  fleetctl --hub-context hub upgrade cluster1 --to 0.2.0\n  \
         fleetctl detach cluster1 --yes\n\n",
        crate::exit_codes!()
    )
)]
pub struct Cli {
    #[command(flatten)]
    terminal: TerminalFlags,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The embedded dev cluster.
    #[command(after_help = examples::DEV)]
    Dev(dev::DevArgs),
    /// Run the three acts on an embedded dev environment, telling the story as it goes.
    #[command(after_help = examples::DEMO)]
    Demo(demo::DemoArgs),
    /// Install or remove the hub.
    #[command(after_help = examples::HUB)]
    Hub(hub::HubArgs),
    /// Import a cluster into the hub (Act I).
    #[command(after_help = examples::IMPORT)]
    Import(import::ImportArgs),
    /// Upgrade the klusterlet of clusters (Act II).
    #[command(after_help = examples::UPGRADE)]
    Upgrade(upgrade::UpgradeArgs),
    /// Detach a cluster from the hub (Act III).
    #[command(after_help = examples::DETACH)]
    Detach(detach::DetachArgs),
    /// Move clusters to another hub, their workloads untouched.
    #[command(after_help = examples::MOVE)]
    Move(moving::MoveArgs),
    /// Show what `apply` would change to make the hub match a fleet file; changes nothing.
    #[command(after_help = examples::PLAN)]
    Plan(plan::PlanArgs),
    /// Make the hub match a fleet file: import, relabel, set addons, upgrade, and with
    /// --prune detach the clusters it no longer lists.
    #[command(after_help = examples::APPLY)]
    Apply(apply::ApplyArgs),
    /// Show managed clusters or addons (a table, or -o wide|json|yaml|name).
    #[command(after_help = examples::GET)]
    Get(get::GetArgs),
    /// Show everything the hub knows about one cluster.
    #[command(after_help = examples::DESCRIBE)]
    Describe(describe::DescribeArgs),
    /// Print a shell completion script.
    #[command(after_help = examples::COMPLETION)]
    Completion(completion::CompletionArgs),
    /// Print the CLI's version and the image it deploys by default.
    #[command(after_help = examples::VERSION)]
    Version(version::VersionArgs),
}

impl Command {
    /// How long the command may take, as its --timeout says (`None`: until it ends).
    fn timeout(&self) -> Option<std::time::Duration> {
        match self {
            Self::Import(args) => Some(args.timeout()),
            Self::Upgrade(args) => Some(args.timeout()),
            Self::Detach(args) => Some(args.timeout()),
            Self::Move(args) => Some(args.timeout()),
            Self::Apply(args) => Some(args.timeout()),
            Self::Hub(args) => Some(args.timeout()),
            Self::Plan(args) => Some(args.timeout()),
            Self::Describe(args) => Some(args.timeout()),
            Self::Get(args) => args.timeout(),
            Self::Dev(_) | Self::Demo(_) | Self::Completion(_) | Self::Version(_) => None,
        }
    }
}

/// The async runtime could not start.
#[derive(Debug, Error)]
#[error("starting the async runtime")]
struct RuntimeError(#[source] std::io::Error);

impl Fault for RuntimeError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Failure
    }
}

/// The `-o json|yaml` document a command prints, empty: what it prints with the error of a
/// command line clap refused, so that a failure has the shape of a success (`None`: the
/// command prints no document).
fn empty_document(command: &str) -> Option<serde_json::Value> {
    let value = match command {
        "import" | "upgrade" | "detach" | "move" | "apply" => serde_json::to_value(report::empty()),
        "plan" => serde_json::to_value(crate::fleet::plan::Plan::default()),
        "get" => Ok(printer::list_document(Vec::new())),
        "describe" => Ok(serde_json::json!({})),
        _ => return None,
    };
    value.ok()
}

/// Parses the command line — the flags of a command may come before it too, as kubectl's
/// do — and runs the command. A command line clap refuses is a usage error (exit 2, said on
/// stderr); when the command was asked for `-o json|yaml`, its document, with that error,
/// is printed on stdout too, as for every other failure.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Invoked as `kube-apiserver` or `etcd`: envtest's control plane, with their command line.
    if let Some(personality) = args.first().and_then(|argv0| Personality::of(argv0)) {
        let rest: Vec<String> = args[1..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
        return envtest::main(personality, &rest);
    }
    let args = argv::hoisted(args);
    match Cli::try_parse_from(&args) {
        Ok(cli) => cli.run(),
        Err(error) => {
            if error.exit_code() == ExitStatus::Usage as i32
                && let Some((output, document)) = report_output(&args)
            {
                let printer = Printer::new(&TerminalFlags::default()).with_output(output);
                let rendered = error.to_string();
                // clap's first line says what is wrong; the rest is usage and a hint.
                let first = rendered.lines().next().unwrap_or(&rendered);
                let message = first.trim_start_matches("error: ");
                if let Err(not_printed) = report::refused_command_line(&printer, &document, message) {
                    printer.error(&CommandError::from(not_printed));
                }
            }
            error.exit()
        }
    }
}

/// The document format a command's command line asks for (`-o json`, `-oyaml`,
/// `--output=json`, …), if any, with the command's empty document. Only terminal flags
/// (`-q`, `-v`, `--no-color`) are left before the command once flags are hoisted.
fn report_output(args: &[std::ffi::OsString]) -> Option<(flags::Output, serde_json::Value)> {
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let command = words.iter().find(|w| !w.starts_with('-'))?;
    let document = empty_document(command)?;
    let mut asked = None;
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let value = match *word {
            "-o" | "--output" => words.next().copied(),
            word => {
                word.strip_prefix("--output=").or_else(|| word.strip_prefix("-o")).map(|v| v.trim_start_matches('='))
            }
        };
        match value {
            Some("json") => asked = Some(flags::Output::Json),
            Some("yaml") => asked = Some(flags::Output::Yaml),
            Some(_) => asked = None,
            None => {}
        }
    }
    Some((asked?, document))
}

impl Cli {
    /// Runs the command; an error is reported on stderr and becomes the exit code.
    pub fn run(self) -> ExitCode {
        let printer = Printer::new(&self.terminal);
        match self.execute(&printer) {
            Ok(()) => ExitStatus::Success.into(),
            Err(error) => {
                printer.error(&error);
                error.status().into()
            }
        }
    }

    fn execute(self, printer: &Printer) -> Result<(), CommandError> {
        logging::init(&self.terminal, printer)?;
        let runtime = tokio::runtime::Runtime::new().map_err(RuntimeError)?;
        let timeout = self.command.timeout();
        // `dev serve` stops gracefully on a signal by itself; the lifecycle commands wait
        // for the signal [`signals::listen`] keeps at each step and report what it
        // interrupted (a wrapper stopping them at once would lose that report).
        let handles_signals = matches!(self.command, Command::Dev(_));
        // These handle a stop themselves: they report what it interrupted, in their document.
        let reports_signals = matches!(
            self.command,
            Command::Import(_)
                | Command::Upgrade(_)
                | Command::Detach(_)
                | Command::Move(_)
                | Command::Apply(_)
                | Command::Plan(_)
                | Command::Get(_)
                | Command::Describe(_)
                | Command::Hub(_)
        );
        let command = async {
            // The clock of --timeout starts with the command, before it connects.
            if let Some(timeout) = timeout {
                signals::start_deadline(timeout);
            }
            match self.command {
                Command::Dev(args) => dev::run(args, printer).await,
                Command::Demo(args) => demo::run(args, printer).await,
                Command::Hub(args) => hub::run(args, printer).await,
                Command::Import(args) => import::run(args, printer).await,
                Command::Upgrade(args) => upgrade::run(args, printer).await,
                Command::Detach(args) => detach::run(args, printer).await,
                Command::Move(args) => moving::run(args, printer).await,
                Command::Plan(args) => plan::run(args, printer).await,
                Command::Apply(args) => apply::run(args, printer).await,
                Command::Get(args) => get::run(args, printer).await,
                Command::Describe(args) => describe::run(args, printer).await,
                Command::Completion(args) => completion::run(args, printer),
                Command::Version(args) => version::run(args, printer),
            }
        };
        // For the others it is enough to stop.
        let result = if handles_signals {
            runtime.block_on(command)
        } else if reports_signals {
            runtime.block_on(async {
                signals::listen();
                command.await
            })
        } else {
            runtime
                .block_on(async {
                    signals::listen();
                    signals::until_stopped(command).await
                })
                .unwrap_or_else(|stop| Err(signals::Interrupted { stop, done: Vec::new() }.into()))
        };
        // A blocking task still running (a prompt, a file read) must not hold the exit.
        runtime.shutdown_background();
        result
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_refused_command_line_still_prints_the_document_of_its_command_with_the_error() {
        use super::flags::Output;
        let asked = |line: &str| {
            let args = argv::hoisted(line.split_whitespace().map(Into::into).collect::<Vec<_>>());
            report_output(&args)
        };
        let format = |line: &str| asked(line).map(|(output, _)| output);
        assert_eq!(format("fleetctl import c9 --timeout 0s -o json"), Some(Output::Json));
        assert_eq!(format("fleetctl -q detach c1 --parallel 0 -oyaml"), Some(Output::Yaml));
        assert_eq!(format("fleetctl upgrade --all --to latest --output=json"), Some(Output::Json));
        assert_eq!(format("fleetctl apply -f f.yaml --output json"), Some(Output::Json));
        assert_eq!(format("fleetctl -o json plan -f f.yaml --bad"), Some(Output::Json), "a flag before the command");
        assert_eq!(format("fleetctl import c9 -o json -o wide"), None, "the last one counts");
        assert_eq!(format("fleetctl import c9 --timeout 0s"), None, "no document asked for");
        assert_eq!(format("fleetctl completion bash -o json"), None, "completion prints no document");
        // Each command's own shape: a report, a plan, a list.
        let document = |line: &str| asked(line).map(|(_, document)| document).expect("a document");
        assert_eq!(document("fleetctl import c9 -o json --bad")["clusters"], serde_json::json!([]));
        assert_eq!(document("fleetctl plan -f f.yaml -o json --bad")["changes"], serde_json::json!([]));
        assert_eq!(document("fleetctl get clusters -l '!!!' -o json")["kind"], "List");
    }

    fn refused(args: &[&str]) -> ErrorKind {
        let error = Cli::try_parse_from(args).expect_err("refused");
        assert_eq!(error.exit_code(), 2, "{args:?}: a usage error");
        error.kind()
    }

    #[test]
    fn a_flag_is_refused_by_the_commands_that_do_not_honour_it() {
        for args in [
            &["fleetctl", "completion", "bash", "-o", "json"][..],
            &["fleetctl", "dev", "up", "--cluster-context", "x"],
            &["fleetctl", "dev", "status", "--hub-kubeconfig", "/k"],
            &["fleetctl", "demo", "--timeout", "5m"],
            &["fleetctl", "get", "clusters", "--cluster-context", "x"],
            &["fleetctl", "hub", "install", "-o", "json"],
            &["fleetctl", "upgrade", "c1", "--to", "0.2.0", "--cluster-kubeconfig", "/k"],
            // Before the command too: hoisted after it, and refused there.
            &["fleetctl", "-o", "json", "completion", "bash"],
        ] {
            assert_eq!(refused(args), ErrorKind::UnknownArgument, "{args:?}");
        }
    }

    #[test]
    fn global_flags_go_before_or_after_the_command_as_kubectls_do() {
        for args in [
            &["fleetctl", "--hub-context", "hub", "get", "clusters"][..],
            &["fleetctl", "--hub-context=hub", "-o", "json", "upgrade", "c1", "--to", "0.2.0"],
            &["fleetctl", "--timeout", "10s", "describe", "cluster", "c1"],
            &["fleetctl", "-v", "--hub-kubeconfig", "/k", "detach", "--all", "--yes"],
        ] {
            assert!(Cli::try_parse_from(argv::hoisted(args.iter().map(Into::into).collect())).is_ok(), "{args:?}");
        }
    }

    #[test]
    fn a_selector_is_checked_before_any_request_and_import_takes_labels_with_label() {
        for args in [
            &["fleetctl", "get", "clusters", "-l", "!!!"][..],
            &["fleetctl", "upgrade", "-l", "bad key=x", "--to", "0.2.0"],
            &["fleetctl", "detach", "-l", "env in prod", "--yes"],
            // -l selects; import selects nothing, and says to use --label.
            &["fleetctl", "import", "--all-contexts", "--cluster-kubeconfig", "/k", "-l", "env=prod"],
        ] {
            let error = Cli::try_parse_from(args).expect_err("refused");
            assert_eq!(error.exit_code(), 2, "{args:?}");
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{args:?}: {error}");
        }
        let import = Cli::try_parse_from(["fleetctl", "import", "c1", "-l", "env=prod"]).expect_err("refused");
        assert!(import.to_string().contains("--label KEY=VALUE"), "{import}");
        assert!(Cli::try_parse_from(["fleetctl", "import", "c1", "--label", "env=prod"]).is_ok());
    }

    #[test]
    fn every_help_has_examples() {
        let mut missing = Vec::new();
        let mut root = Cli::command();
        root.build();
        let mut commands = vec![(String::from("fleetctl"), root)];
        while let Some((path, mut command)) = commands.pop() {
            let help = command.render_help().to_string();
            if !help.contains("Examples:") {
                missing.push(path.clone());
            }
            for sub in command.get_subcommands() {
                if sub.get_name() != "help" {
                    commands.push((format!("{path} {}", sub.get_name()), sub.clone()));
                }
            }
        }
        assert!(missing.is_empty(), "no Examples in the --help of: {missing:?}");
    }

    #[test]
    fn each_command_takes_the_flags_it_honours_before_or_after_its_subcommand() {
        for args in [
            &[
                "fleetctl",
                "import",
                "c1",
                "--hub-context",
                "h",
                "--cluster-context",
                "c",
                "-o",
                "json",
                "--timeout",
                "1m",
            ][..],
            &[
                "fleetctl",
                "upgrade",
                "--all",
                "--to",
                "0.2.0",
                "--hub-kubeconfig",
                "/k",
                "-o",
                "yaml",
                "--timeout",
                "1m",
            ],
            &[
                "fleetctl",
                "detach",
                "c1",
                "--yes",
                "--hub-context",
                "h",
                "--cluster-kubeconfig",
                "/k",
                "--timeout",
                "1m",
            ],
            &["fleetctl", "get", "-o", "wide", "clusters", "--hub-context", "h", "--no-headers", "-w"],
            &["fleetctl", "get", "clusters", "-o", "jsonpath={.items[*].metadata.name}"],
            &["fleetctl", "get", "clusters", "-o", "custom-columns=NAME:.metadata.name"],
            &["fleetctl", "detach", "--all", "--yes", "--dry-run"],
            &["fleetctl", "upgrade", "--all", "--to", "0.2.0", "--dry-run=client"],
            &["fleetctl", "import", "c1", "--allow-hub-as-target", "--dry-run"],
            &["fleetctl", "apply", "-f", "f.yaml", "--dry-run=server"],
            &["fleetctl", "describe", "cluster", "c1", "--timeout", "5s", "--cluster-context", "c1"],
            &["fleetctl", "get", "addons", "c1", "-o", "json", "--hub-kubeconfig", "/k"],
            &["fleetctl", "describe", "cluster", "c1", "-o", "yaml", "--hub-context", "h"],
            &["fleetctl", "hub", "install", "--hub-context", "h"],
            &["fleetctl", "hub", "--hub-context", "h", "uninstall"],
            // Terminal flags go anywhere.
            &["fleetctl", "-q", "completion", "bash", "--no-color"],
            &["fleetctl", "dev", "status", "-vv"],
        ] {
            assert!(Cli::try_parse_from(args).is_ok(), "{args:?}");
        }
        assert_eq!(refused(&["fleetctl", "-q", "-v", "get", "clusters"]), ErrorKind::ArgumentConflict);
    }

    #[test]
    fn a_bare_hub_is_refused_with_the_flags_of_the_hub_controller_it_would_not_have() {
        for flag in [&["--image", "x"][..], &["--ready-timeout", "5s"]] {
            let args = [&["fleetctl", "dev", "up", "--bare-hub"][..], flag].concat();
            let error = Cli::try_parse_from(&args).expect_err("refused");
            assert_eq!(error.exit_code(), 2, "{args:?}: a usage error");
            assert_eq!(error.kind(), ErrorKind::ArgumentConflict, "{args:?}");
            assert!(error.to_string().contains(flag[0]), "names the conflict: {error}");
        }
        let bare = ["fleetctl", "dev", "up", "--bare-hub", "--clusters", "2", "--durable", "--podman"];
        assert!(Cli::try_parse_from(bare).is_ok(), "the managed clusters' flags go with it");
    }
}
