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
