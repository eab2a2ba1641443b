//! `fleetctl hub install|uninstall`: the OCM CRDs, the hub namespace, least-privilege
//! RBAC and the hub controller Deployment — which carries the address managed clusters
//! reach the hub at.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use fleetctl_api::names::{
    DEFAULT_REPOSITORY, HUB_CONTROLLER, HUB_NAMESPACE, OCM_NAMESPACE, ROOT_CA_CONFIGMAP, VERSION, default_image,
    image as image_of,
};
use fleetctl_hub::manifests::import::docker_config;
use fleetctl_hub::manifests::{self, install};
use fleetctl_kube::certs::{pem_of_der, same_bundle};
use fleetctl_kube::kubeconfig::{self, Endpoint};
use fleetctl_kube::{ApplyOptions, apply, delete_all};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use thiserror::Error;

use super::connect::{Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{HubFlags, WaitFlags};
use super::printer::Printer;
use super::signals::until_stopped;
use crate::lifecycle::wait_for;

/// `fleetctl hub …`
#[derive(Debug, Args)]
pub struct HubArgs {
    #[command(subcommand)]
    command: HubCommand,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    wait: WaitFlags,
}

#[derive(Debug, Subcommand)]
enum HubCommand {
    /// Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the
    /// controller is Available. Idempotent.
    #[command(after_help = super::examples::HUB_INSTALL)]
    Install(InstallArgs),
    /// Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay
    /// unless --purge-crds).
    #[command(after_help = super::examples::HUB_UNINSTALL)]
    Uninstall {
        /// Also delete the OCM CRDs, and with them every ManagedCluster and ManifestWork.
        #[arg(long)]
        purge_crds: bool,
    },
    /// Write the hub's fleet to a file: clusters, cluster sets, placements, addon settings,
    /// works, desired versions — no Secret of the hub, no key or token.
    #[command(after_help = super::examples::HUB_BACKUP)]
    Backup(super::hub_backup::BackupArgs),
    /// Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and
    /// works (a rerun changes nothing); the clusters are imported again.
    #[command(after_help = super::examples::HUB_RESTORE)]
    Restore(super::hub_backup::RestoreArgs),
}

#[derive(Debug, Args)]
struct InstallArgs {
    /// The fleetctl image the hub controller runs; the clusters it imports run the same
    /// repository (default: quay.io/fleetctl/fleetctl at this version).
    #[arg(long, value_name = "IMAGE", conflicts_with = "image_registry")]
    image: Option<String>,
    /// A registry mirror for every image the hub deploys (the default image's registry
    /// replaced, as ACM's KlusterletConfig registries do), e.g. registry.example.com:5000.
    #[arg(long, value_name = "REGISTRY")]
    image_registry: Option<String>,
    /// The hub's API server URL as managed clusters reach it (default: the server of
    /// kube-public/cluster-info where the hub publishes one, else your kubeconfig's).
    #[arg(long, value_name = "URL")]
    hub_url: Option<String>,
    /// The CA bundle (PEM file) that verifies --hub-url (default: your kubeconfig's CA).
    #[arg(long, value_name = "FILE")]
    hub_ca_file: Option<PathBuf>,
    /// A kubernetes.io/dockerconfigjson Secret in namespace open-cluster-management-hub
    /// whose registry credentials the controller pulls with and every klusterlet gets
    /// (create it first with `kubectl create secret docker-registry NAME -n
    /// open-cluster-management-hub …`).
    #[arg(long, value_name = "NAME", value_parser = pull_secret_name)]
    image_pull_secret: Option<String>,
    /// Print the YAML instead of applying it (the address comes from the flags or your
    /// kubeconfig; nothing is read from the hub).
    #[arg(long)]
    dry_run: bool,
}

/// What installing the hub needs, checked before anything is applied.
const INSTALL_RIGHTS: [super::connect::Right; 5] = [
    super::connect::Right::new("create", "apiextensions.k8s.io", "customresourcedefinitions"),
    super::connect::Right::new("create", "", "namespaces"),
    super::connect::Right::new("create", "rbac.authorization.k8s.io", "clusterroles"),
    super::connect::Right::new("create", "rbac.authorization.k8s.io", "clusterrolebindings"),
    super::connect::Right::new("create", "admissionregistration.k8s.io", "validatingadmissionpolicies"),
];

/// Why the hub's address could not be told.
#[derive(Debug, Error)]
enum AddressError {
    /// `--hub-ca-file` cannot be read.
    #[error("reading --hub-ca-file {}", path.display())]
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No CA anywhere.
    #[error("no CA for the hub address: your kubeconfig has none — pass --hub-ca-file")]
    NoCa,
    /// `--image-registry` is not a registry host.
    #[error("--image-registry {0:?} is not a registry host[:port] (e.g. registry.example.com:5000)")]
    Registry(String),
    /// `--image-pull-secret` names no usable Secret.
    #[error(
        "--image-pull-secret: secret {HUB_NAMESPACE}/{name} {problem}; create it first: `kubectl create namespace \
         {HUB_NAMESPACE}` and `kubectl create secret docker-registry {name} -n {HUB_NAMESPACE} --docker-server=… \
         --docker-username=… --docker-password=…`"
    )]
    PullSecret {
        /// Its name.
        name: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// Reading the pull secret failed.
    #[error("reading secret {HUB_NAMESPACE}/{0}")]
    ReadPullSecret(String, #[source] kube::Error),
}

impl Fault for AddressError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::CaFile { .. } | Self::NoCa | Self::PullSecret { .. } => ExitStatus::Refused,
            Self::ReadPullSecret(..) => ExitStatus::Failure,
            Self::Registry(_) => ExitStatus::Usage,
        }
    }
}

/// Where the address came from, for the note.
enum Source {
    Flag,
    ClusterInfo,
    Kubeconfig,
}

/// Runs a `hub` subcommand, within its --timeout.
pub async fn run(args: HubArgs, printer: &Printer) -> Result<(), CommandError> {
    until_stopped(hub(args, printer)).await.unwrap_or_else(|stop| Err(super::report::interrupted(stop)))
}

async fn hub(args: HubArgs, printer: &Printer) -> Result<(), CommandError> {
    match args.command {
        HubCommand::Install(install_args) => install_hub(&args.hub, install_args, args.wait, printer).await,
        HubCommand::Backup(backup) => {
            super::hub_backup::run_backup(&args.hub, backup, args.wait.timeout, printer).await
        }
        HubCommand::Restore(restore) => super::hub_backup::run_restore(&args.hub, restore, printer).await,
        HubCommand::Uninstall { purge_crds } => {
            let image = default_image();
            let mut objects = install::objects(&install::Install {
                image: &image,
                hub_url: "",
                hub_ca_pem: "",
                image_pull_secret: None,
            });
            if !purge_crds {
                objects.retain(|o| o["kind"] != "CustomResourceDefinition");
            }
            // OCM's own namespace may hold what others put there (ACM, clusteradm): it stays.
            objects.retain(|o| !(o["kind"] == "Namespace" && o["metadata"]["name"] == OCM_NAMESPACE));
            let (client, _) = connect(&args.hub.selection(), Role::Hub).await?;
            for outcome in delete_all(&client, &objects, &ApplyOptions::default()).await? {
                printer.note(&format!("{} {}", outcome.object, outcome.action));
            }
            Ok(())
        }
    }
}

async fn install_hub(
    hub: &HubFlags,
    args: InstallArgs,
    wait: WaitFlags,
    printer: &Printer,
) -> Result<(), CommandError> {
    let image = match (&args.image, &args.image_registry) {
        (Some(image), _) => image.clone(),
        (None, Some(registry)) => mirrored(registry)?,
        (None, None) => default_image(),
    };
    let flag_ca = match &args.hub_ca_file {
        Some(path) => {
            Some(std::fs::read_to_string(path).map_err(|source| AddressError::CaFile { path: path.clone(), source })?)
        }
        None => None,
    };
    let (endpoint, source, client, recorded_ca) = if args.dry_run {
        let config = fleetctl_kube::config(&hub.selection()).await.map_err(|e| connect_error(e, printer))?;
        let (endpoint, source) = chosen(args.hub_url.as_deref(), flag_ca, None, &config)?;
        let recorded_ca = endpoint.ca_pem.clone();
        (endpoint, source, None, recorded_ca)
    } else {
        let (client, config) = connect(&hub.selection(), Role::Hub).await?;
        super::connect::check_rights(&client, Role::Hub, None, &INSTALL_RIGHTS).await?;
        if let Some(name) = &args.image_pull_secret {
            check_pull_secret(&client, name).await?;
        }
        let published = cluster_info(&client).await;
        let (endpoint, source) = chosen(args.hub_url.as_deref(), flag_ca, published, &config)?;
        // The hub's own CA is left to the controller, which follows it through rotations.
        let recorded_ca = match root_ca(&client).await {
            Some(root) if same_bundle(&root, &endpoint.ca_pem) => String::new(),
            _ => endpoint.ca_pem.clone(),
        };
        (endpoint, source, Some(client), recorded_ca)
    };
    let objects = install::objects(&install::Install {
        image: &image,
        hub_url: &endpoint.server,
        hub_ca_pem: &recorded_ca,
        image_pull_secret: args.image_pull_secret.as_deref(),
    });
    let Some(client) = client else {
        printer.data(&manifests::to_yaml(&objects))?;
        return Ok(());
    };
    let from = match source {
        Source::Flag => "--hub-url",
        Source::ClusterInfo => "kube-public/cluster-info",
        Source::Kubeconfig => "your kubeconfig",
    };
    printer.note(&format!("managed clusters will reach the hub at {} (from {from})", endpoint.server));
    for outcome in apply(&client, &objects, &ApplyOptions::default()).await? {
        printer.note(&format!("{} {}", outcome.object, outcome.action));
    }
    // Installed means running: the controller's Deployment Available at its new generation.
    let deployments: Api<Deployment> = Api::namespaced(client, HUB_NAMESPACE);
    let what = format!(
        "deployment {HUB_NAMESPACE}/{HUB_CONTROLLER} to be available (`kubectl -n {HUB_NAMESPACE} describe deployment {HUB_CONTROLLER}` says why not)"
    );
    wait_for(deployments, HUB_CONTROLLER, &what, wait.timeout, |d: Option<&Deployment>| d.is_some_and(rolled_out))
        .await?;
    printer.note("the hub controller is available");
    Ok(())
}

/// Whether a Deployment runs its current spec and is Available.
fn rolled_out(deployment: &Deployment) -> bool {
    let (Some(spec), Some(status)) = (&deployment.spec, &deployment.status) else { return false };
    let wanted = spec.replicas.unwrap_or(1);
    let current = status.observed_generation >= deployment.metadata.generation;
    let available = status.conditions.iter().flatten().any(|c| c.type_ == "Available" && c.status == "True");
    current && available && status.updated_replicas.unwrap_or_default() >= wanted
}

/// A kubeconfig that cannot be used, as every command refuses it.
fn connect_error(error: fleetctl_kube::ConfigError, _: &Printer) -> CommandError {
    super::connect::ConnectError::Config { role: Role::Hub, source: error }.into()
}

/// The address managed clusters get: `--hub-url` (with `--hub-ca-file` or the
/// kubeconfig's CA), else what the hub publishes in `kube-public/cluster-info`, else the
/// kubeconfig's server and CA.
fn chosen(
    flag_url: Option<&str>,
    flag_ca: Option<String>,
    published: Option<Endpoint>,
    config: &kube::Config,
) -> Result<(Endpoint, Source), AddressError> {
    let own_ca = || config.root_cert.as_ref().map(|certs| certs.iter().map(|c| pem_of_der(c)).collect::<String>());
    let ca =
        |fallback: Option<String>| flag_ca.clone().or(fallback).filter(|ca| !ca.is_empty()).ok_or(AddressError::NoCa);
    if let Some(url) = flag_url {
        return Ok((Endpoint { server: url.trim_end_matches('/').to_string(), ca_pem: ca(own_ca())? }, Source::Flag));
    }
    if let Some(published) = published {
        let ca_pem = ca(Some(published.ca_pem).filter(|c| !c.is_empty()).or_else(own_ca))?;
        return Ok((Endpoint { server: published.server, ca_pem }, Source::ClusterInfo));
    }
    let server = config.cluster_url.to_string().trim_end_matches('/').to_string();
    Ok((Endpoint { server, ca_pem: ca(own_ca())? }, Source::Kubeconfig))
}

/// The pull secret exists in the hub namespace and holds registry credentials (before
/// anything is applied: a controller that cannot pull would never start).
async fn check_pull_secret(client: &kube::Client, name: &str) -> Result<(), AddressError> {
    let problem = |problem| AddressError::PullSecret { name: name.to_string(), problem };
    let secret = Api::<Secret>::namespaced(client.clone(), HUB_NAMESPACE)
        .get_opt(name)
        .await
        .map_err(|e| AddressError::ReadPullSecret(name.to_string(), e))?
        .ok_or_else(|| problem("does not exist"))?;
    docker_config(&secret).map(drop).map_err(problem)
}

/// `--image-pull-secret` is a Secret name.
fn pull_secret_name(name: &str) -> Result<String, String> {
    fleetctl_kube::validation::dns1123_subdomain(name).map(|()| name.to_string())
}

/// The endpoint a cluster publishes for its joiners (kubeadm's `kube-public/cluster-info`),
/// if it publishes one.
async fn cluster_info(client: &kube::Client) -> Option<Endpoint> {
    let info = Api::<ConfigMap>::namespaced(client.clone(), "kube-public").get_opt("cluster-info").await.ok()??;
    let text = info.data?.remove("kubeconfig")?;
    kubeconfig::endpoint(&kubeconfig::parse(&text).ok()?).ok()
}

/// The CA bundle the hub publishes to its namespaces (`default/kube-root-ca.crt`), if any;
/// one that cannot be read counts as none, so the chosen CA is recorded, as without it.
async fn root_ca(client: &kube::Client) -> Option<String> {
    let root = Api::<ConfigMap>::namespaced(client.clone(), "default").get_opt(ROOT_CA_CONFIGMAP).await.ok()??;
    root.data?.remove("ca.crt")
}

/// The default image with its registry replaced by `registry`.
fn mirrored(registry: &str) -> Result<String, AddressError> {
    let registry = registry.trim_end_matches('/');
    let valid = !registry.is_empty() && !registry.contains("://") && !registry.chars().any(char::is_whitespace);
    if !valid {
        return Err(AddressError::Registry(registry.to_string()));
    }
    let (_, path) = DEFAULT_REPOSITORY.split_once('/').unwrap_or(("", DEFAULT_REPOSITORY));
    Ok(image_of(&format!("{registry}/{path}"), VERSION))
}

impl HubArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.wait.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: &str) -> kube::Config {
        kube::Config::new(url.parse().unwrap())
    }

    #[test]
    fn the_hub_address_is_the_flag_then_cluster_info_then_the_kubeconfig() {
        let published = Endpoint { server: "https://hub.internal:6443".into(), ca_pem: "PUBLISHED".into() };
        let (flag, source) = chosen(
            Some("https://hub.example:6443/"),
            Some("CA".into()),
            Some(published.clone()),
            &config("https://127.0.0.1:1"),
        )
        .unwrap();
        assert_eq!((flag.server.as_str(), flag.ca_pem.as_str()), ("https://hub.example:6443", "CA"));
        assert!(matches!(source, Source::Flag));
        let (info, source) = chosen(None, None, Some(published), &config("https://127.0.0.1:1")).unwrap();
        assert_eq!((info.server.as_str(), info.ca_pem.as_str()), ("https://hub.internal:6443", "PUBLISHED"));
        assert!(matches!(source, Source::ClusterInfo));
        let mut own = config("https://127.0.0.1:1");
        own.root_cert = Some(vec![vec![1, 2, 3]]);
        let (kubeconfig, source) = chosen(None, None, None, &own).unwrap();
        assert_eq!(kubeconfig.server, "https://127.0.0.1:1");
        assert!(kubeconfig.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(matches!(source, Source::Kubeconfig));
        assert!(matches!(chosen(None, None, None, &config("https://127.0.0.1:1")), Err(AddressError::NoCa)));
    }

    #[test]
    fn a_registry_mirror_replaces_the_registry_of_the_default_image() {
        assert_eq!(
            mirrored("registry.example.com:5000/").unwrap(),
            format!("registry.example.com:5000/fleetctl/fleetctl:{VERSION}")
        );
        for bad in ["", "https://x", "a b"] {
            assert!(matches!(mirrored(bad), Err(AddressError::Registry(_))), "{bad:?}");
        }
    }
}
