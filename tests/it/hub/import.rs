//! Import on the hub: the import secret, the bootstrap identity, token refresh, the
//! klusterlet works, and no writes when nothing changed.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use fleetctl_api::ManifestWork;
use futures::TryStreamExt;
use k8s_openapi::api::authorization::v1::SelfSubjectAccessReview;
use k8s_openapi::api::core::v1::Secret;
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::WatchStreamExt;
use serde_json::{Value, json};

use super::{Hub, bootstrap_ca, bootstrap_token, report};
use crate::support::assert_a_fresh_pass_writes_nothing;

fn kinds(yaml: &str) -> Vec<String> {
    serde_yaml::Deserializer::from_str(yaml)
        .map(|d| serde::Deserialize::deserialize(d).expect("yaml"))
        .map(|d: Value| {
            format!("{}/{}", d["kind"].as_str().unwrap_or(""), d["metadata"]["name"].as_str().unwrap_or(""))
        })
        .collect()
}

#[tokio::test]
async fn the_import_secret_holds_the_crds_and_the_manifests_in_upstream_order() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    let data = hub.import_secret("c1").await;
    assert_eq!(kinds(&data["crds.yaml"]), ["CustomResourceDefinition/klusterlets.operator.open-cluster-management.io"]);
    assert_eq!(
        kinds(&data["import.yaml"]),
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
    let creation: jiff::Timestamp = data["creation"].parse().expect("creation");
    let expiration: jiff::Timestamp = data["expiration"].parse().expect("expiration");
    assert_eq!(expiration.duration_since(creation).as_secs(), 3600);
    let secret = Api::<Secret>::namespaced(hub.cluster.client.clone(), "c1").get("c1-import").await.expect("secret");
    let owner = &secret.metadata.owner_references.expect("owner")[0];
    assert_eq!((owner.kind.as_str(), owner.name.as_str(), owner.controller), ("ManagedCluster", "c1", Some(true)));
    let cluster = hub
        .wait_cluster("c1", |c| {
            fleetctl_api::conditions::find(c.conditions(), "ManagedClusterImportSucceeded")
                .is_some_and(|c| c.reason == "ManagedClusterWaitForImporting")
        })
        .await;
    assert!(
        cluster
            .metadata
            .finalizers
            .expect("finalizers")
            .iter()
            .any(|f| f == "managedcluster-import-controller.open-cluster-management.io/cleanup")
    );
}

async fn can(client: &kube::Client, verb: &str, group: &str, resource: &str, namespace: &str, name: &str) -> bool {
    let review: SelfSubjectAccessReview = serde_json::from_value(json!({"spec": {"resourceAttributes":
        {"verb": verb, "group": group, "resource": resource, "namespace": namespace, "name": name}}}))
    .expect("review");
    Api::<SelfSubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &review)
        .await
        .expect("review")
        .status
        .expect("status")
        .allowed
}

#[tokio::test]
async fn the_bootstrap_token_may_ask_for_a_certificate_and_nothing_else() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.create_cluster("c2", true).await;
    let token = bootstrap_token(&hub.import_secret("c1").await["import.yaml"]);
    let bootstrap = hub.cluster.client_with_token(&token).await;
    assert!(can(&bootstrap, "create", "certificates.k8s.io", "certificatesigningrequests", "", "").await);
    assert!(can(&bootstrap, "get", "cluster.open-cluster-management.io", "managedclusters", "", "c1").await);
    assert!(!can(&bootstrap, "get", "cluster.open-cluster-management.io", "managedclusters", "", "c2").await);
    assert!(!can(&bootstrap, "get", "", "secrets", "c1", "c1-import").await);
    assert!(!can(&bootstrap, "update", "cluster.open-cluster-management.io", "managedclusters", "", "c1").await);
    Api::<fleetctl_api::ManagedCluster>::all(bootstrap.clone()).get("c1").await.expect("reads its own cluster");
    assert!(
        crate::support::forbidden(Api::<fleetctl_api::ManagedCluster>::all(bootstrap.clone()).get("c2").await),
        "not another cluster"
    );
    assert!(
        crate::support::forbidden(Api::<Secret>::namespaced(bootstrap, "c1").list(&Default::default()).await),
        "no secrets"
    );
}

#[tokio::test]
async fn an_old_token_is_refreshed_when_a_fifth_of_its_life_is_left() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    let first = hub.import_secret("c1").await;
    let old_token = bootstrap_token(&first["import.yaml"]);
    // Make the recorded lifetime say the token is nearly spent.
    let now = jiff::Timestamp::now();
    let stamp = |t: jiff::Timestamp| {
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
    };
    let aged = json!({"data": {"creation": stamp(now - jiff::SignedDuration::from_secs(3000)), "expiration": stamp(now + jiff::SignedDuration::from_secs(600))}});
    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    secrets.patch("c1-import", &PatchParams::default(), &Patch::Merge(aged)).await.expect("age the token");
    let refreshed = kube::runtime::wait::await_condition(secrets, "c1-import", move |s: Option<&Secret>| {
        s.and_then(|s| s.data.as_ref())
            .and_then(|d| d.get("import.yaml"))
            .is_some_and(|y| bootstrap_token(&String::from_utf8_lossy(&y.0)) != old_token)
    });
    tokio::time::timeout(Duration::from_secs(10), refreshed).await.expect("refreshed in time").expect("watch");
    let data = hub.import_secret("c1").await;
    let creation: jiff::Timestamp = data["creation"].parse().expect("creation");
    assert!(creation >= now - jiff::SignedDuration::from_secs(2), "a new creation time");
}

#[tokio::test]
async fn a_joined_cluster_gets_the_klusterlet_works() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.import_secret("c1").await;
    report(&hub, "c1", json!([{"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"}])).await;
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let present =
        kube::runtime::wait::await_condition(works.clone(), "c1-klusterlet", |w: Option<&ManifestWork>| w.is_some());
    tokio::time::timeout(Duration::from_secs(10), present).await.expect("work in time").expect("watch");
    let crds = works.get("c1-klusterlet-crds").await.expect("crds work");
    assert_eq!(crds.spec.workload.manifests.len(), 1);
    let klusterlet = works.get("c1-klusterlet").await.expect("klusterlet work");
    assert_eq!(klusterlet.spec.workload.manifests.len(), 8);
    assert_eq!(
        klusterlet.metadata.labels.expect("labels")["import.open-cluster-management.io/klusterlet-works"],
        "true"
    );
}

#[tokio::test]
async fn a_desired_version_re_renders_the_import_secret() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    let before = hub.import_secret("c1").await;
    assert!(before["import.yaml"].contains("quay.io/fleetctl/fleetctl:0.1.0"));
    let annotate = json!({"metadata": {"annotations": {fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION: "0.2.0"}}});
    hub.clusters().patch("c1", &PatchParams::default(), &Patch::Merge(annotate)).await.expect("annotate");
    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let upgraded = kube::runtime::wait::await_condition(secrets, "c1-import", |s: Option<&Secret>| {
        s.and_then(|s| s.data.as_ref())
            .and_then(|d| d.get("import.yaml"))
            .is_some_and(|y| String::from_utf8_lossy(&y.0).contains("fleetctl:0.2.0"))
    });
    tokio::time::timeout(Duration::from_secs(10), upgraded).await.expect("re-rendered in time").expect("watch");
}

/// Upstream's import controller trusts the CA bundle the hub publishes (`kube-root-ca.crt`
/// of its namespace) rather than one it was started with, and regenerates the bootstrap
/// kubeconfig when that changes: a bundle gaining a CA (a rotation's first step) reaches
/// the import secret and the klusterlet work without a restart of the controller.
#[tokio::test]
async fn the_bootstrap_kubeconfig_follows_the_ca_bundle_the_hub_publishes() {
    let hub = Hub::with(|config| {
        config.root_ca_namespace = Some("default".into());
        let fleetctl_hub::HubAddress::External { ca_pem, .. } = &mut config.address else { panic!("external") };
        *ca_pem = "the CA the controller was started with".into();
    })
    .await;
    hub.create_cluster("c1", true).await;
    let published = hub.cluster.server.ca_pem().to_string();
    assert_eq!(bootstrap_ca(&hub.import_secret("c1").await["import.yaml"]), published);
    report(&hub, "c1", json!([{"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"}])).await;

    let another = rcgen::CertificateParams::default().self_signed(&rcgen::KeyPair::generate().expect("key"));
    let bundle = format!("{published}{}", another.expect("ca").pem());
    let roots: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(hub.cluster.client.clone(), "default");
    let publish = json!({"data": {"ca.crt": bundle}});
    roots.patch("kube-root-ca.crt", &PatchParams::default(), &Patch::Merge(publish)).await.expect("publish");

    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let wanted = bundle.clone();
    let followed = kube::runtime::wait::await_condition(secrets, "c1-import", move |s: Option<&Secret>| {
        s.and_then(|s| s.data.as_ref()?.get("import.yaml"))
            .is_some_and(|y| bootstrap_ca(&String::from_utf8_lossy(&y.0)) == wanted)
    });
    tokio::time::timeout(Duration::from_secs(10), followed).await.expect("the import secret follows").expect("watch");
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let carries = move |w: Option<&ManifestWork>| {
        w.is_some_and(|w| {
            w.spec.workload.manifests.iter().any(|m| {
                m.0["metadata"]["name"] == "bootstrap-hub-kubeconfig"
                    && m.0["data"]["kubeconfig"].as_str().is_some_and(|k| {
                        let kubeconfig = String::from_utf8(BASE64.decode(k).expect("b64")).expect("text");
                        kubeconfig.contains(&BASE64.encode(&bundle))
                    })
            })
        })
    };
    let followed = kube::runtime::wait::await_condition(works, "c1-klusterlet", carries);
    tokio::time::timeout(Duration::from_secs(10), followed).await.expect("the klusterlet work follows").expect("watch");
}

#[tokio::test]
async fn a_second_reconcile_of_an_unchanged_cluster_writes_nothing() {
    let mut hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.import_secret("c1").await;
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    assert_a_fresh_pass_writes_nothing(&mut hub).await;
}

#[tokio::test]
async fn registry_credentials_reach_the_import_manifests_and_a_missing_pull_secret_is_said_on_the_cluster() {
    let hub_namespace = fleetctl_api::names::HUB_NAMESPACE;
    let hub = Hub::with(|config| {
        config.image_pull_secret =
            Some(fleetctl_hub::SecretRef { namespace: hub_namespace.into(), name: "registry-creds".into() });
    })
    .await;
    hub.create_cluster("c1", true).await;
    hub.wait_cluster("c1", |c| {
        fleetctl_api::conditions::find(c.conditions(), "ManagedClusterImportSucceeded")
            .is_some_and(|c| c.reason == "ManagedClusterImportFailed" && c.message.contains("registry-creds"))
    })
    .await;
    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    assert!(secrets.get_opt("c1-import").await.expect("get").is_none(), "no import secret without the credentials");

    let namespace = fleetctl_kube::objects::namespace(fleetctl_kube::objects::meta(hub_namespace));
    Api::all(hub.cluster.client.clone()).create(&PostParams::default(), &namespace).await.expect("namespace");
    let credentials = br#"{"auths":{"registry.example":{"auth":"dTpw"}}}"#.to_vec();
    let pull_secret = Secret {
        metadata: fleetctl_kube::objects::namespaced_meta(hub_namespace, "registry-creds"),
        type_: Some("kubernetes.io/dockerconfigjson".into()),
        data: Some([(".dockerconfigjson".to_string(), k8s_openapi::ByteString(credentials.clone()))].into()),
        ..Secret::default()
    };
    Api::namespaced(hub.cluster.client.clone(), hub_namespace)
        .create(&PostParams::default(), &pull_secret)
        .await
        .expect("pull secret");
    let data = hub.import_secret("c1").await;
    let docs: Vec<Value> = serde_yaml::Deserializer::from_str(&data["import.yaml"])
        .map(|d| serde::Deserialize::deserialize(d).expect("yaml"))
        .collect();
    let copied = docs
        .iter()
        .find(|d| d["metadata"]["name"] == "open-cluster-management-image-pull-credentials")
        .expect("the credentials in import.yaml");
    assert_eq!(copied["type"], "kubernetes.io/dockerconfigjson");
    let decoded = BASE64.decode(copied["data"][".dockerconfigjson"].as_str().expect("data")).expect("base64");
    assert_eq!(decoded, credentials);
    let account = docs.iter().find(|d| d["kind"] == "ServiceAccount").expect("operator account");
    assert_eq!(account["imagePullSecrets"], json!([{"name": "open-cluster-management-image-pull-credentials"}]));
}

/// A controller that knows only its in-cluster address (a pod started without
/// `--hub-url`) writes no import secret a managed cluster could not use: it says why on the
/// ManagedCluster (ImportSucceeded=False, a HubAddressUnknown Event) and `describe` shows it.
#[tokio::test]
async fn a_controller_that_knows_only_its_in_cluster_address_imports_nothing_and_says_why() {
    let in_cluster = "https://10.96.0.1:443";
    let hub =
        Hub::with(|config| config.address = fleetctl_hub::HubAddress::Unknown { in_cluster_url: in_cluster.into() })
            .await;
    hub.create_cluster("c1", true).await;
    let refused = hub
        .wait_cluster("c1", |c| {
            fleetctl_api::conditions::find(c.conditions(), "ManagedClusterImportSucceeded").is_some_and(|c| {
                c.status == "False" && c.reason == "ManagedClusterImportFailed" && c.message.contains(in_cluster)
            })
        })
        .await;
    let condition = fleetctl_api::conditions::find(refused.conditions(), "ManagedClusterImportSucceeded").expect("set");
    assert!(condition.message.contains("fleetctl hub install"), "says what to do: {}", condition.message);
    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    assert!(secrets.get_opt("c1-import").await.expect("get").is_none(), "no import secret naming {in_cluster}");

    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("hub.kubeconfig");
    std::fs::write(&kubeconfig, serde_json::to_vec(&hub.cluster.server.kubeconfig("hub")).expect("json"))
        .expect("kubeconfig");
    let kubeconfig = kubeconfig.to_str().expect("UTF-8 path").to_string();
    // The Event (filed in `default`, as for every cluster-scoped object), then describe.
    let events: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(hub.cluster.client.clone(), "default");
    let filed = kube::runtime::watcher(events, kube::runtime::watcher::Config::default().fields("regarding.name=c1"))
        .applied_objects()
        .try_filter(|e| std::future::ready(e.reason.as_deref() == Some("HubAddressUnknown")));
    let event = tokio::time::timeout(crate::support::PATIENCE, std::pin::pin!(filed).try_next())
        .await
        .expect("the Event in time")
        .expect("watch")
        .expect("an Event");
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(["describe", "cluster", "c1", "--hub-kubeconfig", &kubeconfig])
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("fleetctl runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(text.contains("HubAddressUnknown"), "describe shows the Event: {text}");
    assert!(text.contains(in_cluster), "{text}");
}

/// The applies (server-side apply PATCHes) the hub's API server has answered, of the kinds
/// the import and registration controllers write.
async fn applies(hub: &Hub) -> u64 {
    let request = http::Request::get("/metrics").body(Vec::new()).expect("request");
    let text = hub.cluster.client.request_text(request).await.expect("metrics");
    let written = ["namespaces", "serviceaccounts", "clusterroles", "clusterrolebindings", "roles", "rolebindings"];
    text.lines()
        .filter(|line| line.starts_with("apiserver_request_total{") && line.contains("verb=\"PATCH\""))
        .filter(|line| {
            written.iter().any(|r| line.contains(&format!("resource=\"{r}\"")))
                || line.contains("resource=\"secrets\"") && line.contains("subresource=\"\"")
        })
        .map(|line| line.rsplit_once(' ').expect("a value").1.parse::<u64>().expect("a count"))
        .sum()
}

/// Client-go's rule for controllers: compare with what is known, write only what differs.
#[tokio::test]
async fn a_pass_over_objects_as_written_applies_nothing_and_another_hands_change_is_written_back() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    let manifests = hub.import_secret("c1").await["import.yaml"].clone();
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    let controllers = ["import", "registration"].map(|name| hub.metrics.controller(name));
    let settled = || controllers.iter().all(|c| c.in_flight() == 0);
    crate::support::until("the first passes end", settled).await;
    let before = applies(&hub).await;
    let reconciles = controllers.each_ref().map(|c| c.reconciles());

    // A label brings both controllers back to the cluster: nothing of theirs changed.
    let clusters: Api<fleetctl_api::ManagedCluster> = Api::all(hub.cluster.client.clone());
    let label = json!({"metadata": {"labels": {"team": "a"}}});
    clusters.patch("c1", &PatchParams::default(), &Patch::Merge(label)).await.expect("label");
    crate::support::until("both controllers pass again", || {
        controllers.iter().zip(reconciles).all(|(c, before)| c.reconciles() > before) && settled()
    })
    .await;
    assert_eq!(applies(&hub).await, before, "a pass over unchanged objects applies nothing");

    // Another hand changes the import secret: the hub writes its own back.
    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let tamper = json!({"stringData": {"import.yaml": "kind: Namespace"}});
    secrets.patch("c1-import", &PatchParams::default(), &Patch::Merge(tamper)).await.expect("tamper");
    let restored = |s: Option<&Secret>| {
        let data = s.and_then(|s| s.data.as_ref());
        data.and_then(|d| d.get("import.yaml")).is_some_and(|m| m.0 == manifests.as_bytes())
    };
    let waited = kube::runtime::wait::await_condition(secrets, "c1-import", restored);
    tokio::time::timeout(Duration::from_secs(10), waited).await.expect("the manifests written back").expect("watch");
}

/// A pass that fails forgets only what its failure showed to be missing, so that the retry
/// writes that again and not everything of the cluster.
#[tokio::test]
async fn a_service_account_deleted_behind_the_hubs_back_is_written_again_and_nothing_else() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.import_secret("c1").await;
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    let controllers = ["import", "registration"].map(|name| hub.metrics.controller(name));
    let settled = || controllers.iter().all(|c| c.in_flight() == 0);
    crate::support::until("the first passes end", settled).await;
    let before = applies(&hub).await;

    // The hub does not watch the bootstrap ServiceAccount it wrote; the next token it issues
    // (the import secret is gone) finds it missing.
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> = Api::namespaced(hub.cluster.client.clone(), "c1");
    accounts.delete("c1-bootstrap-sa", &Default::default()).await.expect("delete the service account");
    let secrets: Api<Secret> = Api::namespaced(hub.cluster.client.clone(), "c1");
    secrets.delete("c1-import", &Default::default()).await.expect("delete the import secret");
    let rendered = kube::runtime::wait::await_condition(secrets, "c1-import", |s: Option<&Secret>| s.is_some());
    tokio::time::timeout(Duration::from_secs(10), rendered).await.expect("a new import secret").expect("watch");
    assert!(accounts.get_opt("c1-bootstrap-sa").await.expect("read").is_some(), "the service account is back");
    crate::support::until("the passes end", settled).await;
    assert_eq!(applies(&hub).await - before, 2, "the service account and the import secret, nothing else");
}

/// Plays the work agent: the work Applied at its current generation.
async fn applied(works: &Api<ManifestWork>, name: &str) {
    let work = works.get(name).await.expect("work");
    let condition = json!({"type": "Applied", "status": "True", "reason": "AppliedManifestWorkComplete",
                           "message": "applied", "observedGeneration": work.metadata.generation,
                           "lastTransitionTime": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()});
    works
        .patch_status(name, &PatchParams::default(), &Patch::Merge(json!({"status": {"conditions": [condition]}})))
        .await
        .expect("applied");
}

/// A cluster whose klusterlet is handed back (`fleetctl.io/own-klusterlet: "true"`): the hub
/// tells its klusterlet works to orphan everything but the operator's Deployment, deletes
/// them once the work agent saw it, then drops its import finalizer and condition — and
/// imports it again when told `false`.
#[tokio::test]
async fn a_klusterlet_handed_back_is_let_go_of_orphaning_all_but_its_operator_and_taken_back_when_told() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.import_secret("c1").await;
    report(&hub, "c1", json!([{"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"}])).await;
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let wait_works = |check: fn(Option<&ManifestWork>) -> bool| {
        let works = works.clone();
        async move {
            for name in ["c1-klusterlet", "c1-klusterlet-crds"] {
                let reached = kube::runtime::wait::await_condition(works.clone(), name, check);
                tokio::time::timeout(Duration::from_secs(10), reached).await.expect("in time").expect("watch");
            }
        }
    };
    wait_works(|w| w.is_some()).await;
    let finalizer = "managedcluster-import-controller.open-cluster-management.io/cleanup";
    hub.wait_cluster("c1", |c| c.finalizers().iter().any(|f| f == finalizer)).await;

    let hand = |own: &str| json!({"metadata": {"annotations": {"fleetctl.io/own-klusterlet": own}}});
    hub.clusters().patch("c1", &PatchParams::default(), &Patch::Merge(hand("true"))).await.expect("handed back");
    wait_works(|w| w.is_some_and(|w| w.spec.delete_option.as_ref().is_some_and(|d| d.selectively_orphans.is_some())))
        .await;
    let told = works.get("c1-klusterlet").await.expect("work");
    let option = told.spec.delete_option.clone().expect("a delete option");
    let kept: Vec<String> = option
        .selectively_orphans
        .expect("rules")
        .orphaning_rules
        .iter()
        .map(|r| format!("{}/{}", r.resource, r.name))
        .collect();
    assert!(kept.contains(&"klusterlets/klusterlet".to_string()), "{kept:?}");
    assert!(kept.contains(&"secrets/bootstrap-hub-kubeconfig".to_string()), "{kept:?}");
    assert!(!kept.contains(&"deployments/klusterlet".to_string()), "the operator goes: {kept:?}");
    assert_eq!(kept.len(), told.spec.workload.manifests.len() - 1, "{kept:?}");
    let crds = works.get("c1-klusterlet-crds").await.expect("crds work").spec.delete_option.expect("option");
    assert_eq!(crds.selectively_orphans.expect("rules").orphaning_rules.len(), 1, "the CRD stays");
    // Not deleted before the work agent has seen it.
    assert!(works.get("c1-klusterlet").await.expect("work").metadata.deletion_timestamp.is_none());
    for name in ["c1-klusterlet", "c1-klusterlet-crds"] {
        applied(&works, name).await;
    }
    wait_works(|w| w.is_none()).await;
    let released = hub.wait_cluster("c1", |c| !c.finalizers().iter().any(|f| f == finalizer)).await;
    assert!(
        !released.conditions().iter().any(|c| c.type_ == "ManagedClusterImportSucceeded"),
        "{:?}",
        released.conditions()
    );

    hub.clusters().patch("c1", &PatchParams::default(), &Patch::Merge(hand("false"))).await.expect("taken back");
    wait_works(|w| w.is_some()).await;
}
