//! The addon agents' entrypoint: `fleetctl addon <name>` without the rest of fleetctl, so
//! that each addon process maps only the code it runs (see `fleetctl::cli::addon`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    fleetctl::devcluster::node::process::die_with_parent_if_asked();
    fleetctl::cli::addon::AddonCli::parse().run()
}
