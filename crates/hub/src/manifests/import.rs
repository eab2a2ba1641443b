//! The import manifests of one managed cluster, in the objects and order upstream's
//! import controller renders: the agent namespace first, then RBAC, the bootstrap
//! kubeconfig, the ServiceAccount and the operator Deployment, and the Klusterlet last.

use std::collections::BTreeMap;

use fleetctl_api::names::{
    AGENT_NAMESPACE, ANNOTATION_RECOVER_AFTER, BOOTSTRAP_SECRET, IMAGE_PULL_SECRET, KLUSTERLET, RECOVERY_HUB_SECRET,
    hosted_klusterlet, hosted_klusterlet_namespace,
};
use fleetctl_api::operator::{
    ClusterClaimConfiguration, InstallMode, KlusterletDeployOption, RegistrationConfiguration,
};
use fleetctl_api::{Klusterlet, KlusterletSpec, OPERATOR_GROUP, WORK_GROUP};
use fleetctl_kube::kubeconfig::{self, Credentials, Names};
use fleetctl_kube::objects::{self, MetaExt, document, labels, meta, namespaced_meta, rule};
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, LocalObjectReference, PodSpec, Probe, Secret};
use k8s_openapi::api::rbac::v1::PolicyRule;
use kube::config::Kubeconfig;
use serde_json::Value;

/// The Secret type of registry credentials, and its key.
const DOCKER_CONFIG_JSON: &str = "kubernetes.io/dockerconfigjson";
/// The key of a `kubernetes.io/dockerconfigjson` Secret.
const DOCKER_CONFIG_JSON_KEY: &str = ".dockerconfigjson";
/// Port of the operator's `/healthz`.
const OPERATOR_HEALTH_PORT: u16 = 8443;
/// Claim suffixes the registration agent reserves, as upstream's import controller sets.
const RESERVED_CLAIM_SUFFIXES: [&str; 2] = ["openshift.io", "open-cluster-management.io"];

/// What the manifests of one cluster depend on.
#[derive(Debug, Clone)]
pub struct ImportInputs<'a> {
    /// The managed cluster's name.
    pub cluster: &'a str,
    /// The hub API server URL the agents dial.
    pub hub_url: &'a str,
    /// The hub CA bundle, PEM.
    pub hub_ca_pem: &'a str,
    /// The bootstrap token (TokenRequest of `<cluster>-bootstrap-sa`).
    pub token: &'a str,
    /// The fleetctl image the operator and the agents run.
    pub image: &'a str,
    /// The registry credentials (a `.dockerconfigjson`) the image is pulled with, if the
    /// registry needs any.
    pub image_pull_secret: Option<&'a ByteString>,
    /// How the klusterlet runs its agents: Default (registration and work), Singleton, or
    /// Hosted (on another managed cluster).
    pub mode: InstallMode,
    /// The fleet's recovery hub for this cluster, if it has one.
    pub recovery: Option<&'a Recovery>,
}

/// What the klusterlet turns to when its hub stays silent: the recovery hub's bootstrap
/// kubeconfig for the cluster, and after how long (a duration, as the annotation carries it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// The kubeconfig (YAML).
    pub kubeconfig: String,
    /// How long the hub may stay silent first.
    pub recover_after: String,
}

/// The bootstrap kubeconfig, shaped as upstream's (`default-cluster`, `default-auth`,
/// `default-context` in namespace `default`).
pub fn bootstrap_kubeconfig(hub_url: &str, hub_ca_pem: &str, token: &str) -> Kubeconfig {
    let names = Names { cluster: "default-cluster", user: "default-auth", context: "default-context" };
    let mut config = kubeconfig::single(names, hub_url, hub_ca_pem, Credentials::Token(token.to_string()));
    for context in config.contexts.iter_mut().filter_map(|c| c.context.as_mut()) {
        context.namespace = Some("default".into());
    }
    config
}

/// The objects of `import.yaml`, in order.
pub fn objects(inputs: &ImportInputs<'_>) -> Vec<Value> {
    let kubeconfig = kubeconfig::to_yaml(&bootstrap_kubeconfig(inputs.hub_url, inputs.hub_ca_pem, inputs.token));
    if inputs.mode == InstallMode::Hosted {
        return hosted_objects(inputs, kubeconfig);
    }
    let namespace = objects::namespace(
        meta(AGENT_NAMESPACE).with_annotations(labels([("workload.openshift.io/allowed", "management")])),
    );
    let operator = [objects::service_account_subject(AGENT_NAMESPACE, KLUSTERLET)];
    let mut account = objects::service_account(namespaced_meta(AGENT_NAMESPACE, KLUSTERLET));
    let mut objects = vec![
        document(&namespace),
        document(&objects::cluster_role(meta(KLUSTERLET), operator_rules())),
        document(&objects::cluster_role_binding(meta(KLUSTERLET), KLUSTERLET, operator.to_vec())),
        document(&objects::opaque_secret(
            namespaced_meta(AGENT_NAMESPACE, BOOTSTRAP_SECRET),
            BTreeMap::from([("kubeconfig".to_string(), kubeconfig)]),
        )),
    ];
    if let Some(recovery) = inputs.recovery {
        let meta = namespaced_meta(AGENT_NAMESPACE, RECOVERY_HUB_SECRET)
            .with_annotations(labels([(ANNOTATION_RECOVER_AFTER, recovery.recover_after.as_str())]));
        let data = BTreeMap::from([("kubeconfig".to_string(), recovery.kubeconfig.clone())]);
        objects.push(document(&objects::opaque_secret(meta, data)));
    }
    if let Some(credentials) = inputs.image_pull_secret {
        objects.push(document(&pull_secret(credentials)));
        account.image_pull_secrets = Some(vec![LocalObjectReference { name: IMAGE_PULL_SECRET.into() }]);
    }
    objects.extend([
        document(&account),
        document(&operator_deployment(inputs.image)),
        document(&klusterlet(inputs)),
        document(&objects::cluster_role(
            meta("klusterlet-bootstrap-kubeconfig"),
            vec![objects::named_rule(&[""], &["secrets"], &[BOOTSTRAP_SECRET], &["get", "update"])],
        )),
    ]);
    objects
}

/// The objects of a Hosted-mode `import.yaml`, as ACM's import controller renders them for the
/// hosting cluster: the agents' namespace `klusterlet-<c>`, the bootstrap kubeconfig in it, and
/// the Hosted Klusterlet `klusterlet-<c>` (no operator: the hosting cluster's runs it).
fn hosted_objects(inputs: &ImportInputs<'_>, kubeconfig: String) -> Vec<Value> {
    let agents = hosted_klusterlet(inputs.cluster);
    let mut klusterlet = klusterlet(inputs);
    klusterlet.metadata.name = Some(agents.clone());
    klusterlet.spec.namespace = hosted_klusterlet_namespace(inputs.cluster);
    vec![
        document(&objects::namespace(meta(&agents))),
        document(&objects::opaque_secret(
            namespaced_meta(&agents, BOOTSTRAP_SECRET),
            BTreeMap::from([("kubeconfig".to_string(), kubeconfig)]),
        )),
        document(&klusterlet),
    ]
}

/// The `.dockerconfigjson` of a Secret named as registry credentials, or what keeps it
/// from being usable as one (a phrase that follows the Secret's name).
pub fn docker_config(secret: &Secret) -> Result<&ByteString, &'static str> {
    if secret.type_.as_deref() != Some(DOCKER_CONFIG_JSON) {
        return Err("is not of type kubernetes.io/dockerconfigjson");
    }
    secret.data.as_ref().and_then(|data| data.get(DOCKER_CONFIG_JSON_KEY)).ok_or("has no .dockerconfigjson key")
}

/// The registry credentials in the agent namespace, where the operator's ServiceAccount
/// (and through the operator, the agents') pulls with them.
fn pull_secret(credentials: &ByteString) -> Secret {
    Secret {
        metadata: namespaced_meta(AGENT_NAMESPACE, IMAGE_PULL_SECRET),
        type_: Some(DOCKER_CONFIG_JSON.into()),
        data: Some(BTreeMap::from([(DOCKER_CONFIG_JSON_KEY.to_string(), credentials.clone())])),
        ..Secret::default()
    }
}

/// The operator's permissions: it creates the agent namespace, their ServiceAccounts,
/// RBAC and Deployments, the AppliedManifestWork CRD, and cleans all of it up.
fn operator_rules() -> Vec<PolicyRule> {
    const RW: &[&str] = &["create", "get", "list", "watch", "update", "patch", "delete"];
    const MANAGE: &[&str] = &["get", "list", "watch", "update", "patch", "delete"];
    vec![
        rule(&[""], &["namespaces", "serviceaccounts", "secrets", "configmaps"], RW),
        rule(&[""], &["events"], &["create", "patch", "update"]),
        rule(&[""], &["nodes"], &["get", "list", "watch"]),
        rule(&["apps"], &["deployments"], RW),
        rule(
            &[objects::RBAC_GROUP],
            &["clusterroles", "clusterrolebindings", "roles", "rolebindings"],
            &["create", "get", "list", "watch", "update", "patch", "delete", "escalate", "bind"],
        ),
        rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], RW),
        rule(&[OPERATOR_GROUP], &["klusterlets", "klusterlets/status", "klusterlets/finalizers"], MANAGE),
        rule(&[WORK_GROUP], &["appliedmanifestworks", "appliedmanifestworks/finalizers"], MANAGE),
        rule(&["coordination.k8s.io"], &["leases"], RW),
    ]
}

fn operator_deployment(image: &str) -> Deployment {
    let probe = objects::http_probe("/healthz", OPERATOR_HEALTH_PORT, Some(2), 10);
    let container = Container {
        // The health address named, as for the agents, so that whatever runs the pod (a
        // node simulator giving each container its own port) knows where the probes go.
        env: Some(vec![
            objects::env_from_field("POD_NAMESPACE", "metadata.namespace"),
            objects::env("FLEETCTL_HEALTH_ADDR", &format!("0.0.0.0:{OPERATOR_HEALTH_PORT}")),
        ]),
        liveness_probe: Some(probe.clone()),
        readiness_probe: Some(Probe { period_seconds: None, ..probe }),
        resources: Some(objects::requests("2m", "16Mi")),
        ..objects::container(KLUSTERLET, image, vec!["agent".into(), "operator".into()])
    };
    let pod =
        PodSpec { service_account_name: Some(KLUSTERLET.into()), containers: vec![container], ..PodSpec::default() };
    let meta = namespaced_meta(AGENT_NAMESPACE, KLUSTERLET).with_labels(labels([("app", KLUSTERLET)]));
    objects::deployment(meta, KLUSTERLET, BTreeMap::new(), pod)
}

fn klusterlet(inputs: &ImportInputs<'_>) -> Klusterlet {
    let claims = ClusterClaimConfiguration {
        reserved_cluster_claim_suffixes: RESERVED_CLAIM_SUFFIXES.map(str::to_string).to_vec(),
        ..ClusterClaimConfiguration::default()
    };
    let spec = KlusterletSpec {
        deploy_option: KlusterletDeployOption { mode: inputs.mode.clone() },
        registration_image_pull_spec: inputs.image.into(),
        work_image_pull_spec: inputs.image.into(),
        image_pull_spec: inputs.image.into(),
        cluster_name: inputs.cluster.into(),
        namespace: AGENT_NAMESPACE.into(),
        registration_configuration: Some(RegistrationConfiguration {
            cluster_claim_configuration: Some(claims),
            ..RegistrationConfiguration::default()
        }),
        ..KlusterletSpec::default()
    };
    Klusterlet::new(KLUSTERLET, spec)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_a_dockerconfigjson_secret_with_its_key_is_registry_credentials() {
        let credentials = ByteString(b"{}".to_vec());
        let mut secret = pull_secret(&credentials);
        assert_eq!(docker_config(&secret), Ok(&credentials));
        secret.data = Some(BTreeMap::new());
        assert_eq!(docker_config(&secret), Err("has no .dockerconfigjson key"));
        secret.type_ = Some("Opaque".into());
        assert_eq!(docker_config(&secret), Err("is not of type kubernetes.io/dockerconfigjson"));
    }

    fn inputs() -> ImportInputs<'static> {
        ImportInputs {
            cluster: "c1",
            hub_url: "https://hub:6443",
            hub_ca_pem: "CA",
            token: "t0k",
            image: "quay.io/fleetctl/fleetctl:0.1.0",
            image_pull_secret: None,
            mode: InstallMode::Default,
            recovery: None,
        }
    }

    fn rendered() -> Vec<Value> {
        objects(&inputs())
    }

    #[test]
    fn import_objects_come_in_upstream_order_with_the_klusterlet_after_the_operator() {
        let kinds: Vec<String> = rendered()
            .iter()
            .map(|o| format!("{}/{}", o["kind"].as_str().unwrap_or(""), o["metadata"]["name"].as_str().unwrap_or("")))
            .collect();
        assert_eq!(
            kinds,
            [
                "Namespace/open-cluster-management-agent",
                "ClusterRole/klusterlet",
                "ClusterRoleBinding/klusterlet",
                "Secret/bootstrap-hub-kubeconfig",
                "ServiceAccount/klusterlet",
                "Deployment/klusterlet",
                "Klusterlet/klusterlet",
                "ClusterRole/klusterlet-bootstrap-kubeconfig",
            ]
        );
    }

    #[test]
    fn a_hosted_import_is_the_agents_namespace_its_bootstrap_kubeconfig_and_a_hosted_klusterlet_as_acms() {
        let hosted = objects(&ImportInputs { mode: InstallMode::Hosted, ..inputs() });
        let kinds: Vec<String> = hosted
            .iter()
            .map(|o| {
                let (kind, ns, name) = (&o["kind"], &o["metadata"]["namespace"], &o["metadata"]["name"]);
                format!("{}/{}/{}", kind.as_str().unwrap_or(""), ns.as_str().unwrap_or(""), name.as_str().unwrap_or(""))
            })
            .collect();
        assert_eq!(
            kinds,
            ["Namespace//klusterlet-c1", "Secret/klusterlet-c1/bootstrap-hub-kubeconfig", "Klusterlet//klusterlet-c1"]
        );
        assert_eq!(hosted[2]["spec"]["deployOption"]["mode"], "Hosted");
        assert_eq!(hosted[2]["spec"]["namespace"], "open-cluster-management-c1");
        assert_eq!(hosted[2]["spec"]["clusterName"], "c1");
    }

    #[test]
    fn registry_credentials_come_after_the_bootstrap_secret_and_the_operator_account_pulls_with_them() {
        let credentials = ByteString(br#"{"auths":{"registry.example":{"auth":"dTpw"}}}"#.to_vec());
        let with = objects(&ImportInputs { image_pull_secret: Some(&credentials), ..inputs() });
        let secret: Secret = serde_json::from_value(with[4].clone()).unwrap();
        assert_eq!(secret.metadata.name.as_deref(), Some(IMAGE_PULL_SECRET));
        assert_eq!(secret.metadata.namespace.as_deref(), Some(AGENT_NAMESPACE));
        assert_eq!(secret.type_.as_deref(), Some("kubernetes.io/dockerconfigjson"));
        assert_eq!(secret.data.unwrap()[".dockerconfigjson"], credentials);
        assert_eq!(with[5]["kind"], "ServiceAccount");
        assert_eq!(with[5]["imagePullSecrets"], json!([{"name": IMAGE_PULL_SECRET}]));
        // Without credentials, neither the Secret nor a dangling reference.
        let plain = rendered();
        assert!(plain.iter().all(|o| o["metadata"]["name"] != IMAGE_PULL_SECRET));
        assert!(plain[4].get("imagePullSecrets").is_none(), "{}", plain[4]);
    }

    #[test]
    fn a_recovery_hub_travels_to_the_agent_namespace_after_the_bootstrap_kubeconfig_with_its_delay() {
        let recovery = Recovery { kubeconfig: "kind: Config".into(), recover_after: "10m".into() };
        let with = objects(&ImportInputs { recovery: Some(&recovery), ..inputs() });
        assert_eq!(with[4]["metadata"]["name"], RECOVERY_HUB_SECRET);
        assert_eq!(with[4]["metadata"]["namespace"], AGENT_NAMESPACE);
        assert_eq!(with[4]["metadata"]["annotations"][ANNOTATION_RECOVER_AFTER], "10m");
        assert!(rendered().iter().all(|o| o["metadata"]["name"] != RECOVERY_HUB_SECRET), "none without one");
    }

    #[test]
    fn the_bootstrap_kubeconfig_carries_the_hub_url_ca_and_token() {
        let secret: k8s_openapi::api::core::v1::Secret = serde_json::from_value(rendered()[3].clone()).unwrap();
        let raw = &secret.data.unwrap()["kubeconfig"].0;
        let config: Value = serde_yaml::from_slice(raw).expect("yaml");
        assert_eq!(config["clusters"][0]["cluster"]["server"], "https://hub:6443");
        assert_eq!(config["users"][0]["user"]["token"], "t0k");
        assert_eq!(config["current-context"], "default-context");
        assert_eq!(config["contexts"][0]["context"]["namespace"], "default");
    }

    #[test]
    fn the_operator_runs_fleetctl_agent_operator_from_the_image() {
        let deployment = &rendered()[5];
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["image"], "quay.io/fleetctl/fleetctl:0.1.0");
        assert_eq!(container["args"], json!(["agent", "operator"]));
        assert_eq!(container["livenessProbe"]["httpGet"]["port"], 8443);
        assert_eq!(container["env"][1], json!({"name": "FLEETCTL_HEALTH_ADDR", "value": "0.0.0.0:8443"}));
        assert_eq!(container["securityContext"]["runAsNonRoot"], true);
        let klusterlet = &rendered()[6];
        assert_eq!(klusterlet["spec"]["clusterName"], "c1");
        assert_eq!(
            klusterlet["spec"]["registrationConfiguration"]["clusterClaimConfiguration"]["reservedClusterClaimSuffixes"],
            json!(["openshift.io", "open-cluster-management.io"])
        );
    }
}
