//! A Kubernetes-API-compatible server: the dev cluster's kube-apiserver.
//!
//! `ApiServer::start` runs one in-process on 127.0.0.1; several can run at once
//! (there is no global state), which is how the tests get their clusters.

mod builtin;
mod controllers;
mod crd;
mod discovery;
mod http;
mod kinds;
mod list;
mod object;
mod openapi;
pub mod patch;
mod registry;
mod request;
mod resource;
mod schema;
mod selector;
mod state;
mod status;
mod store;
mod watch;

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::json;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use registry::{GroupResource, Registry, ResourceType};
pub use state::{ApiState, Settings};
pub use status::ApiError;

/// How long shutdown waits for requests in flight.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Namespaces every cluster starts with.
const SEEDED_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The port could not be bound.
    #[error("binding 127.0.0.1:{port}")]
    Bind {
        /// The port asked for.
        port: u16,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Seeding the initial objects failed.
    #[error("seeding namespace {name}")]
    Seed {
        /// The namespace.
        name: String,
        /// The cause.
        #[source]
        source: ApiError,
    },
}

/// How to start a server.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Behaviour settings.
    pub settings: Settings,
}

/// A running API server.
pub struct ApiServer {
    state: Arc<ApiState>,
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl ApiServer {
    /// Starts a server and returns once it accepts connections.
    pub async fn start(config: ServerConfig) -> Result<Self, StartError> {
        let (store, notices) = store::Store::new(config.settings.history);
        let state = Arc::new(ApiState { registry: Registry::with_builtins(), store, settings: config.settings });
        seed(&state)?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port))
            .await
            .map_err(|source| StartError::Bind { port: config.port, source })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind { port: config.port, source })?;
        tokio::spawn(controllers::run(state.clone(), notices));
        let app = http::router(http::Http { state: state.clone(), address: addr.to_string() });
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let server = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = rx.await;
            });
            if let Err(e) = server.await {
                tracing::error!(error = %e, "api server stopped");
            }
        });
        Ok(Self { state, addr, shutdown: Some(tx), task })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The state, for in-process inspection (tests and figures).
    pub fn state(&self) -> &Arc<ApiState> {
        &self.state
    }

    /// A kubeconfig whose cluster, user and context are all named `name`.
    pub fn kubeconfig(&self, name: &str) -> serde_json::Value {
        json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": name, "cluster": {"server": self.url()}}],
            "users": [{"name": name, "user": {}}],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "preferences": {},
        })
    }

    /// Stops accepting requests, gives open ones a moment to finish, then ends
    /// the rest (watches never finish on their own).
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut self.task).await.is_err() {
            self.task.abort();
        }
    }
}

fn seed(state: &ApiState) -> Result<(), StartError> {
    let Some(rt) = state.registry.get("", "v1", "namespaces") else {
        return Ok(());
    };
    for name in SEEDED_NAMESPACES {
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        state
            .create(&rt, None, body, &resource::WriteOptions::default())
            .map_err(|source| StartError::Seed { name: name.to_string(), source })?;
    }
    Ok(())
}
