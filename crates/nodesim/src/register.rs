//! The Node as a kubelet registers it: named after the cluster, capacity and
//! allocatable from this machine (its CPUs and memory; 110 Pods), the node's address and
//! kubelet endpoint, `nodeInfo` with the API server's version as the kubelet's, and the
//! conditions a healthy kubelet posts. The heartbeat is a Lease in `kube-node-lease`
//! renewed every 10 s (40 s duration, as upstream), and the Ready condition's
//! `lastHeartbeatTime` refreshed every 5 minutes (upstream's status report frequency).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::{
    DaemonEndpoint, Node, NodeAddress, NodeCondition, NodeDaemonEndpoints, NodeStatus, NodeSystemInfo,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, OwnerReference, Time};
use kube::api::{Api, Patch, PatchParams, PostParams};
use tokio::sync::watch;

use super::Node as Simulator;

/// The namespace of node heartbeats.
const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";
/// How long a heartbeat holds.
const LEASE_SECONDS: i32 = 40;
/// How often the Lease is renewed.
const RENEW: Duration = Duration::from_secs(10);
/// Renewals between two refreshes of the Node's status (5 minutes).
const STATUS_EVERY: u32 = 30;
/// Pods a node takes (upstream's default `maxPods`).
const MAX_PODS: &str = "110";

/// Creates (or refreshes) the Node and its Lease.
pub(super) async fn register(node: &Simulator) -> Result<(), kube::Error> {
    let api: Api<Node> = Api::all(node.client());
    let version = node.client().apiserver_version().await?.git_version;
    let object = Node { metadata: node_meta(&node.config.name), spec: None, status: None };
    let created = match api.create(&PostParams::default(), &object).await {
        Ok(created) => created,
        Err(kube::Error::Api(e)) if e.code == 409 => api.get(&node.config.name).await?,
        Err(e) => return Err(e),
    };
    let status = status(node, &version);
    api.patch_status(&node.config.name, &PatchParams::default(), &Patch::Merge(serde_json::json!({"status": status})))
        .await?;
    renew_lease(node, &created).await
}

/// Keeps the heartbeat until stopped.
pub(super) async fn run(node: Arc<Simulator>, mut stop: watch::Receiver<bool>) {
    let mut renewals = 0u32;
    loop {
        tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            () = tokio::time::sleep(RENEW) => {}
        }
        renewals += 1;
        let result = if renewals.is_multiple_of(STATUS_EVERY) {
            register(&node).await
        } else {
            match Api::<Node>::all(node.client()).get(&node.config.name).await {
                Ok(object) => renew_lease(&node, &object).await,
                Err(e) => Err(e),
            }
        };
        if let Err(e) = result {
            tracing::debug!(node = %node.config.name, error = %e, "node heartbeat (will retry)");
        }
    }
}

fn node_meta(name: &str) -> ObjectMeta {
    let arch = go_arch();
    let labels: BTreeMap<String, String> = [
        ("kubernetes.io/hostname", name),
        ("kubernetes.io/os", std::env::consts::OS),
        ("kubernetes.io/arch", arch),
        ("beta.kubernetes.io/os", std::env::consts::OS),
        ("beta.kubernetes.io/arch", arch),
        ("node-role.kubernetes.io/control-plane", ""),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    ObjectMeta { name: Some(name.to_string()), labels: Some(labels), ..ObjectMeta::default() }
}

fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    }
}

fn now() -> jiff::Timestamp {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second()).unwrap_or(now)
}

/// The Node's status as this machine and simulator give it.
fn status(node: &Simulator, version: &str) -> NodeStatus {
    let resources = machine_resources();
    let time = Time(now());
    let condition = |kind: &str, status: &str, reason: &str, message: &str| NodeCondition {
        type_: kind.to_string(),
        status: status.to_string(),
        reason: Some(reason.to_string()),
        message: Some(message.to_string()),
        last_heartbeat_time: Some(time.clone()),
        last_transition_time: Some(time.clone()),
    };
    let machine_id = read_trimmed("/etc/machine-id");
    NodeStatus {
        capacity: Some(resources.clone()),
        allocatable: Some(resources),
        conditions: Some(vec![
            condition(
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ]),
        addresses: Some(vec![
            NodeAddress { type_: "InternalIP".into(), address: node.address().ip().to_string() },
            NodeAddress { type_: "Hostname".into(), address: node.config.name.clone() },
        ]),
        daemon_endpoints: Some(NodeDaemonEndpoints {
            kubelet_endpoint: Some(DaemonEndpoint { port: i32::from(node.address().port()) }),
        }),
        node_info: Some(NodeSystemInfo {
            architecture: go_arch().to_string(),
            boot_id: read_trimmed("/proc/sys/kernel/random/boot_id"),
            container_runtime_version: format!("fleetctl-node-simulator://{}", env!("CARGO_PKG_VERSION")),
            kernel_version: read_trimmed("/proc/sys/kernel/osrelease"),
            kube_proxy_version: String::new(),
            kubelet_version: version.to_string(),
            machine_id: machine_id.clone(),
            operating_system: std::env::consts::OS.to_string(),
            os_image: os_image(),
            system_uuid: machine_id,
            swap: None,
        }),
        ..NodeStatus::default()
    }
}

fn read_trimmed(path: &str) -> String {
    std::fs::read_to_string(path).map(|s| s.trim().to_string()).unwrap_or_default()
}

/// `PRETTY_NAME` of `/etc/os-release`.
fn os_image() -> String {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| "Linux".to_string())
}

/// This machine's CPUs and memory, and the Pods a node takes.
pub(crate) fn machine_resources() -> BTreeMap<String, Quantity> {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let memory_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| info.lines().find_map(|l| l.strip_prefix("MemTotal:").map(str::to_string)))
        .and_then(|rest| rest.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .unwrap_or(0);
    [("cpu", cpus.to_string()), ("memory", format!("{memory_kib}Ki")), ("pods", MAX_PODS.to_string())]
        .into_iter()
        .map(|(k, v)| (k.to_string(), Quantity(v)))
        .collect()
}

/// Renews (or creates) the Node's Lease, owned by the Node as upstream's is.
async fn renew_lease(node: &Simulator, object: &Node) -> Result<(), kube::Error> {
    let name = node.config.name.clone();
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: Some(NODE_LEASE_NAMESPACE.to_string()),
            owner_references: Some(vec![OwnerReference {
                api_version: "v1".into(),
                kind: "Node".into(),
                name: name.clone(),
                uid: object.metadata.uid.clone().unwrap_or_default(),
                ..OwnerReference::default()
            }]),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(name.clone()),
            lease_duration_seconds: Some(LEASE_SECONDS),
            renew_time: Some(MicroTime(jiff::Timestamp::now())),
            ..LeaseSpec::default()
        }),
    };
    let api: Api<Lease> = Api::namespaced(node.client(), NODE_LEASE_NAMESPACE);
    let params = PatchParams::apply("kubelet").force();
    api.patch(&name, &params, &Patch::Apply(&lease)).await.map(|_| ())
}
