//! The columns kube-apiserver prints built-in kinds with (`pkg/printers/internalversion`),
//! each cell computed from the object as upstream computes it: a Pod's READY and
//! STATUS, a Deployment's READY/UP-TO-DATE/AVAILABLE, a Node's STATUS and ROLES, a
//! Secret's TYPE and DATA… Each kind's descriptor (`kinds`) names its columns; a kind
//! with none prints Name and Age.

use serde_json::{Value, json};

/// Computes one cell from an object at a time.
pub type Cell = fn(&Value, jiff::Timestamp) -> Value;

/// One built-in column: its name, type, priority (1: only with `-o wide`) and cell.
pub struct BuiltinColumn {
    /// The column's name as upstream spells it.
    pub name: &'static str,
    /// `string`, `integer` or `date`-like `string`.
    pub type_: &'static str,
    /// 0, or 1 for wide-only columns.
    pub priority: u8,
    /// The cell.
    pub cell: Cell,
}

impl BuiltinColumn {
    /// Its `columnDefinitions` entry.
    pub fn definition(&self) -> Value {
        let format = if self.name == "Name" { "name" } else { "" };
        json!({"name": self.name, "type": self.type_, "format": format, "description": "", "priority": self.priority})
    }
}

const fn column(name: &'static str, type_: &'static str, priority: u8, cell: Cell) -> BuiltinColumn {
    BuiltinColumn { name, type_, priority, cell }
}

fn name(o: &Value, _: jiff::Timestamp) -> Value {
    o["metadata"]["name"].clone()
}

fn age_of(time: &Value, now: jiff::Timestamp) -> Value {
    time.as_str().and_then(|t| t.parse::<jiff::Timestamp>().ok()).map_or(Value::from("<unknown>"), |t| {
        Value::from(fleetctl_kube::duration::human(now.as_second() - t.as_second()))
    })
}

fn age(o: &Value, now: jiff::Timestamp) -> Value {
    age_of(&o["metadata"]["creationTimestamp"], now)
}

fn created_at(o: &Value, _: jiff::Timestamp) -> Value {
    o["metadata"]["creationTimestamp"].clone()
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

fn none_if_empty(text: String) -> Value {
    Value::from(if text.is_empty() { "<none>".to_string() } else { text })
}

fn condition<'a>(o: &'a Value, kind: &str) -> Option<&'a Value> {
    o["status"]["conditions"].as_array()?.iter().find(|c| c["type"] == kind)
}

fn items(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

fn count_keys(v: &Value) -> i64 {
    v.as_object().map_or(0, |m| i64::try_from(m.len()).unwrap_or(0))
}

fn containers(o: &Value) -> Value {
    none_if_empty(
        items(&o["spec"]["template"]["spec"]["containers"])
            .filter_map(|c| c["name"].as_str())
            .collect::<Vec<_>>()
            .join(","),
    )
}

fn images(o: &Value) -> Value {
    none_if_empty(
        items(&o["spec"]["template"]["spec"]["containers"])
            .filter_map(|c| c["image"].as_str())
            .collect::<Vec<_>>()
            .join(","),
    )
}

fn selector(o: &Value) -> Value {
    let labels: Vec<String> = o["spec"]["selector"]["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    none_if_empty(labels.join(","))
}

// --- Pods ---

fn pod_ready(o: &Value, _: jiff::Timestamp) -> Value {
    let statuses: Vec<&Value> = items(&o["status"]["containerStatuses"]).collect();
    let total = items(&o["spec"]["containers"]).count();
    let ready = statuses.iter().filter(|s| s["ready"] == true).count();
    Value::from(format!("{ready}/{total}"))
}

/// Upstream's STATUS: the reason of the Pod, else of a container waiting or terminated,
/// else the phase; `Terminating` once marked for deletion.
fn pod_status(o: &Value, _: jiff::Timestamp) -> Value {
    let mut reason = o["status"]["reason"].as_str().or(o["status"]["phase"].as_str()).unwrap_or("Pending").to_string();
    for status in items(&o["status"]["containerStatuses"]) {
        let state = &status["state"];
        if let Some(why) = state["waiting"]["reason"].as_str().filter(|r| !r.is_empty()) {
            reason = why.to_string();
        } else if let Some(why) = state["terminated"]["reason"].as_str().filter(|r| !r.is_empty()) {
            reason = why.to_string();
        }
    }
    if o["metadata"]["deletionTimestamp"].is_string() {
        reason = "Terminating".to_string();
    }
    Value::from(reason)
}

fn pod_restarts(o: &Value, now: jiff::Timestamp) -> Value {
    let statuses: Vec<&Value> = items(&o["status"]["containerStatuses"]).collect();
    let restarts: i64 = statuses.iter().map(|s| int(&s["restartCount"])).sum();
    let last = statuses.iter().filter_map(|s| s["lastState"]["terminated"]["finishedAt"].as_str()).max();
    match last {
        Some(at) if restarts > 0 => {
            let ago = age_of(&Value::from(at), now);
            Value::from(format!("{restarts} ({} ago)", ago.as_str().unwrap_or_default()))
        }
        _ => Value::from(restarts.to_string()),
    }
}

fn pod_ip(o: &Value, _: jiff::Timestamp) -> Value {
    none_if_empty(o["status"]["podIP"].as_str().unwrap_or_default().to_string())
}

fn pod_node(o: &Value, _: jiff::Timestamp) -> Value {
    none_if_empty(o["spec"]["nodeName"].as_str().unwrap_or_default().to_string())
}

fn pod_nominated(o: &Value, _: jiff::Timestamp) -> Value {
    none_if_empty(o["status"]["nominatedNodeName"].as_str().unwrap_or_default().to_string())
}

fn pod_gates(o: &Value, _: jiff::Timestamp) -> Value {
    let gates = items(&o["spec"]["readinessGates"]).count();
    if gates == 0 { Value::from("<none>") } else { Value::from(format!("0/{gates}")) }
}

// --- Workloads ---

fn deploy_ready(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(format!("{}/{}", int(&o["status"]["readyReplicas"]), int(&o["spec"]["replicas"])))
}

fn updated(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(int(&o["status"]["updatedReplicas"]))
}

fn available(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(int(&o["status"]["availableReplicas"]))
}

fn desired(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(int(&o["spec"]["replicas"]))
}

fn current(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(int(&o["status"]["replicas"]))
}

fn ready_count(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(int(&o["status"]["readyReplicas"]))
}

fn containers_cell(o: &Value, _: jiff::Timestamp) -> Value {
    containers(o)
}

fn images_cell(o: &Value, _: jiff::Timestamp) -> Value {
    images(o)
}

fn selector_cell(o: &Value, _: jiff::Timestamp) -> Value {
    selector(o)
}

/// kubectl's Job status: the terminal condition, else the interim one, else Suspended or
/// Running.
fn job_status(o: &Value, _: jiff::Timestamp) -> Value {
    let holds = |kind: &str| condition(o, kind).is_some_and(|c| c["status"] == "True");
    let status = ["Complete", "Failed", "FailureTarget", "SuccessCriteriaMet"]
        .into_iter()
        .find(|kind| holds(kind))
        .unwrap_or(if o["spec"]["suspend"] == true { "Suspended" } else { "Running" });
    Value::from(status)
}

fn job_completions(o: &Value, _: jiff::Timestamp) -> Value {
    let succeeded = int(&o["status"]["succeeded"]);
    match o["spec"]["completions"].as_i64() {
        Some(completions) => Value::from(format!("{succeeded}/{completions}")),
        // A work queue: done after one success.
        None => Value::from(format!("{succeeded}/1 of {}", int(&o["spec"]["parallelism"]))),
    }
}

/// From the start to the completion (or now), as kubectl's short durations.
fn job_duration(o: &Value, now: jiff::Timestamp) -> Value {
    let Some(start) = o["status"]["startTime"].as_str().and_then(|t| t.parse::<jiff::Timestamp>().ok()) else {
        return Value::from("");
    };
    let end = o["status"]["completionTime"].as_str().and_then(|t| t.parse::<jiff::Timestamp>().ok()).unwrap_or(now);
    Value::from(fleetctl_kube::duration::human(end.as_second() - start.as_second()))
}

fn cron_schedule(o: &Value, _: jiff::Timestamp) -> Value {
    o["spec"]["schedule"].clone()
}

fn cron_time_zone(o: &Value, _: jiff::Timestamp) -> Value {
    none_if_empty(o["spec"]["timeZone"].as_str().unwrap_or_default().to_string())
}

/// kubectl's bool pointer: `True`, `False`, or `<unset>`.
fn cron_suspend(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(match o["spec"]["suspend"].as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    })
}

fn cron_active(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(items(&o["status"]["active"]).count())
}

fn cron_last_schedule(o: &Value, now: jiff::Timestamp) -> Value {
    let last = &o["status"]["lastScheduleTime"];
    if last.is_null() { Value::from("<none>") } else { age_of(last, now) }
}

// --- ResourceQuotas ---

/// `printResourceQuota`: `name: used/hard` for each hard limit by name, the `limits.*`
/// ones in LIMIT and the rest in REQUEST.
fn quota_cell(o: &Value, limits: bool) -> Value {
    let Some(hard) = o["status"]["hard"].as_object() else { return Value::from("") };
    let mut names: Vec<&String> = hard.keys().collect();
    names.sort();
    let shown: Vec<String> = names
        .into_iter()
        .filter(|name| name.split_once('.').is_some_and(|(first, _)| first == "limits") == limits)
        .map(|name| {
            let used = o["status"]["used"][name.as_str()].as_str().unwrap_or("0");
            format!("{name}: {used}/{}", hard[name.as_str()].as_str().unwrap_or_default())
        })
        .collect();
    Value::from(shown.join(", "))
}

fn quota_request(o: &Value, _: jiff::Timestamp) -> Value {
    quota_cell(o, false)
}

fn quota_limit(o: &Value, _: jiff::Timestamp) -> Value {
    quota_cell(o, true)
}

// --- Services ---

fn service_type(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(o["spec"]["type"].as_str().unwrap_or("ClusterIP"))
}

fn cluster_ip(o: &Value, _: jiff::Timestamp) -> Value {
    none_if_empty(o["spec"]["clusterIP"].as_str().unwrap_or_default().to_string())
}

fn external_ip(o: &Value, _: jiff::Timestamp) -> Value {
    let ips: Vec<&str> = items(&o["spec"]["externalIPs"]).filter_map(Value::as_str).collect();
    none_if_empty(ips.join(","))
}

fn service_ports(o: &Value, _: jiff::Timestamp) -> Value {
    let ports: Vec<String> = items(&o["spec"]["ports"])
        .map(|p| {
            let protocol = p["protocol"].as_str().unwrap_or("TCP");
            match p["nodePort"].as_i64() {
                Some(node) => format!("{}:{node}/{protocol}", int(&p["port"])),
                None => format!("{}/{protocol}", int(&p["port"])),
            }
        })
        .collect();
    none_if_empty(ports.join(","))
}

fn endpoints(o: &Value, _: jiff::Timestamp) -> Value {
    let pairs: Vec<String> = items(&o["subsets"])
        .flat_map(|s| {
            let ports: Vec<i64> = items(&s["ports"]).map(|p| int(&p["port"])).collect();
            items(&s["addresses"])
                .filter_map(|a| a["ip"].as_str())
                .flat_map(move |ip| ports.clone().into_iter().map(move |p| format!("{ip}:{p}")))
                .collect::<Vec<_>>()
        })
        .collect();
    none_if_empty(pairs.join(","))
}

// --- Nodes ---

fn node_status(o: &Value, _: jiff::Timestamp) -> Value {
    let mut status = match condition(o, "Ready").and_then(|c| c["status"].as_str()) {
        Some("True") => "Ready".to_string(),
        Some("False") => "NotReady".to_string(),
        _ => "Unknown".to_string(),
    };
    if o["spec"]["unschedulable"] == true {
        status.push_str(",SchedulingDisabled");
    }
    Value::from(status)
}

fn node_roles(o: &Value, _: jiff::Timestamp) -> Value {
    let roles: Vec<&str> = o["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| k.strip_prefix("node-role.kubernetes.io/"))
        .filter(|r| !r.is_empty())
        .collect();
    none_if_empty(roles.join(","))
}

fn node_version(o: &Value, _: jiff::Timestamp) -> Value {
    o["status"]["nodeInfo"]["kubeletVersion"].clone()
}

fn node_address(o: &Value, kind: &str) -> Value {
    let found = items(&o["status"]["addresses"]).find(|a| a["type"] == kind).and_then(|a| a["address"].as_str());
    none_if_empty(found.unwrap_or_default().to_string())
}

fn node_internal_ip(o: &Value, _: jiff::Timestamp) -> Value {
    node_address(o, "InternalIP")
}

fn node_external_ip(o: &Value, _: jiff::Timestamp) -> Value {
    node_address(o, "ExternalIP")
}

fn node_info(o: &Value, field: &str) -> Value {
    none_if_empty(o["status"]["nodeInfo"][field].as_str().unwrap_or_default().to_string())
}

fn node_os_image(o: &Value, _: jiff::Timestamp) -> Value {
    node_info(o, "osImage")
}

fn node_kernel(o: &Value, _: jiff::Timestamp) -> Value {
    node_info(o, "kernelVersion")
}

fn node_runtime(o: &Value, _: jiff::Timestamp) -> Value {
    node_info(o, "containerRuntimeVersion")
}

// --- Config and the rest ---

fn phase(o: &Value, _: jiff::Timestamp) -> Value {
    o["status"]["phase"].clone()
}

fn secret_type(o: &Value, _: jiff::Timestamp) -> Value {
    o["type"].clone()
}

fn data(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(count_keys(&o["data"]) + count_keys(&o["binaryData"]))
}

fn secrets(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(items(&o["secrets"]).count())
}

fn holder(o: &Value, _: jiff::Timestamp) -> Value {
    o["spec"]["holderIdentity"].clone()
}

fn signer(o: &Value, _: jiff::Timestamp) -> Value {
    o["spec"]["signerName"].clone()
}

fn requestor(o: &Value, _: jiff::Timestamp) -> Value {
    o["spec"]["username"].clone()
}

fn requested_duration(o: &Value, _: jiff::Timestamp) -> Value {
    match o["spec"]["expirationSeconds"].as_i64() {
        Some(seconds) => Value::from(fleetctl_kube::duration::human(seconds)),
        None => Value::from("<none>"),
    }
}

/// Upstream's CONDITION: the decisions, `Issued` once signed, else `Pending`.
fn csr_condition(o: &Value, _: jiff::Timestamp) -> Value {
    let mut decided: Vec<String> = items(&o["status"]["conditions"])
        .filter(|c| c["status"] != "False")
        .filter_map(|c| c["type"].as_str().map(str::to_string))
        .collect();
    if decided.is_empty() {
        return Value::from("Pending");
    }
    if o["status"]["certificate"].as_str().is_some_and(|c| !c.is_empty()) {
        decided.push("Issued".into());
    }
    Value::from(decided.join(","))
}

fn binding_role(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(format!(
        "{}/{}",
        o["roleRef"]["kind"].as_str().unwrap_or_default(),
        o["roleRef"]["name"].as_str().unwrap_or_default()
    ))
}

fn subjects(o: &Value, kind: &str) -> Value {
    let names: Vec<String> = items(&o["subjects"])
        .filter(|s| s["kind"] == kind)
        .map(|s| match (kind, s["namespace"].as_str()) {
            ("ServiceAccount", Some(ns)) => format!("{ns}/{}", s["name"].as_str().unwrap_or_default()),
            _ => s["name"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    Value::from(names.join(", "))
}

fn users(o: &Value, _: jiff::Timestamp) -> Value {
    subjects(o, "User")
}

fn groups(o: &Value, _: jiff::Timestamp) -> Value {
    subjects(o, "Group")
}

fn service_accounts(o: &Value, _: jiff::Timestamp) -> Value {
    subjects(o, "ServiceAccount")
}

fn event_last_seen(o: &Value, now: jiff::Timestamp) -> Value {
    let at = ["lastTimestamp", "eventTime", "firstTimestamp"].iter().map(|f| &o[*f]).find(|v| v.is_string());
    at.map_or(Value::from("<unknown>"), |t| age_of(t, now))
}

fn event_type(o: &Value, _: jiff::Timestamp) -> Value {
    o["type"].clone()
}

fn event_reason(o: &Value, _: jiff::Timestamp) -> Value {
    o["reason"].clone()
}

fn event_object(o: &Value, _: jiff::Timestamp) -> Value {
    let involved = &o["involvedObject"];
    Value::from(format!(
        "{}/{}",
        involved["kind"].as_str().unwrap_or_default().to_lowercase(),
        involved["name"].as_str().unwrap_or_default()
    ))
}

fn event_message(o: &Value, _: jiff::Timestamp) -> Value {
    o["message"].clone()
}

fn event_count(o: &Value, _: jiff::Timestamp) -> Value {
    Value::from(int(&o["count"]).max(1))
}

const NAME: BuiltinColumn = column("Name", "string", 0, name);
const AGE: BuiltinColumn = column("Age", "string", 0, age);
/// What `-o wide` adds for the kinds with a pod template.
const CONTAINERS: BuiltinColumn = column("Containers", "string", 1, containers_cell);
const IMAGES: BuiltinColumn = column("Images", "string", 1, images_cell);
const SELECTOR: BuiltinColumn = column("Selector", "string", 1, selector_cell);

/// Pods.
pub const PODS: &[BuiltinColumn] = &[
    NAME,
    column("Ready", "string", 0, pod_ready),
    column("Status", "string", 0, pod_status),
    column("Restarts", "string", 0, pod_restarts),
    AGE,
    column("IP", "string", 1, pod_ip),
    column("Node", "string", 1, pod_node),
    column("Nominated Node", "string", 1, pod_nominated),
    column("Readiness Gates", "string", 1, pod_gates),
];

/// Deployments.
pub const DEPLOYMENTS: &[BuiltinColumn] = &[
    NAME,
    column("Ready", "string", 0, deploy_ready),
    column("Up-to-date", "integer", 0, updated),
    column("Available", "integer", 0, available),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
];

/// ReplicaSets.
pub const REPLICA_SETS: &[BuiltinColumn] = &[
    NAME,
    column("Desired", "integer", 0, desired),
    column("Current", "integer", 0, current),
    column("Ready", "integer", 0, ready_count),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
];

/// Jobs.
pub const JOBS: &[BuiltinColumn] = &[
    NAME,
    column("Status", "string", 0, job_status),
    column("Completions", "string", 0, job_completions),
    column("Duration", "string", 0, job_duration),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
];

/// CronJobs.
pub const CRON_JOBS: &[BuiltinColumn] = &[
    NAME,
    column("Schedule", "string", 0, cron_schedule),
    column("Timezone", "string", 0, cron_time_zone),
    column("Suspend", "boolean", 0, cron_suspend),
    column("Active", "integer", 0, cron_active),
    column("Last Schedule", "string", 0, cron_last_schedule),
    AGE,
];

/// StatefulSets.
pub const STATEFUL_SETS: &[BuiltinColumn] = &[NAME, column("Ready", "string", 0, deploy_ready), AGE];

/// Nodes.
pub const NODES: &[BuiltinColumn] = &[
    NAME,
    column("Status", "string", 0, node_status),
    column("Roles", "string", 0, node_roles),
    AGE,
    column("Version", "string", 0, node_version),
    column("Internal-IP", "string", 1, node_internal_ip),
    column("External-IP", "string", 1, node_external_ip),
    column("OS-Image", "string", 1, node_os_image),
    column("Kernel-Version", "string", 1, node_kernel),
    column("Container-Runtime", "string", 1, node_runtime),
];

/// Services.
pub const SERVICES: &[BuiltinColumn] = &[
    NAME,
    column("Type", "string", 0, service_type),
    column("Cluster-IP", "string", 0, cluster_ip),
    column("External-IP", "string", 0, external_ip),
    column("Port(s)", "string", 0, service_ports),
    AGE,
];

/// Endpoints.
pub const ENDPOINTS: &[BuiltinColumn] = &[NAME, column("Endpoints", "string", 0, endpoints), AGE];

/// Namespaces.
pub const NAMESPACES: &[BuiltinColumn] = &[NAME, column("Status", "string", 0, phase), AGE];

/// ResourceQuotas.
pub const RESOURCE_QUOTAS: &[BuiltinColumn] =
    &[NAME, AGE, column("Request", "string", 0, quota_request), column("Limit", "string", 0, quota_limit)];

/// Secrets.
pub const SECRETS: &[BuiltinColumn] =
    &[NAME, column("Type", "string", 0, secret_type), column("Data", "integer", 0, data), AGE];

/// ConfigMaps.
pub const CONFIG_MAPS: &[BuiltinColumn] = &[NAME, column("Data", "integer", 0, data), AGE];

/// ServiceAccounts.
pub const SERVICE_ACCOUNTS: &[BuiltinColumn] = &[NAME, column("Secrets", "integer", 0, secrets), AGE];

/// core/v1 Events.
pub const EVENTS: &[BuiltinColumn] = &[
    column("Last Seen", "string", 0, event_last_seen),
    column("Type", "string", 0, event_type),
    column("Reason", "string", 0, event_reason),
    column("Object", "string", 0, event_object),
    column("Message", "string", 0, event_message),
    column("Count", "integer", 1, event_count),
    column("Name", "string", 1, name),
];

/// Leases.
pub const LEASES: &[BuiltinColumn] = &[NAME, column("Holder", "string", 0, holder), AGE];

/// CertificateSigningRequests.
pub const CSRS: &[BuiltinColumn] = &[
    NAME,
    AGE,
    column("SignerName", "string", 0, signer),
    column("Requestor", "string", 0, requestor),
    column("RequestedDuration", "string", 0, requested_duration),
    column("Condition", "string", 0, csr_condition),
];

/// CRDs, Roles and ClusterRoles.
pub const CREATED_AT: &[BuiltinColumn] = &[NAME, column("Created At", "date", 0, created_at)];

/// RoleBindings and ClusterRoleBindings.
pub const BINDINGS: &[BuiltinColumn] = &[
    NAME,
    column("Role", "string", 0, binding_role),
    AGE,
    column("Users", "string", 1, users),
    column("Groups", "string", 1, groups),
    column("ServiceAccounts", "string", 1, service_accounts),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> jiff::Timestamp {
        "2026-01-01T01:00:00Z".parse().unwrap()
    }

    #[test]
    fn pods_print_ready_status_and_restarts_as_upstream() {
        let pod = json!({
            "metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1"},
            "status": {"phase": "Running", "podIP": "127.0.0.1", "containerStatuses": [
                {"ready": true, "restartCount": 2, "state": {"running": {}},
                 "lastState": {"terminated": {"finishedAt": "2026-01-01T00:55:00Z"}}},
                {"ready": false, "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
            ]},
        });
        let now = now();
        assert_eq!(pod_ready(&pod, now), "1/2");
        assert_eq!(pod_status(&pod, now), "CrashLoopBackOff");
        assert_eq!(pod_restarts(&pod, now), "2 (5m ago)");
        assert_eq!(age(&pod, now), "60m");
        assert_eq!(pod_node(&pod, now), "n1");
        let mut deleting = pod.clone();
        deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:59:00Z");
        assert_eq!(pod_status(&deleting, now), "Terminating");
    }

    #[test]
    fn quotas_print_used_over_hard_with_limits_apart() {
        let quota = json!({"status": {
            "hard": {"pods": "2", "limits.memory": "1Gi", "requests.cpu": "1", "count/deployments.apps": "3"},
            "used": {"pods": "1", "limits.memory": "128Mi", "requests.cpu": "250m"}}});
        assert_eq!(quota_request(&quota, now()), "count/deployments.apps: 0/3, pods: 1/2, requests.cpu: 250m/1");
        assert_eq!(quota_limit(&quota, now()), "limits.memory: 128Mi/1Gi");
    }

    #[test]
    fn nodes_print_status_roles_and_version() {
        let node = json!({
            "metadata": {"name": "n", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.32.0"},
                       "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}]},
        });
        assert_eq!(node_status(&node, now()), "Ready,SchedulingDisabled");
        assert_eq!(node_roles(&node, now()), "control-plane");
        assert_eq!(node_internal_ip(&node, now()), "127.0.0.1");
        assert_eq!(node_external_ip(&node, now()), "<none>");
    }

    #[test]
    fn csrs_print_their_decisions_and_issuance() {
        let pending = json!({"spec": {}, "status": {}});
        assert_eq!(csr_condition(&pending, now()), "Pending");
        let issued = json!({"status": {"conditions": [{"type": "Approved", "status": "True"}], "certificate": "x"}});
        assert_eq!(csr_condition(&issued, now()), "Approved,Issued");
        let deployment = json!({"spec": {"replicas": 3}, "status": {"readyReplicas": 2}});
        assert_eq!(deploy_ready(&deployment, now()), "2/3");
    }
}
