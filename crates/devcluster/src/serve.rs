//! `fleetctl dev serve`: one API server in the foreground.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fleetctl_apimachinery::private_file::write_private;
use fleetctl_apiserver::{
    ApiServer, CaRotation, CertKey, SecurityError, ServerConfig, Settings, StartError, rotate_ca,
};
use fleetctl_kube::kubeconfig;
use fleetctl_nodesim::container::Podman;
use fleetctl_nodesim::{NodeConfig, NodeError, NodeSimulator, Reach, RunMode, Timing};
use kube::config::KubeConfigOptions;

use super::env::MERGED_KUBECONFIG;

/// What `dev serve` needs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where to write the admin kubeconfig once the server is ready (`None`: nowhere, as
    /// for envtest, which brings its own client certificates).
    pub kubeconfig: Option<PathBuf>,
    /// Name of the cluster, user and context in the kubeconfig.
    pub name: String,
    /// Port (0: any free port).
    pub port: u16,
    /// Address to listen on (`None`: 127.0.0.1).
    pub bind: Option<std::net::IpAddr>,
    /// A serving certificate and key of the caller's, instead of one the cluster CA signs.
    pub serving: Option<CertKey>,
    /// CAs trusted for client certificates besides the cluster's own, PEM.
    pub client_ca_pem: Option<String>,
    /// An API server alone: none of kube-controller-manager's controllers (as envtest runs
    /// kube-apiserver).
    pub api_only: bool,
    /// Directory of the durable store; `None` keeps objects in memory only.
    pub store: Option<PathBuf>,
    /// The node simulator, so that Deployments really run (`None`: they are only stored,
    /// and whoever wants a status writes it).
    pub node: Option<NodeOptions>,
    /// A step of rotating the cluster's CA, taken on `store` before the server starts.
    pub rotate_ca: Option<CaRotation>,
}

/// How the node simulator of `dev serve` runs.
#[derive(Debug, Clone)]
pub struct NodeOptions {
    /// The simulator's directory for logs and Pod kubeconfigs (default: the kubeconfig's).
    pub dir: Option<PathBuf>,
    /// How the simulator runs the containers of the in-cluster image.
    pub mode: RunMode,
    /// Where the simulator runs images of local podman storage as containers.
    pub podman: Option<Podman>,
}

/// Why `dev serve` stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The server did not start.
    #[error("starting the api server")]
    Start(#[from] StartError),
    /// The kubeconfig could not be written.
    #[error("writing the kubeconfig {}", path.display())]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Signal handlers could not be installed.
    #[error("installing signal handlers")]
    Signals(#[source] std::io::Error),
    /// The node simulator could not get an admin client of its own server.
    #[error("connecting the node simulator to the api server")]
    NodeClient(#[source] kube::Error),
    /// The node simulator's runtime could not be started, or failed while it started.
    #[error("running the node simulator's runtime")]
    NodeRuntime(#[source] std::io::Error),
    /// The node simulator did not start.
    #[error("starting the node simulator")]
    Node(#[from] NodeError),
    /// A CA rotation step was asked for without a store to take it on.
    #[error("--rotate-ca changes the CA kept in a store: pass --store DIR")]
    RotateWithoutStore,
    /// The CA rotation step failed.
    #[error("rotating the CA")]
    RotateCa(#[source] SecurityError),
}

/// Runs a server until SIGINT or SIGTERM; the kubeconfig appears only once it is ready.
pub async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map_err(ServeError::Signals)?;
    if let Some(step) = options.rotate_ca {
        let store = options.store.as_deref().ok_or(ServeError::RotateWithoutStore)?;
        rotate_ca(store, &options.name, step).map_err(ServeError::RotateCa)?;
        tracing::info!(?step, "took a CA rotation step");
    }
    let settings =
        Settings { store: options.store.clone(), controller_manager: !options.api_only, ..Settings::default() };
    let server = ApiServer::start(ServerConfig {
        name: options.name.clone(),
        port: options.port,
        bind: options.bind,
        serving: options.serving.clone(),
        client_ca_pem: options.client_ca_pem.clone(),
        settings,
    })
    .await?;
    // The simulator starts before the kubeconfig appears: whoever waits for the file
    // (`dev up`) gets a cluster whose Deployments run.
    let simulator = match &options.node {
        Some(node) => Some(Kubelet::start(&options, node, &server).await?),
        None => None,
    };
    if let Some(path) = &options.kubeconfig {
        let config = kubeconfig::to_yaml(&server.kubeconfig(&options.name));
        write_private(path, config.as_bytes())
            .map_err(|source| ServeError::Kubeconfig { path: path.clone(), source })?;
    }
    tracing::info!(url = %server.url(), kubeconfig = ?options.kubeconfig, "api server ready");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    tracing::info!("stopping");
    if let Some(simulator) = simulator {
        simulator.shutdown().await;
    }
    server.shutdown().await;
    Ok(())
}

/// What a Pod with a network of its own reaches: this API server, at the address people use
/// and at the in-cluster one, and every other API server on this machine that the dev
/// environment's kubeconfig names (a klusterlet's bootstrap kubeconfig names its hub's),
/// read again for each such Pod, as clusters come and go.
fn reach(environment: PathBuf, own: [SocketAddr; 2]) -> Reach {
    Arc::new(move || {
        let mut addresses: BTreeSet<SocketAddr> = own.into();
        if let Ok(config) = kube::config::Kubeconfig::read_from(&environment) {
            let servers = config.clusters.iter().filter_map(|c| c.cluster.as_ref()?.server.as_deref());
            addresses.extend(servers.filter_map(loopback_server));
        }
        addresses.into_iter().collect()
    })
}

/// The address of an `https://` server URL on a loopback address.
fn loopback_server(url: &str) -> Option<SocketAddr> {
    let authority = url.strip_prefix("https://")?.split('/').next()?;
    authority.parse::<SocketAddr>().ok().filter(|addr| addr.ip().is_loopback())
}

/// The node simulator on a runtime of its own, as a kubelet is a process of its own: its
/// probes time the containers, not how busy this API server is. On the server's runtime, a
/// server rendering watch events for thousands of agents delayed the probes' own polls
/// past their one-second timeout, and the kubelet restarted a hub controller that was
/// answering in time.
struct Kubelet {
    /// Always `Some` until dropped (a runtime cannot be dropped inside another one: it is
    /// let go in the background).
    runtime: Option<tokio::runtime::Runtime>,
    /// `Some` until shut down.
    simulator: Option<NodeSimulator>,
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Kubelet {
    async fn start(options: &ServeOptions, node: &NodeOptions, server: &ApiServer) -> Result<Self, ServeError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("kubelet")
            .enable_all()
            .build()
            .map_err(ServeError::NodeRuntime)?;
        let kubeconfig = server.kubeconfig(&options.name);
        let (name, server_url, service_addr) = (options.name.clone(), server.url(), server.service_addr());
        let (podman, ca_pem, mode) = (node.podman.clone(), server.ca_pem().to_string(), node.mode.clone());
        let dir = match &node.dir {
            Some(dir) => dir.clone(),
            None => options.kubeconfig.as_deref().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default(),
        };
        let reach = reach(dir.join(MERGED_KUBECONFIG), [server.addr(), service_addr]);
        // The client is made on the kubelet's runtime: a client's request queue runs where
        // the client is made.
        let started = runtime.spawn(async move {
            let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(|e| ServeError::NodeClient(kube::Error::InferKubeconfig(e)))?;
            let client = kube::Client::try_from(config).map_err(ServeError::NodeClient)?;
            let timing = Timing::default();
            let config =
                NodeConfig { name, client, server_url, service_addr, podman, ca_pem, dir, mode, timing, reach };
            Ok::<_, ServeError>(NodeSimulator::start(config).await?)
        });
        let simulator = started.await.map_err(|e| ServeError::NodeRuntime(std::io::Error::other(e)))??;
        Ok(Self { runtime: Some(runtime), simulator: Some(simulator) })
    }

    /// Stops the containers, then (on drop) the runtime.
    async fn shutdown(mut self) {
        if let (Some(runtime), Some(simulator)) = (&self.runtime, self.simulator.take())
            && let Err(e) = runtime.spawn(simulator.shutdown()).await
        {
            tracing::warn!(error = %e, "stopping the node simulator");
        }
    }
}
