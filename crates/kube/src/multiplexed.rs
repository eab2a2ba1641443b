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

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Weak};
use std::time::Duration;

use hyper_rustls::{FixedServerNameResolver, HttpsConnector};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use kube::client::retry::RetryPolicy;
use kube::client::{Body, ConfigExt, RustlsTlsError};
use kube::{Client, Config};
use parking_lot::Mutex;
use secrecy::ExposeSecret;
use sha2::{Digest, Sha256};
use tower::retry::RetryLayer;
use tower::{BoxError, ServiceBuilder};

/// How long a connection may carry no frame before it is pinged.
const READ_IDLE: Duration = Duration::from_secs(30);

/// How long a ping may go unanswered before the connection is dropped.
const PING_TIMEOUT: Duration = Duration::from_secs(15);

/// A pool of connections to one server with one TLS identity.
type Pool = hyper_util::client::legacy::Client<HttpsConnector<HttpConnector>, Body>;

/// The pools in use, by the digest of the TLS identity they connect with ([`identity`]).
static POOLS: LazyLock<Mutex<HashMap<[u8; 32], Weak<Pool>>>> = LazyLock::new(Mutex::default);

/// A client for `config` whose requests share one HTTP/2 connection per server when the
/// server negotiates `h2`, with every other client of this process made from the same TLS
/// identity. The same layers as kube-rs's default client: base URI, retries of 429/503/504
/// (when `config.default_retry`), authentication, extra headers.
pub fn client(config: Config) -> Result<Client, kube::Error> {
    let pool = shared_pool(&config)?;
    let connections = tower::service_fn(move |request| pool.request(request));
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.default_retry.then(|| RetryLayer::new(RetryPolicy::server_retry())))
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(connections);
    Ok(Client::new(service, config.default_namespace))
}

/// The pool of the clients with `config`'s TLS identity: the one in use, or a new one.
fn shared_pool(config: &Config) -> Result<Arc<Pool>, kube::Error> {
    let key = identity(config);
    let mut pools = POOLS.lock();
    if let Some(pool) = pools.get(&key).and_then(Weak::upgrade) {
        return Ok(pool);
    }
    pools.retain(|_, pool| pool.strong_count() > 0);
    let pool = Arc::new(pool(config)?);
    pools.insert(key, Arc::downgrade(&pool));
    Ok(pool)
}

/// A digest of what a connection is made with: two configs with the same digest reach the
/// same server the same way (CA, server name, connect timeout) and present the same client
/// certificate. Tokens and headers
/// are not part of it: they travel per request, above the connection.
fn identity(config: &Config) -> [u8; 32] {
    let auth = &config.auth_info;
    let key_data = auth.client_key_data.as_ref().map(|key| key.expose_secret().as_bytes());
    let roots = config.root_cert.iter().flatten().map(Vec::as_slice);
    let server = config.cluster_url.to_string();
    let verification: &[u8] = if config.accept_invalid_certs { b"insecure" } else { b"verified" };
    let roots_file = config.root_cert_file.as_ref().map(|path| path.as_os_str().as_encoded_bytes());
    let connect_timeout = format!("{:?}", config.connect_timeout);
    let fields = [
        Some(server.as_bytes()),
        auth.client_certificate.as_deref().map(str::as_bytes),
        auth.client_certificate_data.as_deref().map(str::as_bytes),
        auth.client_key.as_deref().map(str::as_bytes),
        key_data,
        config.tls_server_name.as_deref().map(str::as_bytes),
        Some(verification),
        roots_file,
        Some(connect_timeout.as_bytes()),
    ];
    let mut digest = Sha256::new();
    for field in fields.into_iter().chain(roots.map(Some)) {
        // Length-prefixed, so that no two different field lists give the same input.
        let field = field.unwrap_or_default();
        digest.update((field.len() as u64).to_be_bytes());
        digest.update(field);
    }
    digest.finalize().into()
}

/// A new pool of connections for `config`: ALPN `h2` and `http/1.1`, HTTP/2 keepalive.
fn pool(config: &Config) -> Result<Pool, kube::Error> {
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
    Ok(hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .timer(TokioTimer::new())
        .http2_keep_alive_interval(READ_IDLE)
        .http2_keep_alive_timeout(PING_TIMEOUT)
        .build(https))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        let mut config = Config::new("https://hub.example:6443".parse().expect("a URL"));
        config.auth_info.client_certificate_data = Some("cert".into());
        config.auth_info.client_key_data = Some("key".to_string().into());
        config
    }

    #[test]
    fn a_transport_is_shared_by_server_ca_client_key_server_name_and_timeout_not_by_token() {
        let base = identity(&config());
        let mut token = config();
        token.auth_info.token = Some("another-token".to_string().into());
        assert_eq!(identity(&token), base, "a token travels per request, above the connection");
        let mut key = config();
        key.auth_info.client_key_data = Some("another-key".to_string().into());
        let mut ca = config();
        ca.root_cert = Some(vec![b"another-ca".to_vec()]);
        let mut name = config();
        name.tls_server_name = Some("hub.internal".into());
        let mut server = config();
        server.cluster_url = "https://other.example:6443".parse().expect("a URL");
        let mut timeout = config();
        timeout.connect_timeout = Some(Duration::from_secs(1));
        for other in [key, ca, name, server, timeout] {
            assert_ne!(identity(&other), base, "{other:?}");
        }
    }
}
