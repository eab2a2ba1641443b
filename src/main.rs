use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use fleetctl::cli::addon::AddonCli;

fn main() -> ExitCode {
    fleetctl::devcluster::node::process::die_with_parent_if_asked();
    // Called by the addon executable's name (an image may link it here): the addon agent.
    let name = std::env::args_os().next().map(|arg0| Path::new(&arg0).file_name().map(ToOwned::to_owned));
    if name.flatten().is_some_and(|n| n == fleetctl::addon::EXECUTABLE) {
        return AddonCli::parse().run();
    }
    fleetctl::cli::Cli::parse().run()
}
