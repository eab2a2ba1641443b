//! Running one container: a child process of the image's entrypoint, or a task of this
//! process (the in-process mode), and stopping it the way a kubelet does — SIGTERM,
//! a grace period, then SIGKILL.
//!
//! A process sees its Pod's ServiceAccount as a pod does when it can be given a mount
//! namespace of its own (as root): its `/run` is the Pod's (see [`super::credentials`]),
//! so the token, CA and namespace are at `/var/run/secrets/kubernetes.io/serviceaccount`,
//! and `KUBERNETES_SERVICE_HOST`/`PORT` name the API server's service address — kube-rs's
//! in-cluster configuration then works unchanged. Otherwise it gets `KUBECONFIG`.
//!
//! Its volumes (see [`super::mounts`]): in a mount namespace of its own each is bound at
//! its `mountPath` (read-only when `readOnly`); otherwise its args and env values name the
//! volumes' directories on this machine in place of their mount paths, as for a task.

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use std::ffi::{CStr, CString, OsString};
use std::net::SocketAddr;
use std::os::unix::ffi::OsStrExt;

use nix::mount::MsFlags;
use nix::sched::CloneFlags;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::container::Podman;
use super::credentials::Credentials;
use super::logs::Sink;
use super::mounts::{Mount as VolumeMount, rewrite};

use super::{InProcessCommand, InProcessRunner};

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
    /// Its environment, resolved, with the simulator's overrides (but not how it finds
    /// the API server: that depends on how it runs).
    pub env: Vec<(String, String)>,
    /// The Pod's ServiceAccount files.
    pub credentials: Credentials,
    /// Its volumes.
    pub mounts: Vec<VolumeMount>,
    /// Where stdout and stderr go.
    pub output: Sink,
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

    /// Its args and env with mount paths replaced by the volumes' directories, for a
    /// container that shares this machine's mounts.
    pub fn rewritten(&self) -> (Vec<String>, Vec<(String, String)>) {
        let args = self.args.iter().map(|a| rewrite(a, &self.mounts)).collect();
        let env = self.env.iter().map(|(k, v)| (k.clone(), rewrite(v, &self.mounts))).collect();
        (args, env)
    }

    /// The args and env as the process sees its volumes: as written when it has a mount
    /// namespace (the volumes are at their mount paths), [`Self::rewritten`] otherwise.
    pub fn seen_through(&self, isolation: Isolation) -> (Vec<String>, Vec<(String, String)>) {
        match isolation {
            Isolation::MountNamespace => (self.args.clone(), self.env.clone()),
            Isolation::Kubeconfig => self.rewritten(),
        }
    }

    /// The command line, for logs: the executable's name and `args` — the container's as
    /// its manifest writes them, before `$(VAR)` expansion, which may put a Secret's value
    /// in them.
    pub fn command_line(&self, args: &[String]) -> String {
        let program = self.command.as_deref().and_then(|c| Path::new(c).file_name()).map(|n| n.to_string_lossy());
        std::iter::once(program.unwrap_or(ENTRYPOINT.into()).into_owned())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A started container.
#[derive(Debug)]
pub enum Running {
    /// A child process (for a podman container, `podman run`).
    Process {
        /// The child.
        child: Box<tokio::process::Child>,
        /// Its pid.
        pid: u32,
        /// The container it runs, if it is `podman run`: removed once podman has ended.
        container: Option<Box<(Podman, String)>>,
        /// The tasks copying its stdout and stderr to the log.
        output: Vec<tokio::task::JoinHandle<()>>,
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
            Self::Process { container: Some(container), .. } => format!("podman://{}", container.1),
            Self::Process { pid, .. } => format!("process://{pid}"),
            Self::Task { id, .. } => format!("task://{id}"),
        }
    }

    /// The pid of its process, when it is one of this machine's (not a podman container's,
    /// nor a task).
    pub fn pid(&self) -> Option<u32> {
        match self {
            Self::Process { pid, container: None, .. } => Some(*pid),
            _ => None,
        }
    }

    /// Waits until it ends by itself; returns its exit code.
    pub async fn wait(&mut self) -> i32 {
        match self {
            Self::Process { child, output, container, .. } => {
                let code = match child.wait().await {
                    Ok(status) => exit_code(status),
                    Err(e) => {
                        tracing::warn!(error = %e, "waiting for a container process");
                        1
                    }
                };
                // `--rm` removes a container that ran; one that failed to start stays.
                if let Some(container) = container {
                    container.0.remove(&container.1).await;
                }
                drain(output).await;
                code
            }
            // A task that panicked ends as a crashed process would: with code 1.
            Self::Task { handle, .. } => handle.await.unwrap_or(1),
        }
    }

    /// Stops it: SIGTERM, then SIGKILL once `grace` has passed. A task is aborted at once
    /// (it cannot be asked to stop). Returns the exit code.
    pub async fn terminate(self, grace: Duration) -> i32 {
        match self {
            Self::Process { mut child, pid, container, mut output } => {
                // The child is not reaped before we wait on it below, so its pid still
                // names it even if it has exited already.
                if let Ok(raw) = i32::try_from(pid) {
                    let _ = kill(Pid::from_raw(raw), Signal::SIGTERM);
                }
                let code = match tokio::time::timeout(grace, child.wait()).await {
                    Ok(Ok(status)) => exit_code(status),
                    _ => {
                        tracing::info!(pid, "container did not stop within its grace period: SIGKILL");
                        let _ = child.kill().await;
                        SIGNAL_BASE + Signal::SIGKILL as i32
                    }
                };
                // `podman run` leaves its container behind when it is killed, and also when
                // SIGTERM reaches it before the container started (created, never run, and
                // never removed by `--rm`): the container goes with its pod either way.
                if let Some(container) = container {
                    container.0.remove(&container.1).await;
                }
                drain(&mut output).await;
                code
            }
            Self::Task { handle, .. } => {
                handle.abort();
                let _ = handle.await;
                SIGNAL_BASE + Signal::SIGTERM as i32
            }
        }
    }
}

/// How long the copy of a process's output may take after it exited (a child it left
/// behind may hold the pipe open).
const DRAIN: Duration = Duration::from_secs(1);

/// Waits until the output of an exited process is copied.
async fn drain(output: &mut Vec<tokio::task::JoinHandle<()>>) {
    for task in output.drain(..) {
        let abort = task.abort_handle();
        if tokio::time::timeout(DRAIN, task).await.is_err() {
            abort.abort();
        }
    }
}

/// Starts copying a spawned child's stdout and stderr (both piped) to the log.
pub fn capture(child: &mut tokio::process::Child, sink: &Sink) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        tasks.push(sink.copy("stdout", stdout));
    }
    if let Some(stderr) = child.stderr.take() {
        tasks.push(sink.copy("stderr", stderr));
    }
    tasks
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|s| SIGNAL_BASE + s)).unwrap_or(1)
}

/// How a process container sees its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// A mount namespace of its own with the Pod's `/run`, and the API server at
    /// `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT` (its service address).
    MountNamespace,
    /// The host's filesystem, and `KUBECONFIG` pointing at the Pod's kubeconfig.
    Kubeconfig,
}

impl Isolation {
    /// A mount namespace when this process may make one (as root), else the kubeconfig.
    pub fn best() -> Self {
        if nix::unistd::geteuid().is_root() { Self::MountNamespace } else { Self::Kubeconfig }
    }

    /// The variables by which the container finds the API server (at `service` from a
    /// mount namespace).
    pub fn env(self, credentials: &Credentials, service: SocketAddr) -> Vec<(String, String)> {
        match self {
            Self::MountNamespace => vec![
                ("KUBERNETES_SERVICE_HOST".into(), service.ip().to_string()),
                ("KUBERNETES_SERVICE_PORT".into(), service.port().to_string()),
            ],
            Self::Kubeconfig => vec![("KUBECONFIG".into(), credentials.kubeconfig.display().to_string())],
        }
    }
}

/// Starts the container's executable (`entrypoint`, the image's, or the one its command
/// names beside it) with its args and environment, stdout and stderr appended to the log.
/// The child stays in the cluster process's process group, so that stopping the group (as
/// `dev down` does) also stops containers the cluster process could not stop itself.
pub fn spawn_process(
    entrypoint: &Path,
    isolation: Isolation,
    service: SocketAddr,
    launch: &Launch,
) -> std::io::Result<Running> {
    let program = launch.executable(entrypoint)?;
    let mut command = tokio::process::Command::new(program);
    // As exec does: the program learns the name it was called by.
    if let Some(name) = &launch.command {
        command.arg0(name);
    }
    let (args, _) = launch.seen_through(isolation);
    command
        .args(&args)
        .env_clear()
        .envs(container_env(launch, isolation, service))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // If this handle is dropped without an orderly stop (a panic, an aborted task),
        // the process must not outlive it.
        .kill_on_drop(true);
    let mounts = match isolation {
        Isolation::MountNamespace => Some(Mounts::of(launch)?),
        Isolation::Kubeconfig => None,
    };
    before_exec(&mut command, mounts);
    let mut child = command.spawn()?;
    let pid = child.id().unwrap_or_default();
    let output = capture(&mut child, &launch.output);
    Ok(Running::Process { child: Box::new(child), pid, container: None, output })
}

/// The whole environment of a container's process (and of its exec probes): what it
/// inherits of the cluster process, its own, and how it finds the API server.
pub fn container_env(launch: &Launch, isolation: Isolation, service: SocketAddr) -> Vec<(OsString, OsString)> {
    let (_, env) = launch.seen_through(isolation);
    let api = isolation.env(&launch.credentials, service);
    let inherited = INHERITED_ENV.iter().filter_map(|name| std::env::var_os(name).map(|value| ((*name).into(), value)));
    let own = env.iter().chain(&api).map(|(n, v)| (n.into(), v.into()));
    inherited.chain(own).collect()
}

/// Starts the container as a task of this process through the caller's runner.
pub fn spawn_task(runner: &InProcessRunner, launch: &Launch) -> Running {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let (args, env) = launch.rewritten();
    let future = runner(InProcessCommand {
        command: launch.command.clone(),
        args,
        env,
        kubeconfig: launch.credentials.kubeconfig.clone(),
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

/// A bind mount, prepared before the fork (the child may not allocate).
struct Bind {
    source: CString,
    target: CString,
    /// The directories above the target, outermost first, made if missing.
    parents: Vec<CString>,
    /// Whether the mount point is a file (a `subPath` naming one), else a directory.
    file: bool,
    read_only: bool,
}

/// The mounts of a process in a mount namespace of its own: the Pod's `/run`, then its
/// volumes (outer mount paths first).
struct Mounts {
    run: Bind,
    volumes: Vec<Bind>,
}

fn c_path(path: &Path) -> std::io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(std::io::Error::other)
}

impl Mounts {
    fn of(launch: &Launch) -> std::io::Result<Self> {
        // `/var/run` is usually a link to `/run`: bind over what it names.
        let target = std::fs::canonicalize("/var/run")?;
        let run = Bind {
            source: c_path(&launch.credentials.run)?,
            target: c_path(&target)?,
            parents: Vec::new(),
            file: false,
            read_only: false,
        };
        let volumes = launch
            .mounts
            .iter()
            .map(|mount| {
                let target = Path::new(&mount.target);
                let parents: Vec<&Path> = target.ancestors().skip(1).filter(|p| p.parent().is_some()).collect();
                Ok(Bind {
                    source: c_path(&mount.source)?,
                    target: c_path(target)?,
                    parents: parents.into_iter().rev().map(c_path).collect::<std::io::Result<_>>()?,
                    file: mount.source.is_file(),
                    read_only: mount.read_only,
                })
            })
            .collect::<std::io::Result<_>>()?;
        Ok(Self { run, volumes })
    }
}

/// Makes a bind mount in the child: its mount point first if missing (errors there show
/// as the mount's), then the mount, then the read-only remount. Only system calls.
fn bind(bind: &Bind) -> nix::Result<()> {
    use nix::sys::stat::Mode;
    for parent in &bind.parents {
        let _ = nix::unistd::mkdir(parent.as_c_str(), Mode::from_bits_truncate(0o755));
    }
    if bind.file {
        let flags = nix::fcntl::OFlag::O_CREAT | nix::fcntl::OFlag::O_WRONLY | nix::fcntl::OFlag::O_CLOEXEC;
        let _ = nix::fcntl::open(bind.target.as_c_str(), flags, Mode::from_bits_truncate(0o644));
    } else {
        let _ = nix::unistd::mkdir(bind.target.as_c_str(), Mode::from_bits_truncate(0o755));
    }
    let none = None::<&CStr>;
    nix::mount::mount(
        Some(bind.source.as_c_str()),
        bind.target.as_c_str(),
        none,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        none,
    )?;
    if bind.read_only {
        let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY;
        nix::mount::mount(none, bind.target.as_c_str(), none, flags, none)?;
    }
    Ok(())
}

/// What the child does between fork and exec: ask the kernel to send it SIGTERM when the
/// cluster process that starts it dies, so that a SIGKILLed dev cluster leaves no orphans;
/// and, given mounts, enter a mount namespace of its own with the Pod's `/run` and volumes
/// bound in.
/// The death signal follows the parent *thread* that forks: the simulator spawns from
/// runtime worker threads, which live as long as the cluster process.
#[allow(unsafe_code)]
fn before_exec(command: &mut tokio::process::Command, mounts: Option<Mounts>) {
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the forked child before exec. It makes only
    // async-signal-safe system calls — prctl(2), getppid(2), unshare(2), mount(2), mkdir(2),
    // open(2), close(2) — on strings made before the fork, and allocates nothing (an errno
    // becomes an io::Error without allocating).
    unsafe {
        command.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Signal::SIGTERM)?;
            // The parent may have died between the fork and the prctl above.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::from(nix::errno::Errno::ESRCH));
            }
            if let Some(mounts) = &mounts {
                nix::sched::unshare(CloneFlags::CLONE_NEWNS)?;
                // Nothing of ours propagates back to the host's mounts.
                nix::mount::mount(
                    None::<&CStr>,
                    c"/",
                    None::<&CStr>,
                    MsFlags::MS_REC | MsFlags::MS_PRIVATE,
                    None::<&CStr>,
                )?;
                bind(&mounts.run)?;
                for volume in &mounts.volumes {
                    bind(volume)?;
                }
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVICE: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2)), 6443);

    #[tokio::test]
    async fn a_process_stops_on_sigterm_and_its_log_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/x.log");
        let launch = Launch {
            command: None,
            args: vec!["-c".into(), "echo started; exec sleep 30".into()],
            env: vec![],
            credentials: Credentials::under(dir.path()),
            mounts: vec![],
            output: Sink::detached(dir.path().join("run.log"), log.clone()),
        };
        let running = spawn_process(Path::new("/bin/sh"), Isolation::Kubeconfig, SERVICE, &launch).unwrap();
        assert!(running.container_id().starts_with("process://"));
        // Started (the shell then execs a sleep of 30 s): only the signal can end it now.
        while !std::fs::read_to_string(&log).unwrap_or_default().contains("started") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let code = running.terminate(Duration::from_secs(2)).await;
        assert_eq!(code, SIGNAL_BASE + Signal::SIGTERM as i32);
        assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(std::fs::read_to_string(&log).unwrap().contains("started"));
        let run = std::fs::read_to_string(dir.path().join("run.log")).unwrap();
        assert!(run.ends_with(" stdout F started\n"), "the run's log is in the CRI format: {run}");
    }

    #[tokio::test]
    async fn a_process_that_ignores_sigterm_is_killed_after_the_grace() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            command: None,
            args: vec!["-c".into(), "trap '' TERM; echo ready; while :; do sleep 0.05; done".into()],
            env: vec![],
            credentials: Credentials::under(dir.path()),
            mounts: vec![],
            output: Sink::detached(dir.path().join("run.log"), dir.path().join("x.log")),
        };
        let running = spawn_process(Path::new("/bin/sh"), Isolation::Kubeconfig, SERVICE, &launch).unwrap();
        // The shell says "ready" once its trap is installed.
        let log = dir.path().join("run.log");
        while !std::fs::read_to_string(&log).unwrap_or_default().contains(" ready") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let code = running.terminate(Duration::from_millis(300)).await;
        assert_eq!(code, SIGNAL_BASE + Signal::SIGKILL as i32, "SIGTERM was ignored, so the grace ended in SIGKILL");
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
            credentials: Credentials::under(dir.path()),
            mounts: vec![],
            output: Sink::detached(dir.path().join("run.log"), dir.path().join("x.log")),
        };
        assert_eq!(launch(None).executable(&entrypoint).unwrap(), entrypoint);
        let written = ["$(ROLE)".to_string()];
        assert_eq!(launch(None).command_line(&written), "fleetctld $(ROLE)");
        for command in ["other-tool", "/usr/local/bin/other-tool"] {
            assert_eq!(launch(Some(command)).executable(&entrypoint).unwrap(), dir.path().join("other-tool"));
            assert_eq!(launch(Some(command)).command_line(&written), "other-tool $(ROLE)");
        }
        for missing in ["sh", "/bin/sh", "..", "fleetctl-addon"] {
            let error = launch(Some(missing)).executable(&entrypoint).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "{missing}");
            assert!(error.to_string().contains(missing), "{error}");
        }
    }
}
