//! An API server without a listener, reached through [`kube::Client`]s that call its
//! router directly: many of them fit in one process, which is how a simulated fleet gives
//! each of its clusters an API of its own.
//!
//! Each server is a whole dev API server — its own store, registry (so its own CRDs),
//! RBAC, built-in controllers and CA — minus the TCP listeners and TLS: a request goes
//! from the client's tower stack straight into the same filter chain and handlers
//! [`ApiServer`](super::ApiServer) serves over HTTPS. With no certificate to read, every
//! client speaks as the cluster's superuser (`system:masters`), as an admin kubeconfig
//! would; authorization still runs, so the handler chain is the one HTTPS requests take.
//! Requests and watches cost a function call and a channel, not a socket: the
//! per-cluster cost is the store and what is stored.
//!
//! Why one server per cluster rather than one store with a keyspace per cluster: a
//! cluster is more than its objects — CRDs it serves (the klusterlet's), namespaces its
//! controllers terminate, garbage collection among its own owners and dependents,
//! discovery — and the dev server already keeps all of them per server. A keyspace per
//! cluster in one store would have to thread the cluster through every one of those;
//! a server per cluster isolates them by construction. What makes it cheap is sizing:
//! small watch histories and broadcasts ([`Settings::history`], [`Settings::broadcast`])
//! and no workload controllers.

use std::sync::Arc;

use tokio::task::JoinHandle;
use tower_layer::Layer as _;

use super::auth::{MASTERS, Peer, User};
use super::state::ApiState;
use super::{ADMIN_USER, ServerConfig, StartError, controllers, http, prepare};

/// What `/api` reports as the server address of an in-process server.
const ADDRESS: &str = "in-process";

/// A running in-process API server; dropping it stops its controllers (clients made from
/// it keep its state alive until they are dropped too).
pub struct InProcessServer {
    state: Arc<ApiState>,
    service: http::Service,
    controllers: JoinHandle<()>,
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        self.controllers.abort();
    }
}

impl InProcessServer {
    /// Starts a server (`config.port` is unused). Must run inside a Tokio runtime.
    pub fn start(config: &ServerConfig) -> Result<Self, StartError> {
        let (state, notices) = prepare(config)?;
        let controllers = tokio::spawn(controllers::run(state.clone(), notices));
        let service = http::service(http::Http::new(state.clone(), ADDRESS.to_string()));
        Ok(Self { state, service, controllers })
    }

    /// A client of this server, speaking as its superuser.
    pub fn client(&self) -> kube::Client {
        let admin = User::from_certificate(ADMIN_USER.to_string(), vec![MASTERS.to_string()]);
        let service = axum::Extension(Peer::User(admin)).layer(self.service.clone());
        kube::Client::new(service, "default")
    }

    /// The state, for in-process inspection (figures and tests).
    pub fn state(&self) -> &Arc<ApiState> {
        &self.state
    }
}
