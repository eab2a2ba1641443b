//! The endpoints and EndpointSlice controllers of kube-controller-manager, for Services
//! with a selector: an Endpoints object of the Service's name with the addresses of the
//! ready Pods it selects (`notReadyAddresses` for the others), and an EndpointSlice
//! `<service>-<random>` (labelled `kubernetes.io/service-name`, owned by the Service) with
//! each Pod's `ready`/`serving`/`terminating` conditions. A named target port is resolved
//! against each Pod's container ports; Pods that ended or have no IP are left out. The
//! Endpoints of a deleted Service go with it.

use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, ObjectReference, Pod, Service, ServicePort,
};
use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort as SlicePort, EndpointSlice};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::Serialize;

use super::super::options::WriteOptions;
use super::super::registry::GroupResource;
use super::super::state::Shared;
use super::super::status::ApiError;
use super::super::store::ObjectRef;
use super::replicasets::is_ready;
use super::workloads::pods;
use super::{Step, modify, read, remove, resource_type, split_key};

/// The label that ties an EndpointSlice to its Service.
const SERVICE_NAME: &str = "kubernetes.io/service-name";
/// The label that says which controller keeps an EndpointSlice.
const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
const CONTROLLER: &str = "endpointslice-controller.k8s.io";

/// Core `services`.
pub(super) fn services() -> GroupResource {
    GroupResource::new("", "services")
}

fn endpoints() -> GroupResource {
    GroupResource::new("", "endpoints")
}

fn slices() -> GroupResource {
    GroupResource::new("discovery.k8s.io", "endpointslices")
}

/// The port a Service port reaches on `pod`: its number, or the container port of its name.
fn target_port(port: &ServicePort, pod: &Pod) -> Option<i32> {
    match &port.target_port {
        None => Some(port.port),
        Some(IntOrString::Int(number)) => Some(*number),
        Some(IntOrString::String(name)) => {
            let containers = pod.spec.iter().flat_map(|spec| spec.containers.iter());
            containers
                .flat_map(|c| c.ports.iter().flatten())
                .find(|p| p.name.as_deref() == Some(name))
                .map(|p| p.container_port)
        }
    }
}

/// A Pod the Service selects, as both objects show it.
struct Member {
    pod: Pod,
    ip: String,
    ports: Vec<EndpointPort>,
}

fn members(state: &Shared, namespace: &str, service: &Service) -> Vec<Member> {
    let Some(selector) = service.spec.as_ref().and_then(|s| s.selector.clone()).filter(|s| !s.is_empty()) else {
        return Vec::new();
    };
    let service_ports = service.spec.as_ref().and_then(|s| s.ports.clone()).unwrap_or_default();
    let page = state.store.list(&pods(), Some(namespace), None, 0, &|_| true);
    page.items
        .iter()
        .filter_map(|stored| serde_json::from_value::<Pod>(stored.value()).ok())
        .filter(|pod| {
            let labels = pod.metadata.labels.clone().unwrap_or_default();
            selector.iter().all(|(k, v)| labels.get(k) == Some(v))
        })
        .filter(|pod| !matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed")))
        .filter_map(|pod| {
            let ip = pod.status.as_ref().and_then(|s| s.pod_ip.clone()).filter(|ip| !ip.is_empty())?;
            let ports = service_ports
                .iter()
                .filter_map(|port| {
                    Some(EndpointPort {
                        name: port.name.clone(),
                        port: target_port(port, &pod)?,
                        protocol: port.protocol.clone(),
                        app_protocol: port.app_protocol.clone(),
                    })
                })
                .collect();
            Some(Member { pod, ip, ports })
        })
        .collect()
}

fn pod_reference(pod: &Pod) -> ObjectReference {
    ObjectReference {
        kind: Some("Pod".into()),
        name: pod.metadata.name.clone(),
        namespace: pod.metadata.namespace.clone(),
        uid: pod.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}

/// The Endpoints' subsets: Pods with the same ports share one; terminating Pods are out.
fn subsets(members: &[Member], publish_not_ready: bool) -> Option<Vec<EndpointSubset>> {
    let mut subsets: Vec<EndpointSubset> = Vec::new();
    for member in members.iter().filter(|m| m.pod.metadata.deletion_timestamp.is_none()) {
        let address = EndpointAddress {
            ip: member.ip.clone(),
            node_name: member.pod.spec.as_ref().and_then(|s| s.node_name.clone()),
            target_ref: Some(pod_reference(&member.pod)),
            ..EndpointAddress::default()
        };
        let ports = Some(member.ports.clone()).filter(|p| !p.is_empty());
        let index = match subsets.iter().position(|s| s.ports == ports) {
            Some(index) => index,
            None => {
                subsets.push(EndpointSubset { ports, ..EndpointSubset::default() });
                subsets.len() - 1
            }
        };
        let subset = &mut subsets[index];
        let list = if publish_not_ready || is_ready(&member.pod) {
            &mut subset.addresses
        } else {
            &mut subset.not_ready_addresses
        };
        list.get_or_insert_with(Vec::new).push(address);
    }
    Some(subsets).filter(|s| !s.is_empty())
}

fn slice_endpoints(members: &[Member]) -> Vec<Endpoint> {
    members
        .iter()
        .map(|member| {
            let terminating = member.pod.metadata.deletion_timestamp.is_some();
            let serving = is_ready(&member.pod);
            Endpoint {
                addresses: vec![member.ip.clone()],
                conditions: Some(EndpointConditions {
                    ready: Some(serving && !terminating),
                    serving: Some(serving),
                    terminating: Some(terminating),
                }),
                node_name: member.pod.spec.as_ref().and_then(|s| s.node_name.clone()),
                target_ref: Some(pod_reference(&member.pod)),
                ..Endpoint::default()
            }
        })
        .collect()
}

fn slice_ports(service: &Service) -> Vec<SlicePort> {
    let ports = service.spec.as_ref().and_then(|s| s.ports.clone()).unwrap_or_default();
    ports
        .into_iter()
        .map(|p| SlicePort {
            name: Some(p.name.unwrap_or_default()),
            port: match p.target_port {
                Some(IntOrString::Int(number)) => Some(number),
                None => Some(p.port),
                // A named port may be a different number on each Pod: upstream slices by it.
                Some(IntOrString::String(_)) => None,
            },
            protocol: p.protocol,
            app_protocol: p.app_protocol,
        })
        .collect()
}

fn to_value<T: Serialize>(object: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(object).map_err(|e| ApiError::internal(format!("serializing endpoints: {e}")))
}

/// Creates the object, or rewrites `fields` of the stored one when they differ.
fn put(
    state: &Shared,
    resource: &GroupResource,
    namespace: &str,
    name: &str,
    body: serde_json::Value,
    fields: &[&str],
) -> Step {
    let target = ObjectRef { resource: resource.clone(), key: format!("{namespace}/{name}") };
    if let Some((_, current)) = read(state, &target) {
        if fields.iter().all(|f| current[*f] == body[*f]) {
            return Ok(());
        }
        return modify(state, &target, &mut |next| {
            for field in fields {
                next[*field] = body[*field].clone();
            }
        });
    }
    let Some(rt) = resource_type(state, resource) else { return Ok(()) };
    match state.resource(&rt).create(Some(namespace), body.clone(), &WriteOptions::default()) {
        Err(e) if e.code == 409 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Brings one Service's Endpoints and EndpointSlice in line with the Pods it selects.
pub(super) fn sync(state: &Shared, key: &str) -> Step {
    let (namespace, name) = split_key(key);
    let namespace = namespace.unwrap_or_default();
    let target = ObjectRef { resource: services(), key: key.to_string() };
    let service = read(state, &target).and_then(|(_, value)| serde_json::from_value::<Service>(value).ok());
    let Some(service) = service.filter(|s| s.metadata.deletion_timestamp.is_none()) else {
        // Its EndpointSlices are its dependents; its Endpoints only share its name.
        return remove(state, &ObjectRef { resource: endpoints(), key: key.to_string() });
    };
    if service.spec.as_ref().and_then(|s| s.selector.as_ref()).is_none_or(|s| s.is_empty()) {
        return Ok(());
    }
    let members = members(state, namespace, &service);
    let publish_not_ready = service.spec.as_ref().and_then(|s| s.publish_not_ready_addresses) == Some(true);
    let labels = service.metadata.labels.clone();
    let endpoints_object = Endpoints {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(namespace.into()),
            labels: labels.clone(),
            ..ObjectMeta::default()
        },
        subsets: subsets(&members, publish_not_ready),
    };
    put(state, &endpoints(), namespace, name, to_value(&endpoints_object)?, &["subsets"])?;

    let mut slice_labels = labels.unwrap_or_default();
    slice_labels.insert(SERVICE_NAME.into(), name.into());
    slice_labels.insert(MANAGED_BY.into(), CONTROLLER.into());
    let owner = OwnerReference {
        api_version: "v1".into(),
        kind: "Service".into(),
        name: name.into(),
        uid: service.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    };
    let existing = state.store.list(&slices(), Some(namespace), None, 0, &|_| true);
    let slice_name = existing
        .items
        .iter()
        .map(|stored| stored.value())
        .find(|slice| {
            slice["metadata"]["labels"][SERVICE_NAME] == name && slice["metadata"]["labels"][MANAGED_BY] == CONTROLLER
        })
        .and_then(|slice| slice["metadata"]["name"].as_str().map(str::to_string));
    let slice = EndpointSlice {
        metadata: ObjectMeta {
            name: slice_name.clone(),
            generate_name: Some(format!("{name}-")),
            namespace: Some(namespace.into()),
            labels: Some(slice_labels),
            owner_references: Some(vec![owner]),
            ..ObjectMeta::default()
        },
        address_type: "IPv4".into(),
        endpoints: slice_endpoints(&members),
        ports: Some(slice_ports(&service)),
    };
    let body = to_value(&slice)?;
    match slice_name {
        Some(existing) => put(state, &slices(), namespace, &existing, body, &["endpoints", "ports"]),
        None => {
            let Some(rt) = resource_type(state, &slices()) else { return Ok(()) };
            state.resource(&rt).create(Some(namespace), body, &WriteOptions::default()).map(|_| ())
        }
    }
}

/// Every Service of a namespace whose Pods changed.
pub(super) fn sync_namespace(state: &Shared, namespace: &str) -> Step {
    let page = state.store.list(&services(), Some(namespace), None, 0, &|_| true);
    let keys: Vec<String> = page
        .items
        .iter()
        .map(|stored| stored.value())
        .filter(|service| service["spec"]["selector"].as_object().is_some_and(|s| !s.is_empty()))
        .filter_map(|service| service["metadata"]["name"].as_str().map(|name| format!("{namespace}/{name}")))
        .collect();
    keys.iter().map(|key| sync(state, key)).fold(Ok(()), Result::and)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(name: &str, ready: bool, ports: serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "ns", "uid": format!("u-{name}")},
            "spec": {"nodeName": "node1", "containers": [{"name": "c", "image": "nginx", "ports": ports}]},
            "status": {"phase": "Running", "podIP": "127.0.0.1",
                       "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"}}]},
        }))
        .unwrap()
    }

    /// A named target port is each Pod's container port of that name.
    #[test]
    fn a_named_target_port_is_resolved_against_the_pod_s_container_ports() {
        let port: ServicePort =
            serde_json::from_value(json!({"port": 80, "targetPort": "http", "protocol": "TCP"})).unwrap();
        let web = pod("web", true, json!([{"name": "http", "containerPort": 8080}]));
        assert_eq!(target_port(&port, &web), Some(8080));
        assert_eq!(target_port(&port, &pod("bare", true, json!([]))), None);
        let numbered: ServicePort = serde_json::from_value(json!({"port": 80, "targetPort": 9090})).unwrap();
        assert_eq!(target_port(&numbered, &web), Some(9090));
    }

    /// Ready Pods are addresses, the others notReadyAddresses (unless
    /// publishNotReadyAddresses); the slice says each one's conditions.
    #[test]
    fn ready_pods_are_addresses_and_the_others_not_ready_addresses() {
        let port = EndpointPort { port: 8080, protocol: Some("TCP".into()), ..EndpointPort::default() };
        let member = |name, ready| Member {
            pod: pod(name, ready, json!([])),
            ip: "127.0.0.1".into(),
            ports: vec![port.clone()],
        };
        let members = [member("a", true), member("b", false)];
        let subset = &subsets(&members, false).unwrap()[0];
        let names = |list: &Option<Vec<EndpointAddress>>| {
            list.iter().flatten().filter_map(|a| a.target_ref.as_ref()?.name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(
            (names(&subset.addresses), names(&subset.not_ready_addresses)),
            (vec!["a".to_string()], vec!["b".to_string()])
        );
        assert_eq!(names(&subsets(&members, true).unwrap()[0].addresses).len(), 2);
        let slice = slice_endpoints(&members);
        let ready: Vec<Option<bool>> = slice.iter().map(|e| e.conditions.as_ref().unwrap().ready).collect();
        assert_eq!(ready, [Some(true), Some(false)]);
        assert_eq!(subsets(&[], false), None, "no Pods: no subsets");
    }
}
