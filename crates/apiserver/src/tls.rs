//! Serving HTTPS: rustls with the cluster's serving certificate, optional client
//! certificates verified against the cluster CA, HTTP/1.1 and HTTP/2.

use std::sync::Arc;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime, pem::PemObject};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tower_layer::Layer as _;

use super::auth::{Peer, User};
use super::http;
use super::pki::{self, CertKey};

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The certificate or key did not load.
    #[error("loading the serving certificate")]
    Certificate(String),
    /// rustls refused the configuration.
    #[error("configuring TLS")]
    Rustls(#[from] rustls::Error),
}

/// Asks for client certificates but, like kube-apiserver, does not judge them during
/// the handshake: the handshake only proves the client holds the key, and the chain is
/// checked against the CA afterwards, so a certificate from another CA (or an expired
/// one) gets an HTTP 401 rather than a broken connection.
#[derive(Debug)]
struct DeferredVerifier {
    ca: Arc<dyn ClientCertVerifier>,
}

impl ClientCertVerifier for DeferredVerifier {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        false
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.ca.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.ca.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.ca.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.ca.supported_verify_schemes()
    }
}

/// The TLS side of a server: the acceptor and the CA check for client certificates.
#[derive(Clone)]
pub struct Tls {
    acceptor: TlsAcceptor,
    ca: Arc<dyn ClientCertVerifier>,
}

/// A rustls acceptor asking for (not requiring) client certificates.
pub fn acceptor(serving: &CertKey, ca_pem: &str) -> Result<Tls, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for cert in pki::pem_certs(ca_pem) {
        roots.add(cert).map_err(TlsError::Rustls)?;
    }
    let ca = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .allow_unauthenticated()
        .build()
        .map_err(|e| TlsError::Certificate(e.to_string()))?;
    let key =
        PrivateKeyDer::from_pem_slice(serving.key_pem.as_bytes()).map_err(|e| TlsError::Certificate(e.to_string()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(Arc::new(DeferredVerifier { ca: ca.clone() }))
        .with_single_cert(pki::pem_certs(&serving.cert_pem), key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Tls { acceptor: TlsAcceptor::from(Arc::new(config)), ca })
}

/// Who a connection's client certificate names, once checked against the CA.
fn peer(connection: &rustls::ServerConnection, ca: &dyn ClientCertVerifier) -> Peer {
    let Some((leaf, intermediates)) = connection.peer_certificates().and_then(|chain| chain.split_first()) else {
        return Peer::Anonymous;
    };
    if let Err(e) = ca.verify_client_cert(leaf, intermediates, UnixTime::now()) {
        tracing::debug!(error = %e, "client certificate refused");
        return Peer::Rejected;
    }
    match x509_parser::parse_x509_certificate(leaf) {
        Ok((_, cert)) => {
            let (name, groups) = fleetctl_kube::certs::names(cert.subject());
            Peer::User(User::from_certificate(name, groups))
        }
        Err(_) => Peer::Rejected,
    }
}

/// The HTTP/2 streams a client may have open at once on one connection: kube-apiserver's
/// (its `--http2-max-streams-per-connection` left at 0 keeps Go's default, 250).
const MAX_STREAMS_PER_CONNECTION: u32 = 250;

/// Accepts connections until `stop` turns true, then ends every connection.
pub async fn serve(listener: TcpListener, tls: Tls, service: http::Service, mut stop: watch::Receiver<bool>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stop.wait_for(|s| *s) => break,
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                // Watch events are small writes that must leave at once.
                let _ = tcp.set_nodelay(true);
                let tls = tls.clone();
                let service = service.clone();
                connections.spawn(async move {
                    let Ok(stream) = tls.acceptor.accept(tcp).await else { return };
                    let identity = peer(stream.get_ref().1, tls.ca.as_ref());
                    let service = TowerToHyperService::new(axum::Extension(identity).layer(service));
                    let mut builder = auto::Builder::new(TokioExecutor::new());
                    builder.http2().max_concurrent_streams(MAX_STREAMS_PER_CONNECTION);
                    if let Err(e) = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).await {
                        tracing::trace!(error = %e, "connection ended");
                    }
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}
