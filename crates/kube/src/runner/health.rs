//! `/healthz`, `/livez`, `/readyz` and `/metrics` on a port of the process — what a
//! kubelet's probes and a Prometheus scrape ask for. A request is one `GET` line and its
//! headers; each answer closes its connection. This keeps an HTTP server stack out of
//! every in-cluster process: the only clients are probes and scrapers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::metrics::Registry;

/// The longest a client may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request (line and headers) read; a probe's is a few hundred bytes.
const MAX_REQUEST: usize = 8 * 1024;

/// Readiness and metrics shared with the endpoints.
#[derive(Debug, Clone)]
pub struct Health {
    ready: Arc<tokio::sync::watch::Sender<bool>>,
    /// The metrics served at `/metrics`.
    pub metrics: Registry,
}

impl Default for Health {
    fn default() -> Self {
        Self { ready: Arc::new(tokio::sync::watch::Sender::new(false)), metrics: Registry::default() }
    }
}

impl Health {
    /// Marks the process ready (or not).
    pub fn set_ready(&self, ready: bool) {
        self.ready.send_if_modified(|current| std::mem::replace(current, ready) != ready);
    }

    /// Whether the process is marked ready.
    pub fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }

    /// Returns once the process is marked `ready` (at once if it is).
    pub async fn until_ready(&self, ready: bool) {
        let mut changes = self.ready.subscribe();
        // The sender lives in `self`, so the channel cannot close while this waits.
        let _ = changes.wait_for(|now| *now == ready).await;
    }
}

/// Why the endpoint could not start.
#[derive(Debug, thiserror::Error)]
#[error("binding the health endpoint on {addr}")]
pub struct HealthError {
    addr: SocketAddr,
    #[source]
    source: std::io::Error,
}

/// Serves the endpoints until the returned task is dropped; returns the bound address.
pub async fn serve(addr: SocketAddr, health: Health) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), HealthError> {
    let listener = TcpListener::bind(addr).await.map_err(|source| HealthError { addr, source })?;
    let bound = listener.local_addr().map_err(|source| HealthError { addr, source })?;
    let task = tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let health = health.clone();
                    tokio::spawn(async move {
                        if let Err(e) = answer(stream, &health).await {
                            tracing::debug!(error = %e, "health request");
                        }
                    });
                }
                Err(e) => tracing::debug!(error = %e, "accepting a health request"),
            }
        }
    });
    Ok((bound, task))
}

/// What a path answers: status line, content type, body.
fn respond(method: &str, target: &str, health: &Health) -> (&'static str, &'static str, String) {
    const TEXT: &str = "text/plain; charset=utf-8";
    let path = target.split('?').next().unwrap_or_default();
    if method != "GET" && method != "HEAD" {
        return ("405 Method Not Allowed", TEXT, "only GET\n".into());
    }
    match path {
        "/healthz" | "/livez" => ("200 OK", TEXT, "ok".into()),
        "/readyz" if health.is_ready() => ("200 OK", TEXT, "ok".into()),
        "/readyz" => ("503 Service Unavailable", TEXT, "not ready".into()),
        "/metrics" => ("200 OK", "text/plain; version=0.0.4; charset=utf-8", health.metrics.render()),
        _ => ("404 Not Found", TEXT, "not found\n".into()),
    }
}

async fn answer(stream: TcpStream, health: &Health) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let request = tokio::time::timeout(REQUEST_TIMEOUT, read_head(&mut reader)).await;
    let head = request.map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "request too slow"))??;
    let mut words = head.split_whitespace();
    let (method, target) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
    let (status, content_type, body) = match words.next() {
        Some(version) if version.starts_with("HTTP/1.") => respond(method, target, health),
        _ => ("400 Bad Request", "text/plain; charset=utf-8", "bad request\n".into()),
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if method != "HEAD" {
        response.push_str(&body);
    }
    let stream = reader.get_mut();
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// The request line, after reading (and dropping) the headers up to the blank line.
async fn read_head(reader: &mut BufReader<TcpStream>) -> std::io::Result<String> {
    let mut request_line = String::new();
    let mut line = String::new();
    let mut read = 0;
    loop {
        line.clear();
        let n = reader.read_line(&mut line).await?;
        read += n;
        if read > MAX_REQUEST {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "request too large"));
        }
        if n == 0 || line == "\r\n" || line == "\n" {
            return Ok(request_line);
        }
        if request_line.is_empty() {
            request_line = line.trim_end().to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    async fn get(addr: SocketAddr, request: &str) -> String {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn probes_and_scrapes_get_their_answers() {
        let health = Health::default();
        health.metrics.controller("import").reconciled(crate::runner::metrics::Outcome::Done);
        let (addr, _task) = serve("127.0.0.1:0".parse().unwrap(), health.clone()).await.unwrap();
        let probe = |path: &str| format!("GET {path} HTTP/1.1\r\nHost: x\r\nUser-Agent: kube-probe/1.32\r\n\r\n");
        assert!(get(addr, &probe("/healthz")).await.starts_with("HTTP/1.1 200 OK\r\n"));
        assert!(get(addr, &probe("/livez?verbose")).await.ends_with("\r\n\r\nok"));
        assert!(get(addr, &probe("/readyz")).await.starts_with("HTTP/1.1 503 "), "not ready before it says so");
        health.set_ready(true);
        assert!(get(addr, &probe("/readyz")).await.starts_with("HTTP/1.1 200 OK\r\n"));
        let metrics = get(addr, &probe("/metrics")).await;
        assert!(metrics.contains("fleetctl_reconcile_total{controller=\"import\"} 1"), "{metrics}");
        assert!(metrics.contains("Content-Type: text/plain; version=0.0.4"), "{metrics}");
        assert!(get(addr, &probe("/nope")).await.starts_with("HTTP/1.1 404 "));
        assert!(get(addr, "POST /healthz HTTP/1.1\r\n\r\n").await.starts_with("HTTP/1.1 405 "));
        assert!(get(addr, "garbage\r\n\r\n").await.starts_with("HTTP/1.1 400 "));
        let head = get(addr, "HEAD /healthz HTTP/1.0\r\n\r\n").await;
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n") && head.ends_with("\r\n\r\n"), "{head}");
    }
}
