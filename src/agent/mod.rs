//! The klusterlet: the operator that installs the agents, the registration agent that
//! earns and keeps the cluster's hub identity, and the work agent that applies what the
//! hub asks. All run from the fleetctl image on the managed cluster.

pub mod hub;
pub mod operator;
pub mod registration;
pub mod work;

/// Namespace of the klusterlet agents.
pub const AGENT_NAMESPACE: &str = crate::manifests::import::AGENT_NAMESPACE;
/// Secret holding the agent's hub credentials (`kubeconfig`, `tls.crt`, `tls.key`,
/// `cluster-name`, `agent-name`).
pub const HUB_KUBECONFIG_SECRET: &str = "hub-kubeconfig-secret";
/// Secret holding the bootstrap kubeconfig from the import manifests.
pub const BOOTSTRAP_SECRET: &str = crate::manifests::import::BOOTSTRAP_SECRET;
/// Deployment of the registration agent.
pub const REGISTRATION_DEPLOYMENT: &str = "klusterlet-registration-agent";
/// Deployment of the work agent.
pub const WORK_DEPLOYMENT: &str = "klusterlet-work-agent";
/// Default address of an agent's `/healthz`.
pub const DEFAULT_HEALTH_ADDR: &str = "0.0.0.0:8443";

/// What an agent with a cluster identity needs (`agent registration`, `agent work`).
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: crate::kube::Selection,
    /// Address of `/healthz`.
    pub health: std::net::SocketAddr,
    /// The managed cluster's name (its namespace on the hub).
    pub cluster: String,
    /// The agent id (the Klusterlet's uid).
    pub agent_id: String,
    /// The agent namespace (where the secrets are).
    pub namespace: String,
}
