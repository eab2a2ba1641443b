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
    let (status, root) = raw(&c.client, "GET", "/openapi/v3", "", Vec::new()).await;
    assert_eq!(status, 200);
    let url = root["paths"]["api/v1"]["serverRelativeURL"].as_str().expect("api/v1 url");
    assert!(url.contains("?hash="));
    let (status, doc) = raw(&c.client, "GET", url, "", Vec::new()).await;
    assert_eq!(status, 200);
    let op = &doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
    assert_eq!(op["x-kubernetes-group-version-kind"]["kind"], "ConfigMap");
}
