//! The operator agent (being written).

use std::net::SocketAddr;

use crate::kube::Selection;

/// What `fleetctl agent operator` needs.
#[derive(Debug, Clone)]
pub struct OperatorOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: Selection,
    /// Address of `/healthz`.
    pub health: SocketAddr,
}

/// Why the agent stopped.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    /// Not there yet.
    #[error("the operator agent is not built yet")]
    NotBuilt,
}

/// Runs the agent until SIGTERM.
pub async fn run(_options: OperatorOptions) -> Result<(), OperatorError> {
    Err(OperatorError::NotBuilt)
}
