use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    fleetctl::devcluster::node::process::die_with_parent_if_asked();
    fleetctl::cli::Cli::parse().run()
}
