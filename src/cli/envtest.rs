//! `fleetctl` invoked as `kube-apiserver` or `etcd` (a link of that name, in the folder
//! `KUBEBUILDER_ASSETS` names): envtest's control plane, played by the dev API server
//! (`fleetctl_devcluster::envtest`). Its command line is kube-apiserver's or etcd's, not
//! fleetctl's.

use std::process::ExitCode;

use fleetctl_devcluster::envtest::{self, EnvtestError, Personality};
use tracing_subscriber::EnvFilter;

use super::exit::{ExitStatus, Fault};

impl Fault for EnvtestError {
    fn exit_status(&self) -> ExitStatus {
        if self.is_usage() { ExitStatus::Usage } else { ExitStatus::Failure }
    }
}

/// Runs `personality` with `args` (the command line after the program name).
pub fn main(personality: Personality, args: &[String]) -> ExitCode {
    let parsed = envtest::parse(personality, args);
    if parsed.help {
        print!("{}", personality.help());
        return ExitStatus::Success.into();
    }
    // kube-apiserver logs to stderr; FLEETCTL_LOG chooses the level as for fleetctl.
    let filter = std::env::var("FLEETCTL_LOG").ok().and_then(|f| EnvFilter::try_new(f).ok());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter.unwrap_or_else(|| EnvFilter::new("info,kube_client=off")))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
    let ran = tokio::runtime::Runtime::new()
        .map_err(EnvtestError::Runtime)
        .and_then(|runtime| runtime.block_on(envtest::run(personality, parsed)));
    match ran {
        Ok(()) => ExitStatus::Success.into(),
        Err(error) => {
            eprintln!("{}: {}", personality.name(), fleetctl_kube::errors::chain(&error));
            error.exit_status().into()
        }
    }
}
