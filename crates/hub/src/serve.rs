//! `fleetctld hub`: the hub controllers as a process — leader election,
//! health and metrics, and a clean stop on SIGTERM.

use std::net::SocketAddr;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;

use super::{HubConfig, controllers};
use fleetctl_api::names::LEADER_LEASE;
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::leader::{Candidate, LeaderError};
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::{ConfigError, Selection, client};

/// How long a leader's claim lasts without renewal.
const LEASE_DURATION: Duration = Duration::from_secs(15);

/// What `fleetctld hub` needs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where the hub is (in-cluster config inside a pod).
    pub selection: Selection,
    /// `/healthz`, `/readyz` and `/metrics` address.
    pub health: SocketAddr,
    /// Namespace of the leader-election Lease.
    pub namespace: String,
    /// Overrides of what the controller's own kubeconfig says.
    pub hub_url: Option<String>,
    /// CA bundle (PEM) for bootstrap kubeconfigs; default: the kubeconfig's.
    pub hub_ca_pem: Option<String>,
    /// Image repository of the klusterlet.
    pub repository: String,
    /// Default klusterlet version.
    pub version: String,
    /// Bootstrap token lifetime.
    pub token_lifetime: Duration,
    /// Lease grace periods.
    pub lease_grace: u32,
}

/// Why the hub controller stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No client could be made.
    #[error("connecting to the hub")]
    Config(#[from] ConfigError),
    /// The health endpoint could not start.
    #[error("starting the health endpoint")]
    Health(#[from] HealthError),
    /// Leader election failed.
    #[error("electing a leader")]
    Leader(#[from] LeaderError),
    /// The kubeconfig holds no CA and none was given.
    #[error("the hub kubeconfig has no certificate authority: pass --hub-ca FILE")]
    NoCa,
}

fn pem(der: &[u8]) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = body.as_bytes().chunks(64).filter_map(|c| std::str::from_utf8(c).ok()).collect();
    format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n"))
}

/// Runs until SIGINT/SIGTERM, or until leadership is lost (then exits with an error so
/// the Deployment restarts it as a candidate).
pub async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let (client, config) = client(&options.selection).await?;
    let hub_url =
        options.hub_url.clone().unwrap_or_else(|| config.cluster_url.to_string().trim_end_matches('/').to_string());
    let hub_ca_pem = match options.hub_ca_pem.clone() {
        Some(ca) => ca,
        None => config
            .root_cert
            .as_ref()
            .map(|certs| certs.iter().map(|c| pem(c)).collect::<String>())
            .ok_or(ServeError::NoCa)?,
    };
    let hub = HubConfig {
        hub_url,
        hub_ca_pem,
        repository: options.repository.clone(),
        default_version: options.version.clone(),
        token_lifetime: options.token_lifetime,
        lease_grace: options.lease_grace,
    };
    let health_state = Health::default();
    let (bound, _health) = health::serve(options.health, health_state.clone()).await?;
    tracing::info!(health = %bound, hub = %hub.hub_url, "hub controller starting");
    let identity = format!("{}-{}", hostname(), std::process::id());
    let candidate = Candidate::new(
        Api::<Lease>::namespaced(client.clone(), &options.namespace),
        LEADER_LEASE,
        &identity,
        LEASE_DURATION,
    );
    let mut leadership = tokio::select! {
        leadership = candidate.acquire() => leadership?,
        () = shutdown_signal() => return Ok(()),
    };
    health_state.set_ready(true);
    tokio::select! {
        () = controllers(client, hub, health_state.metrics.clone()) => Ok(()),
        () = leadership.lost() => Err(ServeError::Leader(LeaderError::Lost)),
        () = shutdown_signal() => {
            tracing::info!("stopping");
            leadership.release().await;
            Ok(())
        }
    }
}

fn hostname() -> String {
    std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()).unwrap_or_else(|| "fleetctl-hub".to_string())
}
