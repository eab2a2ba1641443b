//! The three acts with the hub controller, a klusterlet and an addon agent running from the
//! real image, as podman containers: what a real cluster runs. `.ci/image` builds the image; under CI
//! (`FLEETCTL_REQUIRE_TOOLS`) a missing podman or image fails the test instead of skipping it.

use std::process::{Command, Output};
use std::time::Instant;

use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, HUB_KUBECONFIG_SECRET, HUB_NAMESPACE, default_image};
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams};
use kube::config::Kubeconfig;

use super::DevUp;

/// The e2e's own names for the image: the first version and the one it upgrades to.
const REPOSITORY: &str = "localhost/fleetctl-e2e/fleetctl";
const UPGRADE_TO: &str = "0.2.0";

/// podman as CI runs it (`FLEETCTL_PODMAN_OPTIONS`, `CONTAINERS_CONF` from .ci/podman-env).
fn podman(args: &[&str]) -> std::io::Result<Output> {
    let options = std::env::var("FLEETCTL_PODMAN_OPTIONS").unwrap_or_default();
    Command::new("podman").args(options.split_whitespace()).args(args).output()
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

fn ok(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed ({:?}): {stderr}", output.status.code());
    String::from_utf8_lossy(&output.stdout).into_owned()
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
    let hub = env.client("hub").await;
    let cluster = env.client("cluster1").await;

    // The hub controller is a container of the image, not a process of the build.
    let controller = containers(&hub, HUB_NAMESPACE).await;
    assert!(
        !controller.is_empty() && controller.iter().all(|(image, id)| *image == first && id.starts_with("podman://")),
        "{controller:?}"
    );

    let hub_args = ["--hub-context", "hub"];
    let import = ["import", "cluster1", "--cluster-context", "cluster1", "--addons", "search-collector"];
    ok(env.fleetctl(&[&import[..], &hub_args].concat()));
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
    let hub_url = env.server("hub");
    let secrets = Api::<Secret>::namespaced(cluster.clone(), AGENT_NAMESPACE);
    assert_eq!(kubeconfig_server(&secrets.get(BOOTSTRAP_SECRET).await.expect("bootstrap")), hub_url);
    assert_eq!(kubeconfig_server(&secrets.get(HUB_KUBECONFIG_SECRET).await.expect("hub kubeconfig")), hub_url);

    ok(env.fleetctl(&[&["upgrade", "cluster1", "--to", UPGRADE_TO][..], &hub_args].concat()));
    let upgraded = format!("{REPOSITORY}:{UPGRADE_TO}");
    let agents = containers(&cluster, AGENT_NAMESPACE).await;
    let agent_images: Vec<&str> = agents.iter().map(|(image, _)| image.as_str()).collect();
    assert!(agent_images.contains(&upgraded.as_str()), "the agents run {UPGRADE_TO}: {agents:?}");
    assert!(agents.iter().all(|(_, id)| id.starts_with("podman://")), "{agents:?}");

    ok(env.fleetctl(&[&["detach", "cluster1", "--yes", "--cluster-context", "cluster1"][..], &hub_args].concat()));
    // The dev cluster deletes a Pod at once and its node stops the container after (a
    // kubelet would first stop it): every klusterlet container stops, none is left running.
    let listed = podman(&["ps", "--all", "--format", "{{.Names}} {{.Image}}"]).expect("podman ps");
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    for line in listed.lines().filter(|line| line.contains(REPOSITORY) && !line.contains("hub-controller")) {
        let name = line.split_whitespace().next().expect("name");
        // Fails only when the container is already gone.
        let _ = podman(&["wait", name]);
    }
    let running = podman(&["ps", "--format", "{{.Names}}"]).expect("podman ps");
    let running = String::from_utf8_lossy(&running.stdout).into_owned();
    assert!(!running.contains("klusterlet"), "no klusterlet container keeps running: {running}");
    eprintln!("image e2e: import, upgrade and detach from the image in {:.1}s", started.elapsed().as_secs_f64());
}
