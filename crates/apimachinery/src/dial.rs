//! Outgoing requests of the dev cluster (the kubelet's probes, admission webhook calls): one
//! HTTP/1.1 exchange over a connected stream, and connection errors worded as Go's net
//! package words them (`dial tcp ADDR: connect: connection refused`), so what they report
//! reads as a real cluster's does (k8s.io/apimachinery's `util/net` has the same place).

use std::fmt::Display;

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
}
