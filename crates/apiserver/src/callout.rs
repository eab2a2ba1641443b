//! Calls from the server to a webhook — an admission webhook's review, a CRD's
//! conversion review — as kube-apiserver's webhook client makes them:
//!
//! - where: the client configuration's `url`, or its `service` (its port, 443 by default,
//!   mapped through the Service to a ready endpoint, checked against the name
//!   `<service>.<namespace>.svc`), always HTTPS;
//! - trusting only `caBundle`, as Go's x509 does: a certificate in the bundle is trusted
//!   as itself too, so a self-signed serving certificate that is its own `caBundle` works
//!   (webpki alone refuses a CA certificate as the server's);
//! - with `?timeout=` the deadline, and at most that long.
//!
//! The write path of this server is synchronous, so a call blocks the request's thread
//! for at most its timeout: on a multi-threaded runtime through `block_in_place`, so other
//! requests go on being served; otherwise on a thread of its own.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use k8s_openapi::api::core::v1::{Endpoints, Service};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use serde_json::Value;

use super::pki;
use super::reader::Reader;
use super::registry::GroupResource;
use super::store::key;

/// The largest answer read from a webhook.
const MAX_RESPONSE: usize = 3 * 1024 * 1024;

/// Why calling a webhook failed (the caller's failure policy decides what that means).
#[derive(Debug)]
pub struct CallError(pub String);

/// A webhook's client configuration, whichever API it comes from.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// `url`.
    pub url: Option<String>,
    /// `service`: namespace, name, path, port.
    pub service: Option<ServiceRef>,
    /// `caBundle`, PEM.
    pub ca_bundle: Vec<u8>,
}

/// A webhook reached through a Service.
#[derive(Debug, Clone)]
pub struct ServiceRef {
    /// The Service's namespace.
    pub namespace: String,
    /// The Service's name.
    pub name: String,
    /// The URL path (default `/`).
    pub path: Option<String>,
    /// The Service port (default 443).
    pub port: Option<i32>,
}

impl From<&k8s_openapi::api::admissionregistration::v1::WebhookClientConfig> for Target {
    fn from(config: &k8s_openapi::api::admissionregistration::v1::WebhookClientConfig) -> Self {
        Self {
            url: config.url.clone(),
            service: config.service.as_ref().map(|s| ServiceRef {
                namespace: s.namespace.clone(),
                name: s.name.clone(),
                path: s.path.clone(),
                port: s.port,
            }),
            ca_bundle: config.ca_bundle.as_ref().map(|b| b.0.clone()).unwrap_or_default(),
        }
    }
}

impl From<&k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::WebhookClientConfig> for Target {
    fn from(config: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::WebhookClientConfig) -> Self {
        Self {
            url: config.url.clone(),
            service: config.service.as_ref().map(|s| ServiceRef {
                namespace: s.namespace.clone(),
                name: s.name.clone(),
                path: s.path.clone(),
                port: s.port,
            }),
            ca_bundle: config.ca_bundle.as_ref().map(|b| b.0.clone()).unwrap_or_default(),
        }
    }
}

/// Posts `body` as JSON to the webhook and returns its JSON answer.
pub fn post(store: &Reader, target: &Target, timeout_seconds: i32, body: &Value) -> Result<Value, CallError> {
    let endpoint = endpoint(store, target)?;
    let separator = if endpoint.path.contains('?') { '&' } else { '?' };
    let path = format!("{}{separator}timeout={timeout_seconds}s", endpoint.path);
    let url = format!("https://{}:{}{path}", endpoint.host, endpoint.port);
    let ca_bundle = target.ca_bundle.clone();
    let body = serde_json::to_vec(body).map_err(|e| CallError(e.to_string()))?;
    let timeout = Duration::from_secs(u64::from(timeout_seconds.unsigned_abs()));
    let post = async move {
        match tokio::time::timeout(timeout, exchange(&endpoint, &path, &ca_bundle, body)).await {
            Ok(result) => result,
            Err(_) => Err("context deadline exceeded".to_string()),
        }
    };
    let answer = block_on(post).and_then(|answer| answer).map_err(|why| CallError(format!("Post \"{url}\": {why}")))?;
    serde_json::from_slice(&answer).map_err(|e| CallError(format!("the answer is not JSON: {e}")))
}

/// Where a webhook is, and the name its certificate must carry.
struct Endpoint {
    host: String,
    port: u16,
    server_name: String,
    path: String,
}

/// The address of a webhook: its URL, or a ready endpoint of its Service.
fn endpoint(store: &Reader, target: &Target) -> Result<Endpoint, CallError> {
    if let Some(url) = &target.url {
        let uri: hyper::Uri = url.parse().map_err(|e| CallError(format!("invalid url {url:?}: {e}")))?;
        if uri.scheme_str() != Some("https") {
            return Err(CallError(format!("url {url:?} is not https")));
        }
        let host = uri.host().ok_or_else(|| CallError(format!("url {url:?} names no host")))?.to_string();
        let path = uri.path_and_query().map_or("/".to_string(), |p| p.as_str().to_string());
        let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
        return Ok(Endpoint { server_name: host.clone(), host, port: uri.port_u16().unwrap_or(443), path });
    }
    let Some(service) = &target.service else {
        return Err(CallError("the webhook names neither a url nor a service".into()));
    };
    let port = service.port.unwrap_or(443);
    let described = format!("service \"{}/{}\"", service.namespace, service.name);
    let object = store
        .get(&GroupResource::new("", "services"), &key(Some(&service.namespace), &service.name))
        .ok_or_else(|| CallError(format!("{described} not found")))?;
    let typed: Service = serde_json::from_value(object.value()).map_err(|e| CallError(format!("{described}: {e}")))?;
    let service_port = typed
        .spec
        .iter()
        .flat_map(|s| s.ports.iter().flatten())
        .find(|p| p.port == port)
        .ok_or_else(|| CallError(format!("{described} has no port {port}")))?;
    let endpoints = store
        .get(&GroupResource::new("", "endpoints"), &key(Some(&service.namespace), &service.name))
        .and_then(|stored| serde_json::from_value::<Endpoints>(stored.value()).ok());
    let no_endpoints = || CallError(format!("no endpoints available for {described}"));
    let (ip, target_port) = endpoints
        .iter()
        .flat_map(|e| e.subsets.iter().flatten())
        .find_map(|subset| {
            let address = subset.addresses.as_ref()?.first()?;
            let ports = subset.ports.as_ref()?;
            let port = ports.iter().find(|p| p.name == service_port.name).or_else(|| ports.first())?;
            Some((address.ip.clone(), u16::try_from(port.port).ok()?))
        })
        .ok_or_else(no_endpoints)?;
    // A numeric target port that the endpoints do not name is the port itself.
    let target_port = match &service_port.target_port {
        Some(IntOrString::Int(number)) if service_port.name.is_none() => u16::try_from(*number).unwrap_or(target_port),
        _ => target_port,
    };
    let path = service.path.clone().unwrap_or_else(|| "/".into());
    Ok(Endpoint {
        host: ip,
        port: target_port,
        server_name: format!("{}.{}.svc", service.name, service.namespace),
        path,
    })
}

/// Runs a future to completion from synchronous code inside (or outside) a runtime; `Err`
/// when no runtime could be started for it.
fn block_on<T: Send>(future: impl Future<Output = T> + Send) -> Result<T, String> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(|| handle.block_on(future)))
        }
        _ => std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
                runtime.map(|runtime| runtime.block_on(future))
            });
            match worker.join() {
                Ok(done) => done.map_err(|e| format!("starting a runtime for the call: {e}")),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }),
    }
}

/// The HTTPS POST, trusting only the CA bundle; the answer's body.
async fn exchange(endpoint: &Endpoint, path: &str, ca_bundle: &[u8], body: Vec<u8>) -> Result<Vec<u8>, String> {
    let verifier = BundleVerifier::new(ca_bundle)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    let server_name = ServerName::try_from(endpoint.server_name.clone()).map_err(|e| e.to_string())?;
    let tcp = fleetctl_apimachinery::dial::tcp(&endpoint.host, endpoint.port).await?;
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await
        .map_err(|e| format!("tls: {e}"))?;
    let request = hyper::Request::post(path)
        .header(hyper::header::HOST, format!("{}:{}", endpoint.server_name, endpoint.port))
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, "application/json")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let (status, bytes) = fleetctl_apimachinery::dial::exchange(tls, request, MAX_RESPONSE).await?;
    if !status.is_success() {
        return Err(format!("the webhook answered {status}: {}", String::from_utf8_lossy(&bytes)));
    }
    Ok(bytes.to_vec())
}

/// Verifies a webhook's certificate against `caBundle` as Go's x509 does: a chain to a
/// certificate of the bundle, or the certificate itself in the bundle (then only its name
/// and validity are checked, as webpki refuses a CA certificate as the server's own).
#[derive(Debug)]
struct BundleVerifier {
    webpki: Arc<WebPkiServerVerifier>,
    bundle: Vec<CertificateDer<'static>>,
}

impl BundleVerifier {
    fn new(ca_bundle: &[u8]) -> Result<Self, String> {
        let bundle = pki::pem_certs(&String::from_utf8_lossy(ca_bundle));
        let mut roots = rustls::RootCertStore::empty();
        for cert in &bundle {
            roots.add(cert.clone()).map_err(|e| format!("caBundle: {e}"))?;
        }
        if roots.is_empty() {
            return Err(
                "tls: no caBundle to verify the webhook's certificate with (the dev cluster has no system roots)"
                    .into(),
            );
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| format!("caBundle: {e}"))?;
        Ok(Self { webpki, bundle })
    }
}

impl ServerCertVerifier for BundleVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Ok(verified) => Ok(verified),
            Err(refused) if self.bundle.iter().any(|trusted| trusted.as_ref() == end_entity.as_ref()) => {
                let parsed = rustls::server::ParsedCertificate::try_from(end_entity).map_err(|_| refused.clone())?;
                rustls::client::verify_server_name(&parsed, server_name)?;
                if !valid_at(end_entity, now) {
                    return Err(refused);
                }
                Ok(ServerCertVerified::assertion())
            }
            Err(refused) => Err(refused),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// Whether `now` is within the certificate's validity period.
fn valid_at(cert: &CertificateDer<'_>, now: UnixTime) -> bool {
    let Ok((_, parsed)) = x509_parser::parse_x509_certificate(cert.as_ref()) else { return false };
    let now = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    parsed.validity().not_before.timestamp() <= now && now <= parsed.validity().not_after.timestamp()
}
