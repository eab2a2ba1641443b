//! The managed side: the klusterlet — the operator that installs the agents, the
//! registration agent that earns and keeps the cluster's hub identity, the work agent that
//! applies what the hub asks — and the addon agents. All run from the in-cluster
//! executable (`fleetctld`) on the managed cluster.

pub mod addon;
pub mod hub;
pub mod operator;
pub mod registration;
pub mod singleton;
pub mod work;

/// Default address of an agent's `/healthz`.
pub const DEFAULT_HEALTH_ADDR: &str = "0.0.0.0:8443";

/// What an agent with a cluster identity needs (`agent registration`, `agent work`), but its
/// agent id (which each agent takes in its own way).
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: fleetctl_kube::Selection,
    /// Address of `/healthz`.
    pub health: std::net::SocketAddr,
    /// The managed cluster's name (its namespace on the hub).
    pub cluster: String,
    /// The agent namespace (where the secrets are).
    pub namespace: String,
}
