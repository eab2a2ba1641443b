//! The webhook's HTTPS endpoint: `POST /convert` with a ConversionReview, answered by
//! [`super::review`]. Each connection is served with the certificate current when it came
//! (a renewed one counts from the next connection); until there is one, connections are
//! closed, and kube-apiserver reports the webhook unreachable as it would for a Pod that is
//! not ready.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use kube::core::conversion::ConversionReview;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::certificate::Serving;
use fleetctl_api::names::WEBHOOK_PATH;

/// The largest review read: a list's conversion carries every object of the page.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Why a certificate could not be served.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// Its PEM does not parse.
    #[error("reading the serving certificate")]
    Pem(#[from] rustls::pki_types::pem::Error),
    /// rustls refused it.
    #[error("loading the serving certificate")]
    Rustls(#[from] rustls::Error),
}

/// The TLS configuration that serves `serving`.
pub fn tls_config(serving: &Serving) -> Result<Arc<ServerConfig>, TlsError> {
    let chain = CertificateDer::pem_slice_iter(serving.cert_pem.as_bytes()).collect::<Result<Vec<_>, _>>()?;
    let key = PrivateKeyDer::from_pem_slice(serving.key_pem.as_bytes())?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    Ok(Arc::new(config))
}

/// Serves connections of `listener` with the configuration `tls` holds, for as long as the
/// returned future runs.
pub async fn serve(listener: TcpListener, tls: watch::Receiver<Option<Arc<ServerConfig>>>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::debug!(error = %e, "accepting a webhook connection");
                continue;
            }
        };
        let Some(config) = tls.borrow().clone() else {
            tracing::debug!(%peer, "no serving certificate yet: connection closed");
            continue;
        };
        tokio::spawn(async move {
            let stream = match TlsAcceptor::from(config).accept(stream).await {
                Ok(stream) => stream,
                Err(e) => {
                    tracing::debug!(%peer, error = %e, "webhook TLS handshake");
                    return;
                }
            };
            let served = http1::Builder::new().serve_connection(TokioIo::new(stream), service_fn(handle)).await;
            if let Err(e) = served {
                tracing::debug!(%peer, error = %e, "webhook connection");
            }
        });
    }
}

async fn handle(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.uri().path() != WEBHOOK_PATH {
        return Ok(plain(StatusCode::NOT_FOUND, "not found\n"));
    }
    if request.method() != Method::POST {
        return Ok(plain(StatusCode::METHOD_NOT_ALLOWED, "only POST\n"));
    }
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return Ok(plain(StatusCode::BAD_REQUEST, &format!("reading the review: {e}\n"))),
    };
    let review: ConversionReview = match serde_json::from_slice(&body) {
        Ok(review) => review,
        Err(e) => return Ok(plain(StatusCode::BAD_REQUEST, &format!("not a ConversionReview: {e}\n"))),
    };
    let answer = super::review::answer(review);
    Ok(match serde_json::to_vec(&answer) {
        Ok(json) => response(StatusCode::OK, "application/json", json.into()),
        Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, &format!("encoding the answer: {e}\n")),
    })
}

fn plain(status: StatusCode, text: &str) -> Response<Full<Bytes>> {
    response(status, "text/plain; charset=utf-8", Bytes::copy_from_slice(text.as_bytes()))
}

fn response(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static(content_type));
    response
}
