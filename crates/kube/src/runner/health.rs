//! `/healthz`, `/readyz` and `/metrics` on a port of the process.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

use super::metrics::Registry;

/// Readiness and metrics shared with the endpoints.
#[derive(Debug, Clone, Default)]
pub struct Health {
    ready: Arc<AtomicBool>,
    /// The metrics served at `/metrics`.
    pub metrics: Registry,
}

impl Health {
    /// Marks the process ready (or not).
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }
}

/// Why the endpoint could not start.
#[derive(Debug, thiserror::Error)]
#[error("binding the health endpoint on {addr}")]
pub struct HealthError {
    addr: SocketAddr,
    #[source]
    source: std::io::Error,
}

/// Serves the endpoints until the returned task is dropped; returns the bound address.
pub async fn serve(addr: SocketAddr, health: Health) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), HealthError> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| HealthError { addr, source })?;
    let bound = listener.local_addr().map_err(|source| HealthError { addr, source })?;
    let app = axum::Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/livez", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(|State(h): State<Health>| async move { h.metrics.render() }))
        .with_state(health);
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!(error = %e, "health endpoint stopped");
        }
    });
    Ok((bound, task))
}

async fn ready(State(health): State<Health>) -> (StatusCode, &'static str) {
    if health.ready.load(Ordering::Relaxed) {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}
