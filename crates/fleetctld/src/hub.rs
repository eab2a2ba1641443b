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
    /// Where the addon API's conversion webhook listens (HTTPS), behind the Service
    /// `fleetctl-hub-webhook` (`hub install` sets it to the Pod's address, port 9443); without
    /// it, no conversion is served here.
    #[arg(long, value_name = "IP:PORT", env = "FLEETCTL_WEBHOOK_ADDR", value_parser = listen_address)]
    webhook_addr: Option<SocketAddr>,
}

/// `IP:PORT`, the IP as `status.podIP` gives it: an IPv6 address with or without brackets.
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    let (ip, port) = text.rsplit_once(':').ok_or_else(|| format!("{text:?} is not IP:PORT"))?;
    let ip = ip.trim_start_matches('[').trim_end_matches(']');
    let ip = ip.parse::<std::net::IpAddr>().map_err(|e| format!("{ip:?} is not an IP address: {e}"))?;
    let port = port.parse::<u16>().map_err(|e| format!("{port:?} is not a port: {e}"))?;
    Ok(SocketAddr::new(ip, port))
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
        webhook: args.webhook_addr,
    })
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_webhook_listens_on_the_pods_address_of_either_family() {
        assert_eq!(listen_address("10.244.0.7:9443"), Ok("10.244.0.7:9443".parse().unwrap()));
        assert_eq!(listen_address("fd00::7:9443"), Ok("[fd00::7]:9443".parse().unwrap()));
        assert_eq!(listen_address("[fd00::7]:9443"), Ok("[fd00::7]:9443".parse().unwrap()));
        assert!(listen_address("$(POD_IP):9443").is_err(), "an unexpanded reference is refused");
        assert!(listen_address("10.244.0.7").is_err());
    }
}
