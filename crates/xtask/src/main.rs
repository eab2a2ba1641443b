//! Maintainer commands that regenerate the files checked into the repository.
//!
//! `cargo run -p xtask -- protobuf [--check]` writes (or, with `--check`, compares) the dev API
//! server's protobuf tables from the k8s-pb and k8s-openapi sources the workspace resolves.

mod protobuf;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["protobuf"] => protobuf::run(protobuf::Mode::Write),
        ["protobuf", "--check"] => protobuf::run(protobuf::Mode::Check),
        _ => {
            eprintln!("usage: cargo run -p xtask -- protobuf [--check]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(report) => {
            eprintln!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
