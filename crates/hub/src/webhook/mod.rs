//! The hub's conversion webhook: the addon API (`addon.open-cluster-management.io`) served
//! in v1alpha1 and v1beta1 and stored in v1alpha1, as upstream's hub serves it, converted
//! here — a standard CRD conversion webhook behind the Service
//! [`fleetctl_api::names::WEBHOOK_SERVICE`], so that any API server (kube-apiserver, the dev
//! cluster) reaches it the same way.
//!
//! Every replica of the hub controller serves it, leader or not (kube-apiserver picks any
//! ready endpoint). Three parts run together: the serving certificate kept in its Secret
//! ([`certificate`]), the CRDs' `caBundle` kept equal to its CA ([`ca_bundle`]), and the
//! HTTPS endpoint ([`server`]).

mod ca_bundle;
mod certificate;
mod review;
mod server;

use std::net::SocketAddr;
use std::sync::Arc;

use fleetctl_kube::backoff::Exponential;
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::{Api, PostParams};
use rustls::ServerConfig;
use time::OffsetDateTime;
use tokio::net::TcpListener;
use tokio::sync::watch;

use certificate::{SECRET, Serving, service_names};
use fleetctl_api::names::WEBHOOK_SERVICE;

/// How often the certificate's end is looked at again, at the longest.
const RECHECK: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// Why the webhook could not start.
#[derive(Debug, thiserror::Error)]
#[error("binding the conversion webhook on {addr}")]
pub struct WebhookError {
    addr: SocketAddr,
    #[source]
    source: std::io::Error,
}

/// Why the serving certificate could not be kept.
#[derive(Debug, thiserror::Error)]
enum CertificateError {
    #[error("issuing the webhook's certificate")]
    Issue(#[from] rcgen::Error),
    #[error("reading or writing Secret {SECRET}")]
    Api(#[from] kube::Error),
    #[error(transparent)]
    Tls(#[from] server::TlsError),
}

/// Binds `addr`; the returned future serves the webhook of the hub in `namespace` for as
/// long as it runs.
pub async fn start(
    client: Client,
    namespace: String,
    addr: SocketAddr,
) -> Result<impl Future<Output = ()>, WebhookError> {
    let listener = TcpListener::bind(addr).await.map_err(|source| WebhookError { addr, source })?;
    tracing::info!(addr = %listener.local_addr().unwrap_or(addr), "conversion webhook listening");
    Ok(async move {
        let (certificate, certificate_changes) = watch::channel(None);
        let (tls, tls_changes) = watch::channel(None);
        tokio::join!(
            keep_certificate(client.clone(), &namespace, certificate, tls),
            ca_bundle::keep(client, certificate_changes),
            server::serve(listener, tls_changes),
        );
    })
}

/// Keeps a valid serving certificate published in `certificate` (and its TLS configuration
/// in `tls`): the Secret's when it serves, a new one otherwise; looked at again when it
/// is due for renewal (at least daily), and after a failure with back-off.
async fn keep_certificate(
    client: Client,
    namespace: &str,
    certificate: watch::Sender<Option<Arc<Serving>>>,
    tls: watch::Sender<Option<Arc<ServerConfig>>>,
) {
    let secrets = Api::<Secret>::namespaced(client, namespace);
    let names = service_names(WEBHOOK_SERVICE, namespace);
    let mut failures = 0;
    loop {
        let wait = match current(&secrets, namespace, &names).await {
            Ok((serving, config)) => {
                failures = 0;
                // A certificate that serves is not due yet; were the clock to jump, look at once.
                let due =
                    (serving.renew_at() - OffsetDateTime::now_utc()).try_into().unwrap_or(std::time::Duration::ZERO);
                if certificate.borrow().as_deref() != Some(&serving) {
                    tls.send_replace(Some(config));
                    certificate.send_replace(Some(Arc::new(serving)));
                }
                RECHECK.min(due)
            }
            Err(e) => {
                failures += 1;
                tracing::warn!(error = fleetctl_kube::errors::chain(&e), "keeping the webhook's serving certificate");
                Exponential::CONTROLLER.delay(failures)
            }
        };
        tokio::time::sleep(wait).await;
    }
}

/// The certificate to serve now, with its TLS configuration: the Secret's if it serves the
/// Service's names for a while yet, else a new one written there (the Secret created, or
/// replaced at the version read: a replica that wrote first wins, and this one takes its).
async fn current(
    secrets: &Api<Secret>,
    namespace: &str,
    names: &[String],
) -> Result<(Serving, Arc<ServerConfig>), CertificateError> {
    let now = OffsetDateTime::now_utc();
    let stored = secrets.get_opt(SECRET).await?;
    if let Some(serving) = stored.as_ref().and_then(Serving::from_secret).filter(|s| s.serves(names, now)) {
        let config = server::tls_config(&serving)?;
        return Ok((serving, config));
    }
    let issued = Serving::issue(names, now)?;
    let config = server::tls_config(&issued)?;
    let mut secret = issued.to_secret(namespace);
    let written = match stored {
        None => secrets.create(&PostParams::default(), &secret).await,
        Some(old) => {
            secret.metadata.resource_version = old.metadata.resource_version;
            secrets.replace(SECRET, &PostParams::default(), &secret).await
        }
    };
    match written {
        Ok(_) => {
            tracing::info!("webhook serving certificate issued");
            Ok((issued, config))
        }
        // Another replica wrote it meanwhile: serve that one.
        Err(kube::Error::Api(status)) if status.code == 409 => {
            let theirs = secrets.get(SECRET).await?;
            match Serving::from_secret(&theirs) {
                Some(serving) => {
                    let config = server::tls_config(&serving)?;
                    Ok((serving, config))
                }
                None => Err(CertificateError::Api(kube::Error::Api(status))),
            }
        }
        Err(e) => Err(e.into()),
    }
}
