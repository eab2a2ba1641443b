//! `fleetctl dev`: the embedded dev cluster and the dev environment.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};
use thiserror::Error;

use super::exit::{CommandError, ExitStatus, Fault};
use super::printer::{Cell, Printer, Tone};
use super::signals::{Interrupted, until_stopped};
use crate::{in_process, simulator};

use fleetctl_api::names::{HUB_CONTROLLER, HUB_NAMESPACE, INCLUSTER_EXECUTABLE, default_image};
use fleetctl_apiserver::CaRotation;
use fleetctl_devcluster::env::{self, ClusterStatus, HubInstall, UpOptions};
use fleetctl_devcluster::serve::{self, NodeOptions, ServeOptions};
use fleetctl_hub::manifests::install::{self, Install};
use fleetctl_kube::kubeconfig::Endpoint;
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_nodesim::RunMode;
use fleetctl_nodesim::container::Podman;
use fleetctl_nodesim::process::Isolation;

/// `fleetctl dev …`
#[derive(Debug, Args)]
pub struct DevArgs {
    #[command(subcommand)]
    command: DevCommand,
}

/// Why a `dev` command failed, besides the dev environment's own errors.
#[derive(Debug, Error)]
pub enum DevError {
    /// The path of the running executable is unknown (it runs the clusters).
    #[error("finding the fleetctl executable")]
    CurrentExe(#[source] std::io::Error),
    /// `--dir` cannot be made absolute.
    #[error("resolving {}", .path.display())]
    Dir {
        /// The directory given.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The simulated clusters could not be started.
    #[error("starting the simulated clusters")]
    Simulator(#[source] fleetctl_apiserver::StartError),
    /// A log cannot be opened.
    #[error("opening {}", .path.display())]
    OpenLog {
        /// The log.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl Fault for DevError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Failure
    }
}

/// The running executable, which the dev clusters run as `fleetctl dev serve`.
pub fn current_exe() -> Result<PathBuf, DevError> {
    std::env::current_exe().map_err(DevError::CurrentExe)
}

/// A step of a CA rotation (`dev serve --rotate-ca`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RotateStep {
    /// A new CA signs and is trusted beside the old one, which still serves.
    Trust,
    /// The new CA serves.
    Serve,
    /// The old CA is no longer trusted.
    Retire,
}

impl From<RotateStep> for CaRotation {
    fn from(step: RotateStep) -> Self {
        match step {
            RotateStep::Trust => Self::Trust,
            RotateStep::Serve => Self::Serve,
            RotateStep::Retire => Self::Retire,
        }
    }
}

/// How the node simulator runs the containers of the fleetctl image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum NodeMode {
    /// A process of the in-cluster executable (`fleetctld`, beside `fleetctl`) per
    /// container; where it is missing (`cargo run` builds only `fleetctl`), in process.
    Process,
    /// A task of the cluster process per container (for scale runs).
    InProcess,
}

impl NodeMode {
    /// The simulator's run mode: `fleetctld` beside this executable, else in process.
    fn run_mode(self) -> Result<RunMode, DevError> {
        if self == Self::Process {
            let exe = current_exe()?;
            if let Some(program) = in_cluster_executable(&exe) {
                return Ok(RunMode::Process { program, isolation: Isolation::best() });
            }
            tracing::warn!(
                "{INCLUSTER_EXECUTABLE} is not beside fleetctl: the in-cluster roles run in process \
                 (build it with `cargo build --workspace`)"
            );
        }
        Ok(RunMode::InProcess(in_process::runner()))
    }
}

/// The in-cluster executable beside `fleetctl`, if it is there.
fn in_cluster_executable(fleetctl: &Path) -> Option<PathBuf> {
    let program = fleetctl.with_file_name(INCLUSTER_EXECUTABLE);
    program.is_file().then_some(program)
}

/// Where the dev environment lives.
#[derive(Debug, Args)]
struct DirArg {
    /// The environment's directory (default: $XDG_STATE_HOME/fleetctl/dev, else
    /// ~/.local/state/fleetctl/dev).
    #[arg(long, value_name = "DIR", env = "FLEETCTL_DEV_DIR")]
    dir: Option<PathBuf>,
}

impl DirArg {
    fn resolve(self) -> Result<PathBuf, CommandError> {
        match self.dir {
            Some(path) => std::path::absolute(&path).map_err(|source| DevError::Dir { path, source }.into()),
            None => Ok(env::default_dir()?),
        }
    }
}

#[derive(Debug, Subcommand)]
enum DevCommand {
    /// Run one Kubernetes-API-compatible server in the foreground until interrupted.
    #[command(after_help = super::examples::DEV_SERVE)]
    Serve {
        /// Where to write the kubeconfig (written once the server is ready, mode 0600).
        #[arg(long, value_name = "FILE")]
        kubeconfig: PathBuf,
        /// Name of the cluster, user and context in the kubeconfig.
        #[arg(long, default_value = "dev")]
        name: String,
        /// Port on 127.0.0.1 (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Keep objects in this directory, each write on disk before it is acknowledged, and
        /// resume from it on the next start (default: in memory only, gone on exit).
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
        /// Run the node simulator: Deployments of the fleetctl image run as processes,
        /// others are reported running, and their status and Pods are kept true.
        #[arg(long)]
        node_simulator: bool,
        /// The simulator's directory for container logs (logs/<name>/) and Pod
        /// kubeconfigs (pods/<name>/) (default: the kubeconfig's directory).
        #[arg(long, value_name = "DIR", requires = "node_simulator")]
        node_dir: Option<PathBuf>,
        /// How the simulator runs fleetctl containers.
        #[arg(long, value_enum, default_value = "process", requires = "node_simulator")]
        node_mode: NodeMode,
        /// Run images that exist in local podman storage as podman containers (options
        /// for every podman call from FLEETCTL_PODMAN_OPTIONS, e.g. `--storage-driver vfs`).
        #[arg(long, requires = "node_simulator")]
        podman: bool,
        /// Take a step of rotating the CA kept in --store before serving, in the order of
        /// Kubernetes' manual CA rotation: trust (a new CA signs and is trusted beside the
        /// old one, which still serves), serve (the new one serves), retire (the old one is
        /// no longer trusted).
        #[arg(long, value_enum, value_name = "STEP", requires = "store")]
        rotate_ca: Option<RotateStep>,
    },
    /// Start a hub (with the hub controller installed, or bare with --bare-hub) and managed
    /// clusters cluster1…N in the background, each a `dev serve` process; return once all
    /// are ready.
    #[command(after_help = super::examples::DEV_UP)]
    Up {
        /// How many managed clusters.
        #[arg(long, default_value_t = 1)]
        clusters: usize,
        #[command(flatten)]
        dir: DirArg,
        /// The fleetctl image the hub controller Deployment names.
        #[arg(long, value_name = "IMAGE")]
        image: Option<String>,
        /// Start the hub bare: a plain Kubernetes API, as `kind create cluster` gives, with
        /// nothing of fleetctl installed (no CRDs, no hub controller, no namespaces of its
        /// own), for another hub (OCM's `clusteradm init`) or a later `fleetctl hub install
        /// --hub-context hub`. The managed clusters come up as usual.
        #[arg(long, conflicts_with_all = ["image", "ready_timeout"])]
        bare_hub: bool,
        /// Keep each cluster's objects on disk, so the next `dev up` resumes them.
        #[arg(long)]
        durable: bool,
        /// Run controllers and agents as tasks of the cluster processes (for scale runs).
        #[arg(long, conflicts_with = "podman")]
        in_process: bool,
        /// Run the image as podman containers where it is in local podman storage (build
        /// it with .ci/image; options for every podman call from FLEETCTL_PODMAN_OPTIONS).
        #[arg(long)]
        podman: bool,
        /// How long the hub controller may take to become Available.
        #[arg(long, default_value = "60s", value_parser = fleetctl_kube::duration::parse)]
        ready_timeout: Duration,
    },
    /// Simulate managed clusters sim-00001…N in this process and import them into the
    /// running dev environment's hub (label simulated=true), until interrupted: each has an
    /// API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a
    /// certificate of its own. Detach them before stopping (`fleetctl detach -l
    /// simulated=true --yes`), or the hub sees them go Unknown.
    #[command(after_help = super::examples::DEV_FLEET)]
    Fleet {
        /// How many simulated clusters.
        #[arg(long, default_value_t = 100)]
        clusters: usize,
        /// How many imports run at once.
        #[arg(long, value_name = "N", default_value = "32")]
        parallel: NonZeroUsize,
        #[command(flatten)]
        dir: DirArg,
        /// How long importing the whole fleet may take.
        #[arg(long, default_value = "30m", value_parser = fleetctl_kube::duration::parse)]
        timeout: Duration,
    },
    /// Stop the dev environment (its clusters and everything they run).
    #[command(after_help = super::examples::DEV_DOWN)]
    Down {
        #[command(flatten)]
        dir: DirArg,
        /// How long the clusters have to stop before they are killed.
        #[arg(long, default_value = "5s", value_parser = fleetctl_kube::duration::parse)]
        grace: Duration,
    },
    /// Restart one cluster of a durable environment (`up --durable`) on its store and port,
    /// with what it runs; optionally take a step of rotating its CA while it is stopped.
    #[command(after_help = super::examples::DEV_RESTART)]
    Restart {
        /// The cluster (hub, cluster1, …).
        cluster: String,
        /// The CA rotation step to take (see `dev serve --rotate-ca`).
        #[arg(long, value_enum, value_name = "STEP")]
        rotate_ca: Option<RotateStep>,
        #[command(flatten)]
        dir: DirArg,
        /// How long the cluster has to stop before it is killed.
        #[arg(long, default_value = "5s", value_parser = fleetctl_kube::duration::parse)]
        grace: Duration,
    },
    /// Show the dev environment's clusters: URL, pid, ready.
    #[command(after_help = super::examples::DEV_STATUS)]
    Status {
        #[command(flatten)]
        dir: DirArg,
    },
    /// Print a cluster's log, or the log of one of its Deployments.
    #[command(after_help = super::examples::DEV_LOGS)]
    Logs {
        /// The cluster (hub, cluster1, …).
        cluster: String,
        /// A Deployment of that cluster: NAME or NAMESPACE/NAME.
        deployment: Option<String>,
        #[command(flatten)]
        dir: DirArg,
    },
}

/// Runs a `dev` subcommand.
pub async fn run(args: DevArgs, printer: &Printer) -> Result<(), CommandError> {
    match args.command {
        DevCommand::Serve { kubeconfig, name, port, store, node_simulator, node_dir, node_mode, podman, rotate_ca } => {
            let node = match node_simulator {
                true => Some(NodeOptions {
                    dir: node_dir,
                    mode: node_mode.run_mode()?,
                    podman: podman.then(Podman::from_env),
                }),
                false => None,
            };
            let options = ServeOptions {
                kubeconfig: Some(kubeconfig),
                name,
                port,
                bind: None,
                serving: None,
                client_ca_pem: None,
                api_only: false,
                store,
                node,
                rotate_ca: rotate_ca.map(CaRotation::from),
            };
            serve::run(options).await?;
        }
        DevCommand::Up { clusters, dir, image, bare_hub, durable, in_process, podman, ready_timeout } => {
            let dir = dir.resolve()?;
            let mut options =
                up_options(printer, current_exe()?, dir.clone(), clusters, image.as_deref(), ready_timeout);
            if bare_hub {
                options.hub = None;
            }
            options.durable = durable;
            options.in_process |= in_process;
            options.podman = podman;
            let started = Instant::now();
            let state = env::up(&options).await?;
            printer.note(&format!(
                "dev environment ready in {:.1}s ({})",
                started.elapsed().as_secs_f64(),
                dir.display()
            ));
            let (_, statuses) = env::status(&dir).await?;
            printer.data(&table(printer, &statuses))?;
            note_bare_hub(printer, &state);
            printer.note(&format!("export KUBECONFIG={}", state.kubeconfig.display()));
        }
        DevCommand::Fleet { clusters, parallel, dir, timeout } => {
            fleet(&dir.resolve()?, clusters, parallel, timeout, printer).await?;
        }
        DevCommand::Down { dir, grace } => {
            let dir = dir.resolve()?;
            let stopped = match env::down(&dir, grace).await {
                // Nothing to stop is what `down` is for: done, as `kind delete cluster` says.
                Err(env::EnvError::NotRunning { .. }) => {
                    printer.note(&format!("no dev environment runs in {}: nothing to stop", dir.display()));
                    return Ok(());
                }
                other => other?,
            };
            for (name, stopped) in stopped {
                let how = match stopped {
                    env::Stopped::Terminated => "stopped",
                    env::Stopped::Killed => "killed",
                    env::Stopped::AlreadyGone => "was not running",
                };
                printer.note(&format!("{name} {how}"));
            }
        }
        DevCommand::Restart { cluster, rotate_ca, dir, grace } => {
            let started = Instant::now();
            let record = env::restart(&dir.resolve()?, &cluster, rotate_ca.map(CaRotation::from), grace).await?;
            printer.note(&format!(
                "{} restarted in {:.1}s at {}",
                record.name,
                started.elapsed().as_secs_f64(),
                record.url
            ));
        }
        DevCommand::Status { dir } => {
            let (state, statuses) = env::status(&dir.resolve()?).await?;
            printer.data(&table(printer, &statuses))?;
            note_bare_hub(printer, &state);
        }
        DevCommand::Logs { cluster, deployment, dir } => {
            let path = env::log_file(&dir.resolve()?, &cluster, deployment.as_deref())?;
            let mut file = std::fs::File::open(&path).map_err(|source| DevError::OpenLog { path, source })?;
            printer.copy(&mut file)?;
        }
    }
    Ok(())
}

/// `dev fleet`: the simulated clusters, imported, until SIGINT or SIGTERM.
async fn fleet(
    dir: &Path,
    clusters: usize,
    parallel: NonZeroUsize,
    timeout: Duration,
    printer: &Printer,
) -> Result<(), CommandError> {
    let state = env::read_state(dir)?;
    let hub_url = match state.clusters.iter().find(|c| c.name == env::HUB) {
        Some(hub) => hub.url.clone(),
        None => return Err(env::EnvError::NotRunning { dir: dir.to_path_buf() }.into()),
    };
    let hub = env::client_for(&state.kubeconfig, Some(env::HUB)).await?;
    let fleet = simulator::start_fleet(simulator::PREFIX, clusters).map_err(DevError::Simulator)?;
    printer.note(&format!("importing {clusters} simulated clusters, {parallel} at once"));
    let started = Instant::now();
    match until_stopped(simulator::import_fleet(&hub, &hub_url, &fleet, parallel, timeout)).await {
        Ok(imported) => imported?,
        Err(stop) => return Err(Interrupted { stop, done: Vec::new() }.into()),
    };
    printer.note(&format!(
        "{clusters} simulated clusters Available in {:.1}s; they run until interrupted \
         (detach them first: `fleetctl detach -l {}=true --yes`)",
        started.elapsed().as_secs_f64(),
        simulator::SIMULATED_LABEL
    ));
    let signal = shutdown_signal().await;
    printer.note(&format!("{}: stopping the simulated clusters", signal.name()));
    Ok(())
}

/// Says that the hub was started bare, if it was.
fn note_bare_hub(printer: &Printer, state: &env::EnvState) {
    if state.bare_hub {
        printer.note(
            "the hub is bare (dev up --bare-hub): dev up installed nothing of fleetctl on it; \
             `fleetctl hub install --hub-context hub` installs the hub",
        );
    }
}

/// The clusters of the environment, one row each.
fn table(printer: &Printer, statuses: &[ClusterStatus]) -> String {
    let rows: Vec<Vec<Cell>> = statuses
        .iter()
        .map(|status| {
            let pid =
                if status.alive { status.record.pid.to_string() } else { format!("{} (gone)", status.record.pid) };
            let ready = if status.ready { Cell::toned("yes", Tone::Good) } else { Cell::toned("no", Tone::Bad) };
            vec![Cell::plain(&status.record.name), Cell::plain(&status.record.url), Cell::plain(pid), ready]
        })
        .collect();
    printer.table(&["CLUSTER", "URL", "PID", "READY"], &rows)
}

/// A dev environment of `clusters` managed clusters in `dir`, each a `dev serve` process
/// of the `fleetctl` executable `program`, whose hub gets what `fleetctl hub install
/// --image IMAGE` applies (default: this version's image). Without `fleetctld` beside
/// `program`, the in-cluster roles run in process (the printer says so).
pub fn up_options(
    printer: &Printer,
    program: PathBuf,
    dir: PathBuf,
    clusters: usize,
    image: Option<&str>,
    timeout: Duration,
) -> UpOptions {
    let in_process = in_cluster_executable(&program).is_none();
    if in_process {
        printer.note(&format!(
            "note: {INCLUSTER_EXECUTABLE} is not beside fleetctl, so the in-cluster roles run in process \
             (build it with `cargo build --workspace`)"
        ));
    }
    let image = image.map_or_else(default_image, str::to_string);
    let render = move |endpoint: &Endpoint| {
        install::objects(&Install {
            image: &image,
            hub_url: &endpoint.server,
            // A dev hub is served by its own CA: the controller follows the bundle the hub
            // publishes (`kube-root-ca.crt`), through rotations.
            hub_ca_pem: "",
            image_pull_secret: None,
        })
    };
    let hub = HubInstall {
        render: Arc::new(render),
        namespace: HUB_NAMESPACE.to_string(),
        controller: HUB_CONTROLLER.to_string(),
    };
    UpOptions { dir, clusters, program, hub: Some(hub), durable: false, in_process, podman: false, timeout }
}
