//! Services: the defaults of `core/v1` (`SetDefaults_Service`: type, session affinity,
//! IP families, traffic policies, each port's protocol and target port) and the update
//! rules of the Service REST storage: allocated values (cluster IPs, node ports) that an
//! update leaves out are kept (`patchAllocatedValues`), and a cluster IP, once set, does
//! not change.

use k8s_openapi::api::core::v1::Service;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::super::status::Cause;
use super::Strategy;

/// The Service strategy.
pub struct Services;

fn rewrite(object: &mut Value, change: impl FnOnce(&mut Service)) {
    let Ok(mut service) = serde_json::from_value::<Service>(object.clone()) else { return };
    change(&mut service);
    super::retyped(&service, object);
}

fn default_service(service: &mut Service) {
    let Some(spec) = service.spec.as_mut() else { return };
    let kind = spec.type_.get_or_insert_with(|| "ClusterIP".to_string()).clone();
    spec.session_affinity.get_or_insert_with(|| "None".to_string());
    if kind != "ExternalName" {
        spec.ip_families.get_or_insert_with(|| vec!["IPv4".to_string()]);
        spec.ip_family_policy.get_or_insert_with(|| "SingleStack".to_string());
        spec.internal_traffic_policy.get_or_insert_with(|| "Cluster".to_string());
    }
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer") {
        spec.external_traffic_policy.get_or_insert_with(|| "Cluster".to_string());
    }
    if kind == "LoadBalancer" {
        spec.allocate_load_balancer_node_ports.get_or_insert(true);
    }
    for port in spec.ports.iter_mut().flatten() {
        port.protocol.get_or_insert_with(|| "TCP".to_string());
        if port.target_port.as_ref().is_none_or(|t| matches!(t, IntOrString::Int(0))) {
            port.target_port = Some(IntOrString::Int(port.port));
        }
    }
}

impl Strategy for Services {
    fn prepare_create(&self, object: &mut Value) {
        rewrite(object, default_service);
    }

    fn prepare_update(&self, old: &Value, new: &mut Value) {
        for field in ["clusterIP", "clusterIPs"] {
            if new["spec"][field].is_null() && !old["spec"][field].is_null() {
                new["spec"][field] = old["spec"][field].clone();
            }
        }
        // A port that keeps its port number keeps its node port.
        if let (Some(before), Some(after)) = (old["spec"]["ports"].as_array(), new["spec"]["ports"].as_array_mut()) {
            for port in after.iter_mut().filter(|p| p["nodePort"].is_null()) {
                if let Some(same) =
                    before.iter().find(|b| b["port"] == port["port"] && b["protocol"] == port["protocol"])
                {
                    port["nodePort"] = same["nodePort"].clone();
                }
            }
        }
        rewrite(new, default_service);
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let (before, after) = (&old["spec"]["clusterIP"], &new["spec"]["clusterIP"]);
        let changes_type = old["spec"]["type"] != new["spec"]["type"];
        if before.is_string() && before != after && !changes_type {
            return vec![Cause::new(
                "FieldValueInvalid",
                "spec.clusterIPs[0]",
                format!("Invalid value: {after}: may not change once set"),
            )];
        }
        Vec::new()
    }
}
