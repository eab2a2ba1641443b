//! The registration agent: joins the hub with the bootstrap identity, earns and keeps a
//! client certificate, reports the cluster's status, renews its lease, and tells the hub
//! first when its Klusterlet is being removed.

pub mod addons;
pub mod credentials;
mod csr;
mod recovery;
mod status;

/// The CSR a registration agent sends for its cluster (and its private key).
pub use csr::request;

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Pod, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::{reflector, watcher};
use kube::{Client, ResourceExt};
use serde_json::{Value, json};

use super::hub::{self, HubClientError, HubConnection};
use super::{AgentOptions, Clusters};
use fleetctl_api::conditions::{self as c};
use fleetctl_api::names::{ANNOTATION_HUB_NOTIFIED, BOOTSTRAP_SECRET, HUB_KUBECONFIG_SECRET, KLUSTERLET};
use fleetctl_api::names::{CLUSTER_LEASE, VERSION, VERSION_CLAIM};
use fleetctl_api::{Klusterlet, ManagedCluster, ManagedClusterStatus};
use fleetctl_kube::backoff::Exponential;
use fleetctl_kube::kubeconfig::{self, Credentials, Names, secret_data};
use fleetctl_kube::objects;
use fleetctl_kube::runner::health::{self, Health, HealthError};
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::watch::BackedOff as _;
use fleetctl_kube::{ConfigError, KubeError, kube_error};

/// Field manager of the agent's writes.
const FIELD_MANAGER: &str = "registration-agent";
/// The pause after failures in a row: short at first, and never longer than half the
/// default lease period, so that an agent that lost its hub renews its lease within one
/// period of the hub's return (the hub calls a cluster Unknown after five).
const RETRY: Exponential = Exponential { first: Duration::from_millis(200), longest: Duration::from_secs(30) };

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
    /// Too many CSRs of the cluster wait for the hub.
    #[error(
        "{0} certificate requests of this cluster already wait for the hub: making no new one until they are decided"
    )]
    TooManyPending(usize),
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

/// How the agent asks for its certificates, and what it says of itself.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The lifetime its CSRs ask for (`spec.expirationSeconds`); `None` leaves it to the
    /// signer.
    pub client_cert_expiration: Option<Duration>,
    /// The klusterlet version it reports when no Pod of the agents runs — run by hand, or as
    /// a task of a process: what it was built as, unless what runs it knows better (the fleet
    /// simulator's kubelet: the image tag of the Deployment it runs the agent for).
    pub version: String,
    /// The Klusterlet the agent belongs to (where it runs): `klusterlet`, or a Hosted
    /// Klusterlet's own name.
    pub klusterlet: String,
}

impl Default for Settings {
    fn default() -> Self {
        Self { client_cert_expiration: None, version: VERSION.to_string(), klusterlet: KLUSTERLET.to_string() }
    }
}

/// Runs the agent until SIGTERM; `agent_id` as [`identity`] takes it.
pub async fn run(options: AgentOptions, agent_id: Option<String>, settings: Settings) -> Result<(), RegistrationError> {
    let clusters = Clusters::of(&options).await?;
    let health_state = Health::default();
    let (_, _health) = health::serve(options.health, health_state.clone()).await?;
    health_state.set_ready(true);
    let run = async {
        let identity = identity(&clusters.management, options.cluster, options.namespace, agent_id).await;
        agent(clusters.clone(), identity, settings).await;
    };
    tokio::select! {
        () = run => Ok(()),
        _ = shutdown_signal() => Ok(()),
    }
}

/// The letters of an agent id the agent makes itself (upstream's: no vowels, no look-alikes).
const AGENT_ID_LETTERS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
/// How long an agent id the agent makes itself is, as upstream's.
const AGENT_ID_LENGTH: usize = 5;

/// The agent's identity: `agent_id` when it is given; else, as upstream's registration agent
/// picks it, the `agent-name` its hub kubeconfig secret holds — so an agent that replaces
/// another klusterlet's (upstream's, which the operator starts without an id) keeps that
/// agent's certificate and registration —, else a new random one. Reads the secret until it
/// can (a failure is retried with backoff).
pub async fn identity(local: &Client, cluster: String, namespace: String, agent_id: Option<String>) -> Identity {
    if let Some(agent_id) = agent_id {
        return Identity { cluster, agent_id, namespace };
    }
    let secrets: Api<Secret> = Api::namespaced(local.clone(), &namespace);
    let mut failures = 0;
    let stored = loop {
        match secrets.get_opt(HUB_KUBECONFIG_SECRET).await {
            Ok(secret) => break secret,
            Err(e) => {
                failures += 1;
                let retry_in = RETRY.delay(failures);
                tracing::warn!(error = %e, ?retry_in, "reading the hub kubeconfig secret for the agent id");
                tokio::time::sleep(retry_in).await;
            }
        }
    };
    let kept = stored.and_then(|secret| kubeconfig::secret_text(&secret).remove("agent-name"));
    let agent_id = match kept.filter(|id| !id.trim().is_empty()) {
        Some(kept) => kept,
        None => {
            let random = uuid::Uuid::new_v4();
            random.as_bytes()[..AGENT_ID_LENGTH]
                .iter()
                .map(|b| char::from(AGENT_ID_LETTERS[usize::from(*b) % AGENT_ID_LETTERS.len()]))
                .collect()
        }
    };
    tracing::info!(%agent_id, "the agent id");
    Identity { cluster, agent_id, namespace }
}

/// What ended a connected phase.
enum Next {
    /// The hub no longer accepts our certificate.
    Rebootstrap,
    /// The hub kubeconfig or the bootstrap secret changed: judge the credentials again.
    Recheck,
    /// The certificate is due for renewal.
    Rotate,
    /// The Klusterlet is being removed and the hub was told.
    Detached,
}

/// The agent's life: connect (bootstrapping when needed), serve, and start over on
/// rotation, rejection or changed credentials; retries with backoff after failures.
pub async fn agent(clusters: Clusters, identity: Identity, settings: Settings) {
    let mut failures = 0;
    // When the hub last answered (a connection judged, a heartbeat taken), and the first
    // failure since: the hub has been silent since then.
    let mut contact = tokio::time::Instant::now();
    let mut failing_since: Option<tokio::time::Instant> = None;
    loop {
        match connected(&clusters, &identity, &settings, &mut contact).await {
            Ok(Next::Detached) => return std::future::pending().await,
            Ok(_) => failures = 0,
            Err(e) => {
                failures += 1;
                tracing::warn!(error = %format!("{e:#}"), "registration step failed");
                let now = tokio::time::Instant::now();
                let silent_since = *failing_since.insert(failing_since.filter(|since| *since > contact).unwrap_or(now));
                match recovery::turn_to_recovery_hub(&clusters.management, &identity, silent_since.elapsed()).await {
                    // The recovery hub gets its own time to answer, and retries from the start.
                    Ok(true) => {
                        contact = now;
                        failing_since = None;
                        failures = 0;
                    }
                    Ok(false) => {}
                    Err(error) => tracing::warn!(error = %format!("{error:#}"), "looking at the recovery hub"),
                }
                let retry_in = RETRY.delay(failures);
                tracing::debug!(?retry_in, "retrying");
                tokio::time::sleep(retry_in).await;
            }
        }
    }
}

async fn connected(
    clusters: &Clusters,
    identity: &Identity,
    settings: &Settings,
    contact: &mut tokio::time::Instant,
) -> Result<Next, RegistrationError> {
    let local = &clusters.management;
    let connection = credentials(local, identity, settings).await?;
    *contact = tokio::time::Instant::now();
    let next = serve(clusters, &connection, identity, settings, contact).await?;
    let hub = &connection.hub;
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
            let issued =
                csr::obtain(&hub.client, &identity.cluster, &identity.agent_id, settings.client_cert_expiration)
                    .await?;
            store(local, identity, &hub.server, &hub.ca_pem, &issued).await?;
        }
        Next::Recheck => tracing::info!("the hub credentials changed: checking them again"),
        Next::Detached => {}
    }
    Ok(next)
}

/// A working hub connection and the versions of the secrets it was judged from.
struct Connection {
    hub: HubConnection,
    bootstrap_version: Option<String>,
}

/// A hub connection with the agent's certificate, bootstrapping first when the stored
/// credentials do not fit (see [`credentials::judge`]) or the hub refuses them.
async fn credentials(
    local: &Client,
    identity: &Identity,
    settings: &Settings,
) -> Result<Connection, RegistrationError> {
    let secrets: Api<Secret> = Api::namespaced(local.clone(), &identity.namespace);
    let read = |name: &'static str| {
        let secrets = secrets.clone();
        async move { secrets.get_opt(name).await.map_err(kube_error(format!("reading secret {name}"))) }
    };
    let bootstrap = read(BOOTSTRAP_SECRET).await?;
    let bootstrap_endpoint = bootstrap.as_ref().and_then(|secret| {
        let text = kubeconfig::secret_text(secret);
        let parsed = kubeconfig::parse(text.get("kubeconfig")?).ok()?;
        kubeconfig::endpoint(&parsed).ok()
    });
    let bootstrap_version = bootstrap.as_ref().and_then(ResourceExt::resource_version);
    let stored = read(HUB_KUBECONFIG_SECRET).await?;
    let expected = credentials::Expected { cluster: &identity.cluster, agent_id: &identity.agent_id };
    match credentials::judge(stored.as_ref(), expected, bootstrap_endpoint.as_ref(), jiff::Timestamp::now()) {
        Ok(_) => {
            let secret = stored.as_ref().ok_or_else(|| RegistrationError::Watch("the hub secret vanished".into()))?;
            let hub = hub::from_secret(secret, &identity.namespace, HUB_KUBECONFIG_SECRET).await?;
            match Api::<ManagedCluster>::all(hub.client.clone()).get(&identity.cluster).await {
                Ok(_) => return Ok(Connection { hub, bootstrap_version }),
                Err(kube::Error::Api(status)) if matches!(status.code, 401 | 403) => {
                    tracing::info!(code = status.code, "the hub refuses the stored certificate: bootstrapping");
                }
                Err(e) => return Err(kube_error("reading our managed cluster on the hub")(e).into()),
            }
        }
        Err(credentials::Unfit::Missing) => tracing::info!("no hub kubeconfig secret: bootstrapping"),
        Err(unfit) => tracing::warn!(reason = %unfit, "the hub kubeconfig secret cannot be used: bootstrapping"),
    }
    let bootstrap = bootstrap
        .ok_or_else(|| RegistrationError::NoBootstrap(format!("{}/{BOOTSTRAP_SECRET}", identity.namespace)))?;
    let bootstrap = hub::from_secret(&bootstrap, &identity.namespace, BOOTSTRAP_SECRET).await?;
    ensure_cluster(&bootstrap.client, &identity.cluster).await?;
    let issued =
        csr::obtain(&bootstrap.client, &identity.cluster, &identity.agent_id, settings.client_cert_expiration).await?;
    store(local, identity, &bootstrap.server, &bootstrap.ca_pem, &issued).await?;
    tracing::info!(cluster = %identity.cluster, "joined the hub with a new certificate");
    let hub = hub::connect(local, &identity.namespace, HUB_KUBECONFIG_SECRET)
        .await?
        .ok_or_else(|| RegistrationError::Watch("the hub kubeconfig secret vanished after it was written".into()))?;
    Ok(Connection { hub, bootstrap_version })
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
/// hub refuses us, the hub kubeconfig or bootstrap secret changes, or the Klusterlet is
/// being removed.
async fn serve(
    clusters_of_agent: &Clusters,
    connection: &Connection,
    identity: &Identity,
    settings: &Settings,
    contact: &mut tokio::time::Instant,
) -> Result<Next, RegistrationError> {
    let hub = &connection.hub;
    let local = &clusters_of_agent.management;
    let clusters: Api<ManagedCluster> = Api::all(hub.client.clone());
    let rotate_at = secret_certificate(local, identity).await.and_then(|pem| csr::renew_at(&pem));
    let klusterlets: Api<Klusterlet> = Api::all(local.clone());
    let mut klusterlet_changes = watcher(
        klusterlets.clone(),
        watcher::Config::default().fields(&format!("metadata.name={}", settings.klusterlet)),
    )
    .boxed();
    let secrets: Api<Secret> = Api::namespaced(local.clone(), &identity.namespace);
    let only = |name: &str| watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut bootstrap_changes = watcher(secrets.clone(), only(BOOTSTRAP_SECRET)).backed_off().boxed();
    let mut hub_changes = watcher(secrets, only(HUB_KUBECONFIG_SECRET)).backed_off().boxed();
    // The hub's view of our cluster, so a changed leaseDurationSeconds is followed at once
    // rather than after a tick of the old period (our role may watch this one name).
    let mut cluster_changes = watcher(clusters.clone(), only(&identity.cluster)).backed_off().boxed();
    // The agents' pods: a version that starts or stops running is reported at once, not at
    // the next period, so the hub never shows a version the pods no longer run.
    let (pods, pods_writer) = reflector::store::<Pod>();
    let pod_api: Api<Pod> = Api::namespaced(local.clone(), &identity.namespace);
    let mut pod_changes = reflector(pods_writer, watcher(pod_api, watcher::Config::default())).backed_off().boxed();
    let mut bootstrap_state = Watched::new(connection.bootstrap_version.clone());
    let mut hub_state = Watched::new(Some(hub.secret_version.clone()));
    let rotation = async {
        match rotate_at {
            // A time already past (a certificate found overdue) renews at once.
            Some(at) => {
                let left = at.duration_since(jiff::Timestamp::now());
                tokio::time::sleep(Duration::try_from(left).unwrap_or(Duration::ZERO)).await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::pin!(rotation);
    // Addon health and reports ride on this connection; the relay ends with it.
    let relay = tokio::spawn(addons::relay(
        clusters_of_agent.spoke.clone(),
        hub.client.clone(),
        identity.cluster.clone(),
        clusters_of_agent.addon_namespace(&identity.namespace),
    ));
    let _relay = AbortOnDrop(relay);
    loop {
        let cluster = match clusters.get(&identity.cluster).await {
            Ok(cluster) => cluster,
            Err(kube::Error::Api(status)) if status.code == 401 => return Ok(Next::Rebootstrap),
            Err(e) => return Err(kube_error("reading our managed cluster")(e).into()),
        };
        // Read once per period: whether it is being removed, and the operator's view of the
        // hub connection the heartbeat carries.
        let klusterlet = match klusterlets.get_opt(&settings.klusterlet).await {
            Ok(klusterlet) => klusterlet,
            Err(e) => {
                tracing::debug!(error = %e, "reading the klusterlet");
                None
            }
        };
        if klusterlet.as_ref().is_some_and(deleting) {
            notify_leaving(&clusters, &klusterlets, &settings.klusterlet, &cluster).await?;
            return Ok(Next::Detached);
        }
        match heartbeat(clusters_of_agent, hub, identity, settings, &cluster, klusterlet.as_ref()).await {
            Err(e) if unauthorized(&e) => return Ok(Next::Rebootstrap),
            other => other?,
        }
        *contact = tokio::time::Instant::now();
        let period = cluster.spec.lease_duration();
        // Jitter keeps a fleet's renewals apart, as upstream's lease updater does
        // (`wait.JitterUntil` with a 0.25 factor): the next renewal comes one to 1.25 periods
        // later, so a fleet renews at most N per period on average (well inside the hub's
        // grace of several periods).
        let jitter = period.mul_f64(f64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 255.0 * 0.25);
        let tick = tokio::time::sleep(period + jitter);
        tokio::pin!(tick);
        loop {
            tokio::select! {
                () = &mut tick => break,
                () = &mut rotation => return Ok(Next::Rotate),
                event = klusterlet_changes.next() => {
                    // Being removed, or the operator's view of the hub connection changed:
                    // tell the hub now.
                    if let Some(Ok(watcher::Event::Apply(klusterlet) | watcher::Event::InitApply(klusterlet))) = &event
                        && (deleting(klusterlet)
                            || connection_view(klusterlet)
                                != c::find(cluster.conditions(), c::KLUSTERLET_HUB_CONNECTION_DEGRADED).map(view))
                    {
                        break;
                    }
                }
                event = bootstrap_changes.next() => {
                    if let Some(Ok(event)) = event && bootstrap_state.changed(&event) {
                        return Ok(Next::Recheck);
                    }
                }
                event = hub_changes.next() => {
                    if let Some(Ok(event)) = event && hub_state.changed(&event) {
                        return Ok(Next::Recheck);
                    }
                }
                event = cluster_changes.next() => {
                    match event {
                        Some(Ok(watcher::Event::Apply(changed) | watcher::Event::InitApply(changed)))
                            if changed.spec.lease_duration() != period => break,
                        // The hub stopped answering the watch: a heartbeat now tells whether
                        // it is gone, rather than one a lease period later.
                        Some(Err(error)) => {
                            tracing::debug!(%error, "the watch of our cluster on the hub failed");
                            break;
                        }
                        _ => {}
                    }
                }
                event = pod_changes.next() => {
                    let running = status::running_version(pods.state().iter().map(AsRef::as_ref));
                    if matches!(event, Some(Ok(_))) && running.is_some() && running.as_deref() != reported_version(&cluster) {
                        break;
                    }
                }
            }
        }
    }
}

/// One secret as a connection was judged from (`None`: absent), followed through its watch.
struct Watched {
    version: Option<String>,
    /// Whether the current (re)list has shown the secret.
    listed: bool,
}

impl Watched {
    fn new(version: Option<String>) -> Self {
        Self { version, listed: false }
    }

    /// Whether a watch event says the secret is no longer what it was: rewritten, deleted,
    /// created, or missing from a (re)list — a delete in the gap before the watch began.
    fn changed(&mut self, event: &watcher::Event<Secret>) -> bool {
        match event {
            watcher::Event::Init => {
                self.listed = false;
                false
            }
            watcher::Event::InitApply(secret) | watcher::Event::Apply(secret) => {
                self.listed = true;
                secret.resource_version() != self.version
            }
            watcher::Event::InitDone => !self.listed && self.version.is_some(),
            watcher::Event::Delete(_) => true,
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

fn deleting(klusterlet: &Klusterlet) -> bool {
    klusterlet.metadata.deletion_timestamp.is_some()
}

/// Renews the lease and reports status (written only when it changed).
async fn heartbeat(
    clusters: &Clusters,
    hub: &HubConnection,
    identity: &Identity,
    settings: &Settings,
    cluster: &ManagedCluster,
    klusterlet: Option<&Klusterlet>,
) -> Result<(), RegistrationError> {
    // The period the agent renews at goes with the renewal, so the hub judges staleness by
    // it even while the cluster's leaseDurationSeconds is being changed.
    let period = cluster.spec.lease_duration().as_secs();
    renew_lease(hub, &identity.cluster, period).await?;
    let observed = status::observe(clusters, &identity.namespace, &settings.version).await;
    let available = if observed.healthy {
        (c::TRUE, c::REASON_MANAGED_CLUSTER_AVAILABLE, "Managed cluster is available")
    } else {
        (c::FALSE, c::REASON_KUBE_APISERVER_UNAVAILABLE, "The kube-apiserver of the managed cluster is not healthy")
    };
    let mut wanted = vec![
        (c::MANAGED_CLUSTER_JOINED, c::TRUE, c::REASON_MANAGED_CLUSTER_JOINED, "Managed cluster joined"),
        (c::MANAGED_CLUSTER_AVAILABLE, available.0, available.1, available.2),
    ];
    // The operator's HubConnectionDegraded, so the hub shows a degraded cluster (rights the
    // agents lack on the hub, say) rather than a plain Available.
    let connection = klusterlet.and_then(connection_view);
    if let Some((status, reason, message)) = &connection {
        wanted.push((c::KLUSTERLET_HUB_CONNECTION_DEGRADED, status, reason, message));
    }
    let fields = match &observed.details {
        Ok(details) => Some(status::status_fields(details)),
        Err(error) => {
            tracing::warn!(%error, "reading the cluster's version and capacity; the hub keeps the last ones");
            None
        }
    };
    report(&Api::all(hub.client.clone()), cluster, &wanted, fields).await
}

/// Renews the cluster's lease on the hub with a read and an update, which is all
/// upstream's hub grants a registration agent on leases (no patch).
async fn renew_lease(hub: &HubConnection, cluster: &str, period: u64) -> Result<(), RegistrationError> {
    let leases: Api<Lease> = Api::namespaced(hub.client.clone(), cluster);
    let mut lease = leases.get(CLUSTER_LEASE).await.map_err(kube_error("reading the lease"))?;
    let spec = lease.spec.get_or_insert_with(Default::default);
    spec.renew_time = Some(MicroTime(jiff::Timestamp::now()));
    spec.lease_duration_seconds = Some(i32::try_from(period).unwrap_or(i32::MAX));
    leases.replace(CLUSTER_LEASE, &PostParams::default(), &lease).await.map_err(kube_error("renewing the lease"))?;
    Ok(())
}

/// The klusterlet version the cluster's status on the hub says its agents run.
fn reported_version(cluster: &ManagedCluster) -> Option<&str> {
    let claims = &cluster.status.as_ref()?.cluster_claims;
    claims.iter().find(|c| c.name == VERSION_CLAIM).map(|c| c.value.as_str())
}

/// A HubConnectionDegraded condition as `(status, reason, message)`.
fn view(condition: &Condition) -> (&str, &str, &str) {
    (&condition.status, &condition.reason, &condition.message)
}

/// The Klusterlet's HubConnectionDegraded, as the operator reports it.
fn connection_view(klusterlet: &Klusterlet) -> Option<(&str, &str, &str)> {
    c::find(klusterlet.conditions(), c::KLUSTERLET_HUB_CONNECTION_DEGRADED).map(view)
}

/// Writes conditions (and other status fields) when they differ from the cluster's.
async fn report(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    wanted: &[(&str, &str, &str, &str)],
    fields: Option<Value>,
) -> Result<(), RegistrationError> {
    let Some(patch) = status_patch(cluster, wanted, fields) else { return Ok(()) };
    let body = json!({"metadata": {"resourceVersion": cluster.resource_version()}, "status": patch});
    clusters
        .patch_status(&cluster.name_any(), &PatchParams::default(), &Patch::Merge(body))
        .await
        .map_err(kube_error("reporting our cluster's status"))?;
    Ok(())
}

/// The status merge patch that sets the `wanted` conditions and the other status `fields`,
/// or `None` when it would change nothing. The comparison is with the status as the hub
/// holds it, read back as the typed status: a field the patch sets empty (the capacity of
/// a cluster without nodes) is absent once stored, and is no change.
fn status_patch(cluster: &ManagedCluster, wanted: &[(&str, &str, &str, &str)], fields: Option<Value>) -> Option<Value> {
    let mut conditions: Vec<Condition> = cluster.conditions().to_vec();
    for (type_, status_, reason, message) in wanted {
        c::set_condition(&mut conditions, c::new_condition(type_, status_, reason, *message));
    }
    let mut patch = fields.unwrap_or_else(|| json!({}));
    patch["conditions"] = objects::document(&conditions);
    let current = objects::document(&cluster.status);
    let mut patched = current.clone();
    json_patch::merge(&mut patched, &patch);
    // A patch the typed status cannot read is the hub's to refuse: it is sent.
    let unchanged = serde_json::from_value::<ManagedClusterStatus>(patched)
        .is_ok_and(|read_back| objects::document(&read_back) == current);
    (!unchanged).then_some(patch)
}

/// Tells the hub the klusterlet is going (Available=False), then marks the Klusterlet
/// so the operator may remove the agents.
async fn notify_leaving(
    clusters: &Api<ManagedCluster>,
    klusterlets: &Api<Klusterlet>,
    klusterlet: &str,
    cluster: &ManagedCluster,
) -> Result<(), RegistrationError> {
    let leaving = [(
        c::MANAGED_CLUSTER_AVAILABLE,
        c::FALSE,
        c::REASON_KLUSTERLET_REMOVED,
        "The klusterlet is being removed from the managed cluster",
    )];
    report(clusters, cluster, &leaving, None).await?;
    let annotate = json!({"metadata": {"annotations": {ANNOTATION_HUB_NOTIFIED: "true"}}});
    klusterlets
        .patch(klusterlet, &PatchParams::default(), &Patch::Merge(annotate))
        .await
        .map_err(kube_error("marking the klusterlet"))?;
    tracing::info!("told the hub the klusterlet is leaving");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(version: &str) -> Secret {
        let mut secret = Secret::default();
        secret.metadata.resource_version = Some(version.into());
        secret
    }

    #[test]
    fn a_status_already_reported_is_not_written_again_even_with_empty_fields() {
        let mut cluster = ManagedCluster::default();
        cluster.metadata.name = Some("c1".into());
        let wanted = [(c::MANAGED_CLUSTER_JOINED, c::TRUE, c::REASON_MANAGED_CLUSTER_JOINED, "Managed cluster joined")];
        // A cluster without nodes reports empty capacity and allocatable.
        let fields = || Some(json!({"version": {"kubernetes": "v1.32.0"}, "capacity": {}, "allocatable": {}}));
        let first = status_patch(&cluster, &wanted, fields()).expect("the first report writes");
        // What the hub then holds, read back as the agent reads it.
        let mut stored = objects::document(&cluster.status);
        json_patch::merge(&mut stored, &first);
        cluster.status = Some(serde_json::from_value(stored).expect("a status"));
        assert_eq!(status_patch(&cluster, &wanted, fields()), None, "nothing changed");
        // A changed field or condition is written.
        let newer = Some(json!({"version": {"kubernetes": "v1.33.0"}, "capacity": {}, "allocatable": {}}));
        assert!(status_patch(&cluster, &wanted, newer).is_some());
        let unavailable = [(c::MANAGED_CLUSTER_AVAILABLE, c::FALSE, c::REASON_KLUSTERLET_REMOVED, "removed")];
        assert!(status_patch(&cluster, &unavailable, None).is_some());
    }

    #[test]
    fn a_secret_deleted_before_its_watch_began_counts_as_changed() {
        let mut gone = Watched::new(Some("5".into()));
        assert!(!gone.changed(&watcher::Event::Init));
        assert!(gone.changed(&watcher::Event::InitDone), "the list no longer shows it");

        let mut same = Watched::new(Some("5".into()));
        assert!(!same.changed(&watcher::Event::Init));
        assert!(!same.changed(&watcher::Event::InitApply(secret("5"))));
        assert!(!same.changed(&watcher::Event::InitDone));
        assert!(same.changed(&watcher::Event::Apply(secret("6"))), "rewritten");

        let mut absent = Watched::new(None);
        assert!(!absent.changed(&watcher::Event::InitDone), "still absent");
        assert!(absent.changed(&watcher::Event::Apply(secret("1"))), "created");
    }
}
