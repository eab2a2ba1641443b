//! The registration agent: joins the hub with the bootstrap identity, earns and keeps a
//! client certificate, reports the cluster's status, renews its lease, and tells the hub
//! first when its Klusterlet is being removed.

pub mod addons;
mod csr;
mod status;

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use serde_json::{Value, json};

use super::AgentOptions;
use super::hub::{self, HubClientError, HubConnection};
use fleetctl_api::conditions::{self as c};
use fleetctl_api::names::CLUSTER_LEASE;
use fleetctl_api::names::{ANNOTATION_HUB_NOTIFIED, BOOTSTRAP_SECRET, HUB_KUBECONFIG_SECRET};
use fleetctl_api::{Klusterlet, ManagedCluster};
use fleetctl_kube::kubeconfig::{self, Credentials, Names, secret_data};
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::{ConfigError, KubeError, kube_error};

/// Field manager of the agent's writes.
const FIELD_MANAGER: &str = "registration-agent";
/// Longest pause between retries after a failure.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Why the agent stopped or a pass failed.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    /// No local client.
    #[error("connecting to the managed cluster")]
    Config(#[from] ConfigError),
    /// The health endpoint.
    #[error("starting the health endpoint")]
    Health(#[from] HealthError),
    /// A call to either cluster failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// A hub kubeconfig secret could not be used.
    #[error("reading hub credentials")]
    Credentials(#[from] HubClientError),
    /// The bootstrap kubeconfig is missing.
    #[error("secret {0} is missing: apply the import manifests again")]
    NoBootstrap(String),
    /// Making the CSR failed.
    #[error("making a certificate request: {0}")]
    Csr(String),
    /// Watching the CSR failed.
    #[error("{0}")]
    Watch(String),
    /// The hub denied or failed the CSR.
    #[error("the hub refused the certificate request: {0}")]
    Refused(String),
}

/// Which cluster and agent this is.
#[derive(Debug, Clone)]
pub struct Identity {
    /// Cluster name.
    pub cluster: String,
    /// Agent id.
    pub agent_id: String,
    /// Agent namespace.
    pub namespace: String,
}

/// Runs the agent until SIGTERM.
pub async fn run(options: AgentOptions) -> Result<(), RegistrationError> {
    let (local, _) = fleetctl_kube::client(&options.local).await?;
    let health_state = Health::default();
    let (_, _health) = health::serve(options.health, health_state.clone()).await?;
    health_state.set_ready(true);
    let identity = Identity { cluster: options.cluster, agent_id: options.agent_id, namespace: options.namespace };
    tokio::select! {
        () = agent(local, identity) => Ok(()),
        _ = shutdown_signal() => Ok(()),
    }
}

/// What ended a connected phase.
enum Next {
    /// The hub no longer accepts our certificate (or the bootstrap secret changed).
    Rebootstrap,
    /// The certificate is due for renewal.
    Rotate,
    /// The Klusterlet is being removed and the hub was told.
    Detached,
}

/// The agent's life: connect (bootstrapping when needed), serve, and start over on
/// rotation or rejection; retries with backoff after failures.
pub async fn agent(local: Client, identity: Identity) {
    let mut backoff = Duration::from_millis(200);
    loop {
        match connected(&local, &identity).await {
            Ok(Next::Detached) => return std::future::pending().await,
            Ok(_) => backoff = Duration::from_millis(200),
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), retry_in = ?backoff, "registration step failed");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

async fn connected(local: &Client, identity: &Identity) -> Result<Next, RegistrationError> {
    let hub = credentials(local, identity).await?;
    let next = serve(local, &hub, identity).await?;
    match next {
        Next::Rebootstrap => {
            tracing::info!("the hub refused our certificate: bootstrapping again");
            let secrets: Api<Secret> = Api::namespaced(local.clone(), &identity.namespace);
            match secrets.delete(HUB_KUBECONFIG_SECRET, &Default::default()).await {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(e) => return Err(kube_error("deleting the hub kubeconfig secret")(e).into()),
            }
        }
        Next::Rotate => {
            tracing::info!("renewing the client certificate");
            let issued = csr::obtain(&hub.client, &identity.cluster, &identity.agent_id, None).await?;
            store(local, identity, &hub.server, &hub.ca_pem, &issued).await?;
        }
        Next::Detached => {}
    }
    Ok(next)
}

/// A hub connection with the agent's certificate, bootstrapping first if there is none
/// (or the hub rejects it).
async fn credentials(local: &Client, identity: &Identity) -> Result<HubConnection, RegistrationError> {
    if let Some(hub) = hub::connect(local, &identity.namespace, HUB_KUBECONFIG_SECRET).await? {
        match Api::<ManagedCluster>::all(hub.client.clone()).get(&identity.cluster).await {
            Ok(_) => return Ok(hub),
            Err(kube::Error::Api(status)) if matches!(status.code, 401 | 403) => {
                tracing::info!(code = status.code, "the stored certificate no longer works: bootstrapping");
            }
            Err(e) => return Err(kube_error("reading our managed cluster on the hub")(e).into()),
        }
    }
    let bootstrap = hub::connect(local, &identity.namespace, BOOTSTRAP_SECRET)
        .await?
        .ok_or_else(|| RegistrationError::NoBootstrap(format!("{}/{BOOTSTRAP_SECRET}", identity.namespace)))?;
    ensure_cluster(&bootstrap.client, &identity.cluster).await?;
    let issued = csr::obtain(&bootstrap.client, &identity.cluster, &identity.agent_id, None).await?;
    store(local, identity, &bootstrap.server, &bootstrap.ca_pem, &issued).await?;
    tracing::info!(cluster = %identity.cluster, "joined the hub with a new certificate");
    hub::connect(local, &identity.namespace, HUB_KUBECONFIG_SECRET)
        .await?
        .ok_or_else(|| RegistrationError::Watch("the hub kubeconfig secret vanished after it was written".into()))
}

/// Creates the ManagedCluster if the hub does not have it (a join without `import`).
async fn ensure_cluster(bootstrap: &Client, cluster: &str) -> Result<(), RegistrationError> {
    let clusters: Api<ManagedCluster> = Api::all(bootstrap.clone());
    if clusters.get_opt(cluster).await.map_err(kube_error("reading our managed cluster"))?.is_some() {
        return Ok(());
    }
    let mut object = ManagedCluster::accepted(cluster);
    object.spec.hub_accepts_client = false;
    match clusters.create(&PostParams::default(), &object).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(e) => Err(kube_error("creating our managed cluster")(e).into()),
    }
}

/// Writes `hub-kubeconfig-secret` with the upstream keys.
async fn store(
    local: &Client,
    identity: &Identity,
    server: &str,
    ca_pem: &str,
    issued: &csr::Issued,
) -> Result<(), RegistrationError> {
    let credentials = Credentials::Certificate { cert_pem: issued.cert_pem.clone(), key_pem: issued.key_pem.clone() };
    let names = Names { cluster: "hub", user: "agent", context: "hub" };
    let kubeconfig = kubeconfig::to_yaml(&kubeconfig::single(names, server, ca_pem, credentials));
    let data = secret_data(BTreeMap::from([
        ("kubeconfig".to_string(), kubeconfig),
        ("tls.crt".to_string(), issued.cert_pem.clone()),
        ("tls.key".to_string(), issued.key_pem.clone()),
        ("cluster-name".to_string(), identity.cluster.clone()),
        ("agent-name".to_string(), identity.agent_id.clone()),
    ]));
    let secret = Secret {
        metadata: ObjectMeta {
            name: Some(HUB_KUBECONFIG_SECRET.into()),
            namespace: Some(identity.namespace.clone()),
            ..ObjectMeta::default()
        },
        type_: Some("Opaque".into()),
        data: Some(data),
        ..Secret::default()
    };
    Api::<Secret>::namespaced(local.clone(), &identity.namespace)
        .patch(HUB_KUBECONFIG_SECRET, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(&secret))
        .await
        .map_err(kube_error("writing the hub kubeconfig secret"))?;
    Ok(())
}

fn unauthorized(e: &RegistrationError) -> bool {
    matches!(e, RegistrationError::Kube(e) if e.code() == Some(401))
}

/// The connected phase: status and lease on every period, until rotation is due, the
/// hub refuses us, the bootstrap secret changes, or the Klusterlet is being removed.
async fn serve(local: &Client, hub: &HubConnection, identity: &Identity) -> Result<Next, RegistrationError> {
    let clusters: Api<ManagedCluster> = Api::all(hub.client.clone());
    let rotate_at = secret_certificate(local, identity).await.and_then(|pem| csr::renew_at(&pem));
    let klusterlets: Api<Klusterlet> = Api::all(local.clone());
    let mut klusterlet_changes =
        watcher(klusterlets.clone(), watcher::Config::default().fields("metadata.name=klusterlet")).boxed();
    let secrets: Api<Secret> = Api::namespaced(local.clone(), &identity.namespace);
    let bootstrap_config = watcher::Config::default().fields(&format!("metadata.name={BOOTSTRAP_SECRET}"));
    let mut bootstrap_changes = watcher(secrets, bootstrap_config).boxed();
    let mut bootstrap_version: Option<String> = None;
    let rotation = async {
        match rotate_at {
            Some(at) => tokio::time::sleep(at.duration_since(jiff::Timestamp::now()).unsigned_abs()).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(rotation);
    // Addon health and reports ride on this connection; the relay ends with it.
    let relay = tokio::spawn(addons::relay(
        local.clone(),
        hub.client.clone(),
        identity.cluster.clone(),
        crate::operator::render::addon_namespace(&identity.namespace),
    ));
    let _relay = AbortOnDrop(relay);
    loop {
        let cluster = match clusters.get(&identity.cluster).await {
            Ok(cluster) => cluster,
            Err(kube::Error::Api(status)) if status.code == 401 => return Ok(Next::Rebootstrap),
            Err(e) => return Err(kube_error("reading our managed cluster")(e).into()),
        };
        if deleting(&klusterlets).await {
            notify_leaving(&clusters, &klusterlets, &cluster).await?;
            return Ok(Next::Detached);
        }
        match heartbeat(local, hub, identity, &cluster).await {
            Err(e) if unauthorized(&e) => return Ok(Next::Rebootstrap),
            other => other?,
        }
        let period = cluster.spec.lease_duration();
        // Jitter keeps a fleet's renewals apart, as upstream's 0.25 factor does.
        let jitter = period.mul_f64(f64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 255.0 * 0.25);
        let tick = tokio::time::sleep(period - jitter.min(period / 2));
        tokio::pin!(tick);
        loop {
            tokio::select! {
                () = &mut tick => break,
                () = &mut rotation => return Ok(Next::Rotate),
                event = klusterlet_changes.next() => {
                    if matches!(event, Some(Ok(_))) && deleting(&klusterlets).await {
                        break;
                    }
                }
                event = bootstrap_changes.next() => {
                    if let Some(Ok(watcher::Event::Apply(secret) | watcher::Event::InitApply(secret))) = event {
                        let version = secret.resource_version();
                        if bootstrap_version.is_some() && bootstrap_version != version {
                            return Ok(Next::Rebootstrap);
                        }
                        bootstrap_version = version;
                    }
                }
            }
        }
    }
}

/// Stops a task when the phase that started it ends.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn secret_certificate(local: &Client, identity: &Identity) -> Option<String> {
    let secret =
        Api::<Secret>::namespaced(local.clone(), &identity.namespace).get_opt(HUB_KUBECONFIG_SECRET).await.ok()??;
    kubeconfig::secret_text(&secret).remove("tls.crt")
}

async fn deleting(klusterlets: &Api<Klusterlet>) -> bool {
    klusterlets.get_opt("klusterlet").await.ok().flatten().is_some_and(|k| k.metadata.deletion_timestamp.is_some())
}

/// Renews the lease and reports status (written only when it changed).
async fn heartbeat(
    local: &Client,
    hub: &HubConnection,
    identity: &Identity,
    cluster: &ManagedCluster,
) -> Result<(), RegistrationError> {
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string();
    Api::<Lease>::namespaced(hub.client.clone(), &identity.cluster)
        .patch(CLUSTER_LEASE, &PatchParams::default(), &Patch::Merge(json!({"spec": {"renewTime": now}})))
        .await
        .map_err(kube_error("renewing the lease"))?;
    let observed = status::observe(local, &identity.namespace).await;
    let available = if observed.healthy {
        (c::TRUE, c::REASON_MANAGED_CLUSTER_AVAILABLE, "Managed cluster is available")
    } else {
        (c::FALSE, c::REASON_KUBE_APISERVER_UNAVAILABLE, "The kube-apiserver of the managed cluster is not healthy")
    };
    let wanted = [
        (c::MANAGED_CLUSTER_JOINED, c::TRUE, c::REASON_MANAGED_CLUSTER_JOINED, "Managed cluster joined"),
        (c::MANAGED_CLUSTER_AVAILABLE, available.0, available.1, available.2),
    ];
    report(&Api::all(hub.client.clone()), cluster, &wanted, Some(status::status_fields(&observed))).await
}

/// Writes conditions (and other status fields) when they differ from the cluster's.
async fn report(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    wanted: &[(&str, &str, &str, &str)],
    fields: Option<Value>,
) -> Result<(), RegistrationError> {
    let mut conditions: Vec<Condition> = cluster.conditions().to_vec();
    let mut changed = false;
    for (type_, status_, reason, message) in wanted {
        changed |= c::set_condition(&mut conditions, c::new_condition(type_, status_, reason, *message));
    }
    let current = serde_json::to_value(&cluster.status).unwrap_or(Value::Null);
    let mut patch = fields.unwrap_or_else(|| json!({}));
    let fields_changed = patch.as_object().into_iter().flatten().any(|(k, v)| current.get(k) != Some(v));
    if !changed && !fields_changed {
        return Ok(());
    }
    patch["conditions"] = serde_json::to_value(&conditions).unwrap_or(Value::Null);
    let body = json!({"metadata": {"resourceVersion": cluster.resource_version()}, "status": patch});
    clusters
        .patch_status(&cluster.name_any(), &PatchParams::default(), &Patch::Merge(body))
        .await
        .map_err(kube_error("reporting our cluster's status"))?;
    Ok(())
}

/// Tells the hub the klusterlet is going (Available=False), then marks the Klusterlet
/// so the operator may remove the agents.
async fn notify_leaving(
    clusters: &Api<ManagedCluster>,
    klusterlets: &Api<Klusterlet>,
    cluster: &ManagedCluster,
) -> Result<(), RegistrationError> {
    let leaving = [(
        c::MANAGED_CLUSTER_AVAILABLE,
        c::FALSE,
        "KlusterletRemoved",
        "The klusterlet is being removed from the managed cluster",
    )];
    report(clusters, cluster, &leaving, None).await?;
    let annotate = json!({"metadata": {"annotations": {ANNOTATION_HUB_NOTIFIED: "true"}}});
    klusterlets
        .patch("klusterlet", &PatchParams::default(), &Patch::Merge(annotate))
        .await
        .map_err(kube_error("marking the klusterlet"))?;
    tracing::info!("told the hub the klusterlet is leaving");
    Ok(())
}
