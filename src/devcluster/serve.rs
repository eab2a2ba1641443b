//! `fleetctl dev serve`: one API server in the foreground.

use std::path::{Path, PathBuf};

use super::apiserver::{ApiServer, ServerConfig, Settings, StartError};

/// What `dev serve` needs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where to write the kubeconfig once the server is ready.
    pub kubeconfig: PathBuf,
    /// Name of the cluster, user and context in the kubeconfig.
    pub name: String,
    /// Port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// Directory of the durable store; `None` keeps objects in memory only.
    pub store: Option<PathBuf>,
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
}

/// Runs a server until SIGINT or SIGTERM; the kubeconfig appears only once it is ready.
pub async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map_err(ServeError::Signals)?;
    let settings = Settings { store: options.store.clone(), ..Settings::default() };
    let server = ApiServer::start(ServerConfig { name: options.name.clone(), port: options.port, settings }).await?;
    let config = serde_yaml::to_string(&server.kubeconfig(&options.name)).unwrap_or_default();
    write_private(&options.kubeconfig, config.as_bytes())
        .map_err(|source| ServeError::Kubeconfig { path: options.kubeconfig.clone(), source })?;
    tracing::info!(url = %server.url(), kubeconfig = %options.kubeconfig.display(), "api server ready");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    tracing::info!("stopping");
    server.shutdown().await;
    Ok(())
}

/// Writes a file readable by its owner only, atomically (a reader never sees half of it).
pub fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}
