//! The admission rules of `hub install`, enforced by the API server (ValidatingAdmission-
//! Policies with CEL and `authorizer`): who may accept a cluster, and what a cluster's own
//! identities may write. Each denial is a 403 that names the rule.

use fleetctl_api::ManagedCluster;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use super::Hub;
use super::approval::{agent_client, bootstrap_client};

/// The status and message of a request the server refused.
fn refused<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message),
        other => panic!("expected a refusal from the server, got {other:?}"),
    }
}

fn cluster(name: &str, accepted: bool) -> ManagedCluster {
    let mut cluster = ManagedCluster::accepted(name);
    cluster.spec.hub_accepts_client = accepted;
    cluster
}

/// A user who may create and update ManagedClusters, and (with `accept`) accept them.
async fn user_who_may_write_clusters(hub: &Hub, user: &str, accept: bool) -> kube::Client {
    let mut rules = vec![json!({"apiGroups": ["cluster.open-cluster-management.io"], "resources": ["managedclusters"],
                                 "verbs": ["create", "get", "update", "patch"]})];
    if accept {
        rules.push(json!({"apiGroups": ["register.open-cluster-management.io"],
                          "resources": ["managedclusters/accept"], "verbs": ["update"]}));
    }
    hub.client_with_rules(user, rules).await
}

#[tokio::test]
async fn a_bootstrap_token_creates_its_cluster_unaccepted_and_unlabelled_or_not_at_all() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    let bootstrap = bootstrap_client(&hub, "c1").await;
    let as_bootstrap: Api<ManagedCluster> = Api::all(bootstrap);

    let (code, message) = refused(as_bootstrap.create(&PostParams::default(), &cluster("evil", true)).await);
    assert_eq!(code, 403, "{message}");
    assert!(message.contains("managedclusters/accept"), "names the right it lacks: {message}");

    let mut labelled = cluster("evil", false);
    labelled.metadata.labels = Some([("env".to_string(), "prod".to_string())].into());
    let (code, message) = refused(as_bootstrap.create(&PostParams::default(), &labelled).await);
    assert_eq!(code, 403, "{message}");
    assert!(message.contains("labels"), "{message}");

    as_bootstrap.create(&PostParams::default(), &cluster("joining", false)).await.expect("an unaccepted cluster");
    assert!(!hub.clusters().get("joining").await.unwrap().spec.hub_accepts_client);
    assert!(hub.clusters().get_opt("evil").await.unwrap().is_none(), "nothing of the refused requests was written");
}

#[tokio::test]
async fn only_a_user_with_update_on_managedclusters_accept_may_set_hub_accepts_client() {
    let hub = Hub::start().await;
    let bob = Api::<ManagedCluster>::all(user_who_may_write_clusters(&hub, "bob", false).await);
    let (code, message) = refused(bob.create(&PostParams::default(), &cluster("b1", true)).await);
    assert_eq!(code, 403, "{message}");
    bob.create(&PostParams::default(), &cluster("b1", false)).await.expect("an unaccepted cluster");
    let accept = Patch::Merge(json!({"spec": {"hubAcceptsClient": true}}));
    let (code, message) = refused(bob.patch("b1", &PatchParams::default(), &accept).await);
    assert_eq!(code, 403, "turning it on is accepting too: {message}");

    let alice = Api::<ManagedCluster>::all(user_who_may_write_clusters(&hub, "alice", true).await);
    alice.patch("b1", &PatchParams::default(), &accept).await.expect("alice may accept");
    alice.create(&PostParams::default(), &cluster("a1", true)).await.expect("and create accepted");
    // Once accepted, an update that leaves it on is no new acceptance.
    let relabel = Patch::Merge(json!({"metadata": {"labels": {"team": "x"}}}));
    bob.patch("b1", &PatchParams::default(), &relabel).await.expect("bob may relabel an accepted cluster");
}

#[tokio::test]
async fn a_clusters_agent_may_not_change_its_labels_acceptance_lease_or_taints_even_with_wider_rbac() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    let agent = agent_client(&hub, "c1").await;
    let as_agent: Api<ManagedCluster> = Api::all(agent);
    let changes = [
        json!({"metadata": {"labels": {"env": "prod"}}}),
        json!({"spec": {"hubAcceptsClient": false}}),
        json!({"spec": {"leaseDurationSeconds": 999999}}),
        json!({"spec": {"taints": [{"key": "k", "effect": "NoSelect"}]}}),
    ];
    // RBAC: the agent may read its cluster and write its status, nothing else.
    for change in &changes {
        let (code, _) = refused(as_agent.patch("c1", &PatchParams::default(), &Patch::Merge(change)).await);
        assert_eq!(code, 403, "{change}");
    }
    // Even where an admin gives the agent's group more, the admission rule holds.
    let wider: ClusterRole = serde_json::from_value(json!({"metadata": {"name": "too-wide"}, "rules": [
        {"apiGroups": ["cluster.open-cluster-management.io"], "resources": ["managedclusters"], "verbs": ["update", "patch"]}]}))
    .unwrap();
    let bind: ClusterRoleBinding = serde_json::from_value(json!({"metadata": {"name": "too-wide"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "too-wide"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                      "name": "system:open-cluster-management:managed-clusters"}]}))
    .unwrap();
    Api::<ClusterRole>::all(hub.cluster.client.clone()).create(&PostParams::default(), &wider).await.unwrap();
    Api::<ClusterRoleBinding>::all(hub.cluster.client.clone()).create(&PostParams::default(), &bind).await.unwrap();
    for (change, field) in changes.iter().zip(["labels", "hubAcceptsClient", "leaseDurationSeconds", "taints"]) {
        let (code, message) = refused(as_agent.patch("c1", &PatchParams::default(), &Patch::Merge(change)).await);
        assert_eq!(code, 403, "{change}: {message}");
        assert!(message.contains(field), "{change}: {message}");
    }
    let before = hub.clusters().get("c1").await.unwrap();
    assert!(!before.metadata.labels.unwrap_or_default().contains_key("env"));
    assert_ne!(before.spec.lease_duration_seconds, 999_999);
    // Its status stays its own.
    let status = Patch::Merge(json!({"status": {"version": {"kubernetes": "v1.32.0"}}}));
    as_agent.patch_status("c1", &PatchParams::default(), &status).await.expect("its own status");
}

#[tokio::test]
async fn without_the_accept_rule_in_place_the_hub_accepts_no_cluster() {
    use fleetctl_api::conditions as c;
    use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicyBinding;
    let hub = Hub::start().await;
    let bindings: Api<ValidatingAdmissionPolicyBinding> = Api::all(hub.cluster.client.clone());
    let name = fleetctl_hub::manifests::admission::ACCEPT_POLICY;
    let binding = bindings.get(name).await.expect("hub install's binding");
    bindings.delete(name, &Default::default()).await.expect("removed");
    hub.create_cluster("c1", true).await;
    let refused = hub
        .wait_cluster("c1", |cluster| {
            c::find(cluster.conditions(), c::MANAGED_CLUSTER_HUB_ACCEPTED)
                .is_some_and(|h| h.status == c::FALSE && h.message.contains(name))
        })
        .await;
    assert!(!refused.is_hub_accepted());
    let mut again = binding;
    again.metadata = kube::api::ObjectMeta { name: Some(name.into()), ..Default::default() };
    bindings.create(&PostParams::default(), &again).await.expect("installed again");
    hub.wait_cluster("c1", |cluster| cluster.is_hub_accepted()).await;
}

/// Defence in depth holds for the policy too: its binding alone, or a policy edited to let
/// every acceptance through, enforces nothing, and the hub accepts no cluster then.
#[tokio::test]
async fn with_the_accept_policy_gone_or_emptied_the_hub_accepts_no_cluster() {
    use fleetctl_api::conditions as c;
    use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, Validation};
    let hub = Hub::start().await;
    let policies: Api<ValidatingAdmissionPolicy> = Api::all(hub.cluster.client.clone());
    let name = fleetctl_hub::manifests::admission::ACCEPT_POLICY;
    let policy = policies.get(name).await.expect("hub install's policy");
    policies.delete(name, &Default::default()).await.expect("removed");
    hub.create_cluster("c1", true).await;
    let refused_because = |why: &'static str| {
        move |cluster: &fleetctl_api::ManagedCluster| {
            c::find(cluster.conditions(), c::MANAGED_CLUSTER_HUB_ACCEPTED)
                .is_some_and(|h| h.status == c::FALSE && h.message.contains(why))
        }
    };
    let refused =
        hub.wait_cluster("c1", refused_because("policy fleetctl.io-managedcluster-accept is not installed")).await;
    assert!(!refused.is_hub_accepted());

    // Back, but letting everything through: still nothing is accepted.
    let mut emptied = policy.clone();
    emptied.metadata = kube::api::ObjectMeta { name: Some(name.into()), ..Default::default() };
    if let Some(spec) = emptied.spec.as_mut() {
        spec.validations = Some(vec![Validation { expression: "true".into(), ..Validation::default() }]);
    }
    policies.create(&PostParams::default(), &emptied).await.expect("an emptied policy");
    hub.wait_cluster("c1", refused_because("is not the one fleetctl installs")).await;

    // The policy as hub install makes it: the cluster is accepted.
    let mut restored = policy;
    restored.metadata = kube::api::ObjectMeta { name: Some(name.into()), ..Default::default() };
    policies
        .replace(name, &PostParams::default(), &{
            let current = policies.get(name).await.expect("current");
            restored.metadata.resource_version = current.metadata.resource_version;
            restored
        })
        .await
        .expect("restored");
    hub.wait_cluster("c1", |cluster| cluster.is_hub_accepted()).await;
}
