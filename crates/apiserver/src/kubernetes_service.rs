//! The `kubernetes` Service in `default` and its Endpoints, as kube-apiserver keeps
//! them: its cluster IP is the address Pods reach this server at ([`super::SERVICE_HOST`]),
//! its endpoint the address people's kubeconfigs name. `kubectl cluster-info` reads it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Service, ServicePort, ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::key::ObjectKey;
use super::options::WriteOptions;
use super::services::{KUBERNETES as NAME, KUBERNETES_NAMESPACE as NAMESPACE};
use super::state::ApiState;
use super::status::ApiError;

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
pub fn ensure(state: &ApiState, port: u16) -> Result<(), ApiError> {
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
    let storage = state.resource(&rt);
    match storage.create(Some(NAMESPACE), body.clone(), &WriteOptions::default()) {
        Err(e) if e.code == 409 => {}
        other => return other.map(|_| ()),
    }
    storage
        .write(ObjectKey::namespaced(NAMESPACE, NAME), None, &WriteOptions::default(), None, &mut |current| {
            let mut next: Value = body.clone();
            next["metadata"] = current["metadata"].clone();
            Ok(next)
        })
        .map(|_| ())
}
