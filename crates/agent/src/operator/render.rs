//! What the operator keeps on the managed cluster for a Klusterlet: the agent and addon
//! namespaces, the agents' ServiceAccounts and RBAC, the registration and work agent
//! Deployments, and the AppliedManifestWork CRD. Pure: a Klusterlet in, objects out.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use fleetctl_api::{Klusterlet, OPERATOR_GROUP, WORK_GROUP, crds};
use fleetctl_kube::objects::{self, MetaExt, document, labels, meta, named_rule, namespaced_meta, rule};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{
    Container, HostAlias, LocalObjectReference, Namespace, PodSpec, ResourceRequirements, Secret, SecretVolumeSource,
    ServiceAccount, Volume, VolumeMount,
};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::ResourceExt;
use sha2::{Digest, Sha256};

use fleetctl_api::names::{
    self, DEFAULT_REPOSITORY, EXTERNAL_MANAGED_KUBECONFIG, IMAGE_PULL_SECRET, REGISTRATION_DEPLOYMENT,
    SINGLETON_DEPLOYMENT, VERSION, WORK_AGENT_APP, WORK_DEPLOYMENT,
};
use fleetctl_api::operator::{DEFAULT_AGENT_NAMESPACE, InstallMode, ResourceQosClass};

/// ServiceAccount of the registration agent.
pub const REGISTRATION_SERVICE_ACCOUNT: &str = "klusterlet-registration-sa";
/// ServiceAccount of the work agent.
pub const WORK_SERVICE_ACCOUNT: &str = "klusterlet-work-sa";
/// Name of the registration agent's ClusterRole and ClusterRoleBinding (upstream's name, so
/// that either operator, taking over the other's klusterlet, writes over them).
pub const REGISTRATION_CLUSTER_ROLE: &str = "open-cluster-management:klusterlet-registration:agent";
/// Name of the registration agent's Role and RoleBinding in the agent namespace (upstream's).
pub const REGISTRATION_ROLE: &str = "open-cluster-management:management:klusterlet-registration:agent";
/// Name of the registration agent's Role and RoleBinding in the addon namespace (upstream's
/// name of the agent's addon rules, which upstream grants cluster-wide).
pub const REGISTRATION_ADDON_ROLE: &str = "open-cluster-management:klusterlet-registration:addon-management";
/// Name of the work agent's ClusterRole and ClusterRoleBinding (upstream's).
pub const WORK_ROLE: &str = "open-cluster-management:klusterlet-work:agent";
/// Label on everything the operator renders, naming the Klusterlet it belongs to; the
/// controller maps Deployment events back to their Klusterlet through it.
pub const LABEL_KLUSTERLET: &str = "fleetctl.io/klusterlet";
/// The CRD the work agent records what it applied in.
pub const APPLIED_MANIFEST_WORK_CRD: &str = "appliedmanifestworks.work.open-cluster-management.io";
/// Annotation on the AppliedManifestWork CRD: a digest of the spec the operator applied,
/// so an unchanged CRD is not applied again (see [`crd_is_current`]).
pub const ANNOTATION_SPEC_HASH: &str = "fleetctl.io/spec-hash";
/// Where an agent that runs outside its managed cluster finds that cluster's kubeconfig
/// (upstream's mount path).
pub const SPOKE_KUBECONFIG_DIR: &str = "/spoke/config";
/// Port of the agents' `/healthz` (the CLI's default address, set explicitly through the
/// environment so the dev cluster's node simulator can move it).
pub const AGENT_HEALTH_PORT: u16 = 8443;

/// Why a Klusterlet cannot be rendered; reported as Applied=False.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The Klusterlet has no uid yet (it is the agent id).
    #[error("the Klusterlet has no uid")]
    NoUid,
    /// `spec.clusterName` is empty.
    #[error("spec.clusterName is empty; set it to the ManagedCluster name on the hub")]
    NoClusterName,
    /// A deploy mode the operator does not render (SingletonHosted).
    #[error("deploy mode {0} is not supported; use Default, Singleton or Hosted")]
    UnsupportedMode(String),
    /// `spec.registrationConfiguration.clientCertExpirationSeconds` below the API's minimum.
    #[error(
        "spec.registrationConfiguration.clientCertExpirationSeconds is {0}; a certificate request may ask for \
         {MIN_CLIENT_CERT_EXPIRATION_SECONDS} seconds or more (or 0 for the signer's default)"
    )]
    CertExpirationTooShort(i32),
}

/// The shortest lifetime a CSR may ask for (`spec.expirationSeconds`, Kubernetes' minimum).
pub const MIN_CLIENT_CERT_EXPIRATION_SECONDS: i32 = 600;

/// Everything the operator applies for one Klusterlet, in the order it applies it.
#[derive(Debug, Clone)]
pub struct Desired {
    /// The AppliedManifestWork CRD (first: the work agent needs it to start); none on the
    /// cluster a Hosted klusterlet's agents run on.
    pub crd: Option<CustomResourceDefinition>,
    /// The agent namespace and the addon namespace.
    pub namespaces: Vec<Namespace>,
    /// Registry credentials copied into the agent namespace (see [`Desired::pull_with`]).
    pub secrets: Vec<Secret>,
    /// The agents' ServiceAccounts.
    pub service_accounts: Vec<ServiceAccount>,
    /// Cluster-wide rules of both agents.
    pub cluster_roles: Vec<ClusterRole>,
    /// Bindings of the cluster-wide rules.
    pub cluster_role_bindings: Vec<ClusterRoleBinding>,
    /// The registration agent's rules in the agent namespace.
    pub roles: Vec<Role>,
    /// Bindings of the namespaced rules.
    pub role_bindings: Vec<RoleBinding>,
    /// The registration and work agents, or the one agent of Singleton mode (last: they
    /// need everything above).
    pub deployments: Vec<Deployment>,
    /// Agent Deployments of the other mode, deleted once these are applied (a Klusterlet
    /// switched between Default and Singleton, as upstream's operator switches it).
    pub retired: Vec<&'static str>,
}

impl Desired {
    /// The agents pull their image with `credentials` (the import manifests'
    /// `open-cluster-management-image-pull-credentials` in the operator's namespace), as
    /// upstream's operator does: their ServiceAccounts name it, and a copy goes to the
    /// agent namespace when that is not the operator's own.
    pub fn pull_with(&mut self, klusterlet: &Klusterlet, credentials: &Secret) {
        let namespace = klusterlet.spec.agent_namespace();
        if credentials.metadata.namespace.as_deref() != Some(namespace) {
            self.secrets.push(Secret {
                metadata: namespaced_meta(namespace, IMAGE_PULL_SECRET)
                    .with_labels(labels([(LABEL_KLUSTERLET, klusterlet.name_any().as_str())])),
                type_: credentials.type_.clone(),
                data: credentials.data.clone(),
                ..Secret::default()
            });
        }
        for account in &mut self.service_accounts {
            account.image_pull_secrets = Some(vec![LocalObjectReference { name: IMAGE_PULL_SECRET.into() }]);
        }
    }
}

/// The addon namespace of an agent namespace: `<namespace>-addon`.
pub fn addon_namespace(agent_namespace: &str) -> String {
    format!("{agent_namespace}-addon")
}

/// The image of one agent: its own pull spec, else the Klusterlet's `imagePullSpec`, else
/// this build's fleetctl image.
fn image(own: &str, klusterlet: &Klusterlet) -> String {
    [own, klusterlet.spec.image_pull_spec.as_str()]
        .into_iter()
        .find(|i| !i.is_empty())
        .map_or_else(|| names::image(DEFAULT_REPOSITORY, VERSION), str::to_owned)
}

/// The AppliedManifestWork CRD with a digest of its spec (see [`crd_is_current`]); the
/// same for every Klusterlet, so it is built once.
fn applied_manifest_work_crd() -> &'static CustomResourceDefinition {
    static CRD: OnceLock<CustomResourceDefinition> = OnceLock::new();
    CRD.get_or_init(|| {
        let mut crd = crds::applied_manifest_work();
        let spec = document(&crd.spec).to_string();
        let digest = Sha256::digest(spec.as_bytes()).iter().map(|b| format!("{b:02x}")).collect::<String>();
        crd.metadata.annotations = Some([(ANNOTATION_SPEC_HASH.to_owned(), digest)].into());
        crd
    })
}

/// What every mode's agents are started with: the Klusterlet's uid (an agent id) and the
/// args of the certificate lifetime it asks for; refused without a uid, a cluster name, or
/// with a lifetime below the API's minimum.
fn agent_inputs(klusterlet: &Klusterlet) -> Result<(String, Vec<String>), RenderError> {
    let uid = klusterlet.uid().ok_or(RenderError::NoUid)?;
    if klusterlet.spec.cluster_name.is_empty() {
        return Err(RenderError::NoClusterName);
    }
    let expiration =
        klusterlet.spec.registration_configuration.as_ref().map_or(0, |c| c.client_cert_expiration_seconds);
    let expiration_args = match expiration {
        0 => Vec::new(),
        seconds if seconds < MIN_CLIENT_CERT_EXPIRATION_SECONDS => {
            return Err(RenderError::CertExpirationTooShort(seconds));
        }
        seconds => vec!["--client-cert-expiration-seconds".to_string(), seconds.to_string()],
    };
    Ok((uid, expiration_args))
}

/// `fleetctld agent ROLE --cluster-name C`.
fn agent_args(klusterlet: &Klusterlet, role: &str) -> [String; 4] {
    ["agent", role, "--cluster-name", &klusterlet.spec.cluster_name].map(str::to_string)
}

/// Renders the desired objects of a Klusterlet.
pub fn render(klusterlet: &Klusterlet) -> Result<Desired, RenderError> {
    let (uid, expiration_args) = agent_inputs(klusterlet)?;
    let mode = &klusterlet.spec.deploy_option.mode;
    let singleton = match mode {
        InstallMode::Default => false,
        InstallMode::Singleton => true,
        // Hosted has its own rendering (`render_hosted`).
        other => return Err(RenderError::UnsupportedMode(other.to_string())),
    };
    let name = klusterlet.name_any();
    let namespace = klusterlet.spec.agent_namespace();
    let addon_ns = addon_namespace(namespace);
    let ours = || labels([(LABEL_KLUSTERLET, name.as_str())]);
    let cluster_scoped = |object: &str| meta(object).with_labels(ours());
    let in_namespace = |ns: &str, object: &str| namespaced_meta(ns, object).with_labels(ours());
    // Upstream's Singleton mode runs both agents as the work agent's ServiceAccount.
    let registration_account = if singleton { WORK_SERVICE_ACCOUNT } else { REGISTRATION_SERVICE_ACCOUNT };
    let subject = |account: &str| vec![objects::service_account_subject(namespace, account)];
    let agent_args = |role: &str| agent_args(klusterlet, role);
    let id_args = ["--agent-id".to_string(), uid];
    let (deployments, retired) = if singleton {
        // One agent with the Klusterlet's uid as its id, as upstream's `klusterlet-agent`.
        let args = [&agent_args("singleton")[..], &id_args, &expiration_args].concat();
        let agent = AgentDeployment {
            name: SINGLETON_DEPLOYMENT.into(),
            namespace: namespace.into(),
            app: SINGLETON_DEPLOYMENT,
            container: SINGLETON_DEPLOYMENT,
            service_account: WORK_SERVICE_ACCOUNT.into(),
            image: image("", klusterlet),
            args,
            spoke_secret: None,
        };
        (vec![deployment(klusterlet, agent)], vec![REGISTRATION_DEPLOYMENT, WORK_DEPLOYMENT])
    } else {
        // The registration agent has no id given, as upstream's: it keeps the one its hub
        // kubeconfig secret names, so that a klusterlet taken over from another operator keeps
        // its registration; the work agent records its AppliedManifestWorks under the
        // Klusterlet's uid, as upstream's.
        let registration = AgentDeployment {
            name: REGISTRATION_DEPLOYMENT.into(),
            namespace: namespace.into(),
            app: REGISTRATION_DEPLOYMENT,
            container: "registration-controller",
            service_account: REGISTRATION_SERVICE_ACCOUNT.into(),
            image: image(&klusterlet.spec.registration_image_pull_spec, klusterlet),
            args: [&agent_args("registration")[..], &expiration_args].concat(),
            spoke_secret: None,
        };
        let work = AgentDeployment {
            name: WORK_DEPLOYMENT.into(),
            namespace: namespace.into(),
            app: WORK_AGENT_APP,
            container: "klusterlet-manifestwork-agent",
            service_account: WORK_SERVICE_ACCOUNT.into(),
            image: image(&klusterlet.spec.work_image_pull_spec, klusterlet),
            args: [&agent_args("work")[..], &id_args].concat(),
            spoke_secret: None,
        };
        (vec![deployment(klusterlet, registration), deployment(klusterlet, work)], vec![SINGLETON_DEPLOYMENT])
    };
    let accounts: &[&str] =
        if singleton { &[WORK_SERVICE_ACCOUNT] } else { &[REGISTRATION_SERVICE_ACCOUNT, WORK_SERVICE_ACCOUNT] };
    Ok(Desired {
        crd: Some(applied_manifest_work_crd().clone()),
        namespaces: [namespace, &addon_ns].map(|ns| objects::namespace(cluster_scoped(ns))).to_vec(),
        secrets: Vec::new(),
        service_accounts: accounts.iter().map(|sa| objects::service_account(in_namespace(namespace, sa))).collect(),
        cluster_roles: vec![
            objects::cluster_role(cluster_scoped(REGISTRATION_CLUSTER_ROLE), registration_cluster_rules(&name)),
            objects::cluster_role(cluster_scoped(WORK_ROLE), work_cluster_rules()),
        ],
        cluster_role_bindings: vec![
            objects::cluster_role_binding(
                cluster_scoped(REGISTRATION_CLUSTER_ROLE),
                REGISTRATION_CLUSTER_ROLE,
                subject(registration_account),
            ),
            objects::cluster_role_binding(cluster_scoped(WORK_ROLE), WORK_ROLE, subject(WORK_SERVICE_ACCOUNT)),
        ],
        roles: vec![
            objects::role(in_namespace(namespace, REGISTRATION_ROLE), registration_namespace_rules()),
            objects::role(in_namespace(&addon_ns, REGISTRATION_ADDON_ROLE), registration_addon_rules()),
        ],
        role_bindings: vec![
            objects::role_binding(
                in_namespace(namespace, REGISTRATION_ROLE),
                REGISTRATION_ROLE,
                subject(registration_account),
            ),
            objects::role_binding(
                in_namespace(&addon_ns, REGISTRATION_ADDON_ROLE),
                REGISTRATION_ADDON_ROLE,
                subject(registration_account),
            ),
        ],
        deployments,
        retired,
    })
}

/// What the operator keeps for a Hosted Klusterlet `K`, as upstream's operator lays it out: the
/// agents run on this (the management) cluster in the namespace `K`, and reach the managed
/// cluster with tokens of ServiceAccounts the operator makes there.
#[derive(Debug, Clone)]
pub struct Hosted {
    /// On the managed cluster, through [`EXTERNAL_MANAGED_KUBECONFIG`]: the AppliedManifestWork
    /// CRD, the klusterlet namespace (the Klusterlet's `spec.namespace`) and the addon namespace, the
    /// agents' ServiceAccounts there and their cluster-wide rules.
    pub spoke: Desired,
    /// On this cluster: the agents' ServiceAccounts and rules in `K`, and their Deployments.
    pub management: Desired,
    /// For each agent: its ServiceAccount on the managed cluster (in [`Hosted::spoke_namespace`])
    /// and the Secret in `K` that holds a kubeconfig with its token.
    pub kubeconfigs: [(String, String); 2],
    /// The klusterlet namespace on the managed cluster.
    pub spoke_namespace: String,
    /// The registration agent's Deployment (in `K`).
    pub registration_deployment: String,
}

/// Renders a Hosted Klusterlet (see [`Hosted`]): names from the Klusterlet's, as upstream's
/// (`K-registration-agent`, `K-registration-sa`, `open-cluster-management:K-work:agent`…).
pub fn render_hosted(klusterlet: &Klusterlet) -> Result<Hosted, RenderError> {
    let (uid, expiration_args) = agent_inputs(klusterlet)?;
    let name = klusterlet.name_any();
    let ours = || labels([(LABEL_KLUSTERLET, name.as_str())]);
    let cluster_scoped = |object: &str| meta(object).with_labels(ours());
    let in_namespace = |ns: &str, object: &str| namespaced_meta(ns, object).with_labels(ours());
    let spoke_namespace = klusterlet.spec.agent_namespace().to_string();
    let addon_ns = addon_namespace(DEFAULT_AGENT_NAMESPACE);
    let registration_sa = format!("{name}-registration-sa");
    let work_sa = format!("{name}-work-sa");
    let registration_role = format!("open-cluster-management:{name}-registration:agent");
    let work_role = format!("open-cluster-management:{name}-work:agent");
    let management_role = format!("open-cluster-management:management:{name}-registration:agent");
    let secret_of = |agent: &str| format!("{EXTERNAL_MANAGED_KUBECONFIG}-{agent}");
    let subject = |ns: &str, account: &str| vec![objects::service_account_subject(ns, account)];
    let agent_args = |role: &str| agent_args(klusterlet, role);
    let spoke = Desired {
        crd: Some(applied_manifest_work_crd().clone()),
        namespaces: [spoke_namespace.as_str(), &addon_ns].map(|ns| objects::namespace(cluster_scoped(ns))).to_vec(),
        secrets: Vec::new(),
        service_accounts: [&registration_sa, &work_sa]
            .map(|sa| objects::service_account(in_namespace(&spoke_namespace, sa)))
            .to_vec(),
        cluster_roles: vec![
            objects::cluster_role(cluster_scoped(&registration_role), spoke_registration_rules()),
            objects::cluster_role(cluster_scoped(&work_role), work_cluster_rules()),
        ],
        cluster_role_bindings: vec![
            objects::cluster_role_binding(
                cluster_scoped(&registration_role),
                &registration_role,
                subject(&spoke_namespace, &registration_sa),
            ),
            objects::cluster_role_binding(cluster_scoped(&work_role), &work_role, subject(&spoke_namespace, &work_sa)),
        ],
        roles: vec![objects::role(in_namespace(&addon_ns, &registration_role), registration_addon_rules())],
        role_bindings: vec![objects::role_binding(
            in_namespace(&addon_ns, &registration_role),
            &registration_role,
            subject(&spoke_namespace, &registration_sa),
        )],
        deployments: Vec::new(),
        retired: Vec::new(),
    };
    let registration_deployment = format!("{name}-registration-agent");
    let registration = AgentDeployment {
        name: registration_deployment.clone(),
        namespace: name.clone(),
        app: REGISTRATION_DEPLOYMENT,
        container: "registration-controller",
        service_account: registration_sa.clone(),
        image: image(&klusterlet.spec.registration_image_pull_spec, klusterlet),
        args: [&agent_args("registration")[..], &["--klusterlet".to_string(), name.clone()], &expiration_args].concat(),
        spoke_secret: Some(secret_of("registration")),
    };
    let work = AgentDeployment {
        name: format!("{name}-work-agent"),
        namespace: name.clone(),
        app: WORK_AGENT_APP,
        container: "klusterlet-manifestwork-agent",
        service_account: work_sa.clone(),
        image: image(&klusterlet.spec.work_image_pull_spec, klusterlet),
        args: [&agent_args("work")[..], &["--agent-id".to_string(), uid]].concat(),
        spoke_secret: Some(secret_of("work")),
    };
    let management = Desired {
        crd: None,
        namespaces: Vec::new(),
        secrets: Vec::new(),
        service_accounts: [&registration_sa, &work_sa]
            .map(|sa| objects::service_account(in_namespace(&name, sa)))
            .to_vec(),
        // The registration agent's Klusterlet, where it runs.
        cluster_roles: vec![objects::cluster_role(cluster_scoped(&management_role), klusterlet_rules(&name))],
        cluster_role_bindings: vec![objects::cluster_role_binding(
            cluster_scoped(&management_role),
            &management_role,
            subject(&name, &registration_sa),
        )],
        roles: vec![
            objects::role(in_namespace(&name, &management_role), registration_namespace_rules()),
            objects::role(in_namespace(&name, &work_role), work_namespace_rules()),
        ],
        role_bindings: vec![
            objects::role_binding(
                in_namespace(&name, &management_role),
                &management_role,
                subject(&name, &registration_sa),
            ),
            objects::role_binding(in_namespace(&name, &work_role), &work_role, subject(&name, &work_sa)),
        ],
        deployments: vec![deployment(klusterlet, registration), deployment(klusterlet, work)],
        retired: Vec::new(),
    };
    Ok(Hosted {
        spoke,
        management,
        kubeconfigs: [(registration_sa, secret_of("registration")), (work_sa, secret_of("work"))],
        spoke_namespace,
        registration_deployment,
    })
}

/// Whether the live CRD carries the spec the operator would apply. Re-applying an
/// unchanged CRD is not free: the schema is large, and some API servers (the dev cluster)
/// re-stamp a CRD's conditions on every write to it.
pub fn crd_is_current(live: &CustomResourceDefinition, desired: &CustomResourceDefinition) -> bool {
    let hash = |crd: &CustomResourceDefinition| crd.annotations().get(ANNOTATION_SPEC_HASH).cloned();
    hash(desired).is_some() && hash(live) == hash(desired)
}

/// The registration agent's cluster-wide rules: its own Klusterlet (it sets the
/// hub-notified annotation and may report status), nodes for the cluster's capacity, and
/// access reviews to learn what it may do.
fn registration_cluster_rules(klusterlet: &str) -> Vec<PolicyRule> {
    [klusterlet_rules(klusterlet), spoke_registration_rules()].concat()
}

/// The registration agent's rules on its Klusterlet (where the agent runs).
fn klusterlet_rules(klusterlet: &str) -> Vec<PolicyRule> {
    vec![
        // list/watch cannot be confined to one name without a field selector, and the agent
        // watches its Klusterlet; the write verbs are confined to it.
        rule(&[OPERATOR_GROUP], &["klusterlets"], &["get", "list", "watch"]),
        named_rule(&[OPERATOR_GROUP], &["klusterlets", "klusterlets/status"], &[klusterlet], &["update", "patch"]),
    ]
}

/// The registration agent's rules on the managed cluster: nodes for its capacity, and access
/// reviews to learn what it may do.
fn spoke_registration_rules() -> Vec<PolicyRule> {
    vec![
        rule(&[""], &["nodes"], &["list", "watch"]),
        rule(&["authorization.k8s.io"], &["selfsubjectaccessreviews"], &["create"]),
    ]
}

/// The registration agent's rules in the agent namespace: its hub credentials, the agents'
/// Deployments and pods (it reports the image the pods run as the klusterlet version, as
/// they change) and leases.
fn registration_namespace_rules() -> Vec<PolicyRule> {
    let write = &["get", "list", "watch", "create", "update", "patch"];
    vec![
        rule(&[""], &["secrets"], write),
        rule(&["apps"], &["deployments"], &["get"]),
        rule(&[""], &["pods"], &["get", "list", "watch"]),
        rule(&["coordination.k8s.io"], &["leases"], write),
    ]
}

/// The registration agent's rules in the addon namespace: it reads the addons' leases and
/// status ConfigMaps to relay them to the hub (`crate::registration::addons`).
fn registration_addon_rules() -> Vec<PolicyRule> {
    vec![
        rule(&["coordination.k8s.io"], &["leases"], &["get", "list", "watch"]),
        rule(&[""], &["configmaps"], &["get", "list", "watch"]),
    ]
}

/// The work agent applies whatever manifests the hub sends, so it may do anything; its
/// AppliedManifestWork records (with their finalizers and status) are named for clarity.
fn work_cluster_rules() -> Vec<PolicyRule> {
    vec![
        rule(&["*"], &["*"], &["*"]),
        rule(
            &[WORK_GROUP],
            &["appliedmanifestworks", "appliedmanifestworks/finalizers", "appliedmanifestworks/status"],
            &["get", "list", "watch", "create", "update", "patch", "delete"],
        ),
    ]
}

/// A Hosted work agent's rules where it runs: its hub kubeconfig secret.
fn work_namespace_rules() -> Vec<PolicyRule> {
    vec![rule(&[""], &["secrets"], &["get", "list", "watch"])]
}

/// What differs between the two agent Deployments.
struct AgentDeployment {
    name: String,
    namespace: String,
    /// The `app` label its selector matches, as upstream's klusterlet labels it.
    app: &'static str,
    container: &'static str,
    service_account: String,
    image: String,
    args: Vec<String>,
    /// The Secret holding the kubeconfig of the managed cluster, mounted at
    /// [`SPOKE_KUBECONFIG_DIR`], for an agent that runs outside it (Hosted mode).
    spoke_secret: Option<String>,
}

/// The container resources: the agents' small default requests unless the Klusterlet asks
/// for none (BestEffort) or for its own.
fn resources(klusterlet: &Klusterlet) -> ResourceRequirements {
    let default = objects::requests("2m", "16Mi");
    let Some(requirement) = &klusterlet.spec.resource_requirement else { return default };
    match requirement.type_ {
        ResourceQosClass::BestEffort => ResourceRequirements::default(),
        ResourceQosClass::ResourceRequirement => requirement.resource_requirements.clone().unwrap_or(default),
        ResourceQosClass::Default | ResourceQosClass::Other(_) => default,
    }
}

fn deployment(klusterlet: &Klusterlet, agent: AgentDeployment) -> Deployment {
    let probe = objects::http_probe("/healthz", AGENT_HEALTH_PORT, Some(2), 10);
    // Ready means serving: the work agent is not while it cannot reach the hub.
    let readiness = objects::http_probe("/readyz", AGENT_HEALTH_PORT, Some(2), 10);
    let mut args = agent.args;
    let mut volumes = None;
    let mut mounts = None;
    if let Some(secret) = &agent.spoke_secret {
        args.extend(["--spoke-kubeconfig".to_string(), format!("{SPOKE_KUBECONFIG_DIR}/kubeconfig")]);
        volumes = Some(vec![Volume {
            name: "spoke-kubeconfig".into(),
            secret: Some(SecretVolumeSource { secret_name: Some(secret.clone()), ..SecretVolumeSource::default() }),
            ..Volume::default()
        }]);
        mounts = Some(vec![VolumeMount {
            name: "spoke-kubeconfig".into(),
            mount_path: SPOKE_KUBECONFIG_DIR.into(),
            read_only: Some(true),
            ..VolumeMount::default()
        }]);
    }
    let container = Container {
        volume_mounts: mounts,
        env: Some(vec![
            objects::env_from_field("POD_NAMESPACE", "metadata.namespace"),
            objects::env("FLEETCTL_HEALTH_ADDR", &format!("0.0.0.0:{AGENT_HEALTH_PORT}")),
        ]),
        ports: Some(vec![objects::container_port("health", AGENT_HEALTH_PORT)]),
        liveness_probe: Some(probe),
        readiness_probe: Some(readiness),
        resources: Some(resources(klusterlet)),
        ..objects::container(agent.container, &agent.image, args)
    };
    let placement = &klusterlet.spec.node_placement;
    let pod = PodSpec {
        service_account_name: Some(agent.service_account),
        containers: vec![container],
        volumes,
        node_selector: (!placement.node_selector.is_empty()).then(|| placement.node_selector.clone()),
        tolerations: (!placement.tolerations.is_empty()).then(|| placement.tolerations.clone()),
        priority_class_name: Some(klusterlet.spec.priority_class_name.clone()).filter(|p| !p.is_empty()),
        host_aliases: klusterlet
            .spec
            .hub_api_server_host_alias
            .as_ref()
            .map(|alias| vec![HostAlias { ip: alias.ip.clone(), hostnames: Some(vec![alias.hostname.clone()]) }]),
        ..PodSpec::default()
    };
    let meta = namespaced_meta(&agent.namespace, &agent.name)
        .with_labels(labels([("app", agent.app), (LABEL_KLUSTERLET, &klusterlet.name_any())]));
    objects::deployment(meta, agent.app, BTreeMap::new(), pod)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Container;

    use fleetctl_api::names::AGENT_NAMESPACE;

    use super::*;
    use fleetctl_api::KlusterletSpec;

    fn klusterlet() -> Klusterlet {
        let mut k = Klusterlet::new(
            "klusterlet",
            KlusterletSpec {
                cluster_name: "c1".into(),
                registration_image_pull_spec: "quay.io/fleetctl/fleetctl:0.1.0".into(),
                work_image_pull_spec: "quay.io/fleetctl/fleetctl:0.1.1".into(),
                image_pull_spec: "quay.io/fleetctl/fleetctl:0.0.9".into(),
                ..KlusterletSpec::default()
            },
        );
        k.metadata.uid = Some("uid-1".into());
        k
    }

    fn container(d: &Deployment) -> &Container {
        &d.spec.as_ref().unwrap().template.spec.as_ref().unwrap().containers[0]
    }

    #[test]
    fn a_requested_certificate_lifetime_reaches_only_the_registration_agent_and_must_be_at_least_600_s() {
        let with_expiration = |seconds: i32| {
            let mut k = klusterlet();
            k.spec.registration_configuration = Some(fleetctl_api::operator::RegistrationConfiguration {
                client_cert_expiration_seconds: seconds,
                ..Default::default()
            });
            render(&k)
        };
        let desired = with_expiration(600).unwrap();
        let [registration, work] = &desired.deployments[..] else { panic!("two deployments") };
        let args = container(registration).args.clone().unwrap();
        assert_eq!(args[4..], ["--client-cert-expiration-seconds", "600"]);
        assert!(!container(work).args.clone().unwrap().iter().any(|a| a.contains("expiration")));
        assert!(matches!(with_expiration(599), Err(RenderError::CertExpirationTooShort(599))));
        let default = with_expiration(0).unwrap();
        assert_eq!(container(&default.deployments[0]).args.clone().unwrap().len(), 4);
    }

    #[test]
    fn the_work_agent_is_the_klusterlet_uid_and_the_registration_agent_keeps_its_secrets_id_as_upstreams_operator_renders_them()
     {
        let desired = render(&klusterlet()).unwrap();
        let [registration, work] = &desired.deployments[..] else { panic!("two deployments") };
        assert_eq!(registration.metadata.name.as_deref(), Some(REGISTRATION_DEPLOYMENT));
        assert_eq!(registration.metadata.namespace.as_deref(), Some("open-cluster-management-agent"));
        let args = container(registration).args.clone().unwrap();
        assert_eq!(args, ["agent", "registration", "--cluster-name", "c1"]);
        assert_eq!(container(registration).image.as_deref(), Some("quay.io/fleetctl/fleetctl:0.1.0"));
        assert_eq!(work.metadata.name.as_deref(), Some(WORK_DEPLOYMENT));
        assert_eq!(
            container(work).args.clone().unwrap(),
            ["agent", "work", "--cluster-name", "c1", "--agent-id", "uid-1"]
        );
        assert_eq!(container(work).image.as_deref(), Some("quay.io/fleetctl/fleetctl:0.1.1"));
        let pod = registration.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
        assert_eq!(pod.service_account_name.as_deref(), Some(REGISTRATION_SERVICE_ACCOUNT));
        let env = container(registration).env.clone().unwrap();
        let pod_namespace = env.iter().find(|e| e.name == "POD_NAMESPACE").unwrap();
        let field = pod_namespace.value_from.as_ref().unwrap().field_ref.as_ref().unwrap();
        assert_eq!(field.field_path, "metadata.namespace");
        assert_eq!(registration.labels().get("app").map(String::as_str), Some(REGISTRATION_DEPLOYMENT));
        assert_eq!(registration.labels().get(LABEL_KLUSTERLET).map(String::as_str), Some("klusterlet"));
    }

    #[test]
    fn the_agents_are_selected_by_upstreams_app_labels_so_either_operator_updates_them_in_place() {
        let desired = render(&klusterlet()).unwrap();
        let selected = |d: &Deployment| {
            d.spec.as_ref().and_then(|s| s.selector.match_labels.clone()).unwrap_or_default().get("app").cloned()
        };
        let [registration, work] = &desired.deployments[..] else { panic!("two agents") };
        assert_eq!(selected(registration).as_deref(), Some("klusterlet-registration-agent"));
        assert_eq!(selected(work).as_deref(), Some("klusterlet-manifestwork-agent"));
        assert_eq!(work.metadata.name.as_deref(), Some("klusterlet-work-agent"), "upstream's name too");
    }

    #[test]
    fn images_fall_back_to_the_klusterlet_image_then_to_this_build() {
        let mut k = klusterlet();
        k.spec.work_image_pull_spec.clear();
        assert_eq!(
            container(&render(&k).unwrap().deployments[1]).image.as_deref(),
            Some("quay.io/fleetctl/fleetctl:0.0.9")
        );
        k.spec.image_pull_spec.clear();
        let fallback = names::image(DEFAULT_REPOSITORY, VERSION);
        assert_eq!(container(&render(&k).unwrap().deployments[1]).image.as_deref(), Some(fallback.as_str()));
    }

    #[test]
    fn a_custom_namespace_moves_everything_namespaced_and_names_the_addon_namespace() {
        let mut k = klusterlet();
        k.spec.namespace = "open-cluster-management-other".into();
        let desired = render(&k).unwrap();
        let names: Vec<_> = desired.namespaces.iter().map(ResourceExt::name_any).collect();
        assert_eq!(names, ["open-cluster-management-other", "open-cluster-management-other-addon"]);
        assert!(desired.deployments.iter().all(|d| d.namespace().as_deref() == Some("open-cluster-management-other")));
        assert!(
            desired.service_accounts.iter().all(|s| s.namespace().as_deref() == Some("open-cluster-management-other"))
        );
        let subject = &desired.cluster_role_bindings[0].subjects.as_ref().unwrap()[0];
        assert_eq!(subject.namespace.as_deref(), Some("open-cluster-management-other"));
    }

    #[test]
    fn the_default_namespaces_are_the_agent_and_addon_namespaces() {
        let desired = render(&klusterlet()).unwrap();
        let names: Vec<_> = desired.namespaces.iter().map(ResourceExt::name_any).collect();
        assert_eq!(names, ["open-cluster-management-agent", "open-cluster-management-agent-addon"]);
        let accounts: Vec<_> = desired.service_accounts.iter().map(ResourceExt::name_any).collect();
        assert_eq!(accounts, [REGISTRATION_SERVICE_ACCOUNT, WORK_SERVICE_ACCOUNT]);
        assert_eq!(desired.crd.unwrap().metadata.name.as_deref(), Some(APPLIED_MANIFEST_WORK_CRD));
    }

    #[test]
    fn the_registration_agent_gets_only_what_it_needs() {
        let desired = render(&klusterlet()).unwrap();
        let namespaced = desired.roles[0].rules.clone().unwrap();
        let secrets = namespaced.iter().find(|r| r.resources.as_ref().unwrap().contains(&"secrets".into())).unwrap();
        assert_eq!(secrets.verbs, ["get", "list", "watch", "create", "update", "patch"]);
        let deployments =
            namespaced.iter().find(|r| r.resources.as_ref().unwrap().contains(&"deployments".into())).unwrap();
        assert_eq!(deployments.verbs, ["get"]);
        let cluster = desired.cluster_roles[0].rules.clone().unwrap();
        assert!(cluster.iter().all(|r| !r.verbs.contains(&"*".into())), "no wildcard verbs");
        let writes = cluster.iter().find(|r| r.verbs.contains(&"patch".into())).unwrap();
        assert_eq!(writes.resource_names.clone().unwrap(), ["klusterlet"]);
        assert_eq!(writes.resources.clone().unwrap(), ["klusterlets", "klusterlets/status"]);
        let binding = &desired.role_bindings[0];
        assert_eq!(binding.subjects.as_ref().unwrap()[0].name, REGISTRATION_SERVICE_ACCOUNT);
        assert_eq!(binding.role_ref.kind, "Role");
    }

    #[test]
    fn the_work_agent_may_apply_anything() {
        let desired = render(&klusterlet()).unwrap();
        let role = &desired.cluster_roles[1];
        assert_eq!(role.name_any(), WORK_ROLE);
        let rules = role.rules.clone().unwrap();
        assert_eq!(rules[0].verbs, ["*"]);
        assert_eq!(rules[0].resources.clone().unwrap(), ["*"]);
        assert!(rules[1].resources.clone().unwrap().contains(&"appliedmanifestworks/finalizers".into()));
        let binding = &desired.cluster_role_bindings[1];
        assert_eq!(binding.role_ref.name, WORK_ROLE);
        assert_eq!(binding.subjects.as_ref().unwrap()[0].name, WORK_SERVICE_ACCOUNT);
    }

    #[test]
    fn placement_priority_and_resources_reach_the_pods() {
        let mut k = klusterlet();
        k.spec.node_placement.node_selector.insert("role".into(), "infra".into());
        k.spec.priority_class_name = "klusterlet-critical".into();
        k.spec.resource_requirement = Some(fleetctl_api::operator::ResourceRequirement {
            type_: ResourceQosClass::BestEffort,
            resource_requirements: None,
        });
        let desired = render(&k).unwrap();
        let pod = desired.deployments[0].spec.as_ref().unwrap().template.spec.clone().unwrap();
        assert_eq!(pod.node_selector.unwrap()["role"], "infra");
        assert_eq!(pod.priority_class_name.as_deref(), Some("klusterlet-critical"));
        assert_eq!(pod.containers[0].resources.clone().unwrap_or_default(), Default::default());
        let default = container(&render(&klusterlet()).unwrap().deployments[0]).resources.clone().unwrap();
        assert!(default.requests.unwrap().contains_key("cpu"));
    }

    #[test]
    fn what_cannot_be_deployed_is_refused() {
        let mut no_name = klusterlet();
        no_name.spec.cluster_name.clear();
        assert!(matches!(render(&no_name), Err(RenderError::NoClusterName)));
        let mut no_uid = klusterlet();
        no_uid.metadata.uid = None;
        assert!(matches!(render(&no_uid), Err(RenderError::NoUid)));
        let mut hosted = klusterlet();
        hosted.spec.deploy_option.mode = InstallMode::Hosted;
        assert!(matches!(render(&hosted), Err(RenderError::UnsupportedMode(m)) if m == "Hosted"));
    }

    #[test]
    fn the_crd_is_current_only_with_the_same_spec_digest() {
        let desired = render(&klusterlet()).unwrap().crd.unwrap();
        assert_eq!(desired.annotations()[ANNOTATION_SPEC_HASH].len(), 64);
        assert!(crd_is_current(&desired.clone(), &desired));
        let mut stale = desired.clone();
        stale.annotations_mut().insert(ANNOTATION_SPEC_HASH.into(), "old".into());
        assert!(!crd_is_current(&stale, &desired));
        let mut unmarked = desired.clone();
        unmarked.metadata.annotations = None;
        assert!(!crd_is_current(&unmarked, &desired));
    }

    #[test]
    fn the_agents_pull_with_the_import_credentials_copied_only_into_another_namespace() {
        let credentials = Secret {
            metadata: namespaced_meta(AGENT_NAMESPACE, IMAGE_PULL_SECRET),
            type_: Some("kubernetes.io/dockerconfigjson".into()),
            ..Secret::default()
        };
        let mut same = render(&klusterlet()).unwrap();
        same.pull_with(&klusterlet(), &credentials);
        assert!(same.secrets.is_empty(), "the operator's namespace already holds it");
        for account in &same.service_accounts {
            let pulls = account.image_pull_secrets.as_ref().expect("imagePullSecrets");
            assert_eq!(pulls[0].name, IMAGE_PULL_SECRET);
        }
        let mut k = klusterlet();
        k.spec.namespace = "open-cluster-management-other".into();
        let mut other = render(&k).unwrap();
        other.pull_with(&k, &credentials);
        assert_eq!(other.secrets.len(), 1);
        assert_eq!(other.secrets[0].namespace().as_deref(), Some("open-cluster-management-other"));
        assert_eq!(other.secrets[0].type_.as_deref(), Some("kubernetes.io/dockerconfigjson"));
    }

    #[test]
    fn singleton_mode_runs_one_agent_as_upstreams_klusterlet_agent_with_the_work_service_account_and_retires_the_two() {
        let mut k = klusterlet();
        k.spec.deploy_option.mode = InstallMode::Singleton;
        k.spec.registration_configuration = Some(fleetctl_api::operator::RegistrationConfiguration {
            client_cert_expiration_seconds: 3600,
            ..Default::default()
        });
        let desired = render(&k).unwrap();
        let [agent] = &desired.deployments[..] else { panic!("one agent") };
        assert_eq!(agent.metadata.name.as_deref(), Some(SINGLETON_DEPLOYMENT));
        assert_eq!(agent.labels().get("app").map(String::as_str), Some("klusterlet-agent"));
        assert_eq!(
            container(agent).args.clone().unwrap(),
            [
                "agent",
                "singleton",
                "--cluster-name",
                "c1",
                "--agent-id",
                "uid-1",
                "--client-cert-expiration-seconds",
                "3600"
            ]
        );
        assert_eq!(container(agent).image.as_deref(), Some("quay.io/fleetctl/fleetctl:0.0.9"), "spec.imagePullSpec");
        let pod = agent.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
        assert_eq!(pod.service_account_name.as_deref(), Some(WORK_SERVICE_ACCOUNT));
        let accounts: Vec<_> = desired.service_accounts.iter().map(ResourceExt::name_any).collect();
        assert_eq!(accounts, [WORK_SERVICE_ACCOUNT]);
        let bound =
            |subjects: &Option<Vec<k8s_openapi::api::rbac::v1::Subject>>| subjects.as_ref().unwrap()[0].name.clone();
        assert!(desired.cluster_role_bindings.iter().all(|b| bound(&b.subjects) == WORK_SERVICE_ACCOUNT));
        assert!(desired.role_bindings.iter().all(|b| bound(&b.subjects) == WORK_SERVICE_ACCOUNT));
        assert_eq!(desired.retired, [REGISTRATION_DEPLOYMENT, WORK_DEPLOYMENT]);
        assert_eq!(render(&klusterlet()).unwrap().retired, [SINGLETON_DEPLOYMENT], "and back");
    }

    #[test]
    fn rendering_is_stable() {
        let a = serde_json::to_value(render(&klusterlet()).unwrap().deployments).unwrap();
        let b = serde_json::to_value(render(&klusterlet()).unwrap().deployments).unwrap();
        assert_eq!(a, b);
    }
}
