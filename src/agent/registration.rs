//! The registration agent (being written).

use std::net::SocketAddr;

use crate::kube::Selection;

/// What `fleetctl agent registration` needs.
#[derive(Debug, Clone)]
pub struct RegistrationOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: Selection,
    /// Address of `/healthz`.
    pub health: SocketAddr,
    /// The managed cluster's name.
    pub cluster: String,
    /// The agent id (the Klusterlet's uid).
    pub agent_id: String,
    /// The agent namespace (where the secrets are).
    pub namespace: String,
}

/// Why the agent stopped.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    /// Not there yet.
    #[error("the registration agent is not built yet")]
    NotBuilt,
}

/// Runs the agent until SIGTERM.
pub async fn run(_options: RegistrationOptions) -> Result<(), RegistrationError> {
    Err(RegistrationError::NotBuilt)
}
