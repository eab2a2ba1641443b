//! `fleetctld hub`: the hub controllers as a process — leader election,
//! health and metrics, and a clean stop on SIGTERM.

use std::net::SocketAddr;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;

use super::{Controllers, HubAddress, HubConfig, SecretRef, controllers};
use fleetctl_api::names::LEADER_LEASE;
use fleetctl_kube::certs::pem_of_der;
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::leader::{Candidate, LeaderError};
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::{ConfigError, Selection, client};
use kube::Client;

use super::webhook::{self, WebhookError};

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
    /// The hub's URL as managed clusters reach it; default: the kubeconfig's server (but
    /// not an in-cluster address unless `allow_in_cluster_url`).
    pub hub_url: Option<String>,
    /// CA bundle (PEM) for bootstrap kubeconfigs; default: the bundle the hub publishes in
    /// `kube-root-ca.crt` of `namespace`, followed as it changes, else the kubeconfig's.
    pub hub_ca_pem: Option<String>,
    /// Write the controller's in-cluster address into bootstrap kubeconfigs if no URL is given.
    pub allow_in_cluster_url: bool,
    /// Image repository of the klusterlet.
    pub repository: String,
    /// Default klusterlet version.
    pub version: String,
    /// Bootstrap token lifetime.
    pub token_lifetime: Duration,
    /// Lease grace periods.
    pub lease_grace: u32,
    /// A `kubernetes.io/dockerconfigjson` Secret in `namespace` whose registry credentials
    /// go to every klusterlet.
    pub image_pull_secret: Option<String>,
    /// Which controllers run.
    pub controllers: Controllers,
    /// Where the addon API's conversion webhook listens (none: not served here).
    pub webhook: Option<SocketAddr>,
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
    /// The conversion webhook could not start.
    #[error("starting the conversion webhook")]
    Webhook(#[from] WebhookError),
    /// The kubeconfig holds no CA and none was given.
    #[error("the hub kubeconfig has no certificate authority: pass --hub-ca FILE")]
    NoCa,
}

/// Runs until SIGINT/SIGTERM, or until leadership is lost (then exits with an error so
/// the Deployment restarts it as a candidate).
pub async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let (client, config) = client(&options.selection).await?;
    // A CA given explicitly is the operator's to rotate; otherwise bootstrap kubeconfigs
    // follow the bundle the hub publishes, falling back to the kubeconfig's CA.
    let root_ca_namespace = options.hub_ca_pem.is_none().then(|| options.namespace.clone());
    let hub_ca_pem = match options.hub_ca_pem.clone() {
        Some(ca) => ca,
        None => config
            .root_cert
            .as_ref()
            .map(|certs| certs.iter().map(|c| pem_of_der(c)).collect::<String>())
            .ok_or(ServeError::NoCa)?,
    };
    let own_url = config.cluster_url.to_string().trim_end_matches('/').to_string();
    let address = match options.hub_url.clone() {
        Some(url) => HubAddress::External { url, ca_pem: hub_ca_pem },
        // Outside a pod the kubeconfig names the hub as its user reaches it.
        None if !options.selection.in_cluster || options.allow_in_cluster_url => {
            HubAddress::External { url: own_url, ca_pem: hub_ca_pem }
        }
        None => HubAddress::Unknown { in_cluster_url: own_url },
    };
    let hub = HubConfig {
        address,
        repository: options.repository.clone(),
        default_version: options.version.clone(),
        token_lifetime: options.token_lifetime,
        lease_grace: options.lease_grace,
        image_pull_secret: options
            .image_pull_secret
            .clone()
            .map(|name| SecretRef { namespace: options.namespace.clone(), name }),
        root_ca_namespace,
    };
    let health_state = Health::default();
    let (bound, _health) = health::serve(options.health, health_state.clone()).await?;
    match &hub.address {
        HubAddress::External { url, .. } => tracing::info!(health = %bound, hub = %url, "hub controller starting"),
        HubAddress::Unknown { in_cluster_url } => tracing::warn!(
            health = %bound, %in_cluster_url,
            "hub controller starting without the hub's external address: no cluster gets an import secret until \
             --hub-url is set (`fleetctl hub install` sets it)"
        ),
    }
    // Every replica converts, leader or not.
    let webhook = match options.webhook {
        Some(addr) => Some(webhook::start(client.clone(), options.namespace.clone(), addr).await?),
        None => None,
    };
    let serving = async move {
        if let Some(webhook) = webhook {
            webhook.await;
        }
        std::future::pending::<()>().await;
    };
    tokio::select! {
        result = lead(client, hub, &options, &health_state) => result,
        () = serving => Ok(()),
    }
}

/// Leads the hub controllers once elected, until SIGINT/SIGTERM or the loss of leadership.
async fn lead(client: Client, hub: HubConfig, options: &ServeOptions, health_state: &Health) -> Result<(), ServeError> {
    let identity = format!("{}-{}", hostname(), std::process::id());
    let candidate = Candidate::new(
        Api::<Lease>::namespaced(client.clone(), &options.namespace),
        LEADER_LEASE,
        &identity,
        LEASE_DURATION,
    );
    // Ready before leading: a rollout's new pod must become ready while the old one still
    // leads (with maxUnavailable 0 the old pod goes only then), else neither moves.
    health_state.set_ready(true);
    let mut leadership = tokio::select! {
        leadership = candidate.acquire() => leadership?,
        _ = shutdown_signal() => return Ok(()),
    };
    tokio::select! {
        () = controllers(client, hub, health_state.metrics.clone(), options.controllers) => Ok(()),
        () = leadership.lost() => Err(ServeError::Leader(LeaderError::Lost)),
        _ = shutdown_signal() => {
            tracing::info!("stopping");
            leadership.release().await;
            Ok(())
        }
    }
}

fn hostname() -> String {
    std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()).unwrap_or_else(|| "fleetctl-hub".to_string())
}
