//! Upstream OCM's own executables (built from its source: `ocm`, the multi-call executable
//! of its operators, controllers and agents, and `clusteradm`), for the tests that let
//! upstream judge the dev cluster. Where they are comes from [`VARIABLE`], which `.ci/run`
//! sets when it finds them beside the checkout; without it the tests skip and say so (a
//! fresh clone has no upstream executables), and a folder that lacks them fails the test.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The folder holding `ocm` (and its names `registration-operator`, `registration`,
/// `work`, `placement`, `addon`) and `clusteradm`.
pub const VARIABLE: &str = "FLEETCTL_UPSTREAM_BIN";

/// Upstream's executables, if this machine has them.
pub fn executables() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os(VARIABLE).map(PathBuf::from) else {
        super::notice(&format!("{VARIABLE} names no folder of upstream OCM executables"));
        return None;
    };
    let missing: Vec<&str> =
        ["clusteradm", "registration-operator"].into_iter().filter(|name| !dir.join(name).is_file()).collect();
    assert!(missing.is_empty(), "{VARIABLE}={} lacks {}", dir.display(), missing.join(", "));
    Some(dir)
}

/// A process that is killed when dropped, its output in a file the test can show.
pub struct Running {
    child: Child,
    /// Where its standard output and error go.
    pub log: PathBuf,
}

impl Running {
    /// Starts `program` with `args` under `dir`'s environment, logging to `log`.
    pub fn start(program: &Path, args: &[&str], log: PathBuf) -> Self {
        let out = std::fs::File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", program.display()));
        Self { child, log }
    }

    /// What it has logged so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
