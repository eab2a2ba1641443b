//! The three acts with the hub controller, a klusterlet and an addon agent running from the
//! real image, as podman containers: what a real cluster runs. `.ci/image` builds the image; under CI
//! (`FLEETCTL_REQUIRE_TOOLS`) a missing podman or image fails the test instead of skipping it.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, HUB_KUBECONFIG_SECRET, HUB_NAMESPACE, default_image};
use fleetctl_nodesim::container::NODE_LABEL;
use fleetctl_nodesim::container_label;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams};
use kube::config::Kubeconfig;

use super::DevUp;

/// The e2e's own names for the image: the first version and the one it upgrades to.
const REPOSITORY: &str = "localhost/fleetctl-e2e/fleetctl";
const UPGRADE_TO: &str = "0.2.0";

/// The options CI runs podman with (`FLEETCTL_PODMAN_OPTIONS` from .ci/podman-env; none
/// when it is not set, as outside CI).
fn podman_options() -> Vec<String> {
    std::env::var("FLEETCTL_PODMAN_OPTIONS")
        .map_or_else(|_| Vec::new(), |o| o.split_whitespace().map(str::to_string).collect())
}

/// podman as CI runs it (its options, and `CONTAINERS_CONF` from the environment).
pub fn podman(args: &[&str]) -> std::io::Result<Output> {
    Command::new("podman").args(podman_options()).args(args).output()
}

/// Why the e2e cannot run here, if it cannot.
pub fn missing() -> Option<String> {
    let Ok(version) = podman(&["--version"]) else {
        return Some("podman is not installed".into());
    };
    if !version.status.success() {
        return Some(format!("podman does not run: {}", String::from_utf8_lossy(&version.stderr)));
    }
    let image = default_image();
    let exists = podman(&["image", "exists", &image]).is_ok_and(|o| o.status.success());
    if !exists {
        return Some(format!("the image {image} is not in podman's storage (build it with .ci/image)"));
    }
    // podman may be installed but unable to run containers here (see .ci/podman-env).
    match podman(&["run", "--rm", "--network", "host", &image, "--version"]) {
        Ok(output) if output.status.success() => None,
        Ok(output) => Some(format!(
            "podman cannot run {image} (source .ci/podman-env for the options CI uses): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(e) => Some(format!("podman cannot run: {e}")),
    }
}

/// The e2e's tags of the image, removed when dropped.
struct Tags(Vec<String>);

impl Tags {
    fn of(image: &str, versions: &[&str]) -> Self {
        let tags: Vec<String> = versions.iter().map(|v| format!("{REPOSITORY}:{v}")).collect();
        for tag in &tags {
            let output = podman(&["tag", image, tag]).expect("podman tag");
            assert!(output.status.success(), "podman tag {tag}: {}", String::from_utf8_lossy(&output.stderr));
        }
        Self(tags)
    }
}

impl Drop for Tags {
    fn drop(&mut self) {
        for tag in &self.0 {
            let _ = podman(&["rmi", tag]);
        }
    }
}

/// A step of the e2e reached, with the time since it started: what CI shows of a test
/// that fails or is killed.
fn step(started: Instant, what: &str) {
    eprintln!("image e2e: {what} at {:.1}s", started.elapsed().as_secs_f64());
}

/// Runs fleetctl in `env`; on failure, its error and every log of the environment (the
/// containers' output among them).
fn ok(env: &DevUp, args: &[&str]) -> String {
    let output = env.fleetctl(args);
    assert!(
        output.status.success(),
        "fleetctl {} failed ({:?}): {}\n{}",
        args.join(" "),
        output.status.code(),
        String::from_utf8_lossy(&output.stderr),
        env.logs()
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The names of the containers the dev cluster `cluster` of `env` started, running or not.
fn node_containers(env: &DevUp, cluster: &str) -> Vec<String> {
    let label = format!("label={NODE_LABEL}={}", container_label(env.dir.path(), cluster));
    let output = podman(&["ps", "--all", "--filter", &label, "--format", "{{.Names}}"]).expect("podman ps");
    assert!(output.status.success(), "podman ps: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect()
}

/// Waits until the container `name` has stopped, or is gone.
async fn stopped(name: &str, within: Duration) {
    let mut wait = tokio::process::Command::new("podman");
    wait.args(podman_options()).args(["wait", name]).kill_on_drop(true);
    wait.stdout(Stdio::null()).stderr(Stdio::null());
    // An error means the container is gone already.
    let waited = tokio::time::timeout(within, wait.status()).await;
    assert!(waited.is_ok(), "the container {name} still runs {within:?} after detach");
}

/// The images and container ids of a namespace's running pods, sorted.
async fn containers(client: &kube::Client, namespace: &str) -> Vec<(String, String)> {
    let pods = Api::<Pod>::namespaced(client.clone(), namespace).list(&ListParams::default()).await.expect("pods");
    let mut found: Vec<(String, String)> = pods
        .items
        .iter()
        .flat_map(|pod| pod.status.iter().flat_map(|s| s.container_statuses.iter().flatten()))
        .map(|c| (c.image.clone(), c.container_id.clone().unwrap_or_default()))
        .collect();
    found.sort();
    found
}

fn kubeconfig_server(secret: &Secret) -> String {
    let data = secret.data.as_ref().expect("data");
    let config = Kubeconfig::from_yaml(std::str::from_utf8(&data["kubeconfig"].0).expect("utf-8")).expect("kubeconfig");
    config.clusters[0].cluster.as_ref().and_then(|c| c.server.clone()).expect("server")
}

/// How long each CLI step may wait: a stuck step then fails with the CLI's own report
/// before nextest kills the test.
const STEP_TIMEOUT: &str = "60s";

#[tokio::test]
async fn the_hub_and_a_klusterlet_run_from_the_image_as_containers_through_import_upgrade_and_detach() {
    if let Some(why) = missing() {
        crate::support::skip(&format!("the image e2e: {why}"));
        return;
    }
    let started = Instant::now();
    let _tags = Tags::of(&default_image(), &["0.1.0", UPGRADE_TO]);
    let first = format!("{REPOSITORY}:0.1.0");
    let env = DevUp::start_args(1, &["--podman", "--image", &first]);
    step(started, "dev up --podman");
    let hub = env.client("hub").await;
    let cluster = env.client("cluster1").await;

    // The hub controller is a container of the image, not a process of the build.
    let controller = containers(&hub, HUB_NAMESPACE).await;
    assert!(
        !controller.is_empty() && controller.iter().all(|(image, id)| *image == first && id.starts_with("podman://")),
        "{controller:?}"
    );

    let hub_args = ["--hub-context", "hub", "--timeout", STEP_TIMEOUT];
    let import = ["import", "cluster1", "--cluster-context", "cluster1", "--addons", "search-collector"];
    ok(&env, &[&import[..], &hub_args].concat());
    step(started, "import");
    // The operator and both agents run from the image, and they found the cluster as pods
    // do (the service address), while the bootstrap kubeconfig names the hub's external
    // address — the one in the user's kubeconfig — never the in-cluster one.
    let agents = containers(&cluster, AGENT_NAMESPACE).await;
    assert!(agents.len() >= 3, "operator, registration and work agents: {agents:?}");
    assert!(agents.iter().all(|(image, id)| *image == first && id.starts_with("podman://")), "{agents:?}");
    // The addon agent too (the CLI waited for it to be Available).
    let addons = containers(&cluster, fleetctl_api::addon::DEFAULT_ADDON_INSTALL_NAMESPACE).await;
    assert!(
        !addons.is_empty() && addons.iter().all(|(image, id)| *image == first && id.starts_with("podman://")),
        "the search-collector addon: {addons:?}"
    );
    // podman knows them as the containers of cluster1's node.
    let on_node = node_containers(&env, "cluster1");
    assert!(on_node.len() >= agents.len() + addons.len(), "{on_node:?} against {agents:?} and {addons:?}");
    let hub_url = env.server("hub");
    let secrets = Api::<Secret>::namespaced(cluster.clone(), AGENT_NAMESPACE);
    assert_eq!(kubeconfig_server(&secrets.get(BOOTSTRAP_SECRET).await.expect("bootstrap")), hub_url);
    assert_eq!(kubeconfig_server(&secrets.get(HUB_KUBECONFIG_SECRET).await.expect("hub kubeconfig")), hub_url);

    ok(&env, &[&["upgrade", "cluster1", "--to", UPGRADE_TO][..], &hub_args].concat());
    step(started, "upgrade");
    let upgraded = format!("{REPOSITORY}:{UPGRADE_TO}");
    let agents = containers(&cluster, AGENT_NAMESPACE).await;
    let agent_images: Vec<&str> = agents.iter().map(|(image, _)| image.as_str()).collect();
    assert!(agent_images.contains(&upgraded.as_str()), "the agents run {UPGRADE_TO}: {agents:?}");
    assert!(agents.iter().all(|(_, id)| id.starts_with("podman://")), "{agents:?}");

    ok(&env, &[&["detach", "cluster1", "--yes", "--cluster-context", "cluster1"][..], &hub_args].concat());
    step(started, "detach");
    // The dev cluster deletes a Pod at once and its node stops the container after (a
    // kubelet would first stop it): every container of cluster1 stops and is removed,
    // one that was stopped before it started included.
    for name in node_containers(&env, "cluster1") {
        stopped(&name, Duration::from_secs(60)).await;
    }
    let left = node_containers(&env, "cluster1");
    assert!(left.is_empty(), "containers left on cluster1 after detach: {left:?}");
    step(started, "import, upgrade and detach from the image");
}
