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

/// The two clusters an agent works with: the one that holds its secrets and runs its Pods
/// (`management`), and the one it registers and applies works to (`spoke`). The same cluster
/// unless the agent runs outside the cluster it manages, as upstream's `--spoke-kubeconfig`
/// has it (Hosted mode).
#[derive(Clone)]
pub struct Clusters {
    /// Where the agent's namespace, secrets, Pods and Klusterlet are.
    pub management: kube::Client,
    /// The managed cluster: its nodes, API server, addons and what works apply.
    pub spoke: kube::Client,
    /// Whether they are two clusters (the agent runs outside the cluster it manages).
    pub hosted: bool,
}

impl Clusters {
    /// An agent that runs on the cluster it manages.
    pub fn one(client: kube::Client) -> Self {
        Self { management: client.clone(), spoke: client, hosted: false }
    }

    /// The clients of `options`: its cluster, and its spoke if it names one.
    pub async fn of(options: &AgentOptions) -> Result<Self, fleetctl_kube::ConfigError> {
        let (management, _) = fleetctl_kube::client(&options.local).await?;
        match &options.spoke {
            Some(spoke) => Ok(Self { management, spoke: fleetctl_kube::client(spoke).await?.0, hosted: true }),
            None => Ok(Self::one(management)),
        }
    }

    /// The namespace on the managed cluster where addon agents report (their leases and
    /// status): beside the agent namespace (`<ns>-addon`), or, for an agent outside the
    /// cluster, the default one, which its operator makes there (as upstream's).
    pub fn addon_namespace(&self, agent_namespace: &str) -> String {
        let beside = if self.hosted { fleetctl_api::operator::DEFAULT_AGENT_NAMESPACE } else { agent_namespace };
        operator::render::addon_namespace(beside)
    }
}

/// What an agent with a cluster identity needs (`agent registration`, `agent work`), but its
/// agent id (which each agent takes in its own way).
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The cluster the agent runs on (in-cluster config inside a pod).
    pub local: fleetctl_kube::Selection,
    /// The managed cluster, when the agent runs outside it (`--spoke-kubeconfig`).
    pub spoke: Option<fleetctl_kube::Selection>,
    /// Address of `/healthz`.
    pub health: std::net::SocketAddr,
    /// The managed cluster's name (its namespace on the hub).
    pub cluster: String,
    /// The agent namespace (where the secrets are).
    pub namespace: String,
}
