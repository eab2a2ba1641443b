use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    fleetctl::cli::Cli::parse().run()
}
