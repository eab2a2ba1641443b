//! The work agent (being written).

use std::net::SocketAddr;

use crate::kube::Selection;

/// What `fleetctl agent work` needs.
#[derive(Debug, Clone)]
pub struct WorkOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: Selection,
    /// Address of `/healthz`.
    pub health: SocketAddr,
    /// The managed cluster's name (its namespace on the hub).
    pub cluster: String,
    /// The agent id (the Klusterlet's uid).
    pub agent_id: String,
    /// The agent namespace (where the hub kubeconfig secret is).
    pub namespace: String,
}

/// Why the agent stopped.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    /// Not there yet.
    #[error("the work agent is not built yet")]
    NotBuilt,
}

/// Runs the agent until SIGTERM.
pub async fn run(_options: WorkOptions) -> Result<(), WorkError> {
    Err(WorkError::NotBuilt)
}
