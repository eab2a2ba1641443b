//! Which clusters `import` and `detach` act on, and through which context each is reached:
//! `NAME` or `NAME=CONTEXT` arguments, `--cluster-context` once per NAME, `--contexts a,b,c`
//! (each cluster named as its context, or `NAME=CONTEXT`), or every context of
//! `--cluster-kubeconfig FILE` with `--all-contexts`. A cluster to import without a context
//! of its own is reached through the context of its name — never the kubeconfig's
//! current-context, which is often the hub's. Everything is checked before anything
//! changes: a bad name is a usage error; a context that is missing, a cluster that does not
//! answer or is the hub itself, or rights that are missing refuse the whole command.

use std::collections::BTreeSet;

use kube::{Client, Config};
use thiserror::Error;

use super::connect::{self, ConnectError, Right, Role};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{ClusterFlags, HubFlags};
use crate::lifecycle::import::check_name;
use fleetctl_kube::{ConfigError, NamedContext, Selection};

/// One cluster a command acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its name on the hub.
    pub name: String,
    /// The context that reaches it (`None`: the current-context of its kubeconfig).
    pub context: Option<String>,
    /// Whether the context is the cluster's name because none was given for it.
    pub defaulted: bool,
}

/// How the clusters of a command are reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Each cluster is reached (import): through its own context, else the context of its
    /// name.
    Needed,
    /// No cluster is reached (`import --print-command`).
    None,
    /// A cluster is reached only through a context given for it (detach).
    IfGiven,
}

/// How the clusters were named on the command line.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// `NAME` or `NAME=CONTEXT` arguments.
    pub names: &'a [String],
    /// `--contexts`: `CONTEXT` or `NAME=CONTEXT` entries.
    pub contexts: &'a [String],
    /// `--all-contexts`.
    pub all_contexts: bool,
}

/// Why the clusters named cannot be acted on; nothing was changed.
#[derive(Debug, Error)]
pub enum TargetError {
    /// The names or contexts do not fit together.
    #[error("{0}")]
    Usage(String),
    /// The kubeconfig whose contexts `--all-contexts` asked for cannot be read.
    #[error("listing the contexts of --cluster-kubeconfig")]
    Contexts(#[source] ConfigError),
    /// A cluster cannot be reached, or may not be changed.
    #[error(transparent)]
    Connect(ConnectError),
}

impl Fault for TargetError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Usage(_) => ExitStatus::Usage,
            Self::Contexts(source) => source.exit_status(),
            Self::Connect(source) => source.exit_status(),
        }
    }
}

/// Why the clusters of a command cannot all be reached: nothing was changed.
#[derive(Debug, Error)]
#[error("{}: nothing was changed", .0.join("; "))]
pub struct Unreachable(Vec<String>);

impl Fault for Unreachable {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Refused
    }
}

/// A cluster to reach, by name, through a selection (whose context was given, or is the
/// cluster's name: `defaulted`).
#[derive(Debug, Clone)]
pub struct Route {
    /// The cluster's name on the hub.
    pub name: String,
    /// How it is reached.
    pub selection: Selection,
    /// Whether its context is its name because none was given.
    pub defaulted: bool,
}

/// Connects to every cluster of `routes` before anything is written, each checked the same
/// way: its context exists, it answers within the command's --timeout, it is not the hub
/// (unless `allow_hub`), and the user has `rights` there. Any that fails refuses the whole
/// command, naming each (exit 4).
pub async fn reach_all(
    routes: &[Route],
    hub: (&Client, &Config),
    allow_hub: bool,
    rights: &[Right],
) -> Result<Vec<(Client, Config)>, Unreachable> {
    let reached = futures::future::join_all(routes.iter().map(|route| reach(route, hub, allow_hub, rights))).await;
    let mut clients = Vec::new();
    let mut refused = Vec::new();
    for (route, result) in routes.iter().zip(reached) {
        match result {
            Ok(client) => clients.push(client),
            Err(error) => refused.push(CommandError::from(error).of_cluster(&route.name).chain()),
        }
    }
    if refused.is_empty() { Ok(clients) } else { Err(Unreachable(refused)) }
}

async fn reach(
    route: &Route,
    hub: (&Client, &Config),
    allow_hub: bool,
    rights: &[Right],
) -> Result<(Client, Config), TargetError> {
    let (client, config) = connect::client(&route.selection, Role::Target).await.map_err(|error| match error {
        ConnectError::Config { source: ConfigError::UnknownContext { context, origin, contexts }, .. }
            if route.defaulted =>
        {
            TargetError::Usage(format!(
                "no context was given for it, so it is reached through the context of its name, {context:?}, which {origin} \
                 does not have (contexts: {}): pass --cluster-context CONTEXT, or NAME=CONTEXT",
                if contexts.is_empty() { "none".to_string() } else { contexts.join(", ") }
            ))
        }
        other => TargetError::Connect(other),
    })?;
    connect::answers(&client, &config, Role::Target).await.map_err(TargetError::Connect)?;
    if !allow_hub && connect::same_cluster(hub, (&client, &config)).await {
        let context = route.selection.context.clone().unwrap_or_else(|| "(current)".into());
        let url = hub.1.cluster_url.to_string();
        return Err(TargetError::Connect(ConnectError::HubAsTarget { name: route.name.clone(), context, url }));
    }
    connect::check_rights(&client, Role::Target, None, rights).await.map_err(TargetError::Connect)?;
    Ok((client, config))
}

/// `NAME=CONTEXT` as its two parts, `NAME` alone as the name.
fn split(entry: &str) -> (String, Option<String>) {
    match entry.split_once('=') {
        Some((name, context)) => (name.to_string(), Some(context.to_string())),
        None => (entry.to_string(), None),
    }
}

/// The clusters named, each with its context, checked: valid names, none twice, and — for
/// clusters to reach ([`Reach::Needed`]) — a context for each, given or the one of its name.
/// `hub_server` is the hub's API server, whose contexts `--all-contexts` skips. Contexts of
/// the kubeconfig are listed only for `--all-contexts`.
pub fn targets(
    named: Named<'_>,
    cluster: &ClusterFlags,
    hub: &HubFlags,
    hub_server: &str,
    reach: Reach,
) -> Result<(Vec<Target>, Vec<String>), TargetError> {
    let mut skipped = Vec::new();
    let targets = if named.all_contexts {
        let listed = fleetctl_kube::contexts(&cluster.selection(hub, None)).map_err(TargetError::Contexts)?;
        let (hub_contexts, others): (Vec<NamedContext>, Vec<NamedContext>) =
            listed.into_iter().partition(|c| c.server.as_deref().is_some_and(|s| same_server(s, hub_server)));
        skipped = hub_contexts.into_iter().map(|c| c.name).collect();
        let targets: Vec<Target> = others
            .into_iter()
            .map(|c| Target { name: c.name.clone(), context: Some(c.name), defaulted: false })
            .collect();
        if let Some(bad) = targets.iter().find(|t| check_name(&t.name).is_err()) {
            return Err(TargetError::Usage(format!(
                "context {:?} is no cluster name: name the clusters with --contexts NAME=CONTEXT,…",
                bad.name
            )));
        }
        targets
    } else if !named.contexts.is_empty() {
        named
            .contexts
            .iter()
            .map(|entry| {
                let (name, context) = split(entry);
                let context = context.unwrap_or_else(|| name.clone());
                Target { name, context: Some(context), defaulted: false }
            })
            .collect()
    } else {
        paired(named.names, cluster.contexts(), reach)?
    };
    if targets.is_empty() {
        return Err(TargetError::Usage("no cluster to act on: the kubeconfig has no context but the hub's".into()));
    }
    let mut seen = BTreeSet::new();
    for target in &targets {
        check_name(&target.name).map_err(TargetError::Usage)?;
        if target.context.as_deref() == Some("") {
            return Err(TargetError::Usage(format!("cluster {}: the context after '=' is empty", target.name)));
        }
        if !seen.insert(target.name.as_str()) {
            return Err(TargetError::Usage(format!("cluster {} is named twice", target.name)));
        }
    }
    Ok((targets, skipped))
}

/// `NAME` arguments paired in order with the `--cluster-context` values; `NAME=CONTEXT`
/// arguments bring their own; a cluster to reach without either is reached through the
/// context of its name.
fn paired(names: &[String], contexts: &[String], reach: Reach) -> Result<Vec<Target>, TargetError> {
    let split: Vec<(String, Option<String>)> = names.iter().map(|n| split(n)).collect();
    let bare = split.iter().filter(|(_, context)| context.is_none()).count();
    if !contexts.is_empty() && contexts.len() != bare {
        return Err(TargetError::Usage(format!(
            "{} --cluster-context for {bare} NAME(s) without a context: give one for each, in order, or write \
             NAME=CONTEXT",
            contexts.len()
        )));
    }
    let mut contexts = contexts.iter();
    Ok(split
        .into_iter()
        .map(|(name, context)| {
            let context = context.or_else(|| contexts.next().cloned());
            let defaulted = context.is_none() && reach == Reach::Needed;
            let context = if defaulted { Some(name.clone()) } else { context };
            Target { name, context, defaulted }
        })
        .collect())
}

/// Whether two API server URLs are the same server (`https://h:6443/` is `https://h:6443`).
fn same_server(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// The names of the targets, in order.
pub fn names(targets: &[Target]) -> Vec<String> {
    targets.iter().map(|t| t.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn target(name: &str, context: Option<&str>) -> Target {
        Target { name: name.into(), context: context.map(str::to_string), defaulted: false }
    }

    #[test]
    fn names_pair_in_order_with_cluster_contexts_and_pairs_bring_their_own() {
        let names = strings(&["a", "b=ctx-b", "c"]);
        let both = paired(&names, &strings(&["ctx-a", "ctx-c"]), Reach::Needed).expect("paired");
        assert_eq!(both, [target("a", Some("ctx-a")), target("b", Some("ctx-b")), target("c", Some("ctx-c"))]);
        let error = paired(&names, &strings(&["ctx-a"]), Reach::Needed).expect_err("one short");
        assert!(error.to_string().contains("1 --cluster-context for 2 NAME(s)"), "{error}");
    }

    #[test]
    fn import_without_a_cluster_context_targets_the_context_named_like_the_cluster() {
        let named_like = Target { defaulted: true, ..target("a", Some("a")) };
        assert_eq!(paired(&strings(&["a"]), &[], Reach::Needed).expect("one"), std::slice::from_ref(&named_like));
        let several = paired(&strings(&["a", "b=ctx-b"]), &[], Reach::Needed).expect("several");
        assert_eq!(several, [named_like, target("b", Some("ctx-b"))]);
        // Detach reaches a target only through a context given for it; --print-command none.
        assert_eq!(
            paired(&strings(&["a", "b"]), &[], Reach::IfGiven).expect("detach"),
            [target("a", None), target("b", None)]
        );
        assert_eq!(paired(&strings(&["a"]), &[], Reach::None).expect("print"), [target("a", None)]);
    }

    #[test]
    fn contexts_name_their_clusters_unless_renamed() {
        let contexts = strings(&["kind-a", "b=arn:aws:eks:eu-west-1:1:cluster/b"]);
        let named = Named { names: &[], contexts: &contexts, all_contexts: false };
        let (targets, _) =
            targets(named, &ClusterFlags::default(), &hub(), "https://hub", Reach::Needed).expect("targets");
        assert_eq!(targets, [target("kind-a", Some("kind-a")), target("b", Some("arn:aws:eks:eu-west-1:1:cluster/b"))]);
    }

    fn hub() -> HubFlags {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            hub: HubFlags,
        }
        Wrapper::parse_from(["x"]).hub
    }

    #[test]
    fn bad_names_and_names_given_twice_are_usage_errors() {
        let check = |names: &[&str]| {
            let names = strings(names);
            let named = Named { names: &names, contexts: &[], all_contexts: false };
            let error =
                targets(named, &ClusterFlags::default(), &hub(), "https://hub", Reach::IfGiven).expect_err("refused");
            assert_eq!(error.exit_status(), ExitStatus::Usage);
            error.to_string()
        };
        assert!(check(&["a", "a=ctx"]).contains("named twice"));
        assert!(check(&["Bad_Name"]).contains("invalid cluster name"));
        assert!(check(&["kube-system"]).contains("system namespace"));
        assert!(check(&["a="]).contains("empty"));
    }

    #[test]
    fn the_same_server_with_or_without_a_slash() {
        assert!(same_server("https://127.0.0.1:6443/", "https://127.0.0.1:6443"));
        assert!(!same_server("https://127.0.0.1:6443", "https://127.0.0.1:6444"));
    }
}
