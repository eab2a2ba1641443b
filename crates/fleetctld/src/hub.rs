//! `fleetctld hub`: the hub controllers, under leader election.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use fleetctl_api::names::{DEFAULT_REPOSITORY, HUB_NAMESPACE, VERSION};
use fleetctl_hub::Controllers;
use fleetctl_hub::serve::{self, ServeOptions};
use fleetctl_kube::Selection;

use crate::RoleError;

/// `fleetctld hub`
#[derive(Debug, Args)]
pub struct HubArgs {
    /// Kubeconfig of the hub (default: in-cluster config inside a pod, else KUBECONFIG).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// Context in the kubeconfig.
    #[arg(long)]
    context: Option<String>,
    /// Address of /healthz, /readyz and /metrics.
    #[arg(long, default_value = "0.0.0.0:8000", env = "FLEETCTL_HEALTH_ADDR")]
    health_addr: SocketAddr,
    /// Namespace of the leader-election Lease.
    #[arg(long, default_value = HUB_NAMESPACE, env = "POD_NAMESPACE")]
    namespace: String,
    /// The hub's API server URL as managed clusters reach it, for bootstrap kubeconfigs
    /// (`hub install` sets it from the URL your kubeconfig uses). Without it, the
    /// kubeconfig's server — but never an in-cluster address (see --allow-in-cluster-url).
    #[arg(long, value_name = "URL", env = "FLEETCTL_HUB_URL")]
    hub_url: Option<String>,
    /// CA bundle (PEM file) for bootstrap kubeconfigs (default: the bundle the hub publishes
    /// in kube-root-ca.crt of --namespace, followed as it rotates; else the kubeconfig's CA).
    #[arg(long, value_name = "FILE", conflicts_with = "hub_ca_data")]
    hub_ca: Option<PathBuf>,
    /// CA bundle (PEM text) for bootstrap kubeconfigs.
    #[arg(long, value_name = "PEM", env = "FLEETCTL_HUB_CA", hide_env_values = true)]
    hub_ca_data: Option<String>,
    /// Without --hub-url, write the controller's own in-cluster API address into bootstrap
    /// kubeconfigs (only where managed clusters reach it, e.g. one cluster importing itself).
    #[arg(long)]
    allow_in_cluster_url: bool,
    /// Image repository of the klusterlet.
    #[arg(long, default_value = DEFAULT_REPOSITORY)]
    image_repository: String,
    /// Klusterlet version clusters run unless told otherwise.
    #[arg(long, default_value = VERSION)]
    klusterlet_version: String,
    /// Lifetime of bootstrap tokens (refreshed when a fifth is left).
    #[arg(long, default_value = "360d", value_parser = fleetctl_kube::duration::parse)]
    token_lifetime: Duration,
    /// A cluster whose lease is older than this many lease periods turns Unknown.
    #[arg(long, default_value_t = 5)]
    lease_grace: u32,
    /// A kubernetes.io/dockerconfigjson Secret in the controller's namespace: its registry
    /// credentials go to every klusterlet with its import manifests.
    #[arg(long, value_name = "NAME")]
    image_pull_secret: Option<String>,
    /// Which controllers run: all, or placement (the placement scheduler alone, as upstream's
    /// placement controller runs; for judging it with upstream's placement specs).
    #[arg(long, default_value = "all", value_name = "all|placement")]
    controllers: Controllers,
}

/// Runs the hub controllers until SIGINT/SIGTERM.
pub async fn run(args: HubArgs) -> Result<(), RoleError> {
    let hub_ca_pem = match &args.hub_ca {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|source| RoleError::ReadFile {
            flag: "--hub-ca",
            path: path.clone(),
            source,
        })?),
        None => args.hub_ca_data.filter(|pem| !pem.is_empty()),
    };
    serve::run(ServeOptions {
        selection: Selection::in_cluster_or(args.kubeconfig, args.context),
        health: args.health_addr,
        namespace: args.namespace,
        hub_url: args.hub_url.filter(|url| !url.is_empty()),
        hub_ca_pem,
        allow_in_cluster_url: args.allow_in_cluster_url,
        repository: args.image_repository,
        version: args.klusterlet_version,
        token_lifetime: args.token_lifetime,
        lease_grace: args.lease_grace,
        image_pull_secret: args.image_pull_secret,
        controllers: args.controllers,
    })
    .await?;
    Ok(())
}
