//! The flag groups commands share, each flattened into the commands that honour it (and
//! only those): `fleetctl completion bash -o json` is a usage error, not a no-op.
//!
//! Flags are `global` within the command that takes them, so `fleetctl get -o json
//! clusters` and `fleetctl get clusters -o json` both work.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::template::{CustomColumns, Template};
use crate::lifecycle::DryRun;
use fleetctl_kube::{KubeconfigPair, Selection};

/// Output formats of `-o`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// A table for people.
    Table,
    /// A table with more columns.
    Wide,
    /// JSON on stdout, nothing else.
    Json,
    /// YAML on stdout, nothing else.
    Yaml,
    /// Names only.
    Name,
    /// `jsonpath=TEMPLATE`: kubectl's JSONPath template over the JSON document.
    JsonPath(Template),
    /// `custom-columns=HEADER:PATH,…`: a table of the columns asked for.
    CustomColumns(CustomColumns),
}

/// The formats `-o` takes, for its help and errors.
pub const OUTPUT_FORMATS: &str = "table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=HEADER:PATH,…";

/// Parses `-o`: a format name, `jsonpath=TEMPLATE` or `custom-columns=SPEC` (as kubectl).
pub fn parse_output(text: &str) -> Result<Output, String> {
    if let Some(template) = text.strip_prefix("jsonpath=") {
        return Template::parse(template).map(Output::JsonPath);
    }
    if let Some(spec) = text.strip_prefix("custom-columns=") {
        return CustomColumns::parse(spec).map(Output::CustomColumns);
    }
    match text {
        "table" => Ok(Output::Table),
        "wide" => Ok(Output::Wide),
        "json" => Ok(Output::Json),
        "yaml" => Ok(Output::Yaml),
        "name" => Ok(Output::Name),
        _ => Err(format!("unknown output format {text:?}: use one of {OUTPUT_FORMATS}")),
    }
}

/// How a person's terminal is used; every command honours these (notes, logs, colours).
#[derive(Debug, Clone, Default, Args)]
pub struct TerminalFlags {
    /// Print only errors: no notes, no progress, only error logs.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Log more (repeat for more detail); logs go to stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No colours (also NO_COLOR).
    #[arg(long, global = true)]
    pub no_color: bool,
}

/// Which hub to talk to.
#[derive(Debug, Clone, Args)]
pub struct HubFlags {
    /// Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE", env = "FLEETCTL_HUB_KUBECONFIG")]
    hub_kubeconfig: Option<PathBuf>,
    /// Context of the hub in its kubeconfig.
    #[arg(long, global = true, value_name = "NAME")]
    hub_context: Option<String>,
}

impl HubFlags {
    /// The hub's selection; errors name `--hub-kubeconfig`.
    pub fn selection(&self) -> Selection {
        self.pair(&ClusterFlags::default()).hub
    }

    /// The hub's selection: these flags where given, else `kubeconfig` and `context` (a
    /// fleet file's hub).
    pub fn selection_over(&self, kubeconfig: Option<PathBuf>, context: Option<String>) -> Selection {
        let flags = Self {
            hub_kubeconfig: self.hub_kubeconfig.clone().or(kubeconfig),
            hub_context: self.hub_context.clone().or(context),
        };
        flags.selection()
    }

    fn pair(&self, cluster: &ClusterFlags) -> KubeconfigPair {
        KubeconfigPair::new(
            self.hub_kubeconfig.clone(),
            self.hub_context.clone(),
            cluster.cluster_kubeconfig.clone(),
            None,
        )
    }
}

/// The clusters being imported or detached.
#[derive(Debug, Clone, Default, Args)]
pub struct ClusterFlags {
    /// Kubeconfig of the clusters being imported or detached (default: the hub's file).
    #[arg(long, global = true, value_name = "FILE")]
    cluster_kubeconfig: Option<PathBuf>,
    /// Context of the cluster (default: the context named like the cluster); with several
    /// NAMEs, once for each, in their order.
    #[arg(long, global = true, value_name = "NAME")]
    cluster_context: Vec<String>,
}

impl ClusterFlags {
    /// The selection of a cluster reached through `context` (else the file's
    /// current-context) of its own file, else of the hub's (people often keep both as
    /// contexts of one kubeconfig); errors name `--cluster-kubeconfig`.
    pub fn selection(&self, hub: &HubFlags, context: Option<String>) -> Selection {
        let flags = Self { cluster_kubeconfig: self.cluster_kubeconfig.clone(), cluster_context: Vec::new() };
        let mut selection = hub.pair(&flags).target;
        selection.context = context;
        selection
    }

    /// The contexts `--cluster-context` gave, in order.
    pub fn contexts(&self) -> &[String] {
        &self.cluster_context
    }

    /// Whether the cluster's kubeconfig was given.
    pub fn has_kubeconfig(&self) -> bool {
        self.cluster_kubeconfig.is_some()
    }
}

/// The one managed cluster a command reads from besides the hub (`describe`).
#[derive(Debug, Clone, Default, Args)]
pub struct OneClusterFlags {
    /// Kubeconfig of the managed cluster (default: the hub's file).
    #[arg(long, global = true, value_name = "FILE")]
    cluster_kubeconfig: Option<PathBuf>,
    /// Context of the managed cluster in that kubeconfig.
    #[arg(long, global = true, value_name = "NAME")]
    cluster_context: Option<String>,
}

impl OneClusterFlags {
    /// The managed cluster's selection, when either flag asks for it.
    pub fn selection(&self, hub: &HubFlags) -> Option<Selection> {
        if self.cluster_kubeconfig.is_none() && self.cluster_context.is_none() {
            return None;
        }
        let flags = ClusterFlags { cluster_kubeconfig: self.cluster_kubeconfig.clone(), cluster_context: Vec::new() };
        Some(flags.selection(hub, self.cluster_context.clone()))
    }
}

/// How results are printed.
#[derive(Debug, Clone, Args)]
pub struct OutputFlags {
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl's, e.g.
    /// '{.items[*].metadata.name}') or custom-columns=HEADER:PATH,… (e.g.
    /// NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status).
    #[arg(short, long, global = true, value_name = "FORMAT", default_value = "table", value_parser = parse_output)]
    pub output: Output,
    /// Print tables without their header line (table, wide, custom-columns).
    #[arg(long, global = true)]
    pub no_headers: bool,
}

/// How long a command that waits may take.
#[derive(Debug, Clone, Copy, Args)]
pub struct WaitFlags {
    /// How long the whole command may take, connecting included (e.g. 90s, 5m); what is
    /// not done by then ends with exit 3, and running the command again finishes it.
    #[arg(long, global = true, default_value = "5m", value_parser = positive_duration)]
    pub timeout: Duration,
}

/// How long a command that only reads may take.
#[derive(Debug, Clone, Copy, Args)]
pub struct ReadFlags {
    /// How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s,
    /// and for `get -w` until interrupted); a hub that has not answered by then ends it with
    /// exit 4 (nothing was read), a read that has not finished with exit 3.
    #[arg(long, global = true, value_parser = positive_duration)]
    pub timeout: Option<Duration>,
}

impl ReadFlags {
    /// How long a read may take unless told.
    pub const DEFAULT: Duration = Duration::from_secs(30);

    /// The timeout given, else [`Self::DEFAULT`].
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(Self::DEFAULT)
    }
}

/// `--placement NAME` (`-n NAMESPACE`): the clusters an OCM Placement selected, as its
/// PlacementDecisions name them; beside names, `-l` and `--all` on the commands that act on
/// many clusters.
#[derive(Debug, Clone, Args)]
pub struct PlacementFlags {
    /// The clusters this Placement selected (its PlacementDecisions'), in the namespace of -n.
    #[arg(long, value_name = "NAME")]
    pub placement: Option<String>,
    /// The namespace of the Placement.
    #[arg(short = 'n', long, value_name = "NAMESPACE", default_value = "default", requires = "placement")]
    pub namespace: String,
}

/// The `--dry-run` flag of the commands that write.
#[derive(Debug, Clone, Copy, Args)]
pub struct DryRunFlags {
    /// Print the writes the command would make and make none: `server` (the default) has
    /// the API server check each one (`dryRun=All`), `client` sends nothing.
    #[arg(long, global = true, value_enum, value_name = "server|client", num_args = 0..=1, require_equals = true, default_missing_value = "server")]
    pub dry_run: Option<DryRun>,
}

/// A duration for `--timeout`: zero would time out before the first answer.
pub fn positive_duration(text: &str) -> Result<Duration, String> {
    let duration = fleetctl_kube::duration::parse(text)?;
    if duration.is_zero() {
        return Err(format!("{text:?} is no time to wait: give a duration greater than zero, like 90s or 5m"));
    }
    Ok(duration)
}

/// `--parallel`: how many clusters at once, one at least.
pub fn parallel(text: &str) -> Result<std::num::NonZeroUsize, String> {
    let count: usize = text.parse().map_err(|_| format!("{text:?} is not a number of clusters"))?;
    std::num::NonZeroUsize::new(count).ok_or_else(|| "at least one cluster at a time: give 1 or more".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_is_one_or_more_clusters() {
        assert_eq!(parallel("3").map(std::num::NonZeroUsize::get), Ok(3));
        assert!(parallel("0").expect_err("zero").contains("at least one"));
        assert!(parallel("x").expect_err("not a number").contains("not a number"));
    }

    #[test]
    fn errors_about_a_kubeconfig_name_the_flag_that_sets_it() {
        let hub = HubFlags { hub_kubeconfig: Some("/hub".into()), hub_context: None };
        assert_eq!(hub.selection().flag, "--hub-kubeconfig");
        let target = ClusterFlags { cluster_kubeconfig: None, cluster_context: vec!["c1".into()] };
        let selection = target.selection(&hub, Some("c1".into()));
        assert_eq!(selection.flag, "--cluster-kubeconfig");
        assert_eq!(selection.path, Some(PathBuf::from("/hub")), "the hub's file by default");
        assert_eq!(selection.context.as_deref(), Some("c1"));
        assert!(!target.has_kubeconfig());
    }

    #[test]
    fn a_timeout_must_be_longer_than_zero() {
        assert_eq!(positive_duration("90s"), Ok(Duration::from_secs(90)));
        for zero in ["0s", "0m", "0ms"] {
            assert!(positive_duration(zero).expect_err(zero).contains("greater than zero"));
        }
    }
}
