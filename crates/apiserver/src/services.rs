//! What the Service REST storage allocates for every Service: a cluster IP from the
//! service range (kube-apiserver's default `--service-cluster-ip-range`), unless it is
//! headless (`None`), and node ports for `NodePort` and `LoadBalancer` Services, with
//! upstream's errors for an address or port out of range or already allocated. The
//! `kubernetes` Service (`kubernetes_service`) alone has an address outside the range.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::ops::RangeInclusive;

use serde_json::Value;

use super::context::Context;
use super::reader::Reader;
use super::registry::GroupResource;
use super::status::{ApiError, Cause};

/// The name of the `kubernetes` Service, whose address is the server's own.
pub const KUBERNETES: &str = "kubernetes";
/// Its namespace.
pub const KUBERNETES_NAMESPACE: &str = "default";

/// The service range: 10.96.0.0/12.
const SERVICE_RANGE: (Ipv4Addr, u32) = (Ipv4Addr::new(10, 96, 0, 0), 12);
/// kube-apiserver's default `--service-node-port-range`.
const NODE_PORTS: RangeInclusive<i64> = 30000..=32767;

fn in_service_range(ip: Ipv4Addr) -> bool {
    let (base, bits) = SERVICE_RANGE;
    let mask = u32::MAX << (32 - bits);
    u32::from(ip) & mask == u32::from(base)
}

/// A random number (a fresh uuid's first bytes).
fn random() -> u32 {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// The cluster IPs and node ports the other Services hold.
fn allocated(store: &Reader, except: (&str, &str)) -> (BTreeSet<String>, BTreeSet<i64>) {
    let services = GroupResource::new("", "services");
    let page = store.list(&services, None);
    let (mut ips, mut ports) = (BTreeSet::new(), BTreeSet::new());
    for service in page.items.iter().map(|stored| stored.value()) {
        let key = (
            service["metadata"]["namespace"].as_str().unwrap_or_default(),
            service["metadata"]["name"].as_str().unwrap_or_default(),
        );
        if key == except {
            continue;
        }
        ips.extend(
            service["spec"]["clusterIPs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|ip| ip.as_str())
                .map(str::to_string),
        );
        ports.extend(service["spec"]["ports"].as_array().into_iter().flatten().filter_map(|p| p["nodePort"].as_i64()));
    }
    (ips, ports)
}

fn free_ip(taken: &BTreeSet<String>) -> Option<String> {
    let (base, bits) = SERVICE_RANGE;
    let size = 1u32 << (32 - bits);
    // Skip the network address and the first host (the range's own `kubernetes` address).
    let start = random() % (size - 2);
    (0..size - 2)
        .map(|i| Ipv4Addr::from(u32::from(base) + 2 + (start + i) % (size - 2)).to_string())
        .find(|ip| !taken.contains(ip))
}

fn free_port(taken: &BTreeSet<i64>) -> Option<i64> {
    let size = NODE_PORTS.end() - NODE_PORTS.start() + 1;
    let start = i64::from(random()) % size;
    (0..size).map(|i| NODE_PORTS.start() + (start + i) % size).find(|port| !taken.contains(port))
}

/// Gives a Service (defaulted already) its cluster IP and node ports, or says why the
/// ones it asks for cannot be had. What a stored Service of the same name holds does not
/// count as taken: it is this one updated (or a create that is refused as existing).
pub fn allocate(context: &Context<'_>, object: &mut Value) -> Result<(), ApiError> {
    let kind = object["spec"]["type"].as_str().unwrap_or("ClusterIP").to_string();
    if kind == "ExternalName" {
        return Ok(());
    }
    let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default().to_string();
    let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let (ips, mut ports) = allocated(&context.store, (&namespace, &name));
    let mut causes = Vec::new();
    let asked = object["spec"]["clusterIP"].as_str().unwrap_or_default().to_string();
    let ip = match asked.as_str() {
        "" => free_ip(&ips).ok_or_else(|| ApiError::internal("the service IP range is full"))?,
        "None" => asked.clone(),
        _ => {
            let is_kubernetes =
                namespace == KUBERNETES_NAMESPACE && name == KUBERNETES && asked == super::SERVICE_HOST.to_string();
            match asked.parse::<Ipv4Addr>() {
                Ok(parsed) if !is_kubernetes && !in_service_range(parsed) => causes.push(Cause::new(
                    "FieldValueInvalid",
                    "spec.clusterIPs[0]",
                    format!("Invalid value: {asked:?}: failed to allocate IP {asked}: the provided IP ({asked}) is not in the valid range. The range of valid IPs is 10.96.0.0/12"),
                )),
                Ok(_) if ips.contains(&asked) => causes.push(Cause::new(
                    "FieldValueInvalid",
                    "spec.clusterIPs[0]",
                    format!("Invalid value: {asked:?}: failed to allocate IP {asked}: provided IP is already allocated"),
                )),
                Ok(_) => {}
                Err(_) => causes.push(Cause::new(
                    "FieldValueInvalid",
                    "spec.clusterIPs[0]",
                    format!("Invalid value: {asked:?}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"),
                )),
            }
            asked.clone()
        }
    };
    object["spec"]["clusterIP"] = Value::from(ip.clone());
    object["spec"]["clusterIPs"] = Value::from(vec![ip]);
    let wants_node_ports =
        kind == "NodePort" || (kind == "LoadBalancer" && object["spec"]["allocateLoadBalancerNodePorts"] != false);
    if wants_node_ports && let Some(list) = object["spec"]["ports"].as_array_mut() {
        for (i, port) in list.iter_mut().enumerate() {
            match port["nodePort"].as_i64() {
                None | Some(0) => {
                    let free = free_port(&ports).ok_or_else(|| ApiError::internal("the node port range is full"))?;
                    ports.insert(free);
                    port["nodePort"] = Value::from(free);
                }
                Some(asked) if !NODE_PORTS.contains(&asked) => causes.push(Cause::new(
                    "FieldValueInvalid",
                    format!("spec.ports[{i}].nodePort"),
                    format!("Invalid value: {asked}: provided port is not in the valid range. The range of valid ports is 30000-32767"),
                )),
                Some(asked) if !ports.insert(asked) => causes.push(Cause::new(
                    "FieldValueInvalid",
                    format!("spec.ports[{i}].nodePort"),
                    format!("Invalid value: {asked}: provided port is already allocated"),
                )),
                Some(_) => {}
            }
        }
    }
    if causes.is_empty() { Ok(()) } else { Err(ApiError::invalid("Service", "", &name, causes)) }
}
