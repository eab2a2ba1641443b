//! A Kubernetes-API-compatible server: the dev cluster's kube-apiserver.
//!
//! `ApiServer::start` runs one in-process on 127.0.0.1; several can run at once
//! (there is no global state), which is how the tests get their clusters. It also answers
//! on [`SERVICE_HOST`], the address its Pods are given, as a real cluster's Pods reach
//! their API server through the `kubernetes` Service rather than the address in people's
//! kubeconfigs.

mod admission;
mod auth;
mod callout;
mod cel_authorizer;
mod clock;
mod columns;
mod context;
mod controllers;
mod conversion;
mod crd;
mod discovery;
mod event_versions;
mod http;
mod key;
mod kinds;
mod kubernetes_service;
mod list;
mod openapi;
mod options;
mod patch_body;
mod persist;
mod pki;
mod pod_log;
mod quota;
mod rbac;
mod reader;
mod registry;
mod request;
mod reviews;
mod scale;
mod security;
mod services;
mod state;
mod storage;
mod store;
mod strategy;
mod table;
mod tls;
mod token;
mod view;
mod watch;

// The API machinery, under the names the server's modules have always used for it.
use fleetctl_apimachinery::{cel, cron, encoding, object, patch, protobuf, quantity, schema, selector, status};

pub mod in_process;

use std::net::SocketAddr;
use std::sync::Arc;

use fleetctl_kube::kubeconfig::{self, Credentials, Names};
use kube::config::Kubeconfig;
use serde_json::json;
use tokio::task::JoinHandle;

use key::ObjectKey;

pub use clock::{Clock, ManualClock};
pub use pki::CertKey;
pub use registry::{GroupResource, Registry, ResourceType};
pub use security::{CaRotation, SecurityError, rotate_ca};
pub use state::{ApiState, Settings};
pub use status::ApiError;

/// How long shutdown waits for requests in flight.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Namespaces every cluster starts with.
const SEEDED_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The port could not be bound.
    #[error("binding {addr}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The durable store could not be opened.
    #[error("opening the store in {}", dir.display())]
    Store {
        /// The store directory.
        dir: std::path::PathBuf,
        /// The cause.
        #[source]
        source: persist::PersistError,
    },
    /// Certificates, keys or TLS could not be prepared.
    #[error("preparing the cluster's certificates and keys")]
    Security(#[from] security::SecurityError),
    /// TLS could not be configured.
    #[error("configuring TLS")]
    Tls(#[from] tls::TlsError),
    /// Seeding the initial objects failed.
    #[error("seeding {name}")]
    Seed {
        /// The namespace.
        name: String,
        /// The cause.
        #[source]
        source: ApiError,
    },
}

/// How to start a server.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// The cluster's name (it names the CA).
    pub name: String,
    /// Port to listen on; 0 picks a free one.
    pub port: u16,
    /// Address to listen on (`None`: 127.0.0.1).
    pub bind: Option<std::net::IpAddr>,
    /// A serving certificate of the caller's (kube-apiserver's `--tls-cert-file`), instead
    /// of one the cluster CA signs.
    pub serving: Option<CertKey>,
    /// CAs trusted for client certificates besides the cluster's own
    /// (kube-apiserver's `--client-ca-file`), PEM.
    pub client_ca_pem: Option<String>,
    /// Behaviour settings.
    pub settings: Settings,
}

/// A running API server.
pub struct ApiServer {
    state: Arc<ApiState>,
    addr: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    task: JoinHandle<()>,
    service: JoinHandle<()>,
    controllers: JoinHandle<()>,
    admin: CertKey,
}

impl Drop for ApiServer {
    /// A dropped server stops serving and releases its state (the built-in
    /// controllers hold it, so they must end too).
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        self.controllers.abort();
        self.task.abort();
        self.service.abort();
    }
}

/// The address Pods reach the API server at (`KUBERNETES_SERVICE_HOST`), on the same port
/// as the one kubeconfigs name: another loopback address, so that anything a Pod derives
/// from its in-cluster configuration is told apart from the address people use.
pub const SERVICE_HOST: std::net::Ipv4Addr = pki::SERVICE_HOST;

/// The user name of the admin kubeconfig.
const ADMIN_USER: &str = "kubernetes-admin";

impl ApiServer {
    /// Starts a server and returns once it accepts connections.
    pub async fn start(config: ServerConfig) -> Result<Self, StartError> {
        let (state, notices) = prepare(&config)?;
        let admin = state.security.pki.client(ADMIN_USER, &[auth::MASTERS]).map_err(security::SecurityError::from)?;
        let serving = config.serving.as_ref().unwrap_or(&state.security.serving);
        let client_cas =
            format!("{}{}", state.security.pki.trust_bundle(), config.client_ca_pem.as_deref().unwrap_or(""));
        let tls = tls::acceptor(serving, &client_cas)?;
        let asked = SocketAddr::new(config.bind.unwrap_or(std::net::Ipv4Addr::LOCALHOST.into()), config.port);
        let listener =
            tokio::net::TcpListener::bind(asked).await.map_err(|source| StartError::Bind { addr: asked, source })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind { addr: asked, source })?;
        kubernetes_service::ensure(&state, addr.port())
            .map_err(|source| StartError::Seed { name: "services/kubernetes".into(), source })?;
        let service_addr = SocketAddr::new(SERVICE_HOST.into(), addr.port());
        let service_listener = tokio::net::TcpListener::bind(service_addr)
            .await
            .map_err(|source| StartError::Bind { addr: service_addr, source })?;
        let controllers = tokio::spawn(controllers::run(state.clone(), notices));
        let app = http::service(http::Http::new(state.clone(), addr.to_string()));
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let service = tokio::spawn(tls::serve(service_listener, tls.clone(), app.clone(), stopped.clone()));
        let task = tokio::spawn(tls::serve(listener, tls, app, stopped));
        Ok(Self { state, addr, stop, task, service, controllers, admin })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server URL, `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// The address its Pods reach it at: [`SERVICE_HOST`] and the same port.
    pub fn service_addr(&self) -> SocketAddr {
        SocketAddr::new(SERVICE_HOST.into(), self.addr.port())
    }

    /// The cluster's CA bundle, PEM: the CA, and while it rotates, the other one too.
    pub fn ca_pem(&self) -> &str {
        self.state.security.pki.trust_bundle()
    }

    /// A client certificate for `user` in `groups`, signed by the cluster CA.
    pub fn client_certificate(&self, user: &str, groups: &[&str]) -> Result<CertKey, StartError> {
        Ok(self.state.security.pki.client(user, groups).map_err(security::SecurityError::from)?)
    }

    /// The state, for in-process inspection (tests and figures).
    pub fn state(&self) -> &Arc<ApiState> {
        &self.state
    }

    /// The admin kubeconfig (a `system:masters` client certificate) whose cluster, user
    /// and context are all named `name`.
    pub fn kubeconfig(&self, name: &str) -> Kubeconfig {
        let admin =
            Credentials::Certificate { cert_pem: self.admin.cert_pem.clone(), key_pem: self.admin.key_pem.clone() };
        self.kubeconfig_as(name, admin)
    }

    /// A kubeconfig of this server authenticating with `credentials`.
    pub fn kubeconfig_as(&self, name: &str, credentials: Credentials) -> Kubeconfig {
        kubeconfig::single(Names::same(name), &self.url(), self.ca_pem(), credentials)
    }

    /// Stops accepting requests, gives open ones a moment to finish, then ends
    /// the rest (watches never finish on their own).
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut self.task).await.is_err() {
            self.task.abort();
        }
        self.service.abort();
        self.controllers.abort();
        // Releases a durable store's file, so the same directory can be opened again.
        self.state.store.close();
    }
}

/// The state of a new server: its store (durable or not), certificates, registry, the
/// CRDs a durable store held and the seeded objects; and the notices for its controllers.
fn prepare(config: &ServerConfig) -> Result<(Arc<ApiState>, StoreNotices), StartError> {
    let settings = config.settings.clone();
    let (store, notices) = match &settings.store {
        Some(dir) => store::Store::open(settings.history, dir)
            .map_err(|source| StartError::Store { dir: dir.clone(), source })?,
        None => store::Store::with_broadcast(settings.history, settings.broadcast),
    };
    let store = store.with_history_bytes(settings.history_bytes);
    let security = security::Security::load_or_create(settings.store.as_deref(), &config.name)?;
    let state = Arc::new(ApiState {
        registry: Registry::with_builtins(),
        store: Arc::new(store),
        admission: admission::Chain::default(),
        settings,
        security,
    });
    serve_stored_crds(&state);
    seed(&state)?;
    publish_client_ca(&state, config.client_ca_pem.as_deref())?;
    state.store.start_watch_cache();
    Ok((state, notices))
}

/// What the built-in controllers of one server hear from its store.
type StoreNotices = tokio::sync::mpsc::UnboundedReceiver<store::Notice>;

/// Creates what every cluster starts with, unless a durable store already has it.
fn seed(state: &ApiState) -> Result<(), StartError> {
    let namespaces = SEEDED_NAMESPACES
        .iter()
        .map(|name| ("", "namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})));
    let rbac = rbac::defaults().into_iter().map(|(plural, object)| ("rbac.authorization.k8s.io", plural, object));
    for (group, plural, object) in namespaces.chain(rbac) {
        let Some(rt) = state.registry.get(group, "v1", plural) else { continue };
        let name = object::name(&object).unwrap_or_default().to_string();
        if state.store.get(&rt.group_resource(), &name).is_some() {
            continue;
        }
        state
            .resource(&rt)
            .create(None, object, &options::WriteOptions::default())
            .map_err(|source| StartError::Seed { name: format!("{plural}/{name}"), source })?;
    }
    // Every namespace a durable store holds, too: its `kube-root-ca.crt` follows a CA
    // rotated while the cluster was stopped.
    for name in state.store.keys(&kinds::namespaces(), None) {
        controllers::ensure_defaults(state, &name)
            .map_err(|source| StartError::Seed { name: format!("defaults of namespace {name}"), source })?;
    }
    Ok(())
}

/// `kube-system/extension-apiserver-authentication`, which kube-apiserver keeps at every
/// start: the CAs whose client certificates it accepts, for the servers it delegates to
/// (aggregated API servers and webhooks built on the generic apiserver read it).
fn publish_client_ca(state: &ApiState, client_ca_pem: Option<&str>) -> Result<(), StartError> {
    const NAME: &str = "extension-apiserver-authentication";
    let seed_error = |source| StartError::Seed { name: format!("configmaps/{NAME}"), source };
    let Some(rt) = state.registry.get("", "v1", "configmaps") else { return Ok(()) };
    let bundle = format!("{}{}", state.security.pki.trust_bundle(), client_ca_pem.unwrap_or(""));
    // The front-proxy keys as kind's kube-apiserver has them: the cluster CA would sign
    // a proxy's client certificate.
    let proxy_ca = state.security.pki.trust_bundle();
    let object = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": NAME, "namespace": "kube-system"},
        "data": {"client-ca-file": bundle, "requestheader-client-ca-file": proxy_ca,
            "requestheader-allowed-names": "[\"front-proxy-client\"]",
            "requestheader-username-headers": "[\"X-Remote-User\"]",
            "requestheader-group-headers": "[\"X-Remote-Group\"]",
            "requestheader-extra-headers-prefix": "[\"X-Remote-Extra-\"]"}});
    let opts = options::WriteOptions::default();
    match state.resource(&rt).create(Some("kube-system"), object.clone(), &opts) {
        Err(e) if e.code == 409 => state
            .resource(&rt)
            .write(ObjectKey::namespaced("kube-system", NAME), None, &opts, None, &mut |_| Ok(object.clone()))
            .map(|_| ())
            .map_err(seed_error),
        other => other.map(|_| ()).map_err(seed_error),
    }
}

/// Serves the resources of the CRDs a durable store held.
fn serve_stored_crds(state: &ApiState) {
    let crds = kinds::custom_resource_definitions();
    for stored in state.store.list(&crds, None, None, 0, &|_| true).items {
        crd::register(&state.registry, &stored.value());
    }
}
