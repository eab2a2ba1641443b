//! Connecting to the clusters a command names, before it does anything: a kubeconfig or
//! context that cannot be used, or a cluster that does not answer, refuses the command
//! (exit 4, nothing changed) the same way in every command.

use std::fmt;
use std::time::Duration;

use k8s_openapi::api::authorization::v1::{ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, PostParams};
use kube::{Client, Config};
use thiserror::Error;

use super::exit::{ExitStatus, Fault};
use super::signals;
use fleetctl_kube::{ConfigError, Selection};

/// Which of the command's clusters, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The hub.
    Hub,
    /// The cluster being imported or detached.
    Target,
    /// The hub clusters move to.
    NewHub,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Hub => "hub",
            Self::Target => "target cluster",
            Self::NewHub => "new hub",
        })
    }
}

/// Why a cluster the command needs cannot be used.
#[derive(Debug, Error)]
pub enum ConnectError {
    /// Its kubeconfig or context cannot be used.
    #[error("choosing the {role}")]
    Config {
        /// Which cluster.
        role: Role,
        /// Why.
        #[source]
        source: ConfigError,
    },
    /// Its API server did not answer.
    #[error("the {role} at {url} does not answer")]
    NotAnswering {
        /// Which cluster.
        role: Role,
        /// Its API server.
        url: String,
        /// Why.
        #[source]
        source: kube::Error,
    },
    /// Its API server did not answer before the command's `--timeout`.
    #[error("the {role} at {url} did not answer within --timeout {after:?}")]
    Silent {
        /// Which cluster.
        role: Role,
        /// Its API server.
        url: String,
        /// The command's `--timeout`.
        after: Duration,
    },
    /// Its API server refused the credentials (401).
    #[error(
        "the {role} at {url} does not accept the credentials of your kubeconfig (401 Unauthorized): refresh them, or \
         choose another context or kubeconfig"
    )]
    Unauthorized {
        /// Which cluster.
        role: Role,
        /// Its API server.
        url: String,
    },
    /// The user may not do what the command must do there.
    #[error("the {role} does not let you {}: ask its admin for a role that allows it, or use another context", .missing.join(", "))]
    Forbidden {
        /// Which cluster.
        role: Role,
        /// Each right missing: `verb resource[ in namespace]`.
        missing: Vec<String>,
    },
    /// A cluster to import is the hub itself.
    #[error(
        "cluster {name}: its context {context} reaches the hub itself ({url}), so the hub would import itself under \
         that name — name the cluster's own context with --cluster-context (or NAME=CONTEXT), or pass \
         --allow-hub-as-target to have the hub manage itself (as ACM's local-cluster)"
    )]
    HubAsTarget {
        /// The cluster's name.
        name: String,
        /// The context that reaches it.
        context: String,
        /// The hub's API server.
        url: String,
    },
}

impl Fault for ConnectError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Config { source, .. } => source.exit_status(),
            Self::NotAnswering { .. }
            | Self::Silent { .. }
            | Self::Unauthorized { .. }
            | Self::Forbidden { .. }
            | Self::HubAsTarget { .. } => ExitStatus::Refused,
        }
    }
}

/// A client for the cluster, once it has answered (its `/version`) within the command's
/// `--timeout` (a little before it, so that a silent cluster is said to be one, exit 4).
pub async fn connect(selection: &Selection, role: Role) -> Result<(Client, Config), ConnectError> {
    let (client, config) = client(selection, role).await?;
    answers(&client, &config, role).await?;
    Ok((client, config))
}

/// Whether the cluster of `client` answers (its `/version`) before the command's deadline.
pub async fn answers(client: &Client, config: &Config, role: Role) -> Result<(), ConnectError> {
    let url = config.cluster_url.to_string();
    let asked = client.apiserver_version();
    let answer = match (signals::remaining(), signals::timeout()) {
        (Some(left), Some(after)) => {
            let within = left.saturating_sub(Duration::from_millis(200));
            let silent = || ConnectError::Silent { role, url: url.clone(), after };
            tokio::time::timeout(within, asked).await.map_err(|_| silent())?
        }
        _ => asked.await,
    };
    match answer {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 401 => Err(ConnectError::Unauthorized { role, url }),
        Err(source) => Err(ConnectError::NotAnswering { role, url, source }),
    }
}

/// One right a command needs: `verb` on `resource` of `group` (in `namespace`).
#[derive(Debug, Clone, Copy)]
pub struct Right {
    /// The verb.
    pub verb: &'static str,
    /// The API group (`""`: the core group).
    pub group: &'static str,
    /// The resource, with its subresource (`managedclusters/accept`).
    pub resource: &'static str,
}

impl Right {
    /// `verb` on `resource` of `group`.
    pub const fn new(verb: &'static str, group: &'static str, resource: &'static str) -> Self {
        Self { verb, group, resource }
    }
}

impl fmt::Display for Right {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.group {
            "" => write!(f, "{} {}", self.verb, self.resource),
            group => write!(f, "{} {}.{group}", self.verb, self.resource),
        }
    }
}

/// Asks the cluster whether the user has each of `rights` (in `namespace`, else cluster-wide)
/// with SelfSubjectAccessReviews, before the command writes anything; refuses naming every
/// right missing. A cluster that cannot answer the question (no review API) is let through:
/// its own answer to each write stays the judge.
pub async fn check_rights(
    client: &Client,
    role: Role,
    namespace: Option<&str>,
    rights: &[Right],
) -> Result<(), ConnectError> {
    let reviews: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let asked = rights.iter().map(|right| {
        let (resource, subresource) = match right.resource.split_once('/') {
            Some((resource, sub)) => (resource, Some(sub.to_string())),
            None => (right.resource, None),
        };
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    verb: Some(right.verb.into()),
                    group: Some(right.group.into()),
                    resource: Some(resource.into()),
                    subresource,
                    namespace: namespace.map(str::to_string),
                    ..ResourceAttributes::default()
                }),
                ..SelfSubjectAccessReviewSpec::default()
            },
            ..SelfSubjectAccessReview::default()
        };
        let reviews = reviews.clone();
        async move { (right, reviews.create(&PostParams::default(), &review).await) }
    });
    let mut missing = Vec::new();
    for (right, answer) in futures::future::join_all(asked).await {
        match answer {
            Ok(review) if review.status.as_ref().is_some_and(|s| !s.allowed) => missing.push(match namespace {
                Some(namespace) => format!("{right} in namespace {namespace}"),
                None => right.to_string(),
            }),
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "the {role} could not review the right to {right}"),
        }
    }
    if missing.is_empty() { Ok(()) } else { Err(ConnectError::Forbidden { role, missing }) }
}

/// Whether two clients reach one cluster: the same API server URL, or — through different
/// addresses — the same `kube-system` namespace (its uid is the cluster's identity, as
/// kubectl plugins and OCM's cluster claims use it); a cluster that does not let either be
/// read is told by its URL alone.
pub async fn same_cluster(a: (&Client, &Config), b: (&Client, &Config)) -> bool {
    if a.1.cluster_url.to_string().trim_end_matches('/') == b.1.cluster_url.to_string().trim_end_matches('/') {
        return true;
    }
    let uid = |client: &Client| {
        let namespaces: Api<Namespace> = Api::all(client.clone());
        async move { namespaces.get_opt("kube-system").await.ok().flatten().and_then(|ns| ns.metadata.uid) }
    };
    let (first, second) = tokio::join!(uid(a.0), uid(b.0));
    first.is_some() && first == second
}

/// A client for the cluster, without asking whether it answers (for a cluster the command
/// can do without, such as the target of `detach`).
pub async fn client(selection: &Selection, role: Role) -> Result<(Client, Config), ConnectError> {
    fleetctl_kube::client(selection).await.map_err(|source| ConnectError::Config { role, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_missing_kubeconfig_is_refused_naming_the_cluster_and_the_flag() {
        let selection = Selection::new(Some("/nonexistent/kubeconfig".into()), None).with_flag("--cluster-kubeconfig");
        let Err(error) = connect(&selection, Role::Target).await else { panic!("connected without a kubeconfig") };
        assert_eq!(error.exit_status(), ExitStatus::Refused);
        let text = fleetctl_kube::errors::chain(&error);
        assert!(
            text.starts_with("choosing the target cluster: kubeconfig /nonexistent/kubeconfig: no such file"),
            "{text}"
        );
        assert!(text.contains("pass --cluster-kubeconfig"), "{text}");
    }
}
