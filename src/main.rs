fn main() -> std::process::ExitCode {
    fleetctl::cli::main()
}
