//! `fleetctld agent operator|registration|work|singleton`: the klusterlet, on a managed cluster.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use fleetctl_agent::{AgentOptions, DEFAULT_HEALTH_ADDR, operator, registration, singleton, work};
use fleetctl_api::names::{AGENT_NAMESPACE, KLUSTERLET};
use fleetctl_kube::Selection;

use crate::RoleError;

/// `fleetctld agent …`
#[derive(Debug, Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

/// Where the agent runs.
#[derive(Debug, Args)]
struct Local {
    /// Kubeconfig of the managed cluster (default: in-cluster config inside a pod, else KUBECONFIG).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// Address of /healthz.
    #[arg(long, default_value = DEFAULT_HEALTH_ADDR, env = "FLEETCTL_HEALTH_ADDR")]
    health_addr: SocketAddr,
}

impl Local {
    fn selection(&self) -> Selection {
        Selection::in_cluster_or(self.kubeconfig.clone(), None)
    }
}

/// Which cluster, and where the agent keeps its secrets.
#[derive(Debug, Args)]
struct Identity {
    /// The managed cluster's name.
    #[arg(long)]
    cluster_name: String,
    /// The agent namespace.
    #[arg(long, default_value = AGENT_NAMESPACE, env = "POD_NAMESPACE")]
    namespace: String,
    /// Kubeconfig of the managed cluster when the agent runs outside it (upstream's flag,
    /// Hosted mode): its nodes, addons and what works apply are there; the agent's secrets and
    /// Pods stay where it runs.
    #[arg(long, value_name = "FILE")]
    spoke_kubeconfig: Option<PathBuf>,
}

/// How the registration agent asks for its certificates.
#[derive(Debug, Args)]
struct RegistrationFlags {
    /// Lifetime the client certificate requests ask for (spec.expirationSeconds; at
    /// least 600, the API's minimum). Unset leaves it to the hub's signer.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(600..))]
    client_cert_expiration_seconds: Option<u64>,
    /// The Klusterlet the agent belongs to, where it runs (a Hosted Klusterlet's name).
    #[arg(long, value_name = "NAME", default_value = KLUSTERLET)]
    klusterlet: String,
}

impl RegistrationFlags {
    fn settings(&self) -> registration::Settings {
        registration::Settings {
            client_cert_expiration: self.client_cert_expiration_seconds.map(std::time::Duration::from_secs),
            klusterlet: self.klusterlet.clone(),
            ..registration::Settings::default()
        }
    }
}

/// How the work agent keeps what it applied.
#[derive(Debug, Args)]
struct WorkFlags {
    /// How long an AppliedManifestWork whose ManifestWork is gone from the hub (or that
    /// a previous hub made) is kept before its resources are deleted; 100 years or more
    /// never deletes them (upstream's flag of the same name).
    #[arg(long = "appliedmanifestwork-eviction-grace-period", default_value = "60m",
          value_parser = fleetctl_kube::duration::parse)]
    eviction_grace_period: std::time::Duration,
    /// Upstream's work-agent feature gates this agent knows, as `GATE=true|false`
    /// (comma-separated or repeated): `RawFeedbackJsonString`.
    #[arg(long, value_name = "GATE=BOOL", value_delimiter = ',', value_parser = work_gate)]
    feature_gates: Vec<(WorkGate, bool)>,
}

impl WorkFlags {
    fn settings(&self) -> work::Settings {
        // The last word on a gate counts, as with upstream's flag.
        let raw_feedback_json = self
            .feature_gates
            .iter()
            .rev()
            .find_map(|(gate, on)| (*gate == WorkGate::RawFeedbackJsonString).then_some(*on))
            .unwrap_or(false);
        work::Settings { eviction_grace_period: self.eviction_grace_period, raw_feedback_json }
    }
}

#[derive(Debug, Subcommand)]
enum AgentCommand {
    /// Reconcile the Klusterlet into the registration and work agents.
    Operator {
        #[command(flatten)]
        local: Local,
    },
    /// Join the hub, keep the cluster's identity, status and lease.
    Registration {
        #[command(flatten)]
        local: Local,
        #[command(flatten)]
        identity: Identity,
        /// The agent id its certificate names. Without it, as upstream's registration agent,
        /// the one its hub kubeconfig secret holds (`agent-name`), else a new one.
        #[arg(long)]
        agent_id: Option<String>,
        #[command(flatten)]
        flags: RegistrationFlags,
    },
    /// Apply the hub's ManifestWorks on this cluster.
    Work {
        #[command(flatten)]
        local: Local,
        #[command(flatten)]
        identity: Identity,
        /// The agent id its AppliedManifestWorks are recorded under (the Klusterlet's uid).
        #[arg(long)]
        agent_id: String,
        #[command(flatten)]
        flags: WorkFlags,
    },
    /// Registration and work in one process (a Singleton-mode Klusterlet's agent).
    Singleton {
        #[command(flatten)]
        local: Local,
        #[command(flatten)]
        identity: Identity,
        /// The agent id of both (the Klusterlet's uid).
        #[arg(long)]
        agent_id: String,
        #[command(flatten)]
        registration: RegistrationFlags,
        #[command(flatten)]
        work: WorkFlags,
    },
}

/// A work-agent feature gate of upstream's that this agent honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WorkGate {
    /// Status feedback reports lists and objects as JSON text.
    RawFeedbackJsonString,
}

/// `GATE=BOOL` of a known gate.
fn work_gate(text: &str) -> Result<(WorkGate, bool), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| format!("{text:?}: a feature gate is GATE=true or GATE=false"))?;
    let gate = match name.trim() {
        "RawFeedbackJsonString" => WorkGate::RawFeedbackJsonString,
        other => return Err(format!("unknown feature gate {other:?}: the work agent knows RawFeedbackJsonString")),
    };
    let on = value.trim().parse::<bool>().map_err(|_| format!("{text:?}: the value is true or false"))?;
    Ok((gate, on))
}

fn options(local: &Local, identity: Identity) -> AgentOptions {
    AgentOptions {
        local: local.selection(),
        health: local.health_addr,
        cluster: identity.cluster_name,
        namespace: identity.namespace,
        spoke: identity.spoke_kubeconfig.map(|path| Selection::new(Some(path), None).with_flag("--spoke-kubeconfig")),
    }
}

/// The agent role a container's args name, with what it needs: for a runner that brings
/// the managed cluster's client itself and serves no health endpoint (the fleet
/// simulator runs the agents of thousands of clusters as tasks of one process).
#[derive(Debug)]
pub enum AgentRole {
    /// `agent operator`.
    Operator(operator::OperatorOptions),
    /// `agent registration`: its options, its agent id if given, its settings.
    Registration(AgentOptions, Option<String>, registration::Settings),
    /// `agent work`: its options, its agent id, its settings.
    Work(AgentOptions, String, work::Settings),
    /// `agent singleton`: its options, its agent id, both agents' settings.
    Singleton(AgentOptions, String, registration::Settings, work::Settings),
}

impl AgentArgs {
    /// The role these args name.
    pub fn role(self) -> AgentRole {
        match self.command {
            AgentCommand::Operator { local } => {
                AgentRole::Operator(operator::OperatorOptions { local: local.selection(), health: local.health_addr })
            }
            AgentCommand::Registration { local, identity, agent_id, flags } => {
                AgentRole::Registration(options(&local, identity), agent_id, flags.settings())
            }
            AgentCommand::Work { local, identity, agent_id, flags } => {
                AgentRole::Work(options(&local, identity), agent_id, flags.settings())
            }
            AgentCommand::Singleton { local, identity, agent_id, registration, work } => {
                AgentRole::Singleton(options(&local, identity), agent_id, registration.settings(), work.settings())
            }
        }
    }
}

/// Runs an `agent` subcommand.
pub async fn run(args: AgentArgs) -> Result<(), RoleError> {
    match args.role() {
        AgentRole::Operator(options) => operator::run(options).await?,
        AgentRole::Registration(options, agent_id, settings) => registration::run(options, agent_id, settings).await?,
        AgentRole::Work(options, agent_id, settings) => work::run(options, agent_id, settings).await?,
        AgentRole::Singleton(options, agent_id, registration, work) => {
            singleton::run(options, agent_id, registration, work).await?
        }
    }
    Ok(())
}
