//! The kubeconfigs fleetctl writes — a pod's, an agent's hub credentials, a bootstrap
//! kubeconfig, a dev cluster's admin — built as kube's typed [`Kubeconfig`], and the
//! kubeconfigs it reads back from Secrets.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::config::{
    AuthInfo, Cluster, Context, KubeConfigOptions, Kubeconfig, KubeconfigError, NamedAuthInfo, NamedCluster,
    NamedContext,
};
use secrecy::SecretString;
use serde::Deserialize;

/// How a kubeconfig's user authenticates.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// A bearer token.
    Token(String),
    /// A client certificate and its key, PEM.
    Certificate {
        /// The certificate.
        cert_pem: String,
        /// The private key.
        key_pem: String,
    },
}

/// The names of a kubeconfig's one cluster, user and context.
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    /// The cluster entry.
    pub cluster: &'a str,
    /// The user entry.
    pub user: &'a str,
    /// The context (also the current-context).
    pub context: &'a str,
}

impl<'a> Names<'a> {
    /// One name for the cluster, the user and the context.
    pub fn same(name: &'a str) -> Self {
        Self { cluster: name, user: name, context: name }
    }
}

/// A kubeconfig with one cluster (its CA embedded), one user and one context, current.
pub fn single(names: Names<'_>, server: &str, ca_pem: &str, credentials: Credentials) -> Kubeconfig {
    let user = match credentials {
        Credentials::Token(token) => AuthInfo { token: Some(SecretString::from(token)), ..AuthInfo::default() },
        Credentials::Certificate { cert_pem, key_pem } => AuthInfo {
            client_certificate_data: Some(BASE64.encode(cert_pem)),
            client_key_data: Some(SecretString::from(BASE64.encode(key_pem))),
            ..AuthInfo::default()
        },
    };
    Kubeconfig {
        api_version: Some("v1".into()),
        kind: Some("Config".into()),
        clusters: vec![NamedCluster {
            name: names.cluster.into(),
            cluster: Some(Cluster {
                server: Some(server.into()),
                certificate_authority_data: Some(BASE64.encode(ca_pem)),
                ..Cluster::default()
            }),
            ..NamedCluster::default()
        }],
        auth_infos: vec![NamedAuthInfo { name: names.user.into(), auth_info: Some(user), ..NamedAuthInfo::default() }],
        contexts: vec![NamedContext {
            name: names.context.into(),
            context: Some(Context {
                cluster: names.cluster.into(),
                user: Some(names.user.into()),
                ..Context::default()
            }),
            ..NamedContext::default()
        }],
        current_context: Some(names.context.into()),
        ..Kubeconfig::default()
    }
}

/// The kubeconfig as YAML, credentials included (for files and Secrets, never for logs).
pub fn to_yaml(kubeconfig: &Kubeconfig) -> String {
    // A kubeconfig is strings, booleans and maps keyed by strings: YAML holds all of them.
    #[allow(clippy::expect_used)]
    serde_yaml::to_string(kubeconfig).expect("a kubeconfig is representable as YAML")
}

/// What a kubeconfig's current context points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The API server URL.
    pub server: String,
    /// The CA bundle, PEM (empty when the kubeconfig trusts the system roots).
    pub ca_pem: String,
}

/// Reads a kubeconfig's YAML, its documents merged in order as kube's
/// `Kubeconfig::from_yaml` merges them, with serde_yaml: the YAML parser the project
/// already has. The in-cluster executable then does not call kube's reader, which brings
/// serde-saphyr (the dist build of fleetctld shrank by 234 KiB).
pub fn parse(text: &str) -> Result<Kubeconfig, ParseError> {
    let mut merged = Kubeconfig::default();
    for document in serde_yaml::Deserializer::from_str(text) {
        let value = serde_yaml::Value::deserialize(document).map_err(ParseError::Yaml)?;
        // An empty document adds nothing (`---` at the end of a file, or an empty file).
        if value.is_null() {
            continue;
        }
        merged = merged.merge(serde_yaml::from_value(value).map_err(ParseError::Yaml)?).map_err(ParseError::Merge)?;
    }
    Ok(merged)
}

/// Why the text of a kubeconfig (or of several, merged) is not one.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// It is not YAML of a kubeconfig.
    #[error("its YAML does not read as a kubeconfig")]
    Yaml(#[source] serde_yaml::Error),
    /// Its documents, or the files named together, do not merge.
    #[error("its parts do not merge")]
    Merge(#[source] KubeconfigError),
}

/// Why a kubeconfig kept as text cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// The Secret that should hold it has no `kubeconfig` key.
    #[error("it has no `kubeconfig` key")]
    NoKubeconfig,
    /// It is not a kubeconfig.
    #[error("not a kubeconfig")]
    Parse(#[source] ParseError),
    /// Its current context names no cluster with a server.
    #[error("its current context names no cluster with a server")]
    NoServer,
    /// The CA data is not base64 of text.
    #[error("its certificate-authority-data is not base64 PEM")]
    CaData,
    /// No client configuration could be made from it.
    #[error("no client configuration can be made from it")]
    Config(#[source] KubeconfigError),
}

/// A kubeconfig kept as text (a Secret's `kubeconfig` key): the parsed file, the endpoint
/// of its current context, and a client configuration for it.
pub async fn from_text(text: &str) -> Result<(Endpoint, kube::Config), TextError> {
    from_parsed(parse(text).map_err(TextError::Parse)?).await
}

/// The kubeconfig a Secret holds (its `kubeconfig` key), with the files it names read from
/// the Secret beside it — upstream's agents name `/spoke/hub-kubeconfig/tls.crt` for the
/// Secret mounted there, so each file is the Secret's key of the file's name, as the mount
/// would serve it.
pub fn in_secret(secret: &BTreeMap<String, String>) -> Result<Kubeconfig, TextError> {
    let text = secret.get("kubeconfig").ok_or(TextError::NoKubeconfig)?;
    let mut kubeconfig = parse(text).map_err(TextError::Parse)?;
    let file = |path: &Option<String>| {
        let name = path.as_deref()?.rsplit('/').next()?;
        secret.get(name).map(|content| BASE64.encode(content))
    };
    for cluster in kubeconfig.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        if cluster.certificate_authority_data.is_none()
            && let Some(data) = file(&cluster.certificate_authority)
        {
            cluster.certificate_authority_data = Some(data);
            cluster.certificate_authority = None;
        }
    }
    for user in kubeconfig.auth_infos.iter_mut().filter_map(|a| a.auth_info.as_mut()) {
        if user.client_certificate_data.is_none()
            && let Some(data) = file(&user.client_certificate)
        {
            user.client_certificate_data = Some(data);
            user.client_certificate = None;
        }
        if user.client_key_data.is_none()
            && let Some(data) = file(&user.client_key)
        {
            user.client_key_data = Some(SecretString::from(data));
            user.client_key = None;
        }
    }
    Ok(kubeconfig)
}

/// A parsed kubeconfig's endpoint and a client configuration for it.
pub async fn from_parsed(parsed: Kubeconfig) -> Result<(Endpoint, kube::Config), TextError> {
    let endpoint = endpoint(&parsed)?;
    let config =
        kube::Config::from_custom_kubeconfig(parsed, &KubeConfigOptions::default()).await.map_err(TextError::Config)?;
    Ok((endpoint, config))
}

/// The server and CA of a kubeconfig's current context (else its first cluster).
pub fn endpoint(kubeconfig: &Kubeconfig) -> Result<Endpoint, TextError> {
    let wanted = kubeconfig
        .current_context
        .as_ref()
        .and_then(|current| kubeconfig.contexts.iter().find(|c| &c.name == current))
        .and_then(|c| c.context.as_ref())
        .map(|c| c.cluster.as_str());
    let cluster = match wanted {
        Some(name) => kubeconfig.clusters.iter().find(|c| c.name == name),
        None => kubeconfig.clusters.first(),
    };
    let cluster = cluster.and_then(|c| c.cluster.as_ref()).ok_or(TextError::NoServer)?;
    let server = cluster.server.clone().filter(|s| !s.is_empty()).ok_or(TextError::NoServer)?;
    let ca_pem = match &cluster.certificate_authority_data {
        Some(data) => {
            let bytes = BASE64.decode(data).map_err(|_| TextError::CaData)?;
            String::from_utf8(bytes).map_err(|_| TextError::CaData)?
        }
        None => String::new(),
    };
    Ok(Endpoint { server, ca_pem })
}

/// The bearer token of a kubeconfig's current user (else its first user), if it has one.
pub fn token(kubeconfig: &Kubeconfig) -> Option<String> {
    let wanted = kubeconfig
        .current_context
        .as_ref()
        .and_then(|current| kubeconfig.contexts.iter().find(|c| &c.name == current))
        .and_then(|c| c.context.as_ref()?.user.clone());
    let user = match wanted {
        Some(name) => kubeconfig.auth_infos.iter().find(|u| u.name == name),
        None => kubeconfig.auth_infos.first(),
    };
    let token = user?.auth_info.as_ref()?.token.as_ref()?;
    Some(secrecy::ExposeSecret::expose_secret(token).to_string())
}

/// The values of a Secret as text (invalid UTF-8 is replaced, as `kubectl get -o jsonpath`
/// shows it).
pub fn secret_text(secret: &Secret) -> BTreeMap<String, String> {
    secret.data.iter().flatten().map(|(k, v)| (k.clone(), String::from_utf8_lossy(&v.0).into_owned())).collect()
}

/// Secret data from text values.
pub fn secret_data(values: BTreeMap<String, String>) -> BTreeMap<String, ByteString> {
    values.into_iter().map(|(k, v)| (k, ByteString(v.into_bytes()))).collect()
}

/// `kubeconfig` with every user's credentials replaced by the bearer `token` (its clusters,
/// servers and CAs as they were).
pub fn with_token(kubeconfig: &Kubeconfig, token: &str) -> Kubeconfig {
    let mut config = kubeconfig.clone();
    for user in &mut config.auth_infos {
        user.auth_info = Some(AuthInfo { token: Some(SecretString::from(token)), ..AuthInfo::default() });
    }
    config
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_kubeconfig_with_a_token_keeps_its_server_and_ca_and_no_other_credential() {
        let certificate = Credentials::Certificate { cert_pem: "CERT".into(), key_pem: "KEY".into() };
        let reach = single(Names::same("c2"), "https://c2:6443", "CA", certificate);
        let config = with_token(&reach, "t0k");
        assert_eq!(endpoint(&config).expect("endpoint"), endpoint(&reach).expect("endpoint"));
        let user = config.auth_infos[0].auth_info.as_ref().expect("user");
        assert!(user.client_certificate_data.is_none() && user.client_key_data.is_none(), "no other credential");
        assert_eq!(user.token.as_ref().map(secrecy::ExposeSecret::expose_secret), Some("t0k"));
    }

    #[test]
    fn the_token_of_a_kubeconfig_is_its_current_users() {
        let config = single(Names::same("hub"), "https://hub:6443", "CA", Credentials::Token("t0k".into()));
        assert_eq!(token(&config).as_deref(), Some("t0k"));
        let certificate = Credentials::Certificate { cert_pem: "CERT".into(), key_pem: "KEY".into() };
        assert_eq!(token(&single(Names::same("hub"), "https://hub:6443", "CA", certificate)), None);
    }
    use super::*;

    #[test]
    fn a_certificate_kubeconfig_embeds_everything_and_reads_back() {
        let credentials = Credentials::Certificate { cert_pem: "CERT".into(), key_pem: "KEY".into() };
        let config = single(Names::same("hub"), "https://hub:6443", "CA", credentials);
        let yaml = to_yaml(&config);
        let parsed = parse(&yaml).unwrap();
        let user = parsed.auth_infos[0].auth_info.as_ref().unwrap();
        assert_eq!(user.client_certificate_data.as_deref(), Some(BASE64.encode("CERT").as_str()));
        assert!(user.client_key.is_none() && user.client_key_data.is_some());
        assert_eq!(endpoint(&parsed).unwrap(), Endpoint { server: "https://hub:6443".into(), ca_pem: "CA".into() });
        assert_eq!(parsed.current_context.as_deref(), Some("hub"));
    }

    #[test]
    fn a_token_kubeconfig_names_its_entries_as_asked() {
        let names = Names { cluster: "default-cluster", user: "default-auth", context: "default-context" };
        let yaml = to_yaml(&single(names, "https://h", "CA", Credentials::Token("t0k".into())));
        assert!(yaml.contains("token: t0k"), "{yaml}");
        let parsed = parse(&yaml).unwrap();
        let context = parsed.contexts[0].context.as_ref().unwrap();
        assert_eq!((context.cluster.as_str(), context.user.as_deref()), ("default-cluster", Some("default-auth")));
    }

    #[test]
    fn the_endpoint_follows_the_current_context() {
        let mut config = single(Names::same("a"), "https://a", "CA-A", Credentials::Token("t".into()));
        let other = single(Names::same("b"), "https://b", "CA-B", Credentials::Token("t".into()));
        config.clusters.extend(other.clusters);
        config.contexts.extend(other.contexts);
        config.current_context = Some("b".into());
        assert_eq!(endpoint(&config).unwrap().server, "https://b");
        config.clusters.clear();
        assert!(matches!(endpoint(&config), Err(TextError::NoServer)));
    }

    #[test]
    fn a_kubeconfig_is_read_as_kubes_reader_reads_it_documents_merged_first_wins() {
        let a = to_yaml(&single(Names::same("a"), "https://a", "CA-A", Credentials::Token("t".into())));
        let b = to_yaml(&single(Names::same("b"), "https://b", "CA-B", Credentials::Token("t".into())));
        let text = format!("{a}\n---\n{b}\n---\n");
        let ours = parse(&text).unwrap();
        assert_eq!(ours.current_context.as_deref(), Some("a"), "the first document's current-context wins");
        let names: Vec<&str> = ours.clusters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        // The same as kube's own reader, field for field.
        assert_eq!(
            serde_json::to_value(&ours).unwrap(),
            serde_json::to_value(Kubeconfig::from_yaml(&text).unwrap()).unwrap()
        );
        assert!(parse("").unwrap().clusters.is_empty(), "an empty file is an empty kubeconfig");
        assert!(matches!(parse("clusters: 3"), Err(ParseError::Yaml(_))));
        let other_kind = format!("{a}\n---\nkind: Pod\n");
        assert!(matches!(parse(&other_kind), Err(ParseError::Merge(KubeconfigError::KindMismatch))));
    }
}
