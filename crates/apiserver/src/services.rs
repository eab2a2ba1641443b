//! The `kubernetes` Service in `default` and its Endpoints, as kube-apiserver keeps
//! them: its cluster IP is the address Pods reach this server at ([`super::SERVICE_HOST`]),
//! its endpoint the address people's kubeconfigs name. `kubectl cluster-info` reads it.
//!
//! And what the Service REST storage allocates for every other Service: a cluster IP from
//! the service range (kube-apiserver's default `--service-cluster-ip-range`), unless it is
//! headless (`None`), and node ports for `NodePort` and `LoadBalancer` Services, with
//! upstream's errors for an address or port out of range or already allocated.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::ops::RangeInclusive;

use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Service, ServicePort, ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::registry::GroupResource;
use super::resource::WriteOptions;
use super::state::ApiState;
use super::status::{ApiError, Cause};

const NAME: &str = "kubernetes";
const NAMESPACE: &str = "default";

fn meta() -> ObjectMeta {
    let labels: BTreeMap<String, String> = [("component", "apiserver"), ("provider", "kubernetes")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ObjectMeta {
        name: Some(NAME.into()),
        namespace: Some(NAMESPACE.into()),
        labels: Some(labels),
        ..ObjectMeta::default()
    }
}

/// Creates the Service and Endpoints for a server on `port`, or points them at it.
pub fn ensure_kubernetes(state: &ApiState, port: u16) -> Result<(), ApiError> {
    let port = i32::from(port);
    let service = Service {
        metadata: meta(),
        spec: Some(ServiceSpec {
            type_: Some("ClusterIP".into()),
            cluster_ip: Some(super::SERVICE_HOST.to_string()),
            cluster_ips: Some(vec![super::SERVICE_HOST.to_string()]),
            ports: Some(vec![ServicePort {
                name: Some("https".into()),
                port,
                protocol: Some("TCP".into()),
                target_port: Some(IntOrString::Int(port)),
                ..ServicePort::default()
            }]),
            session_affinity: Some("None".into()),
            ..ServiceSpec::default()
        }),
        status: None,
    };
    let endpoints = Endpoints {
        metadata: meta(),
        subsets: Some(vec![EndpointSubset {
            addresses: Some(vec![EndpointAddress { ip: "127.0.0.1".into(), ..EndpointAddress::default() }]),
            ports: Some(vec![EndpointPort {
                name: Some("https".into()),
                port,
                protocol: Some("TCP".into()),
                ..EndpointPort::default()
            }]),
            ..EndpointSubset::default()
        }]),
    };
    put(state, "services", &service)?;
    put(state, "endpoints", &endpoints)
}

/// Creates the object, or replaces what it holds besides its metadata.
fn put<T: serde::Serialize>(state: &ApiState, plural: &str, object: &T) -> Result<(), ApiError> {
    let rt = state.registry.get("", "v1", plural).ok_or_else(ApiError::no_route)?;
    let body =
        serde_json::to_value(object).map_err(|e| ApiError::internal(format!("serializing {plural}/{NAME}: {e}")))?;
    match state.create(&rt, Some(NAMESPACE), body.clone(), &WriteOptions::default()) {
        Err(e) if e.code == 409 => {}
        other => return other.map(|_| ()),
    }
    state
        .write(&rt, Some(NAMESPACE), NAME, None, &WriteOptions::default(), None, &mut |current| {
            let mut next: Value = body.clone();
            next["metadata"] = current["metadata"].clone();
            Ok(next)
        })
        .map(|_| ())
}

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
fn allocated(state: &ApiState, except: (&str, &str)) -> (BTreeSet<String>, BTreeSet<i64>) {
    let services = GroupResource::new("", "services");
    let page = state.store.list(&services, None, None, 0, &|_| true);
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
pub fn allocate(state: &ApiState, object: &mut Value) -> Result<(), ApiError> {
    let kind = object["spec"]["type"].as_str().unwrap_or("ClusterIP").to_string();
    if kind == "ExternalName" {
        return Ok(());
    }
    let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default().to_string();
    let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let (ips, mut ports) = allocated(state, (&namespace, &name));
    let mut causes = Vec::new();
    let asked = object["spec"]["clusterIP"].as_str().unwrap_or_default().to_string();
    let ip = match asked.as_str() {
        "" => free_ip(&ips).ok_or_else(|| ApiError::internal("the service IP range is full"))?,
        "None" => asked.clone(),
        _ => {
            let is_kubernetes = namespace == NAMESPACE && name == NAME && asked == super::SERVICE_HOST.to_string();
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
