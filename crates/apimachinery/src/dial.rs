//! Outgoing requests of the dev cluster (the kubelet's probes, admission webhook calls): one
//! HTTP/1.1 exchange over a connected stream, and connection errors worded as Go's net
//! package words them (`dial tcp ADDR: connect: connection refused`), so what they report
//! reads as a real cluster's does (k8s.io/apimachinery's `util/net` has the same place).
//!
//! A connection goes to the address as the host's network routes it, except to the address
//! of a Pod with a network of its own ([`PodRoutes`]): the node simulator of this process
//! registers how to reach into that network, and every outgoing dial of the process (a
//! probe, a webhook call through a Service's endpoints) takes that way, as a real node
//! routes to its Pods' addresses.

use std::collections::HashMap;
use std::fmt::Display;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

/// Sends one request over `stream` and returns the answer's status and body (at most
/// `limit` bytes of it); the connection is dropped afterwards.
pub async fn exchange<S, B>(
    stream: S,
    request: hyper::Request<B>,
    limit: usize,
) -> Result<(hyper::StatusCode, Bytes), String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    let connection = tokio::spawn(connection);
    let answer = async {
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status();
        let body = Limited::new(response.into_body(), limit).collect().await.map_err(|e| e.to_string())?;
        Ok((status, body.to_bytes()))
    }
    .await;
    connection.abort();
    answer
}

/// How to open a connection inside a Pod's network: a blocking connect made there.
pub type Connect = Arc<dyn Fn(SocketAddr) -> std::io::Result<std::net::TcpStream> + Send + Sync>;

/// The addresses of this process's Pods that have a network of their own, and how each is
/// reached.
#[derive(Default)]
pub struct PodRoutes(parking_lot::RwLock<HashMap<IpAddr, Connect>>);

/// The routes of this process (the node simulator registers, every dial reads).
pub static POD_ROUTES: LazyLock<PodRoutes> = LazyLock::new(PodRoutes::default);

impl PodRoutes {
    /// Connections to `ip` go through `connect` from now on.
    pub fn add(&self, ip: IpAddr, connect: Connect) {
        self.0.write().insert(ip, connect);
    }

    /// Connections to `ip` go through the host's network again.
    pub fn remove(&self, ip: IpAddr) {
        self.0.write().remove(&ip);
    }

    fn get(&self, ip: IpAddr) -> Option<Connect> {
        self.0.read().get(&ip).cloned()
    }
}

/// Connects to `host:port`, into a Pod's network when `host` is the address of one;
/// `Err` is worded as Go's dialer words it.
pub async fn tcp(host: &str, port: u16) -> Result<tokio::net::TcpStream, String> {
    let addr = format!("{host}:{port}");
    let route = host.parse::<IpAddr>().ok().and_then(|ip| POD_ROUTES.get(ip).map(|c| (SocketAddr::new(ip, port), c)));
    let connected = match route {
        Some((target, connect)) => tokio::task::spawn_blocking(move || {
            let stream = connect(target)?;
            stream.set_nonblocking(true)?;
            tokio::net::TcpStream::from_std(stream)
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e))),
        None => tokio::net::TcpStream::connect(&addr).await,
    };
    connected.map_err(|e| connect_error(&addr, &e))
}

/// The error of connecting to `addr`.
pub fn connect_error(addr: impl Display, error: &std::io::Error) -> String {
    format!("dial tcp {addr}: connect: {}", os_text(error))
}

/// An I/O error's text without Rust's ` (os error N)` suffix, lower-cased as Go's.
fn os_text(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match (error.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_reads_as_gos() {
        let refused = std::io::Error::from_raw_os_error(111);
        assert_eq!(connect_error("127.0.0.1:1", &refused), "dial tcp 127.0.0.1:1: connect: connection refused");
        let other = std::io::Error::other("Boom");
        assert_eq!(connect_error("h:1", &other), "dial tcp h:1: connect: boom");
    }

    #[tokio::test]
    async fn a_pods_address_is_dialled_through_its_route_and_forgotten_with_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let real = listener.local_addr().unwrap();
        let pod: IpAddr = "10.244.255.1".parse().unwrap();
        POD_ROUTES.add(pod, Arc::new(move |_| std::net::TcpStream::connect(real)));
        let stream = tcp("10.244.255.1", 9443).await.unwrap();
        assert_eq!(stream.peer_addr().unwrap(), real);
        POD_ROUTES.remove(pod);
        let refused = std::io::Error::from_raw_os_error(111);
        let gone = tcp("127.0.0.1", 1).await.unwrap_err();
        assert_eq!(gone, connect_error("127.0.0.1:1", &refused));
    }
}
