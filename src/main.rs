use clap::Parser;

fn main() -> std::process::ExitCode {
    fleetctl::cli::Cli::parse().run()
}
