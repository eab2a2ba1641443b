//! Running one container: a child process of the fleetctl binary, or a task of this
//! process (the in-process mode), and stopping it the way a kubelet does — SIGTERM,
//! a grace period, then SIGKILL.

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use fleetctl_kube::kubeconfig::{self, Credentials, Names};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::{InProcessCommand, InProcessRunner};
use crate::serve::write_private;

/// Variables of the cluster process a container inherits; everything else it gets
/// from its manifest, as in a real container.
const INHERITED_ENV: [&str; 6] = ["PATH", "HOME", "TMPDIR", "LANG", "RUST_BACKTRACE", "RUST_MIN_STACK"];

/// The fleetctl image's entrypoint, which runs a container that names no `command`.
pub const ENTRYPOINT: &str = "fleetctld";

/// Exit code reported for a container ended by a signal: 128 + the signal, as runtimes do.
const SIGNAL_BASE: i32 = 128;

/// What to start.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The executable the container's `command` names (a file of the image, found beside
    /// the entrypoint), or `None` for the image's entrypoint, [`ENTRYPOINT`].
    pub command: Option<String>,
    /// The container's args, after the rest of its `command`.
    pub args: Vec<String>,
    /// Its environment, resolved, with the simulator's overrides.
    pub env: Vec<(String, String)>,
    /// The kubeconfig of the Pod's ServiceAccount (also in `env` as `KUBECONFIG`).
    pub kubeconfig: PathBuf,
    /// Where stdout and stderr go (appended).
    pub log: PathBuf,
}

impl Launch {
    /// The file to run: `entrypoint` (the image's entrypoint, the in-cluster executable)
    /// itself, or the executable the container's command names, which must sit beside it as
    /// it would in the image.
    pub fn executable(&self, entrypoint: &Path) -> std::io::Result<PathBuf> {
        let Some(command) = &self.command else { return Ok(entrypoint.to_path_buf()) };
        let not_found = |why: String| std::io::Error::new(std::io::ErrorKind::NotFound, why);
        let name =
            Path::new(command).file_name().ok_or_else(|| not_found(format!("command {command:?} names no file")))?;
        let path = entrypoint.with_file_name(name);
        if path.is_file() {
            return Ok(path);
        }
        Err(not_found(format!("command {command:?} is not in the fleetctl image: no {}", path.display())))
    }

    /// The command line, for logs: the executable's name and the args.
    pub fn command_line(&self) -> String {
        let program = self.command.as_deref().and_then(|c| Path::new(c).file_name()).map(|n| n.to_string_lossy());
        std::iter::once(program.unwrap_or(ENTRYPOINT.into()).into_owned())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A started container.
#[derive(Debug)]
pub enum Running {
    /// A child process.
    Process {
        /// The child.
        child: tokio::process::Child,
        /// Its pid.
        pid: u32,
    },
    /// A task of this process.
    Task {
        /// The task, which returns the container's exit code.
        handle: tokio::task::JoinHandle<i32>,
        /// A number unique within the process, for the container id.
        id: u64,
    },
}

impl Running {
    /// The id reported in `containerStatuses[].containerID`: `process://<pid>` or `task://<n>`.
    pub fn container_id(&self) -> String {
        match self {
            Self::Process { pid, .. } => format!("process://{pid}"),
            Self::Task { id, .. } => format!("task://{id}"),
        }
    }

    /// Waits until it ends by itself; returns its exit code.
    pub async fn wait(&mut self) -> i32 {
        match self {
            Self::Process { child, .. } => match child.wait().await {
                Ok(status) => exit_code(status),
                Err(e) => {
                    tracing::warn!(error = %e, "waiting for a container process");
                    1
                }
            },
            // A task that panicked ends as a crashed process would: with code 1.
            Self::Task { handle, .. } => handle.await.unwrap_or(1),
        }
    }

    /// Stops it: SIGTERM, then SIGKILL once `grace` has passed. A task is aborted at once
    /// (it cannot be asked to stop). Returns the exit code.
    pub async fn terminate(self, grace: Duration) -> i32 {
        match self {
            Self::Process { mut child, pid } => {
                // The child is not reaped before we wait on it below, so its pid still
                // names it even if it has exited already.
                if let Ok(raw) = i32::try_from(pid) {
                    let _ = kill(Pid::from_raw(raw), Signal::SIGTERM);
                }
                match tokio::time::timeout(grace, child.wait()).await {
                    Ok(Ok(status)) => exit_code(status),
                    _ => {
                        tracing::info!(pid, "container did not stop within its grace period: SIGKILL");
                        let _ = child.kill().await;
                        SIGNAL_BASE + Signal::SIGKILL as i32
                    }
                }
            }
            Self::Task { handle, .. } => {
                handle.abort();
                let _ = handle.await;
                SIGNAL_BASE + Signal::SIGTERM as i32
            }
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|s| SIGNAL_BASE + s)).unwrap_or(1)
}

/// Starts the container's executable (`entrypoint`, the fleetctl binary, or the one its
/// command names beside it) with its args and environment, stdout and stderr appended to
/// the log. The child stays in the cluster process's process group, so that stopping the
/// group (as `dev down` does) also stops containers the cluster process could not stop
/// itself.
pub fn spawn_process(entrypoint: &Path, launch: &Launch) -> std::io::Result<Running> {
    let program = launch.executable(entrypoint)?;
    let log = open_log(&launch.log)?;
    let stderr = log.try_clone()?;
    let mut command = tokio::process::Command::new(program);
    // As exec does: the program learns the name it was called by.
    if let Some(name) = &launch.command {
        command.arg0(name);
    }
    command
        .args(&launch.args)
        .env_clear()
        .envs(INHERITED_ENV.iter().filter_map(|name| std::env::var_os(name).map(|value| (name, value))))
        .envs(launch.env.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(stderr))
        // If this handle is dropped without an orderly stop (a panic, an aborted task),
        // the process must not outlive it.
        .kill_on_drop(true);
    die_with_this_process(&mut command);
    let child = command.spawn()?;
    let pid = child.id().unwrap_or_default();
    Ok(Running::Process { child, pid })
}

/// Starts the container as a task of this process through the caller's runner.
pub fn spawn_task(runner: &InProcessRunner, launch: &Launch) -> Running {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let future = runner(InProcessCommand {
        command: launch.command.clone(),
        args: launch.args.clone(),
        env: launch.env.clone(),
        kubeconfig: launch.kubeconfig.clone(),
    });
    Running::Task { handle: tokio::spawn(future), id: NEXT.fetch_add(1, Ordering::Relaxed) }
}

/// Creates a directory (and its parents) readable by its owner only.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Opens a log file for appending, creating it (and its directory) owner-only.
pub fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    std::fs::OpenOptions::new().append(true).create(true).mode(0o600).open(path)
}

/// Appends one line to a log file (the simulator's notes between a container's runs).
pub fn log_line(path: &Path, line: &str) {
    use std::io::Write;
    let stamp = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ");
    if let Err(e) = open_log(path).and_then(|mut f| writeln!(f, "{stamp} [node simulator] {line}")) {
        tracing::debug!(error = %e, log = %path.display(), "writing to a container log");
    }
}

/// Writes a kubeconfig (mode 0600) that authenticates with a ServiceAccount token.
pub fn write_kubeconfig(path: &Path, server: &str, ca_pem: &str, token: &str) -> std::io::Result<()> {
    let names = Names { cluster: "cluster", user: "pod", context: "pod" };
    let config = kubeconfig::single(names, server, ca_pem, Credentials::Token(token.to_string()));
    let yaml = kubeconfig::to_yaml(&config);
    write_private(path, yaml.as_bytes())
}

/// Asks the kernel to send the container SIGTERM when the cluster process that starts it
/// dies, so that a SIGKILLed dev cluster leaves no orphans. The death signal follows the
/// parent *thread* that forks: the simulator spawns from runtime worker threads, which
/// live as long as the cluster process.
#[allow(unsafe_code)]
fn die_with_this_process(command: &mut tokio::process::Command) {
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the forked child before exec. It makes only the
    // async-signal-safe prctl(2) and getppid(2) calls and allocates nothing (an errno
    // becomes an io::Error without allocating).
    unsafe {
        command.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Signal::SIGTERM)?;
            // The parent may have died between the fork and the prctl above.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::from(nix::errno::Errno::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_process_stops_on_sigterm_and_its_log_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/x.log");
        let launch = Launch {
            command: None,
            args: vec!["-c".into(), "echo started; exec sleep 30".into()],
            env: vec![],
            kubeconfig: dir.path().join("k"),
            log: log.clone(),
        };
        let mut running = spawn_process(Path::new("/bin/sh"), &launch).unwrap();
        assert!(running.container_id().starts_with("process://"));
        let waited = tokio::time::timeout(Duration::from_millis(200), running.wait()).await;
        assert!(waited.is_err(), "still running");
        let code = running.terminate(Duration::from_secs(2)).await;
        assert_eq!(code, SIGNAL_BASE + Signal::SIGTERM as i32);
        assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(std::fs::read_to_string(&log).unwrap().contains("started"));
    }

    #[tokio::test]
    async fn a_process_that_ignores_sigterm_is_killed_after_the_grace() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            command: None,
            args: vec!["-c".into(), "trap '' TERM; echo ready; while :; do sleep 0.05; done".into()],
            env: vec![],
            kubeconfig: dir.path().join("k"),
            log: dir.path().join("x.log"),
        };
        let running = spawn_process(Path::new("/bin/sh"), &launch).unwrap();
        // Give the shell time to install its trap.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = std::time::Instant::now();
        let code = running.terminate(Duration::from_millis(300)).await;
        assert_eq!(code, SIGNAL_BASE + Signal::SIGKILL as i32);
        assert!(started.elapsed() >= Duration::from_millis(300));
    }

    #[test]
    fn a_container_command_runs_an_executable_of_the_image() {
        let dir = tempfile::tempdir().unwrap();
        let entrypoint = dir.path().join(ENTRYPOINT);
        std::fs::write(dir.path().join("other-tool"), "").unwrap();
        let launch = |command: Option<&str>| Launch {
            command: command.map(str::to_string),
            args: vec!["search-collector".into()],
            env: vec![],
            kubeconfig: dir.path().join("k"),
            log: dir.path().join("x.log"),
        };
        assert_eq!(launch(None).executable(&entrypoint).unwrap(), entrypoint);
        assert_eq!(launch(None).command_line(), "fleetctld search-collector");
        for command in ["other-tool", "/usr/local/bin/other-tool"] {
            assert_eq!(launch(Some(command)).executable(&entrypoint).unwrap(), dir.path().join("other-tool"));
            assert_eq!(launch(Some(command)).command_line(), "other-tool search-collector");
        }
        for missing in ["sh", "/bin/sh", "..", "fleetctl-addon"] {
            let error = launch(Some(missing)).executable(&entrypoint).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "{missing}");
            assert!(error.to_string().contains(missing), "{error}");
        }
    }
}
