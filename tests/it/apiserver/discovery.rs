//! Discovery (aggregated and legacy), version and OpenAPI.

use kube::discovery::{Discovery, Scope};

use crate::support::cluster::{TestCluster, raw};

#[tokio::test]
async fn legacy_and_aggregated_discovery_find_the_same_resources() {
    let c = TestCluster::start().await;
    crate::apiserver::crd::install_widgets(&c).await;
    for discovery in [
        Discovery::new(c.client.clone()).run().await.expect("legacy discovery"),
        Discovery::new(c.client.clone()).run_aggregated().await.expect("aggregated discovery"),
    ] {
        let (deploy, caps) = discovery.get("apps").expect("apps").recommended_kind("Deployment").expect("Deployment");
        assert_eq!((deploy.plural.as_str(), caps.scope.clone()), ("deployments", Scope::Namespaced));
        assert!(caps.subresources.iter().any(|(r, _)| r.plural == "deployments/status" || r.plural == "status"));
        let (widget, _) =
            discovery.get("example.com").expect("example.com").recommended_kind("Widget").expect("Widget");
        assert_eq!(widget.plural, "widgets");
        let (ns, caps) = discovery.get("").expect("core").recommended_kind("Namespace").expect("Namespace");
        assert_eq!((ns.plural.as_str(), caps.scope.clone()), ("namespaces", Scope::Cluster));
    }
}

#[tokio::test]
async fn aggregated_discovery_answers_with_its_exact_content_type() {
    let c = TestCluster::start().await;
    let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let request =
        axum::http::Request::builder().uri("/apis").header("accept", accept).body(Vec::new()).expect("request");
    let response = c.client.send(request.map(kube::client::Body::from)).await.expect("response");
    assert_eq!(
        response.headers()["content-type"],
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    );
}

#[tokio::test]
async fn version_health_and_openapi_answer() {
    let c = TestCluster::start().await;
    let version = c.client.apiserver_version().await.expect("version");
    assert_eq!(version.major, "1");
    assert!(version.git_version.starts_with("v1."));
    for path in ["/healthz", "/livez", "/readyz"] {
        let request = axum::http::Request::builder().uri(path).body(Vec::new()).expect("request");
        let response = c.client.send(request.map(kube::client::Body::from)).await.expect("response");
        assert_eq!(response.status(), 200, "{path}");
    }
    let text = |path: &'static str| {
        let client = c.client.clone();
        async move {
            let request = axum::http::Request::builder().uri(path).body(Vec::new()).expect("request");
            let response = client.send(request.map(kube::client::Body::from)).await.expect("response");
            let status = response.status().as_u16();
            let body = http_body_util::BodyExt::collect(response.into_body()).await.expect("body").to_bytes();
            (status, String::from_utf8_lossy(&body).into_owned())
        }
    };
    // As kube-apiserver: ?verbose lists the checks, one can be asked alone, others are 404.
    let (status, verbose) = text("/readyz?verbose&exclude=etcd").await;
    assert_eq!(status, 200);
    assert!(verbose.starts_with("[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n"), "{verbose}");
    assert!(verbose.ends_with("readyz check passed\n"), "{verbose}");
    assert_eq!(text("/livez/ping").await, (200, "ok".to_string()));
    assert_eq!(text("/healthz/no-such-check").await.0, 404);
    // /metrics counts the answers by verb, resource and code, and the objects stored.
    let configmaps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::namespaced(c.client.clone(), "default");
    configmaps.list(&Default::default()).await.expect("list");
    let (status, metrics) = text("/metrics").await;
    assert_eq!(status, 200);
    let listed = metrics
        .lines()
        .find(|l| l.starts_with("apiserver_request_total{code=\"200\",group=\"\",resource=\"configmaps\",subresource=\"\",verb=\"LIST\""))
        .unwrap_or_else(|| panic!("{metrics}"));
    assert!(listed.ends_with(" 1"), "{listed}");
    assert!(metrics.contains("apiserver_storage_objects{resource=\"namespaces\"} "), "{metrics}");
    let (status, root) = raw(&c.client, "GET", "/openapi/v3", "", Vec::new()).await;
    assert_eq!(status, 200);
    let url = root["paths"]["api/v1"]["serverRelativeURL"].as_str().expect("api/v1 url");
    assert!(url.contains("?hash="));
    let (status, doc) = raw(&c.client, "GET", url, "", Vec::new()).await;
    assert_eq!(status, 200);
    let op = &doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
    assert_eq!(op["x-kubernetes-group-version-kind"]["kind"], "ConfigMap");
}

/// The names of the schemas of an OpenAPI v3 document whose `x-kubernetes-group-version-kind`
/// names `group`/`version`/`kind` (how kubectl explain finds a kind's schema).
fn schemas_of_kind(doc: &serde_json::Value, group: &str, version: &str, kind: &str) -> Vec<String> {
    let gvk = serde_json::json!({"group": group, "kind": kind, "version": version});
    let schemas = doc["components"]["schemas"].as_object().expect("components.schemas");
    schemas
        .iter()
        .filter(|(_, s)| s["x-kubernetes-group-version-kind"].as_array().is_some_and(|marks| marks.contains(&gvk)))
        .map(|(name, _)| name.clone())
        .collect()
}

#[tokio::test]
async fn openapi_v3_documents_hold_builtin_and_custom_kinds_schemas_marked_with_their_kind() {
    let c = TestCluster::start().await;
    crate::apiserver::crd::install_widgets(&c).await;
    let (status, root) = raw(&c.client, "GET", "/openapi/v3", "", Vec::new()).await;
    assert_eq!(status, 200);
    let document = |path: &str| {
        let url = root["paths"][path]["serverRelativeURL"].as_str().unwrap_or_else(|| panic!("{path}: {root}"));
        let client = c.client.clone();
        let url = url.to_string();
        async move {
            let (status, doc) = raw(&client, "GET", &url, "", Vec::new()).await;
            assert_eq!(status, 200, "{url}");
            doc
        }
    };

    let apps = document("apis/apps/v1").await;
    assert_eq!(schemas_of_kind(&apps, "apps", "v1", "Deployment"), ["io.k8s.api.apps.v1.Deployment"]);
    let strategy = &apps["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"];
    assert_eq!(strategy["allOf"][0]["$ref"], "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy");
    assert!(apps["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentStrategy"]["description"].is_string());

    let core = document("api/v1").await;
    assert_eq!(schemas_of_kind(&core, "", "v1", "Pod"), ["io.k8s.api.core.v1.Pod"]);

    let widgets = document("apis/example.com/v1").await;
    assert_eq!(schemas_of_kind(&widgets, "example.com", "v1", "Widget"), ["com.example.v1.Widget"]);
    let widget = &widgets["components"]["schemas"]["com.example.v1.Widget"];
    assert_eq!(widget["properties"]["spec"]["required"], serde_json::json!(["size"]));
    let meta = widget["properties"]["metadata"]["allOf"][0]["$ref"].as_str().expect("metadata refers to ObjectMeta");
    let meta = meta.strip_prefix("#/components/schemas/").expect("a component");
    assert!(widgets["components"]["schemas"][meta]["properties"]["name"].is_object(), "{meta} is in the document");
}
