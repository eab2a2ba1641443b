//! A client that speaks HTTP/2 where the server offers it, for the agents' hub connection.
//!
//! kube-rs's default client negotiates HTTP/1.1 only, so every watch an agent keeps open
//! holds a TCP connection and a TLS session of its own on the hub: ~5.7 per managed
//! cluster, which at a few thousand clusters exhausts the hub API server's file
//! descriptors. client-go offers `h2` by ALPN and carries every request and watch of a
//! client as streams of one connection; this client does the same. kube-apiserver allows
//! 250 concurrent streams per connection (Go's default `MaxConcurrentStreams`), far more
//! than the handful of watches an agent keeps. A server that answers ALPN with
//! `http/1.1` (or none) gets HTTP/1.1, as from the default client.
//!
//! Dead connections are found as client-go finds them on HTTP/2 (its
//! `HTTP2_READ_IDLE_TIMEOUT_SECONDS` and `HTTP2_PING_TIMEOUT_SECONDS`): a PING after 30 s
//! without a frame, and the connection is dropped if no answer comes within 15 s, so the
//! watches on it fail and are started again.

use std::time::Duration;

use hyper_rustls::FixedServerNameResolver;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use kube::client::retry::RetryPolicy;
use kube::client::{ConfigExt, RustlsTlsError};
use kube::{Client, Config};
use tower::retry::RetryLayer;
use tower::{BoxError, ServiceBuilder};

/// How long a connection may carry no frame before it is pinged.
const READ_IDLE: Duration = Duration::from_secs(30);

/// How long a ping may go unanswered before the connection is dropped.
const PING_TIMEOUT: Duration = Duration::from_secs(15);

/// A client for `config` whose requests share one HTTP/2 connection per server when the
/// server negotiates `h2`. The same layers as kube-rs's default client: base URI,
/// retries of 429/503/504 (when `config.default_retry`), authentication, extra headers.
pub fn client(config: Config) -> Result<Client, kube::Error> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(config.connect_timeout);
    let tls = config.rustls_client_config()?;
    let mut https = hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http();
    if let Some(name) = &config.tls_server_name {
        let name = name.clone().try_into().map_err(|e| kube::Error::RustlsTls(RustlsTlsError::InvalidServerName(e)))?;
        https = https.with_server_name_resolver(FixedServerNameResolver::new(name));
    }
    let https = https.enable_http1().enable_http2().wrap_connector(http);
    let connections = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .timer(TokioTimer::new())
        .http2_keep_alive_interval(READ_IDLE)
        .http2_keep_alive_timeout(PING_TIMEOUT)
        .build(https);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.default_retry.then(|| RetryLayer::new(RetryPolicy::server_retry())))
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(connections);
    Ok(Client::new(service, config.default_namespace))
}
