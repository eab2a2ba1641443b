//! kubectl against `fleetctl dev serve --node-simulator`: workloads and nodes as
//! kube-controller-manager and a kubelet show them.

use crate::support::kubectl::{DevServe, kubectl_available};

fn cluster() -> Option<DevServe> {
    if !kubectl_available() {
        eprintln!("skipping: kubectl is not installed");
        return None;
    }
    Some(DevServe::start_with(&["--node-simulator"]))
}

fn deployment(name: &str, image: &str, args: &str) -> String {
    format!(
        r"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
      - name: main
        image: {image}
        args: {args}
"
    )
}

fn table(output: &str) -> Vec<Vec<String>> {
    output.lines().map(|l| l.split_whitespace().map(str::to_string).collect()).collect()
}

#[test]
fn get_nodes_shows_the_simulated_node_ready_with_its_kubelet_version_and_address() {
    let Some(k) = cluster() else { return };
    let rows = table(&k.ok(&["get", "nodes", "-o", "wide"]));
    assert_eq!(
        rows[0][..7],
        ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP"].map(String::from),
        "{rows:?}"
    );
    assert_eq!(rows.len(), 2, "one node: {rows:?}");
    assert_eq!(rows[1][1..3], ["Ready", "control-plane"].map(String::from));
    assert!(rows[1][4].starts_with("v1."), "the kubelet version is the server's: {rows:?}");
    assert_eq!(rows[1][5], "127.0.0.1");
    let node = k.json(&["get", "nodes"]);
    let capacity = &node["items"][0]["status"]["capacity"];
    assert!(capacity["cpu"].as_str().is_some_and(|c| c.parse::<u32>().is_ok_and(|n| n > 0)), "{capacity}");
    assert!(capacity["memory"].as_str().is_some_and(|m| m.ends_with("Ki")), "{capacity}");
    let name = node["items"][0]["metadata"]["name"].as_str().unwrap().to_string();
    let lease = k.json(&["get", "lease", "-n", "kube-node-lease", &name]);
    assert_eq!(lease["spec"]["holderIdentity"], name.as_str());
    assert_eq!(lease["spec"]["leaseDurationSeconds"], 40);
}

#[test]
fn cluster_info_finds_the_control_plane_through_the_kubernetes_service() {
    let Some(k) = cluster() else { return };
    let info = k.ok(&["cluster-info"]);
    assert!(info.contains("Kubernetes control plane is running at https://127.0.0.1:"), "{info}");
    let rows = table(&k.ok(&["get", "svc", "kubernetes"]));
    assert_eq!(rows[0], ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"].map(String::from));
    assert_eq!(rows[1][1..4], ["ClusterIP", "127.0.0.2", "<none>"].map(String::from), "its IP is where Pods reach it");
}

#[test]
fn logs_come_from_the_kubelet_with_tail_timestamps_previous_and_exec_is_refused() {
    let Some(k) = cluster() else { return };
    // `fleetctld --version` prints its version and exits: the kubelet restarts it.
    k.apply(&deployment("ver", "fleetctl:dev", "[\"--version\"]"));
    k.ok(&[
        "wait",
        "pod",
        "-l",
        "app=ver",
        "--for=jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode}=0",
        "--timeout=60s",
    ]);
    let rows = table(&k.ok(&["get", "pods"]));
    assert_eq!(rows[0], ["NAME", "READY", "STATUS", "RESTARTS", "AGE"].map(String::from), "{rows:?}");
    let pod = k.json(&["get", "pods", "-l", "app=ver"]);
    let pod = &pod["items"][0];
    assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
    assert!(pod["spec"]["nodeName"].is_string(), "scheduled: {pod}");

    let previous = k.ok(&["logs", "deploy/ver", "--previous"]);
    assert_eq!(previous, format!("fleetctld {}\n", env!("CARGO_PKG_VERSION")));
    let stamped = k.ok(&["logs", "deploy/ver", "--previous", "--timestamps", "--tail=1"]);
    let (stamp, text) = stamped.split_once(' ').expect("a timestamp, then the line");
    assert!(stamp.parse::<jiff::Timestamp>().is_ok(), "{stamped}");
    assert!(text.starts_with("fleetctld "), "{stamped}");
    let later = k.ok(&["logs", "deploy/ver", "--previous", "--since-time=2999-01-01T00:00:00Z"]);
    assert_eq!(later, "", "nothing after that time");

    let missing = k.fails(&["logs", "deploy/ver", "-c", "nope"]);
    assert!(missing.contains("container nope is not valid for pod"), "{missing}");
    let exec = k.fails(&["exec", "deploy/ver", "--", "true"]);
    assert!(exec.contains("not supported by the dev cluster"), "{exec}");
}

#[test]
fn rollout_history_undo_and_scale_go_through_replica_sets_with_revisions() {
    let Some(k) = cluster() else { return };
    k.apply(&deployment("web", "nginx:1.27", "[]"));
    k.ok(&["rollout", "status", "deploy/web", "--timeout=60s"]);
    k.ok(&["set", "image", "deploy/web", "main=nginx:1.28"]);
    k.ok(&["rollout", "status", "deploy/web", "--timeout=60s"]);
    let history = table(&k.ok(&["rollout", "history", "deploy/web"]));
    let revisions: Vec<&str> = history.iter().skip(2).filter_map(|r| r.first().map(String::as_str)).collect();
    assert_eq!(revisions, ["1", "2"], "{history:?}");

    k.ok(&["rollout", "undo", "deploy/web"]);
    k.ok(&["rollout", "status", "deploy/web", "--timeout=60s"]);
    let web = k.json(&["get", "deploy/web"]);
    assert_eq!(web["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.27");
    assert_eq!(web["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3");
    let conditions = web["status"]["conditions"].as_array().unwrap();
    let progressing = conditions.iter().find(|c| c["type"] == "Progressing").unwrap();
    assert_eq!(progressing["reason"], "NewReplicaSetAvailable");

    k.ok(&["scale", "deploy/web", "--replicas=3"]);
    k.ok(&["rollout", "status", "deploy/web", "--timeout=60s"]);
    let rows = table(&k.ok(&["get", "deploy/web"]));
    assert_eq!(rows[0], ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"].map(String::from));
    assert_eq!(rows[1][1..4], ["3/3", "3", "3"].map(String::from));
    let sets = table(&k.ok(&["get", "rs", "-l", "app=web"]));
    let desired: Vec<&str> = sets.iter().skip(1).map(|r| r[1].as_str()).collect();
    let mut sorted = desired.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["0", "3"], "two ReplicaSets, the old one scaled to zero: {sets:?}");
    let raw = k.ok(&["get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"]);
    let scale: serde_json::Value = serde_json::from_str(&raw).expect("a Scale");
    assert_eq!((scale["spec"]["replicas"].as_i64(), scale["status"]["selector"].as_str()), (Some(3), Some("app=web")));
}

/// The Job controller (since 1.31): the Pod runs to its end (restartPolicy Never, an image
/// with nothing to run ends with 0), the Job gets SuccessCriteriaMet then Complete, and
/// kubectl prints STATUS Complete and COMPLETIONS 1/1; deleting the Job takes its Pods.
#[test]
fn a_job_runs_its_pod_to_completion_and_its_pods_go_with_it() {
    let Some(k) = cluster() else { return };
    k.ok(&["create", "job", "pi", "--image=busybox:1.36", "--", "true"]);
    k.ok(&["wait", "job/pi", "--for=condition=complete", "--timeout=60s"]);
    let rows = table(&k.ok(&["get", "jobs"]));
    assert_eq!(rows[0], ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"].map(String::from), "{rows:?}");
    assert_eq!(rows[1][..3], ["pi", "Complete", "1/1"].map(String::from), "{rows:?}");
    let job = k.json(&["get", "job", "pi"]);
    let kinds: Vec<&str> =
        job["status"]["conditions"].as_array().unwrap().iter().filter_map(|c| c["type"].as_str()).collect();
    assert_eq!(kinds, ["SuccessCriteriaMet", "Complete"]);
    assert_eq!(job["status"]["succeeded"], 1);
    assert!(job["status"]["completionTime"].is_string(), "{job}");
    let uid = job["metadata"]["uid"].as_str().unwrap();
    assert_eq!(job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"], uid);

    let pods = k.json(&["get", "pods", "-l", "job-name=pi"]);
    let pod = &pods["items"][0];
    assert_eq!(pod["status"]["phase"], "Succeeded", "{pod}");
    assert_eq!(pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
    assert_eq!((pod["metadata"]["ownerReferences"][0]["kind"].as_str()), Some("Job"));
    let rows = table(&k.ok(&["get", "pods", "-l", "job-name=pi"]));
    assert_eq!(rows[1][1..4], ["0/1", "Completed", "0"].map(String::from), "{rows:?}");

    k.ok(&["delete", "job", "pi"]);
    k.ok(&["wait", "pod", "-l", "job-name=pi", "--for=delete", "--timeout=60s"]);
}

/// `backoffLimit` failed Pods are allowed and one more fails the Job (BackoffLimitExceeded);
/// a process that exits with an error under restartPolicy Never is not restarted.
#[test]
fn a_job_whose_pods_keep_failing_fails_past_its_backoff_limit() {
    let Some(k) = cluster() else { return };
    k.apply(
        r#"apiVersion: batch/v1
kind: Job
metadata:
  name: bad
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: fleetctl:dev
        args: ["--no-such-flag"]
"#,
    );
    k.ok(&["wait", "job/bad", "--for=condition=failed", "--timeout=60s"]);
    let job = k.json(&["get", "job", "bad"]);
    let failed = job["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Failed").cloned();
    assert_eq!(failed.unwrap()["reason"], "BackoffLimitExceeded", "{job}");
    assert_eq!(job["status"]["failed"], 2, "{job}");
    let pods = k.json(&["get", "pods", "-l", "job-name=bad"]);
    for pod in pods["items"].as_array().unwrap() {
        assert_eq!(pod["status"]["phase"], "Failed", "{pod}");
        assert_eq!(pod["status"]["containerStatuses"][0]["restartCount"], 0, "never restarted: {pod}");
        assert_ne!(pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 0);
    }
    let rows = table(&k.ok(&["get", "jobs"]));
    assert_eq!(rows[1][..3], ["bad", "Failed", "0/1"].map(String::from), "{rows:?}");
}

/// `ValidateJob`: a pod template that restarts Always cannot be a Job's.
#[test]
fn a_job_whose_pods_would_always_restart_is_refused() {
    let Some(k) = cluster() else { return };
    let manifest = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: forever\nspec:\n  template:\n    spec:\n      containers:\n      - name: main\n        image: busybox:1.36\n";
    let refused = k.fails_with_stdin(&["apply", "-f", "-"], manifest);
    assert!(
        refused.contains(
            r#"spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never""#
        ),
        "{refused}"
    );
    assert!(k.fails(&["get", "job", "forever"]).contains("NotFound"));
}

/// `SetDefaults_CronJob` and kubectl's CronJob columns; `kubectl create job --from=cronjob`
/// (kubectl's manual trigger) makes a Job of the job template, owned by the CronJob, that
/// the Job controller runs; `ValidateCronJob` refuses a schedule that does not parse.
#[test]
fn a_cron_job_prints_its_schedule_and_a_job_made_from_it_runs_to_completion() {
    let Some(k) = cluster() else { return };
    k.ok(&["create", "cronjob", "hello", "--image=busybox:1.36", "--schedule=*/5 * * * *", "--", "true"]);
    let rows = table(&k.ok(&["get", "cj"]));
    assert_eq!(
        rows[0],
        ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"].map(String::from)
    );
    assert_eq!(rows[1][..8], ["hello", "*/5", "*", "*", "*", "*", "<none>", "False"].map(String::from), "{rows:?}");
    let cron_job = k.json(&["get", "cronjob", "hello"]);
    assert_eq!(cron_job["spec"]["concurrencyPolicy"], "Allow");
    assert_eq!(
        (cron_job["spec"]["successfulJobsHistoryLimit"].as_i64(), cron_job["spec"]["failedJobsHistoryLimit"].as_i64()),
        (Some(3), Some(1))
    );

    k.ok(&["create", "job", "hello-manual", "--from=cronjob/hello"]);
    k.ok(&["wait", "job/hello-manual", "--for=condition=complete", "--timeout=60s"]);
    let job = k.json(&["get", "job", "hello-manual"]);
    assert_eq!(job["metadata"]["ownerReferences"][0]["kind"], "CronJob", "{job}");
    assert_eq!(job["metadata"]["ownerReferences"][0]["uid"], cron_job["metadata"]["uid"]);
    assert_eq!(job["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"], "manual");

    let refused = k.fails(&["create", "cronjob", "bad", "--image=busybox:1.36", "--schedule=61 * * * *"]);
    assert!(refused.contains("spec.schedule: Invalid value"), "{refused}");
}

/// The Service REST storage allocates a cluster IP from 10.96.0.0/12 and node ports from
/// 30000-32767 (refusing taken or out-of-range ones with upstream's messages); the
/// endpoints and EndpointSlice controllers list the ready Pods a Service selects, the
/// target port resolved by name; the Service's Endpoints go with it.
#[test]
fn a_service_gets_a_cluster_ip_node_ports_and_endpoints_of_its_ready_pods() {
    let Some(k) = cluster() else { return };
    k.apply(&deployment("web", "nginx:1.27", "[]"));
    k.ok(&["rollout", "status", "deploy/web", "--timeout=60s"]);
    k.ok(&["create", "service", "nodeport", "web", "--tcp=80:80"]);
    let service = k.json(&["get", "svc", "web"]);
    let ip: std::net::Ipv4Addr = service["spec"]["clusterIP"].as_str().unwrap().parse().unwrap();
    assert_eq!(u32::from(ip) >> 20, u32::from(std::net::Ipv4Addr::new(10, 96, 0, 0)) >> 20, "{ip} in 10.96.0.0/12");
    assert_eq!(service["spec"]["clusterIPs"], serde_json::json!([ip.to_string()]));
    let node_port = service["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&node_port), "{node_port}");

    k.ok(&["wait", "endpoints/web", "--for=jsonpath={.subsets[0].addresses[0].targetRef.kind}=Pod", "--timeout=60s"]);
    let endpoints = k.json(&["get", "endpoints", "web"]);
    let address = &endpoints["subsets"][0]["addresses"][0];
    let pod = k.json(&["get", "pods", "-l", "app=web"]);
    assert_eq!(address["ip"], pod["items"][0]["status"]["podIP"], "the ready Pod's address: {endpoints}");
    assert_eq!(endpoints["subsets"][0]["ports"][0]["port"], 80);
    let rows = table(&k.ok(&["get", "endpoints", "web"]));
    assert_eq!(rows[1][1], format!("{}:80", address["ip"].as_str().unwrap()), "{rows:?}");
    let slices = k.json(&["get", "endpointslices", "-l", "kubernetes.io/service-name=web"]);
    let slice = &slices["items"][0];
    assert_eq!(slice["addressType"], "IPv4");
    assert_eq!(slice["endpoints"][0]["conditions"]["ready"], true, "{slice}");
    assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Service");

    let taken = format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: other\nspec:\n  type: NodePort\n  selector:\n    app: web\n  ports:\n  - port: 81\n    nodePort: {node_port}\n"
    );
    let refused = k.fails_with_stdin(&["apply", "-f", "-"], &taken);
    assert!(
        refused.contains(&format!(
            "spec.ports[0].nodePort: Invalid value: {node_port}: provided port is already allocated"
        )),
        "{refused}"
    );
    let outside = "apiVersion: v1\nkind: Service\nmetadata:\n  name: outside\nspec:\n  clusterIP: 192.168.1.1\n  ports:\n  - port: 80\n";
    let refused = k.fails_with_stdin(&["apply", "-f", "-"], outside);
    assert!(refused.contains("the provided IP (192.168.1.1) is not in the valid range"), "{refused}");

    // An update that leaves the allocated values out keeps them.
    k.ok(&["patch", "svc", "web", "--type=merge", "-p", r#"{"metadata":{"labels":{"tier":"front"}}}"#]);
    let patched = k.json(&["get", "svc", "web"]);
    assert_eq!(patched["spec"]["clusterIP"], service["spec"]["clusterIP"]);
    assert_eq!(patched["spec"]["ports"][0]["nodePort"], node_port);

    k.ok(&["delete", "svc", "web"]);
    k.ok(&["wait", "endpoints/web", "--for=delete", "--timeout=60s"]);
}

fn pod_with(name: &str, resources: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: main\n    image: busybox:1.36\n    resources: {resources}\n"
    )
}

/// `kubectl create quota` and `describe quota` against the quota controller's status;
/// `printResourceQuota`'s columns (REQUEST, LIMIT with the `limits.*` names); quota
/// admission's 403s as kubectl shows them.
#[test]
fn a_quota_shows_its_usage_and_refuses_pods_past_it_or_without_the_resources_it_limits() {
    let Some(k) = cluster() else { return };
    k.ok(&["create", "quota", "q", "--hard=pods=2,requests.cpu=1,limits.memory=1Gi"]);
    k.ok(&["wait", "quota/q", "--for=jsonpath={.status.used.pods}=0", "--timeout=60s"]);
    let small = r#"{"requests": {"cpu": "250m"}, "limits": {"memory": "128Mi"}}"#;
    k.apply(&pod_with("small", small));
    k.ok(&["wait", "quota/q", "--for=jsonpath={.status.used.pods}=1", "--timeout=60s"]);

    let rows = table(&k.ok(&["get", "quota"]));
    assert_eq!(rows[0], ["NAME", "AGE", "REQUEST", "LIMIT"].map(String::from), "{rows:?}");
    assert_eq!(rows[1][0], "q");
    assert_eq!(
        rows[1][2..],
        ["pods:", "1/2,", "requests.cpu:", "250m/1", "limits.memory:", "128Mi/1Gi"].map(String::from)
    );
    let described = table(&k.ok(&["describe", "quota", "q"]));
    let line = |name: &str| described.iter().find(|r| r.first().is_some_and(|f| f == name)).cloned();
    assert_eq!(line("Resource"), Some(["Resource", "Used", "Hard"].map(String::from).to_vec()), "{described:?}");
    assert_eq!(line("pods"), Some(["pods", "1", "2"].map(String::from).to_vec()));
    assert_eq!(line("requests.cpu"), Some(["requests.cpu", "250m", "1"].map(String::from).to_vec()));
    assert_eq!(line("limits.memory"), Some(["limits.memory", "128Mi", "1Gi"].map(String::from).to_vec()));

    let big = r#"{"requests": {"cpu": "2"}, "limits": {"memory": "128Mi"}}"#;
    let refused = k.fails_with_stdin(&["apply", "-f", "-"], &pod_with("big", big));
    assert!(
        refused.contains(r#"pods "big" is forbidden: exceeded quota: q, requested: requests.cpu=2, used: requests.cpu=250m, limited: requests.cpu=1"#),
        "{refused}"
    );
    let refused = k.fails_with_stdin(&["apply", "-f", "-"], &pod_with("bare", "{}"));
    assert!(
        refused.contains(
            r#"pods "bare" is forbidden: failed quota: q: must specify limits.memory for: main; requests.cpu for: main"#
        ),
        "{refused}"
    );
}
