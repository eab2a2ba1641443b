//! Running kubectl 1.32 against `fleetctl dev serve`.
//!
//! [`DevServe`] runs the built binary in its own temporary directory, waits until it
//! has written its kubeconfig (it does so only once the server accepts requests),
//! runs kubectl against it with a private `HOME` (so each test has its own discovery
//! cache), and stops the server with SIGTERM when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

/// How long the server may take to write its kubeconfig.
const READY_WITHIN: Duration = Duration::from_secs(10);

/// How often the kubeconfig is looked for when the server says nothing meanwhile.
const READY_CHECK: Duration = Duration::from_millis(25);

/// How long the server may take to stop after SIGTERM before it is killed.
const STOP_WITHIN: Duration = Duration::from_secs(5);

/// How long one kubectl command may take: one that hangs fails the test, naming itself
/// and showing the server's log, instead of stalling the run.
const KUBECTL_WITHIN: Duration = Duration::from_secs(60);

/// The kubectl executable: on PATH, or in /usr/local/bin.
pub fn kubectl_path() -> Option<&'static Path> {
    static PATH: OnceLock<Option<PathBuf>> = OnceLock::new();
    PATH.get_or_init(|| {
        let on_path =
            std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
        on_path
            .into_iter()
            .chain([PathBuf::from("/usr/local/bin")])
            .map(|dir| dir.join("kubectl"))
            .find(|candidate| is_executable(candidate))
    })
    .as_deref()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether kubectl is installed; tests skip (and say so) when it is not — except under
/// CI, where a missing kubectl fails them (see [`super::skip`]).
pub fn kubectl_available() -> bool {
    let found = kubectl_path().is_some();
    if !found {
        super::skip("kubectl is not installed");
    }
    found
}

/// One `fleetctl dev serve` in the foreground of a child process, with its own
/// temporary directory for the kubeconfig and kubectl's `HOME`.
pub struct DevServe {
    child: Option<Child>,
    stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
    kubeconfig: PathBuf,
    dir: TempDir,
}

impl DevServe {
    /// Starts a server on a free port and returns once its kubeconfig exists.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server with more `dev serve` flags (`--node-simulator`).
    pub fn start_with(flags: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let kubeconfig = dir.path().join("kubeconfig");
        let mut child = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
            .args(["dev", "serve", "--port", "0"])
            .args(flags)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            // The built-in controllers' failed steps too: what a stuck test needs to show.
            .env("FLEETCTL_LOG", "info,fleetctl_apiserver::controllers=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("fleetctl dev serve starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (lines, reader) = forward_lines(child.stderr.take().expect("piped stderr"), Some(stderr.clone()));
        let mut serve = Self { child: Some(child), stderr, stderr_reader: Some(reader), kubeconfig, dir };
        serve.wait_ready(&lines);
        serve
    }

    /// Waits for the kubeconfig, waking on every line the server logs (it logs once
    /// it is ready) and, should it stay silent, every few milliseconds, up to a deadline.
    fn wait_ready(&mut self, lines: &Receiver<String>) {
        let deadline = Instant::now() + READY_WITHIN;
        while !self.kubeconfig.exists() {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "fleetctl dev serve wrote no kubeconfig within {READY_WITHIN:?}; it logged:\n{}",
                self.server_log()
            );
            if let Err(RecvTimeoutError::Disconnected) = lines.recv_timeout(left.min(READY_CHECK))
                && !self.kubeconfig.exists()
            {
                // Its stderr closed: the server has stopped.
                let status = self.child.take().and_then(|mut c| c.wait().ok());
                if let Some(reader) = self.stderr_reader.take() {
                    let _ = reader.join();
                }
                panic!(
                    "fleetctl dev serve stopped ({status:?}) before writing its kubeconfig; it logged:\n{}",
                    self.server_log()
                );
            }
        }
    }

    /// What the server logged so far.
    pub fn server_log(&self) -> String {
        self.stderr.lock().expect("log lock").clone()
    }

    /// The kubeconfig the server wrote.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// A kubectl command for this server: `KUBECONFIG` is its kubeconfig and `HOME`
    /// its temporary directory.
    pub fn command(&self, args: &[&str]) -> Command {
        let kubectl = kubectl_path().expect("kubectl is installed");
        let mut command = Command::new(kubectl);
        command
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("HOME", self.dir.path())
            .env_remove("KUBECTL_EXTERNAL_DIFF")
            .env_remove("KUBE_EDITOR")
            .stdin(Stdio::null());
        command
    }

    /// Runs kubectl to completion.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.kubectl_with(args, None)
    }

    /// Runs kubectl to completion with `stdin` as its standard input.
    pub fn kubectl_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        self.kubectl_with(args, Some(stdin))
    }

    /// Runs kubectl to completion within [`KUBECTL_WITHIN`], with `stdin` if given.
    fn kubectl_with(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = self
            .command(args)
            .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("running kubectl {args:?}: {e}"));
        let writer = stdin.map(|text| {
            let mut input = child.stdin.take().expect("piped stdin");
            let text = text.to_string();
            std::thread::spawn(move || input.write_all(text.as_bytes()))
        });
        let pid = child.id().to_string();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        let output = match rx.recv_timeout(KUBECTL_WITHIN) {
            Ok(output) => output.unwrap_or_else(|e| panic!("waiting for kubectl {args:?}: {e}")),
            Err(_) => {
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
                let log = self.server_log();
                let tail: Vec<&str> = log.lines().rev().take(80).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                panic!(
                    "kubectl {args:?} did not finish within {KUBECTL_WITHIN:?}; the server logged last:\n{}",
                    tail.join("\n")
                );
            }
        };
        if let Some(writer) = writer {
            writer
                .join()
                .expect("stdin writer")
                .unwrap_or_else(|e| panic!("writing the stdin of kubectl {args:?}: {e}"));
        }
        output
    }

    /// Runs kubectl, asserts it succeeded, and returns its standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        succeeded(args, &self.kubectl(args))
    }

    /// Runs kubectl with standard input, asserts it succeeded, and returns its output.
    pub fn ok_with_stdin(&self, args: &[&str], stdin: &str) -> String {
        succeeded(args, &self.kubectl_with_stdin(args, stdin))
    }

    /// Runs kubectl, asserts it failed, and returns its standard error.
    pub fn fails(&self, args: &[&str]) -> String {
        failed(args, &self.kubectl(args))
    }

    /// Runs kubectl with standard input, asserts it failed, and returns its standard error.
    pub fn fails_with_stdin(&self, args: &[&str], stdin: &str) -> String {
        failed(args, &self.kubectl_with_stdin(args, stdin))
    }

    /// `kubectl apply -f -` of a manifest; returns standard output.
    pub fn apply(&self, manifest: &str) -> String {
        self.ok_with_stdin(&["apply", "-f", "-"], manifest)
    }

    /// Runs kubectl with `-o json` added and parses what it printed.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.extend(["-o", "json"]);
        let out = self.ok(&args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("kubectl {args:?} printed no JSON ({e}):\n{out}"))
    }

    /// Starts a long-running kubectl (a watch) whose output arrives line by line.
    pub fn stream(&self, args: &[&str]) -> Streaming {
        let mut child = self
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("running kubectl {args:?}: {e}"));
        let (lines, _) = forward_lines(child.stdout.take().expect("piped stdout"), None);
        let stderr = child.stderr.take().expect("piped stderr");
        Streaming { child, lines, stderr: Some(stderr), args: args.iter().map(ToString::to_string).collect() }
    }

    /// Sends SIGTERM and waits (boundedly) for the server to exit.
    fn stop(&mut self) -> Option<ExitStatus> {
        let mut child = self.child.take()?;
        let pid = child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).stdout(Stdio::null()).stderr(Stdio::null()).status();
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let status = match rx.recv_timeout(STOP_WITHIN) {
            Ok(status) => status.ok(),
            Err(_) => {
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
                let _ = rx.recv();
                None
            }
        };
        let _ = waiter.join();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
        status
    }
}

impl Drop for DevServe {
    fn drop(&mut self) {
        let status = self.stop();
        if !std::thread::panicking() {
            assert!(
                status.is_some_and(|s| s.success()),
                "fleetctl dev serve did not stop cleanly on SIGTERM ({status:?}); it logged:\n{}",
                self.server_log()
            );
        }
    }
}

/// A running kubectl whose standard output is read line by line.
pub struct Streaming {
    child: Child,
    lines: Receiver<String>,
    stderr: Option<std::process::ChildStderr>,
    args: Vec<String>,
}

impl Streaming {
    /// Waits for the first line satisfying `wanted`, returning the lines up to it.
    pub fn until(&mut self, within: Duration, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = wanted(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "kubectl {:?} printed no wanted line within {within:?}; it printed:\n{}",
                        self.args,
                        seen.join("\n")
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let mut err = String::new();
                    if let Some(mut stderr) = self.stderr.take() {
                        let _ = stderr.read_to_string(&mut err);
                    }
                    panic!(
                        "kubectl {:?} ended before printing a wanted line; it printed:\n{}\nand on stderr:\n{err}",
                        self.args,
                        seen.join("\n")
                    )
                }
            }
        }
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends each line of `source` over a channel (closed at end of input), and also
/// appends it to `log` when given.
fn forward_lines(
    source: impl Read + Send + 'static,
    log: Option<Arc<Mutex<String>>>,
) -> (Receiver<String>, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(source).lines() {
            let Ok(line) = line else { break };
            if let Some(log) = &log
                && let Ok(mut log) = log.lock()
            {
                log.push_str(&line);
                log.push('\n');
            }
            // The receiver may be gone (the server is ready); keep draining the pipe.
            let _ = tx.send(line);
        }
    });
    (rx, reader)
}

fn succeeded(args: &[&str], output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "kubectl {args:?} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn failed(args: &[&str], output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !output.status.success(),
        "kubectl {args:?} succeeded but should have failed:\nstdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    stderr
}
