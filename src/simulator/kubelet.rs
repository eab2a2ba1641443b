//! The kubelet of a simulated cluster: every Deployment of the cluster is reported
//! available, and those of the fleetctl image run their role as a task of this process
//! on the cluster's in-process client — the klusterlet operator (which the import
//! manifests deploy) and, once the operator has rendered them, the registration and
//! work agents. A changed pod template restarts the task, as a rollout replaces the Pod;
//! a deleted Deployment stops it. Addon agents and other images are reported running
//! without a task. No Pods are written (the fleet must not pay for them), so the
//! registration agent says the version its Deployment's image names.
//!
//! The roles are read from the containers' args with `fleetctld`'s own command line, so
//! what runs is what the manifests say; no health endpoint is served (thousands of
//! clusters would need thousands of ports).

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentCondition, DeploymentStatus};
use k8s_openapi::api::core::v1::Container;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Client, ResourceExt};

use fleetctl_agent::operator::{self, OperatorSettings};
use fleetctl_agent::work;
use fleetctl_agent::{Clusters, registration};
use fleetctl_kube::runner::health::Health;
use fleetctl_nodesim::InProcessCommand;
use fleetctl_nodesim::status::is_fleetctl_image;
use fleetctld::{AgentRole, Command};

use crate::in_process;

/// A role's task, stopped when dropped.
struct Running {
    /// The pod template it was started from.
    template: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Runs the kubelet until dropped (dropping it stops every task it started).
pub async fn run(client: Client) {
    let api: Api<Deployment> = Api::all(client.clone());
    let mut events = watcher::watcher(api, watcher::Config::default()).default_backoff().boxed();
    let mut running: BTreeMap<String, Running> = BTreeMap::new();
    // Keys seen since the current (re)list began.
    let mut listed: BTreeSet<String> = BTreeSet::new();
    while let Some(event) = events.next().await {
        match event {
            Ok(Event::Init) => listed.clear(),
            Ok(Event::InitApply(deployment)) => {
                listed.insert(key(&deployment));
                sync(&client, &mut running, &deployment).await;
            }
            Ok(Event::InitDone) => running.retain(|key, _| listed.contains(key)),
            Ok(Event::Apply(deployment)) => sync(&client, &mut running, &deployment).await,
            Ok(Event::Delete(deployment)) => {
                running.remove(&key(&deployment));
            }
            Err(error) => tracing::debug!(%error, "watching Deployments; the watch restarts"),
        }
    }
}

fn key(deployment: &Deployment) -> String {
    format!("{}/{}", deployment.namespace().unwrap_or_default(), deployment.name_any())
}

/// Starts (or restarts, on a new template) the Deployment's role and reports it available.
async fn sync(client: &Client, running: &mut BTreeMap<String, Running>, deployment: &Deployment) {
    let key = key(deployment);
    if deployment.metadata.deletion_timestamp.is_some() {
        running.remove(&key);
        return;
    }
    let template = deployment.spec.as_ref().map(|s| serde_json::to_string(&s.template)).transpose();
    let template = match template {
        Ok(template) => template.unwrap_or_default(),
        Err(error) => {
            tracing::warn!(%error, deployment = %key, "reading the pod template");
            return;
        }
    };
    if running.get(&key).is_none_or(|r| r.template != template) {
        running.remove(&key);
        if let Some(task) = start(client, deployment) {
            running.insert(key.clone(), Running { template, task });
        }
    }
    if let Err(error) = report_available(client, deployment).await {
        tracing::debug!(%error, deployment = %key, "reporting the Deployment available");
    }
}

/// The task of the Deployment's first fleetctl container, if its role is one that runs.
fn start(client: &Client, deployment: &Deployment) -> Option<tokio::task::JoinHandle<()>> {
    let namespace = deployment.namespace().unwrap_or_default();
    let pod = deployment.spec.as_ref()?.template.spec.as_ref()?;
    let container = pod.containers.iter().find(|c| c.image.as_deref().is_some_and(is_fleetctl_image))?;
    let role = match role(container, &namespace) {
        Ok(role) => role?,
        Err(error) => {
            tracing::warn!(%error, deployment = %key(deployment), "the container's args are no fleetctld command line");
            return None;
        }
    };
    // No Pod runs it, so the agent cannot read its version from one: it is the image's tag.
    let tag = container.image.as_deref().and_then(|image| image.rsplit_once(':')).filter(|(_, tag)| !tag.contains('/'));
    let version = tag.map(|(_, tag)| tag.to_string());
    let client = client.clone();
    Some(tokio::spawn(async move {
        match role {
            AgentRole::Operator(_) => {
                let settings =
                    OperatorSettings { namespace, hub_connection_check: false, ..OperatorSettings::default() };
                operator::controller(client, settings).await;
            }
            AgentRole::Registration(options, agent_id, mut settings) => {
                if let Some(version) = version {
                    settings.version = version;
                }
                let identity = registration::identity(&client, options.cluster, options.namespace, agent_id).await;
                registration::agent(Clusters::one(client), identity, settings).await;
            }
            AgentRole::Work(options, agent_id, settings) => {
                let clusters = Clusters::one(client);
                work::agent(clusters, options.cluster, agent_id, options.namespace, Health::default(), settings).await;
            }
            AgentRole::Singleton(options, agent_id, mut registration_settings, work_settings) => {
                if let Some(version) = version {
                    registration_settings.version = version;
                }
                let identity = registration::Identity {
                    cluster: options.cluster.clone(),
                    agent_id: agent_id.clone(),
                    namespace: options.namespace.clone(),
                };
                let clusters = Clusters::one(client);
                tokio::join!(
                    registration::agent(clusters.clone(), identity, registration_settings),
                    work::agent(
                        clusters,
                        options.cluster,
                        agent_id,
                        options.namespace,
                        Health::default(),
                        work_settings
                    ),
                );
            }
        }
    }))
}

/// The klusterlet role a container runs (`None` for the other roles of the image), its
/// environment resolved as a Pod in `namespace` would see it.
fn role(container: &Container, namespace: &str) -> Result<Option<AgentRole>, clap::Error> {
    let env = container
        .env
        .iter()
        .flatten()
        .filter_map(|var| {
            let field = var.value_from.as_ref().and_then(|from| from.field_ref.as_ref()).map(|f| f.field_path.as_str());
            let value = match (&var.value, field) {
                (Some(value), _) => value.clone(),
                (None, Some("metadata.namespace")) => namespace.to_string(),
                _ => return None,
            };
            Some((var.name.clone(), value))
        })
        .collect();
    let command = InProcessCommand {
        command: None,
        args: container.args.clone().unwrap_or_default(),
        env,
        // Parsed but unused: the roles get the cluster's client, not a kubeconfig.
        kubeconfig: std::path::PathBuf::from("in-process"),
    };
    Ok(match in_process::parse(&command)?.command {
        Command::Agent(args) => Some(args.role()),
        Command::Hub(_) | Command::Addon(_) => None,
    })
}

/// Writes the status a deployment controller and kubelet would: every replica updated,
/// ready and available at the current generation (only when it is not so already).
async fn report_available(client: &Client, deployment: &Deployment) -> Result<(), kube::Error> {
    let generation = deployment.metadata.generation;
    let replicas = deployment.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    let current = deployment.status.clone().unwrap_or_default();
    let available = current.conditions.iter().flatten().any(|c| c.type_ == "Available" && c.status == "True");
    if current.observed_generation == generation && current.available_replicas == Some(replicas) && available {
        return Ok(());
    }
    let condition = |type_: &str, reason: &str| DeploymentCondition {
        type_: type_.into(),
        status: "True".into(),
        reason: Some(reason.into()),
        ..DeploymentCondition::default()
    };
    let status = DeploymentStatus {
        observed_generation: generation,
        replicas: Some(replicas),
        updated_replicas: Some(replicas),
        ready_replicas: Some(replicas),
        available_replicas: Some(replicas),
        conditions: Some(vec![
            condition("Available", "MinimumReplicasAvailable"),
            condition("Progressing", "NewReplicaSetAvailable"),
        ]),
        ..DeploymentStatus::default()
    };
    let metadata = ObjectMeta {
        name: deployment.metadata.name.clone(),
        namespace: deployment.metadata.namespace.clone(),
        ..ObjectMeta::default()
    };
    let patch = Deployment { metadata, spec: None, status: Some(status) };
    let api: Api<Deployment> = Api::namespaced(client.clone(), &deployment.namespace().unwrap_or_default());
    api.patch_status(&deployment.name_any(), &PatchParams::default(), &Patch::Merge(&patch)).await.map(|_| ())
}
