//! `fleetctl move` between two dev hubs: the cluster arrives with what the old hub knew of
//! it, and nothing on it is deleted or re-created on the way.

use fleetctl::lifecycle::upgrade::running_version;
use fleetctl::lifecycle::wait_for;
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;
use fleetctl_api::{ManagedCluster, Manifest, ManifestWork};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::{DevUp, WAIT};

fn ok(env: &DevUp, output: std::process::Output) -> String {
    assert!(output.status.success(), "{}\n{}", String::from_utf8_lossy(&output.stderr), env.logs());
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A ManifestWork `app` of a ConfigMap sent to cluster1 through `hub`, applied: the
/// ConfigMaps of the cluster and the uid of the work's.
async fn app_work(hub: &Client, target: &Client) -> (Api<ConfigMap>, Option<String>) {
    let work = ManifestWork::for_cluster(
        "cluster1",
        "app",
        vec![Manifest(json!({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "app", "namespace": "default"}, "data": {"a": "1"}}))],
    );
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
    works.create(&PostParams::default(), &work).await.expect("work");
    wait_for(works, "app", "the work applied", WAIT, |w: Option<&ManifestWork>| w.is_some_and(|w| w.is_applied()))
        .await
        .expect("applied");
    let config_maps: Api<ConfigMap> = Api::namespaced(target.clone(), "default");
    let uid = config_maps.get("app").await.expect("ConfigMap").uid();
    (config_maps, uid)
}

/// The environment's hub lost: its API server and everything it runs, SIGKILLed.
fn kill_hub(env: &DevUp) {
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.dir.path().join("state.json")).expect("state")).expect("json");
    let hub_pid =
        state["clusters"].as_array().expect("clusters").iter().find(|c| c["name"] == "hub").expect("hub")["pid"]
            .as_u64()
            .expect("pid");
    let group = nix::unistd::Pid::from_raw(-i32::try_from(hub_pid).expect("pid"));
    nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL).expect("killed");
}

/// Upstream's rule for a klusterlet switching hubs: a bootstrap kubeconfig that names another
/// hub than its hub kubeconfig has it bootstrap there; and the work agent's rule for records of
/// another hub: a resource the current hub's work applies too is adopted, not re-created.
#[tokio::test]
async fn a_cluster_moves_to_another_hub_with_its_labels_version_and_works_and_nothing_on_it_is_recreated() {
    let old = DevUp::start(1);
    let new = DevUp::start(0);
    let (old_hub, new_hub, target) = (old.client("hub").await, new.client("hub").await, old.client("cluster1").await);
    let import = ["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "--label", "env=dev"];
    ok(&old, old.fleetctl(&import));
    ok(&old, old.fleetctl(&["upgrade", "cluster1", "--to", "0.2.0", "--hub-context", "hub"]));
    let work = ManifestWork::for_cluster(
        "cluster1",
        "app",
        vec![
            Manifest(json!({"apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": "app", "namespace": "default"}, "data": {"a": "1"}})),
            Manifest(
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "app", "namespace": "default"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "app"}},
                         "template": {"metadata": {"labels": {"app": "app"}},
                                      "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}}),
            ),
        ],
    );
    let old_works: Api<ManifestWork> = Api::namespaced(old_hub.clone(), "cluster1");
    old_works.create(&PostParams::default(), &work).await.expect("work");
    wait_for(old_works, "app", "the work applied", WAIT, |w: Option<&ManifestWork>| w.is_some_and(|w| w.is_applied()))
        .await
        .expect("applied");
    let config_maps: Api<ConfigMap> = Api::namespaced(target.clone(), "default");
    let deployments: Api<Deployment> = Api::namespaced(target.clone(), "default");
    let agents: Api<Deployment> = Api::namespaced(target.clone(), fleetctl_api::names::AGENT_NAMESPACE);
    let identity = |d: Deployment| (d.uid(), d.metadata.generation);
    let before = (
        config_maps.get("app").await.expect("ConfigMap").uid(),
        identity(deployments.get("app").await.expect("Deployment")),
        identity(agents.get("klusterlet-work-agent").await.expect("work agent")),
    );

    let kubeconfig = new.kubeconfig();
    let to = ["--to-hub-kubeconfig", kubeconfig.to_str().expect("utf-8"), "--to-hub-context", "hub"];
    let moved =
        ok(&old, old.fleetctl(&[&["move", "cluster1", "--hub-context", "hub", "-o", "json"][..], &to].concat()));
    let report: serde_json::Value = serde_json::from_str(&moved).expect("json");
    assert_eq!(report["clusters"][0]["result"], "moved", "{report}");

    // On the new hub: Available, with its label, desired version and work, which applies.
    let cluster = Api::<ManagedCluster>::all(new_hub.clone()).get("cluster1").await.expect("on the new hub");
    assert!(cluster.is_available(), "{cluster:?}");
    assert_eq!(cluster.labels().get("env").map(String::as_str), Some("dev"));
    assert_eq!(cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION).map(String::as_str), Some("0.2.0"));
    assert_eq!(running_version(&cluster), Some("0.2.0"));
    let new_works: Api<ManifestWork> = Api::namespaced(new_hub.clone(), "cluster1");
    wait_for(new_works, "app", "the work applied from the new hub", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied())
    })
    .await
    .expect("applied");
    // The old hub forgot it, and its namespace.
    assert!(Api::<ManagedCluster>::all(old_hub.clone()).get_opt("cluster1").await.expect("read").is_none());
    let old_namespaces: Api<Namespace> = Api::all(old_hub.clone());
    wait_for(old_namespaces, "cluster1", "the old hub's namespace gone", WAIT, |n: Option<&Namespace>| n.is_none())
        .await
        .expect("gone");
    // Nothing on the cluster was deleted, re-created or rolled out.
    let after = (
        config_maps.get("app").await.expect("ConfigMap").uid(),
        identity(deployments.get("app").await.expect("Deployment")),
        identity(agents.get("klusterlet-work-agent").await.expect("work agent")),
    );
    assert_eq!(after, before);

    // Run again, it says so and changes nothing.
    let again =
        ok(&old, old.fleetctl(&[&["move", "cluster1", "--hub-context", "hub", "-o", "json"][..], &to].concat()));
    let report: serde_json::Value = serde_json::from_str(&again).expect("json");
    assert_eq!(report["clusters"][0]["result"], "already on the new hub", "{report}");
}

/// Every step of a move is idempotent: the command SIGKILLed as the new hub gets the cluster,
/// as the old hub hands the klusterlet over, and as the old hub forgets it — a rerun finishes
/// each move, and the cluster ends on the new hub alone.
#[tokio::test]
async fn a_move_killed_at_any_step_is_finished_by_running_it_again() {
    let old = DevUp::start(3);
    let new = DevUp::start(0);
    let (old_hub, new_hub) = (old.client("hub").await, new.client("hub").await);
    ok(&old, old.fleetctl(&["import", "--contexts", "cluster1,cluster2,cluster3", "--hub-context", "hub"]));
    let kubeconfig = new.kubeconfig();
    let to = ["--to-hub-kubeconfig", kubeconfig.to_str().expect("utf-8"), "--to-hub-context", "hub"];
    let old_clusters: Api<ManagedCluster> = Api::all(old_hub.clone());
    let new_clusters: Api<ManagedCluster> = Api::all(new_hub.clone());
    type Point = Box<dyn Fn(Option<&ManagedCluster>) -> bool + Send>;
    let points: [(&str, &Api<ManagedCluster>, Point); 3] = [
        ("cluster1", &new_clusters, Box::new(|c: Option<&ManagedCluster>| c.is_some())),
        (
            "cluster2",
            &old_clusters,
            Box::new(|c: Option<&ManagedCluster>| {
                c.is_some_and(|c| c.annotations().contains_key(fleetctl_api::names::ANNOTATION_MOVING_TO))
            }),
        ),
        (
            "cluster3",
            &old_clusters,
            Box::new(|c: Option<&ManagedCluster>| c.is_none_or(|c| c.metadata.deletion_timestamp.is_some())),
        ),
    ];
    for (name, watched, point) in points {
        let mut command = old.fleetctl_command(&[&["move", name, "--hub-context", "hub"][..], &to].concat());
        let mut child =
            command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().expect("move");
        wait_for(watched.clone(), name, "the step to kill the move at", WAIT, point).await.expect("reached");
        // SIGKILL: nothing of the command's own runs after it.
        child.kill().expect("kill");
        child.wait().expect("reaped");
        let rerun = ok(&old, old.fleetctl(&[&["move", name, "--hub-context", "hub", "-o", "json"][..], &to].concat()));
        let report: serde_json::Value = serde_json::from_str(&rerun).expect("json");
        let result = report["clusters"][0]["result"].as_str().unwrap_or_default().to_string();
        assert!(["moved", "already on the new hub"].contains(&result.as_str()), "{name}: {report}");
        assert!(new_clusters.get(name).await.expect("on the new hub").is_available(), "{name}");
        assert!(old_clusters.get_opt(name).await.expect("read").is_none(), "{name} is forgotten by the old hub");
    }
}

/// A hub lost — its processes SIGKILLed, its store gone with them — comes back from its
/// backup: `hub restore` onto a new hub brings the clusters, their labels, works, cluster sets
/// and placements (twice, changing nothing the second time), and a cluster imported into the
/// new hub finds its works there, whose resources are adopted, not re-created. The file holds no
/// Secret, key or token of the hub and is readable by its owner only.
#[tokio::test]
async fn a_lost_hubs_backup_restored_onto_a_new_hub_brings_its_fleet_back_and_nothing_on_the_clusters_is_recreated() {
    use fleetctl_api::{ManagedClusterSet, Placement};
    use std::os::unix::fs::PermissionsExt;
    let old = DevUp::start(1);
    let new = DevUp::start(0);
    let (old_hub, new_hub, target) = (old.client("hub").await, new.client("hub").await, old.client("cluster1").await);
    let import = ["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "--label", "env=dev"];
    ok(&old, old.fleetctl(&import));
    let set: ManagedClusterSet =
        serde_json::from_value(json!({"metadata": {"name": "team"}, "spec": {}})).expect("a set");
    Api::<ManagedClusterSet>::all(old_hub.clone()).create(&PostParams::default(), &set).await.expect("set");
    let placement: Placement =
        serde_json::from_value(json!({"metadata": {"name": "dev", "namespace": "default"},
                                      "spec": {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": {"env": "dev"}}}}]}}))
            .expect("a placement");
    Api::<Placement>::namespaced(old_hub.clone(), "default")
        .create(&PostParams::default(), &placement)
        .await
        .expect("placement");
    let (config_maps, before) = app_work(&old_hub, &target).await;

    let file = old.dir.path().join("fleet-backup.yaml");
    let path = file.to_str().expect("utf-8");
    ok(&old, old.fleetctl(&["hub", "backup", "-o", path, "--hub-context", "hub"]));
    let mode = std::fs::metadata(&file).expect("written").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "readable by its owner only");
    let text = std::fs::read_to_string(&file).expect("read");
    for secret in ["kind: Secret", "PRIVATE KEY", "token:", "bootstrap-hub-kubeconfig"] {
        assert!(!text.contains(secret), "the backup holds {secret:?}:\n{text}");
    }

    // The old hub is lost: its API server and everything it runs, SIGKILLed.
    kill_hub(&old);

    let restore = ["hub", "restore", "-f", path, "--hub-context", "hub"];
    ok(&new, new.fleetctl(&restore));
    let restored = Api::<ManagedCluster>::all(new_hub.clone()).get("cluster1").await.expect("restored");
    assert_eq!(restored.labels().get("env").map(String::as_str), Some("dev"));
    ok(&new, new.fleetctl(&restore));
    let again = Api::<ManagedCluster>::all(new_hub.clone()).get("cluster1").await.expect("restored");
    assert_eq!(again.uid(), restored.uid(), "a second restore changes nothing");
    Api::<ManagedClusterSet>::all(new_hub.clone()).get("team").await.expect("the cluster set");
    Api::<Placement>::namespaced(new_hub.clone(), "default").get("dev").await.expect("the placement");

    // Imported into the new hub, the cluster finds its work there: adopted, not re-created.
    let (new_config, old_config) = (new.kubeconfig(), old.kubeconfig());
    let reimport = [
        "import",
        "cluster1",
        "--force",
        "--hub-kubeconfig",
        new_config.to_str().expect("utf-8"),
        "--hub-context",
        "hub",
        "--cluster-kubeconfig",
        old_config.to_str().expect("utf-8"),
        "--cluster-context",
        "cluster1",
    ];
    ok(&old, old.fleetctl(&reimport));
    let new_works: Api<ManifestWork> = Api::namespaced(new_hub.clone(), "cluster1");
    wait_for(new_works, "app", "the restored work applied", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied())
    })
    .await
    .expect("applied");
    let cluster = Api::<ManagedCluster>::all(new_hub.clone()).get("cluster1").await.expect("imported");
    assert!(cluster.is_available());
    assert_eq!(cluster.labels().get("env").map(String::as_str), Some("dev"), "the restored label stays");
    assert_eq!(config_maps.get("app").await.expect("ConfigMap").uid(), before);
}

/// A hub lost after it named a recovery hub (`hub backup --recovery-hub-context`): every
/// klusterlet turns to the recovery hub by itself once its hub has been silent for
/// --recover-after, bootstraps there with the identity that hub holds for it (upstream's rule
/// for a bootstrap kubeconfig naming another hub), and finds its works there, adopted —
/// nothing imported by hand, nothing on the cluster re-created.
#[tokio::test]
async fn a_lost_hubs_clusters_reconnect_by_themselves_to_the_recovery_hub_named_in_advance() {
    use k8s_openapi::api::core::v1::Secret;
    let old = DevUp::start(1);
    let new = DevUp::start(0);
    let (old_hub, new_hub, target) = (old.client("hub").await, new.client("hub").await, old.client("cluster1").await);
    ok(&old, old.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let (config_maps, before) = app_work(&old_hub, &target).await;

    let file = old.dir.path().join("fleet-backup.yaml");
    let recovery_config = new.kubeconfig();
    let backup = [
        "hub",
        "backup",
        "-o",
        file.to_str().expect("utf-8"),
        "--hub-context",
        "hub",
        "--recovery-hub-kubeconfig",
        recovery_config.to_str().expect("utf-8"),
        "--recovery-hub-context",
        "hub",
        "--recover-after",
        "3s",
    ];
    ok(&old, old.fleetctl(&backup));
    // The klusterlet holds the recovery hub's kubeconfig (the hub's klusterlet work carried it).
    let agent_secrets: Api<Secret> = Api::namespaced(target.clone(), fleetctl_api::names::AGENT_NAMESPACE);
    wait_for(
        agent_secrets,
        fleetctl_api::names::RECOVERY_HUB_SECRET,
        "the recovery kubeconfig",
        WAIT,
        |s: Option<&Secret>| s.is_some(),
    )
    .await
    .expect("handed");

    // The old hub is lost: its API server and everything it runs, SIGKILLed.
    kill_hub(&old);
    // The recovery hub gets the latest backup (it has it already: this changes nothing).
    ok(&new, new.fleetctl(&["hub", "restore", "-f", file.to_str().expect("utf-8"), "--hub-context", "hub"]));

    let clusters: Api<ManagedCluster> = Api::all(new_hub.clone());
    wait_for(clusters, "cluster1", "cluster1 available on the recovery hub", WAIT * 2, |c: Option<&ManagedCluster>| {
        c.is_some_and(|c| c.is_joined() && c.is_available())
    })
    .await
    .expect("reconnected by itself");
    let new_works: Api<ManifestWork> = Api::namespaced(new_hub.clone(), "cluster1");
    wait_for(new_works, "app", "the work applied from the recovery hub", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied())
    })
    .await
    .expect("applied");
    assert_eq!(config_maps.get("app").await.expect("ConfigMap").uid(), before, "the ConfigMap is adopted");
}

/// `hub backup --recovery-hub-context` and `hub restore`, each SIGKILLed as the first cluster
/// reaches the other hub: a rerun finishes — every cluster there, every klusterlet holding the
/// recovery hub's kubeconfig.
#[tokio::test]
async fn a_backup_to_a_recovery_hub_or_a_restore_killed_midway_is_finished_by_running_it_again() {
    use k8s_openapi::api::core::v1::Secret;
    let old = DevUp::start(2);
    let (recovery, spare) = (DevUp::start(0), DevUp::start(0));
    ok(&old, old.fleetctl(&["import", "--contexts", "cluster1,cluster2", "--hub-context", "hub"]));
    let file = old.dir.path().join("fleet-backup.yaml");
    let file = file.to_str().expect("utf-8");
    let recovery_config = recovery.kubeconfig();
    let backup = [
        "hub",
        "backup",
        "-o",
        file,
        "--hub-context",
        "hub",
        "--recovery-hub-kubeconfig",
        recovery_config.to_str().expect("utf-8"),
        "--recovery-hub-context",
        "hub",
    ];
    let killed_when_there = |env: &DevUp, args: &[&str], hub: Client| {
        let mut child = env
            .fleetctl_command(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("runs");
        async move {
            let clusters: Api<ManagedCluster> = Api::all(hub);
            wait_for(clusters, "cluster1", "cluster1 on the other hub", WAIT, |c: Option<&ManagedCluster>| c.is_some())
                .await
                .expect("reached");
            child.kill().expect("kill");
            child.wait().expect("reaped");
        }
    };
    killed_when_there(&old, &backup, recovery.client("hub").await).await;
    ok(&old, old.fleetctl(&backup));
    for name in ["cluster1", "cluster2"] {
        let secrets: Api<Secret> = Api::namespaced(old.client(name).await, fleetctl_api::names::AGENT_NAMESPACE);
        wait_for(
            secrets,
            fleetctl_api::names::RECOVERY_HUB_SECRET,
            "the recovery kubeconfig",
            WAIT,
            |s: Option<&Secret>| s.is_some(),
        )
        .await
        .expect("handed");
    }

    let restore = ["hub", "restore", "-f", file, "--hub-context", "hub"];
    killed_when_there(&spare, &restore, spare.client("hub").await).await;
    ok(&spare, spare.fleetctl(&restore));
    let clusters: Api<ManagedCluster> = Api::all(spare.client("hub").await);
    for name in ["cluster1", "cluster2"] {
        assert!(clusters.get(name).await.expect("restored").spec.hub_accepts_client, "{name}");
    }
}
