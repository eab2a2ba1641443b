//! The dev API server as envtest's control plane: controller-runtime's envtest starts the
//! `kube-apiserver` and `etcd` it finds in `KUBEBUILDER_ASSETS`, with kube-apiserver's
//! flags. A folder where both names are links to `fleetctl` makes that `fleetctl`:
//!
//! - as `kube-apiserver`: an API server alone (none of kube-controller-manager's
//!   controllers, as envtest runs none), serving envtest's certificate on envtest's
//!   address and port, trusting the client certificates of envtest's CA
//!   (`--client-ca-file`), with kube-apiserver's flags — those it has no use for are
//!   accepted, unknown ones warned about, never fatal;
//! - as `etcd`: only what envtest asks of etcd, `GET /health` on `--listen-client-urls`
//!   (the API server keeps its objects itself).
//!
//! So `KUBEBUILDER_ASSETS=DIR` runs any controller-runtime project's tests (OCM's
//! integration suites among them) against the dev API server, with no proxy.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use crate::serve::{self, ServeError, ServeOptions};
use fleetctl_apiserver::CertKey;

/// Which program envtest started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Personality {
    /// `kube-apiserver`.
    KubeApiserver,
    /// `etcd`.
    Etcd,
}

impl Personality {
    /// The personality of a program invoked as `argv0`, if it is one of envtest's.
    pub fn of(argv0: &OsStr) -> Option<Self> {
        match Path::new(argv0).file_name()?.to_str()? {
            "kube-apiserver" => Some(Self::KubeApiserver),
            "etcd" => Some(Self::Etcd),
            _ => None,
        }
    }

    /// The program's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::KubeApiserver => "kube-apiserver",
            Self::Etcd => "etcd",
        }
    }
}

/// Why a personality could not run.
#[derive(Debug, thiserror::Error)]
pub enum EnvtestError {
    /// A flag's value is not what the flag takes.
    #[error("--{flag}={value:?}: {why}")]
    Flag {
        /// The flag, without dashes.
        flag: String,
        /// Its value.
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A certificate, key or CA file could not be read.
    #[error("reading --{flag} {}", path.display())]
    Read {
        /// The flag that named it.
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The API server stopped with an error.
    #[error("serving")]
    Serve(#[from] ServeError),
    /// The async runtime could not be started.
    #[error("starting the runtime")]
    Runtime(#[source] std::io::Error),
    /// Signal handlers could not be installed.
    #[error("installing signal handlers")]
    Signals(#[source] std::io::Error),
    /// An etcd client URL could not be bound.
    #[error("binding {addr}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl EnvtestError {
    /// Whether the command line was at fault (exit status 2), not the run.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Flag { .. })
    }
}

/// kube-apiserver's flags this server acts on, and those it accepts with nothing to do:
/// the store (`--etcd-*`), admission plugin selection, privileges, the ServiceAccount
/// token keys (tokens are signed with the cluster's own key, and verified by the server
/// that issued them), the service range and authorization modes other than RBAC. They
/// are listed by `--help`, which is how envtest tells which flags exist.
const KUBE_APISERVER_FLAGS: &[(&str, &str)] = &[
    ("advertise-address", "accepted; the server answers on --bind-address"),
    ("allow-privileged", "accepted; every Pod may be privileged"),
    ("authorization-mode", "RBAC (the only mode; others are warned about)"),
    ("bind-address", "the address to serve on (default 127.0.0.1)"),
    ("cert-dir", "where apiserver.crt and apiserver.key are, if --tls-cert-file is not given"),
    ("client-ca-file", "CAs whose client certificates authenticate, besides the cluster's own"),
    ("disable-admission-plugins", "accepted"),
    ("enable-admission-plugins", "accepted"),
    ("etcd-servers", "accepted; objects are kept in memory"),
    ("secure-port", "the port to serve HTTPS on (default 6443)"),
    ("service-account-issuer", "accepted"),
    ("service-account-key-file", "accepted"),
    ("service-account-signing-key-file", "accepted; tokens are signed with the cluster's own key"),
    ("service-cluster-ip-range", "accepted; Services get addresses of 10.96.0.0/12"),
    ("tls-cert-file", "the serving certificate, PEM"),
    ("tls-private-key-file", "the serving certificate's key, PEM"),
];

/// etcd's flags: only the client URLs matter.
const ETCD_FLAGS: &[(&str, &str)] = &[
    ("listen-client-urls", "where to answer GET /health (http URLs, comma-separated)"),
    ("advertise-client-urls", "accepted"),
    ("listen-peer-urls", "accepted"),
    ("data-dir", "accepted; nothing is stored"),
];

/// Flags envtest passes that older kube-apiservers had; accepted in silence, never listed
/// by `--help` (envtest would then pass `--insecure-port`, which 1.24 and later refuse).
const RETIRED_FLAGS: &[&str] = &["insecure-port", "insecure-bind-address"];

impl Personality {
    fn flags(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::KubeApiserver => KUBE_APISERVER_FLAGS,
            Self::Etcd => ETCD_FLAGS,
        }
    }

    /// What `--help` prints: one line per flag, as Go's flag package lists them.
    pub fn help(self) -> String {
        let mut out =
            format!("{} (fleetctl's dev API server standing in for it under envtest)\n\nFlags:\n", self.name());
        for (flag, what) in self.flags() {
            out.push_str(&format!("      --{flag} string\n            {what}\n"));
        }
        out
    }
}

/// The flags given, by name, and what was refused or unknown.
#[derive(Debug, Default, PartialEq)]
pub struct Parsed {
    /// Known flags and their values (the last one given wins).
    pub values: BTreeMap<&'static str, String>,
    /// Flags this personality does not know (warned about).
    pub unknown: Vec<String>,
    /// Whether `--help`/`-h` was asked.
    pub help: bool,
}

/// Reads Go-style flags: `--flag=value`, `--flag value`, `-flag value`; a bare flag
/// followed by another flag (or nothing) is `true`.
pub fn parse(personality: Personality, args: &[String]) -> Parsed {
    let known = personality.flags();
    let mut parsed = Parsed::default();
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        let Some(flag) = word.strip_prefix("--").or_else(|| word.strip_prefix('-')) else {
            parsed.unknown.push(word.clone());
            continue;
        };
        if matches!(flag, "help" | "h") {
            parsed.help = true;
            continue;
        }
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name, value.to_string()),
            None => match words.peek() {
                Some(next) if !next.starts_with('-') => (flag, words.next().cloned().unwrap_or_default()),
                _ => (flag, "true".to_string()),
            },
        };
        match known.iter().find(|(known, _)| *known == name) {
            Some((known, _)) => {
                parsed.values.insert(known, value);
            }
            None if RETIRED_FLAGS.contains(&name) => {}
            None => parsed.unknown.push(format!("--{name}")),
        }
    }
    parsed
}

/// Runs `personality` with its command line (without the program name) until SIGINT or
/// SIGTERM.
pub async fn run(personality: Personality, parsed: Parsed) -> Result<(), EnvtestError> {
    for flag in &parsed.unknown {
        tracing::warn!(%flag, "{} flag not known to fleetctl's stand-in; ignored", personality.name());
    }
    match personality {
        Personality::KubeApiserver => serve::run(kube_apiserver_options(&parsed.values)?).await.map_err(Into::into),
        Personality::Etcd => etcd(&parsed.values).await,
    }
}

fn flag_error(flag: &str, value: &str, why: &'static str) -> EnvtestError {
    EnvtestError::Flag { flag: flag.to_string(), value: value.to_string(), why }
}

fn read(flag: &'static str, path: &Path) -> Result<String, EnvtestError> {
    std::fs::read_to_string(path).map_err(|source| EnvtestError::Read { flag, path: path.to_path_buf(), source })
}

/// `dev serve`'s options from kube-apiserver's flags.
fn kube_apiserver_options(values: &BTreeMap<&'static str, String>) -> Result<ServeOptions, EnvtestError> {
    let port = match values.get("secure-port") {
        Some(port) => port.parse().map_err(|_| flag_error("secure-port", port, "not a port number"))?,
        None => 6443,
    };
    let bind = match values.get("bind-address") {
        Some(addr) => Some(addr.parse::<IpAddr>().map_err(|_| flag_error("bind-address", addr, "not an IP address"))?),
        None => None,
    };
    if let Some(modes) = values.get("authorization-mode")
        && modes.split(',').any(|mode| mode != "RBAC")
    {
        tracing::warn!(%modes, "only RBAC authorizes requests here");
    }
    let (cert, key) = match (values.get("tls-cert-file"), values.get("tls-private-key-file")) {
        (Some(cert), Some(key)) => {
            (Some(("tls-cert-file", PathBuf::from(cert))), Some(("tls-private-key-file", PathBuf::from(key))))
        }
        _ => match values.get("cert-dir").map(PathBuf::from) {
            Some(dir) if dir.join("apiserver.crt").exists() => {
                (Some(("cert-dir", dir.join("apiserver.crt"))), Some(("cert-dir", dir.join("apiserver.key"))))
            }
            _ => (None, None),
        },
    };
    let serving = match (cert, key) {
        (Some((cert_flag, cert)), Some((key_flag, key))) => {
            Some(CertKey { cert_pem: read(cert_flag, &cert)?, key_pem: read(key_flag, &key)? })
        }
        _ => None,
    };
    let client_ca_pem = values.get("client-ca-file").map(|path| read("client-ca-file", Path::new(path))).transpose()?;
    Ok(ServeOptions {
        kubeconfig: None,
        name: "envtest".to_string(),
        port,
        bind,
        serving,
        client_ca_pem,
        api_only: true,
        store: None,
        node: None,
        rotate_ca: None,
    })
}

/// etcd as envtest sees it: `GET /health` answered on every client URL.
async fn etcd(values: &BTreeMap<&'static str, String>) -> Result<(), EnvtestError> {
    let urls = values.get("listen-client-urls").map(String::as_str).unwrap_or("http://127.0.0.1:2379");
    let mut addrs = Vec::new();
    for url in urls.split(',') {
        let addr = url
            .strip_prefix("http://")
            .and_then(|rest| rest.trim_end_matches('/').parse::<SocketAddr>().ok())
            .ok_or_else(|| flag_error("listen-client-urls", url, "not an http://IP:PORT URL"))?;
        addrs.push(addr);
    }
    let app = axum::Router::new().route("/health", axum::routing::get(|| async { r#"{"health":"true","reason":""}"# }));
    let mut servers = tokio::task::JoinSet::new();
    for addr in addrs {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|source| EnvtestError::Bind { addr, source })?;
        servers.spawn(axum::serve(listener, app.clone()).into_future());
    }
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map_err(EnvtestError::Signals)?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
        _ = servers.join_next() => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn envtests_flags_are_read_in_go_style_and_unknown_ones_are_only_warned_about() {
        let parsed = parse(
            Personality::KubeApiserver,
            &words(
                "--secure-port=4321 --bind-address 127.0.0.1 --allow-privileged --insecure-port=0 --feature-gates=X=true -v 2",
            ),
        );
        assert_eq!(parsed.values.get("secure-port").map(String::as_str), Some("4321"));
        assert_eq!(parsed.values.get("bind-address").map(String::as_str), Some("127.0.0.1"));
        assert_eq!(parsed.values.get("allow-privileged").map(String::as_str), Some("true"));
        assert_eq!(parsed.unknown, ["--feature-gates", "--v"]);
        assert!(!parsed.help);
    }

    #[test]
    fn help_lists_the_flags_envtest_looks_for_and_never_the_insecure_port_of_old_servers() {
        let help = Personality::KubeApiserver.help();
        // envtest's flag discovery: `(?m)^\s*--<flag>\b`.
        assert!(help.lines().any(|l| l.trim_start().starts_with("--secure-port ")));
        assert!(!help.contains("--insecure-port"));
        assert!(parse(Personality::Etcd, &words("--help")).help);
    }

    #[test]
    fn the_personality_is_the_name_the_program_was_invoked_as() {
        assert_eq!(Personality::of(OsStr::new("/assets/kube-apiserver")), Some(Personality::KubeApiserver));
        assert_eq!(Personality::of(OsStr::new("etcd")), Some(Personality::Etcd));
        assert_eq!(Personality::of(OsStr::new("/usr/bin/fleetctl")), None);
    }

    #[test]
    fn a_bad_port_is_a_usage_error_naming_the_flag() {
        let parsed = parse(Personality::KubeApiserver, &words("--secure-port=http"));
        let error = kube_apiserver_options(&parsed.values).expect_err("refused");
        assert!(error.is_usage());
        assert_eq!(error.to_string(), r#"--secure-port="http": not a port number"#);
    }
}
