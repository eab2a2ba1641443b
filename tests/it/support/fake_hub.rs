//! An API server that answers `/version` and nothing else as a hub should: every other
//! request is refused (403, and access reviews that say no), never answered, or refused
//! for its credentials (401, `/version` included) — one fault class per mode, the same for
//! every command. Plain HTTP on loopback, which kube's client speaks as well as HTTPS.

use std::net::SocketAddr;
use std::path::Path;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// What the server does with a request other than `/version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// 403 Forbidden, as to a user who may only look at other things; access reviews say no.
    Forbidden,
    /// No answer: the request hangs (access reviews say yes, so commands get that far).
    Hang,
    /// 401 Unauthorized for everything, `/version` too: credentials the server does not know.
    Unauthorized,
}

/// The server; it stops when dropped.
pub struct FakeHub {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeHub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

const VERSION: &str = r#"{"major":"1","minor":"32","gitVersion":"v1.32.0","platform":"linux/amd64"}"#;

fn review(allowed: bool) -> String {
    format!(
        r#"{{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{{}},"status":{{"allowed":{allowed}}}}}"#
    )
}

fn status(code: u16, reason: &str, message: &str) -> String {
    format!(
        r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{message}","reason":"{reason}","code":{code}}}"#
    )
}

/// The answer to a request, `None` for no answer at all.
fn answer(mode: Mode, method: &str, path: &str) -> Option<(u16, String)> {
    if mode == Mode::Unauthorized {
        return Some((401, status(401, "Unauthorized", "Unauthorized")));
    }
    if path.starts_with("/version") {
        return Some((200, VERSION.to_string()));
    }
    let reviewing = method == "POST" && path.contains("selfsubjectaccessreviews");
    match mode {
        Mode::Forbidden if reviewing => Some((201, review(false))),
        Mode::Forbidden => Some((
            403,
            status(403, "Forbidden", &format!("{path} is forbidden: User \\\"viewer\\\" cannot {method} it")),
        )),
        Mode::Hang if reviewing => Some((201, review(true))),
        Mode::Hang | Mode::Unauthorized => None,
    }
}

impl FakeHub {
    /// Starts a server in `mode` (inside a tokio runtime).
    pub async fn start(mode: Mode) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    loop {
                        let mut line = String::new();
                        if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let mut parts = line.split_whitespace();
                        let (method, path) =
                            (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
                        let mut length = 0usize;
                        loop {
                            let mut header = String::new();
                            if read.read_line(&mut header).await.unwrap_or(0) == 0 {
                                return;
                            }
                            let header = header.trim_end();
                            if header.is_empty() {
                                break;
                            }
                            if let Some((name, value)) = header.split_once(':')
                                && name.eq_ignore_ascii_case("content-length")
                            {
                                length = value.trim().parse().unwrap_or(0);
                            }
                        }
                        let mut body = vec![0; length];
                        if read.read_exact(&mut body).await.is_err() {
                            return;
                        }
                        let Some((code, body)) = answer(mode, &method, &path) else {
                            std::future::pending::<()>().await;
                            return;
                        };
                        let response = format!(
                            "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        );
                        if write.write_all(response.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Self { addr, task }
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Writes a kubeconfig whose contexts (name, server URL) each reach a server with a token.
pub fn write_kubeconfig(path: &Path, contexts: &[(&str, &str)]) {
    let mut clusters = String::new();
    let mut named = String::new();
    for (name, url) in contexts {
        clusters.push_str(&format!("- name: {name}\n  cluster: {{server: '{url}'}}\n"));
        named.push_str(&format!("- name: {name}\n  context: {{cluster: {name}, user: viewer}}\n"));
    }
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n{clusters}users:\n- name: viewer\n  user: {{token: t}}\ncontexts:\n{named}current-context: {}\n",
        contexts.first().map_or("", |(name, _)| *name)
    );
    std::fs::write(path, text).expect("kubeconfig");
}
