//! Which clusters `import` and `detach` act on, and through which context each is reached:
//! `NAME` or `NAME=CONTEXT` arguments, `--cluster-context` once per NAME, `--contexts a,b,c`
//! (each cluster named as its context, or `NAME=CONTEXT`), or every context of
//! `--cluster-kubeconfig FILE` with `--all-contexts`. Everything is checked before anything
//! changes: a bad name or a missing context is a usage error.

use std::collections::BTreeSet;

use thiserror::Error;

use super::exit::{ExitStatus, Fault};
use super::flags::{ClusterFlags, HubFlags};
use crate::lifecycle::import::check_name;
use fleetctl_kube::{ConfigError, NamedContext};

/// One cluster a command acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its name on the hub.
    pub name: String,
    /// The context that reaches it (`None`: the current-context of its kubeconfig).
    pub context: Option<String>,
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
}

impl Fault for TargetError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Usage(_) => ExitStatus::Usage,
            Self::Contexts(source) => source.exit_status(),
        }
    }
}

/// `NAME=CONTEXT` as its two parts, `NAME` alone as the name.
fn split(entry: &str) -> (String, Option<String>) {
    match entry.split_once('=') {
        Some((name, context)) => (name.to_string(), Some(context.to_string())),
        None => (entry.to_string(), None),
    }
}

/// The clusters named, each with its context, checked: valid names, none twice, and a
/// context for each when there are several to reach (`need_context`; detach can do
/// without). `hub_server` is the hub's API server, whose contexts `--all-contexts` skips.
/// Contexts of the kubeconfig are listed only for `--all-contexts`.
pub fn targets(
    named: Named<'_>,
    cluster: &ClusterFlags,
    hub: &HubFlags,
    hub_server: &str,
    need_context: bool,
) -> Result<(Vec<Target>, Vec<String>), TargetError> {
    let mut skipped = Vec::new();
    let targets = if named.all_contexts {
        let listed = fleetctl_kube::contexts(&cluster.selection(hub, None)).map_err(TargetError::Contexts)?;
        let (hub_contexts, others): (Vec<NamedContext>, Vec<NamedContext>) =
            listed.into_iter().partition(|c| c.server.as_deref().is_some_and(|s| same_server(s, hub_server)));
        skipped = hub_contexts.into_iter().map(|c| c.name).collect();
        let targets: Vec<Target> =
            others.into_iter().map(|c| Target { name: c.name.clone(), context: Some(c.name) }).collect();
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
                Target { name, context: Some(context) }
            })
            .collect()
    } else {
        paired(named.names, cluster.contexts(), need_context)?
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
/// arguments bring their own.
fn paired(names: &[String], contexts: &[String], need_context: bool) -> Result<Vec<Target>, TargetError> {
    let split: Vec<(String, Option<String>)> = names.iter().map(|n| split(n)).collect();
    let bare = split.iter().filter(|(_, context)| context.is_none()).count();
    if !contexts.is_empty() && contexts.len() != bare {
        return Err(TargetError::Usage(format!(
            "{} --cluster-context for {bare} NAME(s) without a context: give one for each, in order, or write \
             NAME=CONTEXT",
            contexts.len()
        )));
    }
    if need_context && names.len() > 1 && contexts.is_empty() && bare > 0 {
        return Err(TargetError::Usage(
            "several clusters need a context each: write NAME=CONTEXT, give --cluster-context once per NAME, or use \
             --contexts"
                .into(),
        ));
    }
    let mut contexts = contexts.iter();
    Ok(split
        .into_iter()
        .map(|(name, context)| {
            let context = context.or_else(|| contexts.next().cloned());
            Target { name, context }
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
        Target { name: name.into(), context: context.map(str::to_string) }
    }

    #[test]
    fn names_pair_in_order_with_cluster_contexts_and_pairs_bring_their_own() {
        let names = strings(&["a", "b=ctx-b", "c"]);
        let both = paired(&names, &strings(&["ctx-a", "ctx-c"]), true).expect("paired");
        assert_eq!(both, [target("a", Some("ctx-a")), target("b", Some("ctx-b")), target("c", Some("ctx-c"))]);
        let error = paired(&names, &strings(&["ctx-a"]), true).expect_err("one short");
        assert!(error.to_string().contains("1 --cluster-context for 2 NAME(s)"), "{error}");
    }

    #[test]
    fn one_name_may_use_the_current_context_but_several_need_one_each() {
        assert_eq!(paired(&strings(&["a"]), &[], true).expect("one"), [target("a", None)]);
        let error = paired(&strings(&["a", "b"]), &[], true).expect_err("several");
        assert!(error.to_string().contains("need a context each"), "{error}");
        // Detach needs no target at all.
        assert_eq!(paired(&strings(&["a", "b"]), &[], false).expect("detach").len(), 2);
    }

    #[test]
    fn contexts_name_their_clusters_unless_renamed() {
        let contexts = strings(&["kind-a", "b=arn:aws:eks:eu-west-1:1:cluster/b"]);
        let named = Named { names: &[], contexts: &contexts, all_contexts: false };
        let (targets, _) = targets(named, &ClusterFlags::default(), &hub(), "https://hub", true).expect("targets");
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
            let error = targets(named, &ClusterFlags::default(), &hub(), "https://hub", false).expect_err("refused");
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
