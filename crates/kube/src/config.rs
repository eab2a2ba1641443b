//! Choosing a cluster: a kubeconfig file and context, `KUBECONFIG`, `~/.kube/config`,
//! or the pod's service account — with errors that say how to fix the choice.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use ::kube::config::{InClusterError, KubeConfigOptions, Kubeconfig, KubeconfigError};
use ::kube::{Client, Config};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use secrecy::SecretString;
use thiserror::Error;

use crate::kubeconfig::{self, ParseError};

/// The flag named in errors when a selection does not say which flag set its path.
const DEFAULT_FLAG: &str = "--kubeconfig";

/// Which cluster to talk to and as whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The kubeconfig file; `None`: the files in `KUBECONFIG`, else `~/.kube/config`.
    pub path: Option<PathBuf>,
    /// The context; `None`: the kubeconfig's current-context.
    pub context: Option<String>,
    /// Use the pod's service account (`KUBERNETES_SERVICE_HOST` and the mounted token)
    /// instead of a kubeconfig.
    pub in_cluster: bool,
    /// The command-line flag that sets `path`, so errors can name the fix.
    pub flag: &'static str,
}

impl Default for Selection {
    fn default() -> Self {
        Self { path: None, context: None, in_cluster: false, flag: DEFAULT_FLAG }
    }
}

impl Selection {
    /// A kubeconfig selection: the given file (else `KUBECONFIG`, else `~/.kube/config`)
    /// and context (else the current-context).
    pub fn new(path: Option<PathBuf>, context: Option<String>) -> Self {
        Self { path, context, ..Self::default() }
    }

    /// The same selection, naming `flag` as the way to pass a kubeconfig in errors.
    #[must_use]
    pub fn with_flag(mut self, flag: &'static str) -> Self {
        self.flag = flag;
        self
    }

    /// For controllers: the pod's service account when running in a pod and nothing
    /// points at a kubeconfig (no path, no context, no `KUBECONFIG`); the kubeconfig
    /// selection otherwise, so the same binary also runs on a laptop.
    pub fn in_cluster_or(path: Option<PathBuf>, context: Option<String>) -> Self {
        let in_cluster = runs_in_cluster(
            path.as_deref(),
            context.as_deref(),
            std::env::var_os("KUBECONFIG").as_deref(),
            std::env::var_os("KUBERNETES_SERVICE_HOST").as_deref(),
        );
        Self { in_cluster, ..Self::new(path, context) }
    }
}

/// The two clusters the CLI works with: the hub and the cluster being managed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeconfigPair {
    /// The hub cluster (`--hub-kubeconfig`, `--hub-context`).
    pub hub: Selection,
    /// The managed cluster (`--cluster-kubeconfig`, `--cluster-context`); its file defaults
    /// to the hub's.
    pub target: Selection,
}

impl KubeconfigPair {
    /// The flag that names the hub's kubeconfig in errors.
    pub const HUB_FLAG: &str = "--hub-kubeconfig";
    /// The flag that names the target's kubeconfig in errors.
    pub const TARGET_FLAG: &str = "--cluster-kubeconfig";

    /// Both selections; the target reads the hub's file unless given its own, since
    /// people often keep both clusters as contexts of one kubeconfig.
    pub fn new(
        hub_path: Option<PathBuf>,
        hub_context: Option<String>,
        target_path: Option<PathBuf>,
        target_context: Option<String>,
    ) -> Self {
        let target_path = target_path.or_else(|| hub_path.clone());
        Self {
            hub: Selection::new(hub_path, hub_context).with_flag(Self::HUB_FLAG),
            target: Selection::new(target_path, target_context).with_flag(Self::TARGET_FLAG),
        }
    }
}

/// Why no client could be made for a [`Selection`].
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The kubeconfig file asked for does not exist.
    #[error("kubeconfig {}: no such file — pass {flag} or set KUBECONFIG", .path.display())]
    MissingFile {
        /// The file.
        path: PathBuf,
        /// The flag that sets the file.
        flag: &'static str,
    },
    /// None of the files `KUBECONFIG` lists exists.
    #[error("KUBECONFIG={}: none of these files exists — fix KUBECONFIG or pass {flag}", .value.to_string_lossy())]
    MissingEnvFiles {
        /// The variable's value.
        value: OsString,
        /// The flag that sets the file.
        flag: &'static str,
    },
    /// `KUBECONFIG` is unset and there is no `~/.kube/config`.
    #[error("no kubeconfig: KUBECONFIG is not set and {} does not exist — pass {flag} or set KUBECONFIG", default_display(.default))]
    NoKubeconfig {
        /// `~/.kube/config`, when there is a home directory.
        default: Option<PathBuf>,
        /// The flag that sets the file.
        flag: &'static str,
    },
    /// The file exists but could not be read.
    #[error("kubeconfig {}: cannot read it", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The file is not a kubeconfig (or the files of `KUBECONFIG` do not merge).
    #[error("kubeconfig {origin}: not a valid kubeconfig")]
    Parse {
        /// The file or files.
        origin: String,
        /// Why.
        #[source]
        source: ParseError,
    },
    /// The context asked for is not in the kubeconfig.
    #[error("context \"{context}\" not found in {origin} (contexts: {})", list_or_none(.contexts))]
    UnknownContext {
        /// The context asked for.
        context: String,
        /// The file or files.
        origin: String,
        /// The contexts there are.
        contexts: Vec<String>,
    },
    /// No context was asked for and the kubeconfig has no current-context.
    #[error("kubeconfig {origin} has no current-context — pass a context or run `kubectl config use-context` (contexts: {})", list_or_none(.contexts))]
    NoCurrentContext {
        /// The file or files.
        origin: String,
        /// The contexts there are.
        contexts: Vec<String>,
    },
    /// The context names a user or cluster the kubeconfig does not define (client-go's
    /// `validateContext` refuses it the same way).
    #[error(
        "context \"{context}\" in {origin} names {what} \"{name}\", which is not defined there — add it, or choose another context"
    )]
    Undefined {
        /// The context.
        context: String,
        /// The file or files.
        origin: String,
        /// `user` or `cluster`.
        what: &'static str,
        /// The name it gives.
        name: String,
    },
    /// The context exists but its cluster or user cannot be used.
    #[error("context \"{context}\" in {origin} cannot be used")]
    Context {
        /// The context.
        context: String,
        /// The file or files.
        origin: String,
        /// Why.
        #[source]
        source: KubeconfigError,
    },
    /// The context cannot be handed on as a kubeconfig of its own.
    #[error(
        "context \"{context}\" in {origin} {why}: it cannot be handed to the hub — use a context with a token or a client certificate"
    )]
    NotPortable {
        /// The context.
        context: String,
        /// The file or files.
        origin: String,
        /// What is in the way.
        why: &'static str,
    },
    /// In-cluster configuration was asked for outside a pod (or without a token).
    #[error("no in-cluster configuration — run in a pod with a service account, or pass {flag}")]
    InCluster {
        /// The flag that sets a kubeconfig instead.
        flag: &'static str,
        /// Why.
        #[source]
        source: InClusterError,
    },
    /// The configuration is complete but no client could be built from it.
    #[error("cannot build a client for {url}")]
    Client {
        /// The API server.
        url: String,
        /// Why.
        #[source]
        source: ::kube::Error,
    },
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() { "none".to_string() } else { names.join(", ") }
}

fn default_display(default: &Option<PathBuf>) -> String {
    default.as_ref().map_or_else(|| "~/.kube/config".to_string(), |path| path.display().to_string())
}

/// A client for the selection, and the configuration it was made from (for the
/// server URL, the default namespace and so on).
pub async fn client(selection: &Selection) -> Result<(Client, Config), ConfigError> {
    let config = config(selection).await?;
    let client = Client::try_from(config.clone())
        .map_err(|source| ConfigError::Client { url: config.cluster_url.to_string(), source })?;
    Ok((client, config))
}

/// The resolved configuration for the selection, without a client.
pub async fn config(selection: &Selection) -> Result<Config, ConfigError> {
    if selection.in_cluster {
        return Config::incluster().map_err(|source| ConfigError::InCluster { flag: selection.flag, source });
    }
    let location =
        locate(selection.path.as_deref(), std::env::var_os("KUBECONFIG").as_deref(), std::env::home_dir().as_deref());
    let (kubeconfig, origin) = read(location, selection.flag)?;
    let context = choose_context(&kubeconfig, selection.context.as_deref(), &origin)?;
    let options = KubeConfigOptions { context: Some(context.clone()), ..KubeConfigOptions::default() };
    Config::from_custom_kubeconfig(kubeconfig, &options).await.map_err(|source| ConfigError::Context {
        context,
        origin,
        source,
    })
}

/// The selection's context as a kubeconfig of its own — that context, its cluster and its
/// user, current — to hand to another party that reaches the cluster with it (the hub, in
/// an auto-import secret). Certificates, keys and tokens kept in files are inlined; a user
/// whose credentials come from a program on this machine (`exec`, `auth-provider`) cannot
/// be handed on.
pub fn standalone(selection: &Selection) -> Result<Kubeconfig, ConfigError> {
    let location =
        locate(selection.path.as_deref(), std::env::var_os("KUBECONFIG").as_deref(), std::env::home_dir().as_deref());
    let (kubeconfig, origin) = read(location, selection.flag)?;
    let context = choose_context(&kubeconfig, selection.context.as_deref(), &origin)?;
    let portable =
        |why: &'static str| ConfigError::NotPortable { context: context.clone(), origin: origin.clone(), why };
    let named = kubeconfig.contexts.iter().find(|c| c.name == context).cloned();
    let parts = named.as_ref().and_then(|c| c.context.clone()).unwrap_or_default();
    let mut cluster = kubeconfig
        .clusters
        .iter()
        .find(|c| c.name == parts.cluster)
        .cloned()
        .ok_or_else(|| portable("names no cluster"))?;
    let mut user = match parts.user.as_deref() {
        Some(user) => kubeconfig.auth_infos.iter().find(|u| u.name == user).cloned(),
        None => None,
    }
    .ok_or_else(|| portable("names no user"))?;
    let inline =
        |path: &str| std::fs::read(path).map_err(|source| ConfigError::Read { path: PathBuf::from(path), source });
    if let Some(details) = cluster.cluster.as_mut()
        && let Some(path) = details.certificate_authority.take()
    {
        details.certificate_authority_data = Some(BASE64.encode(inline(&path)?));
    }
    if let Some(auth) = user.auth_info.as_mut() {
        if auth.exec.is_some() || auth.auth_provider.is_some() {
            return Err(portable("gets its credentials from a program on this machine (exec or auth-provider)"));
        }
        if let Some(path) = auth.client_certificate.take() {
            auth.client_certificate_data = Some(BASE64.encode(inline(&path)?));
        }
        if let Some(path) = auth.client_key.take() {
            auth.client_key_data = Some(SecretString::from(BASE64.encode(inline(&path)?)));
        }
        if let Some(path) = auth.token_file.take() {
            let token = String::from_utf8_lossy(&inline(&path)?).trim().to_string();
            auth.token = Some(SecretString::from(token));
        }
    }
    Ok(Kubeconfig {
        api_version: Some("v1".into()),
        kind: Some("Config".into()),
        clusters: vec![cluster],
        auth_infos: vec![user],
        contexts: named.into_iter().collect(),
        current_context: Some(context),
        ..Kubeconfig::default()
    })
}

/// One context of a kubeconfig, for commands that act on every context of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedContext {
    /// The context's name.
    pub name: String,
    /// The API server of the cluster it names (`None` when the cluster is not defined).
    pub server: Option<String>,
}

/// Every context of the selection's kubeconfig, in the file's order.
pub fn contexts(selection: &Selection) -> Result<Vec<NamedContext>, ConfigError> {
    let location =
        locate(selection.path.as_deref(), std::env::var_os("KUBECONFIG").as_deref(), std::env::home_dir().as_deref());
    let (kubeconfig, _) = read(location, selection.flag)?;
    Ok(contexts_of(&kubeconfig))
}

fn contexts_of(kubeconfig: &Kubeconfig) -> Vec<NamedContext> {
    let server = |cluster: &str| {
        let named = kubeconfig.clusters.iter().find(|named| named.name == cluster)?;
        named.cluster.as_ref()?.server.clone()
    };
    let context = |named: &::kube::config::NamedContext| NamedContext {
        name: named.name.clone(),
        server: named.context.as_ref().and_then(|c| server(&c.cluster)),
    };
    kubeconfig.contexts.iter().map(context).collect()
}

/// Whether [`Selection::in_cluster_or`] picks the service account: in a pod, and
/// nothing names a kubeconfig.
fn runs_in_cluster(
    path: Option<&Path>,
    context: Option<&str>,
    kubeconfig_env: Option<&OsStr>,
    service_host: Option<&OsStr>,
) -> bool {
    let in_pod = service_host.is_some_and(|host| !host.is_empty());
    let kubeconfig_named = path.is_some() || context.is_some() || kubeconfig_env.is_some_and(|v| !v.is_empty());
    in_pod && !kubeconfig_named
}

/// Where the kubeconfig comes from, in kubectl's order of precedence.
#[derive(Debug, PartialEq, Eq)]
enum Location {
    /// A file given explicitly.
    File(PathBuf),
    /// The files `KUBECONFIG` lists (the variable's value, and its non-empty entries).
    Env(OsString, Vec<PathBuf>),
    /// `~/.kube/config` (`None`: no home directory).
    Home(Option<PathBuf>),
}

fn locate(path: Option<&Path>, kubeconfig_env: Option<&OsStr>, home: Option<&Path>) -> Location {
    if let Some(path) = path {
        return Location::File(path.to_path_buf());
    }
    if let Some(value) = kubeconfig_env {
        let paths: Vec<PathBuf> = std::env::split_paths(value).filter(|p| !p.as_os_str().is_empty()).collect();
        // kubectl treats `KUBECONFIG=` like an unset variable.
        if !paths.is_empty() {
            return Location::Env(value.to_os_string(), paths);
        }
    }
    Location::Home(home.map(|home| home.join(".kube").join("config")))
}

/// The kubeconfig at `location`, and how to name it in messages.
fn read(location: Location, flag: &'static str) -> Result<(Kubeconfig, String), ConfigError> {
    match location {
        Location::File(path) => Ok((read_file(&path, flag)?, path.display().to_string())),
        Location::Home(Some(path)) if path.exists() => Ok((read_file(&path, flag)?, path.display().to_string())),
        Location::Home(default) => Err(ConfigError::NoKubeconfig { default, flag }),
        Location::Env(value, paths) => {
            // Like client-go, skip listed files that do not exist; merge the rest with
            // the first file winning.
            let existing: Vec<PathBuf> = paths.into_iter().filter(|path| path.exists()).collect();
            if existing.is_empty() {
                return Err(ConfigError::MissingEnvFiles { value, flag });
            }
            let origin = existing.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":");
            let mut merged = Kubeconfig::default();
            for path in &existing {
                let next = read_file(path, flag)?;
                merged = merged
                    .merge(next)
                    .map_err(|e| ConfigError::Parse { origin: origin.clone(), source: ParseError::Merge(e) })?;
            }
            Ok((merged, origin))
        }
    }
}

fn read_file(path: &Path, flag: &'static str) -> Result<Kubeconfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => ConfigError::MissingFile { path: path.to_path_buf(), flag },
        _ => ConfigError::Read { path: path.to_path_buf(), source },
    })?;
    kubeconfig::parse(&text).map_err(|source| ConfigError::Parse { origin: path.display().to_string(), source })
}

/// The context to use: the one asked for, else the current-context; checked here so
/// the error can list the contexts there are.
fn choose_context(kubeconfig: &Kubeconfig, wanted: Option<&str>, origin: &str) -> Result<String, ConfigError> {
    let contexts: Vec<String> = kubeconfig.contexts.iter().map(|named| named.name.clone()).collect();
    let name = match (wanted, kubeconfig.current_context.as_deref()) {
        (Some(name), _) => name,
        (None, Some(current)) if !current.is_empty() => current,
        (None, _) => return Err(ConfigError::NoCurrentContext { origin: origin.to_string(), contexts }),
    };
    let Some(context) = kubeconfig.contexts.iter().find(|context| context.name == name) else {
        return Err(ConfigError::UnknownContext { context: name.to_string(), origin: origin.to_string(), contexts });
    };
    let undefined = |what, wanted: &str| ConfigError::Undefined {
        context: name.to_string(),
        origin: origin.to_string(),
        what,
        name: wanted.to_string(),
    };
    let parts = context.context.as_ref();
    let user = parts.and_then(|c| c.user.as_deref()).filter(|u| !u.is_empty());
    if let Some(user) = user.filter(|u| !kubeconfig.auth_infos.iter().any(|named| named.name == *u)) {
        return Err(undefined("user", user));
    }
    let cluster = parts.map(|c| c.cluster.as_str()).filter(|c| !c.is_empty());
    if let Some(cluster) = cluster.filter(|c| !kubeconfig.clusters.iter().any(|named| named.name == *c)) {
        return Err(undefined("cluster", cluster));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(yaml: &str) -> Kubeconfig {
        kubeconfig::parse(yaml).expect("kubeconfig")
    }

    const TWO_CONTEXTS: &str = "
apiVersion: v1
kind: Config
current-context: a
contexts:
- name: a
  context: {cluster: c, user: u}
- name: b
  context: {cluster: c, user: u}
- name: no-user
  context: {cluster: c, user: gone}
- name: no-cluster
  context: {cluster: gone, user: u}
clusters:
- name: c
  cluster: {server: 'https://c:6443'}
users:
- name: u
  user: {token: t}
";

    #[test]
    fn an_explicit_path_wins_over_kubeconfig_and_home() {
        let location = locate(Some(Path::new("/x/y")), Some(OsStr::new("/e")), Some(Path::new("/home/me")));
        assert_eq!(location, Location::File(PathBuf::from("/x/y")));
    }

    #[test]
    fn kubeconfig_lists_files_and_ignores_empty_entries() {
        let location = locate(None, Some(OsStr::new("/a::/b")), Some(Path::new("/home/me")));
        assert_eq!(location, Location::Env("/a::/b".into(), vec![PathBuf::from("/a"), PathBuf::from("/b")]));
    }

    #[test]
    fn an_empty_kubeconfig_variable_falls_back_to_home() {
        let location = locate(None, Some(OsStr::new("")), Some(Path::new("/home/me")));
        assert_eq!(location, Location::Home(Some(PathBuf::from("/home/me/.kube/config"))));
    }

    #[test]
    fn in_cluster_only_in_a_pod_and_when_nothing_names_a_kubeconfig() {
        let host = Some(OsStr::new("10.0.0.1"));
        assert!(runs_in_cluster(None, None, None, host));
        assert!(!runs_in_cluster(None, None, None, None));
        assert!(!runs_in_cluster(Some(Path::new("/k")), None, None, host));
        assert!(!runs_in_cluster(None, Some("a"), None, host));
        assert!(!runs_in_cluster(None, None, Some(OsStr::new("/k")), host));
        assert!(runs_in_cluster(None, None, Some(OsStr::new("")), host));
    }

    #[test]
    fn the_current_context_is_used_unless_one_is_asked_for() {
        let config = kubeconfig(TWO_CONTEXTS);
        assert_eq!(choose_context(&config, None, "/k").expect("current"), "a");
        assert_eq!(choose_context(&config, Some("b"), "/k").expect("asked for"), "b");
    }

    #[test]
    fn an_unknown_context_lists_the_known_ones() {
        let error = choose_context(&kubeconfig(TWO_CONTEXTS), Some("foo"), "/x/y").expect_err("unknown");
        assert_eq!(error.to_string(), "context \"foo\" not found in /x/y (contexts: a, b, no-user, no-cluster)");
    }

    #[test]
    fn a_context_whose_user_or_cluster_is_missing_is_refused_before_any_request() {
        let config = kubeconfig(TWO_CONTEXTS);
        let error = choose_context(&config, Some("no-user"), "/k").expect_err("no user");
        assert_eq!(
            error.to_string(),
            "context \"no-user\" in /k names user \"gone\", which is not defined there — add it, or choose another context"
        );
        let error = choose_context(&config, Some("no-cluster"), "/k").expect_err("no cluster");
        assert!(error.to_string().contains("names cluster \"gone\""), "{error}");
    }

    #[test]
    fn a_kubeconfig_without_current_context_asks_for_one() {
        let config = kubeconfig("apiVersion: v1\nkind: Config\ncontexts: []\n");
        let error = choose_context(&config, None, "/k").expect_err("no current context");
        assert!(error.to_string().contains("has no current-context"), "{error}");
        assert!(error.to_string().ends_with("(contexts: none)"), "{error}");
    }

    #[test]
    fn the_target_reads_the_hub_file_unless_given_its_own() {
        let pair = KubeconfigPair::new(Some("/hub".into()), Some("h".into()), None, Some("t".into()));
        assert_eq!(pair.target.path, Some(PathBuf::from("/hub")));
        assert_eq!(pair.target.context.as_deref(), Some("t"));
        assert_eq!(pair.hub.flag, "--hub-kubeconfig");
        let pair = KubeconfigPair::new(Some("/hub".into()), None, Some("/target".into()), None);
        assert_eq!(pair.target.path, Some(PathBuf::from("/target")));
    }

    #[test]
    fn every_context_of_a_file_is_listed_with_its_server() {
        let listed = contexts_of(&kubeconfig(TWO_CONTEXTS));
        let names: Vec<&str> = listed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "no-user", "no-cluster"]);
        assert_eq!(listed[0].server.as_deref(), Some("https://c:6443"));
        assert_eq!(listed[3].server, None, "its cluster is not defined");
    }

    #[test]
    fn a_missing_file_names_the_flag_and_the_variable() {
        let error = read(Location::File("/nonexistent/k".into()), "--hub-kubeconfig").expect_err("missing");
        assert_eq!(
            error.to_string(),
            "kubeconfig /nonexistent/k: no such file — pass --hub-kubeconfig or set KUBECONFIG"
        );
    }

    #[test]
    fn a_context_handed_on_carries_only_its_own_entries_with_files_inlined() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ca = dir.path().join("ca.crt");
        std::fs::write(&ca, "CA PEM").expect("ca");
        let token = dir.path().join("token");
        std::fs::write(&token, "TOKEN\n").expect("token");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: a\ncontexts:\n- name: a\n  context: {{cluster: c, user: u}}\n\
             - name: b\n  context: {{cluster: d, user: v}}\n- name: x\n  context: {{cluster: c, user: plugin}}\n\
             clusters:\n- name: c\n  cluster: {{server: 'https://c'}}\n- name: d\n  cluster: {{server: 'https://d', \
             certificate-authority: {}}}\nusers:\n- name: u\n  user: {{token: t}}\n- name: v\n  user: {{tokenFile: {}}}\n\
             - name: plugin\n  user: {{exec: {{apiVersion: client.authentication.k8s.io/v1, command: aws}}}}\n",
            ca.display(),
            token.display()
        );
        let path = dir.path().join("config");
        std::fs::write(&path, text).expect("kubeconfig");
        let selection = |context: &str| Selection::new(Some(path.clone()), Some(context.into()));
        let b = standalone(&selection("b")).expect("b");
        assert_eq!(b.current_context.as_deref(), Some("b"));
        assert_eq!((b.contexts.len(), b.clusters.len(), b.auth_infos.len()), (1, 1, 1));
        let cluster = b.clusters[0].cluster.as_ref().expect("cluster");
        assert_eq!(cluster.certificate_authority, None);
        assert_eq!(cluster.certificate_authority_data.as_deref(), Some(BASE64.encode("CA PEM").as_str()));
        let user = b.auth_infos[0].auth_info.as_ref().expect("user");
        use secrecy::ExposeSecret;
        assert_eq!(user.token.as_ref().map(|t| t.expose_secret().to_string()).as_deref(), Some("TOKEN"));
        assert_eq!(user.token_file, None);
        let error = standalone(&selection("x")).expect_err("exec");
        assert!(matches!(error, ConfigError::NotPortable { .. }), "{error}");
        assert!(error.to_string().contains("a program on this machine"), "{error}");
    }
}
