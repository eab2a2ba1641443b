use clap::Parser;

fn main() -> std::process::ExitCode {
    fleetctld::Cli::parse().run()
}
