//! `fleetctld agent singleton`: the registration and work agents in one process, as
//! upstream's Singleton mode runs them (the Deployment `klusterlet-agent`): one identity (the
//! Klusterlet's uid, which the operator passes), one ServiceAccount, one health endpoint —
//! ready while the work agent reaches the hub.

use fleetctl_kube::runner::health::{self, Health};
use fleetctl_kube::runner::shutdown_signal;

use super::work::{self, WorkError};
use super::{AgentOptions, Clusters, registration};

/// Runs both agents until SIGINT or SIGTERM; fails as the work agent's `run` does.
pub async fn run(
    options: AgentOptions,
    agent_id: String,
    registration: registration::Settings,
    work: work::Settings,
) -> Result<(), WorkError> {
    let clusters = Clusters::of(&options).await?;
    let health_state = Health::default();
    let (bound, _health) = health::serve(options.health, health_state.clone()).await?;
    tracing::info!(health = %bound, cluster = %options.cluster, "klusterlet agent (registration and work) starting");
    let identity = registration::Identity {
        cluster: options.cluster.clone(),
        agent_id: agent_id.clone(),
        namespace: options.namespace.clone(),
    };
    let agents = async {
        tokio::join!(
            registration::agent(clusters.clone(), identity, registration),
            work::agent(clusters.clone(), options.cluster, agent_id, options.namespace, health_state, work),
        )
    };
    tokio::select! {
        _ = agents => {}
        _ = shutdown_signal() => tracing::info!("stopping"),
    }
    Ok(())
}
