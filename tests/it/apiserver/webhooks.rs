//! Validating admission webhooks, called as kube-apiserver calls them: an AdmissionReview
//! over HTTPS trusting the configuration's caBundle, at a URL or through a Service; rules,
//! selectors and match conditions decide which requests; a denial carries the webhook's
//! code and message; the failure policy decides what an unreachable webhook means.

use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use k8s_openapi::api::core::v1::{ConfigMap, Endpoints, Secret, Service};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::support::cluster::TestCluster;

/// A webhook server on a thread (and runtime) of its own — the API server blocks the
/// request's thread while it calls — that refuses ConfigMaps labelled `env: prod` and
/// records every review it gets.
struct WebhookServer {
    addr: SocketAddr,
    ca_pem: String,
    reviews: Arc<Mutex<Vec<Value>>>,
}

/// A CA, a serving certificate it signs for `webhook.default.svc` and 127.0.0.1, and
/// that certificate's key.
fn certificates() -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::default();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::from_ca_cert_pem(&ca_cert.pem(), ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut leaf = CertificateParams::new(vec!["webhook.default.svc".to_string()]).unwrap();
    leaf.subject_alt_names.push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    (ca_cert.pem(), cert.pem(), key.serialize_pem())
}

/// `/mutate` labels the object `mutated: "yes"` and adds a data key (and tries to change
/// its uid, which the server keeps); `/rename` tries to rename it; `/add-b` labels it `b`,
/// `/saw-b` says whether it had that label; anything else validates.
fn answer(path: &str, review: &Value) -> Value {
    use base64::Engine;
    let request = &review["request"];
    if review["kind"] == "ConversionReview" {
        return convert(path, request);
    }
    let patch = match path.split('?').next() {
        Some("/mutate") => Some(json!([
            {"op": "add", "path": "/metadata/labels/mutated", "value": "yes"},
            {"op": "add", "path": "/data", "value": {"injected": "true"}},
            {"op": "replace", "path": "/metadata/uid", "value": "forged"},
        ])),
        Some("/rename") => Some(json!([{"op": "replace", "path": "/metadata/name", "value": "other"}])),
        Some("/null-status") => {
            Some(json!([{"op": "add", "path": "/status", "value": {"conditions": null, "phase": 7}}]))
        }
        Some("/add-b") => Some(json!([{"op": "add", "path": "/metadata/labels/b", "value": "yes"}])),
        Some("/saw-b") => {
            let saw = if request["object"]["metadata"]["labels"]["b"] == "yes" { "yes" } else { "no" };
            Some(json!([{"op": "add", "path": "/metadata/labels/saw-b", "value": saw}]))
        }
        _ => None,
    };
    if let Some(patch) = patch {
        let encoded = base64::engine::general_purpose::STANDARD.encode(patch.to_string());
        let response = json!({"uid": request["uid"], "allowed": true, "patchType": "JSONPatch", "patch": encoded});
        return json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response});
    }
    let prod = request["object"]["metadata"]["labels"]["env"] == "prod";
    let mut response = json!({"uid": request["uid"], "allowed": !prod, "warnings": ["seen by check.example.com"]});
    if prod {
        response["status"] = json!({"code": 403, "message": "no prod here"});
    }
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})
}

/// A self-signed CA certificate that serves 127.0.0.1 itself (as `openssl req -x509`
/// makes one), its own CA bundle; the same PEM twice, and its key.
fn self_signed() -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair, SanType};
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    params.subject_alt_names.push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let cert = params.self_signed(&key).unwrap();
    (cert.pem(), cert.pem(), key.serialize_pem())
}

/// A conversion webhook between `example.com/v1alpha1` (`spec.size`) and `v1`
/// (`spec.replicas`); `/convert-fail` answers a failure.
fn convert(path: &str, request: &Value) -> Value {
    let desired = request["desiredAPIVersion"].as_str().unwrap_or_default();
    let converted: Vec<Value> = request["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|object| {
            let mut object = object.clone();
            let spec = object["spec"].as_object_mut().map(std::mem::take).unwrap_or_default();
            let count = spec.get("size").or_else(|| spec.get("replicas")).cloned().unwrap_or(Value::Null);
            let field = if desired == "example.com/v1" { "replicas" } else { "size" };
            object["spec"] = json!({ field: count });
            object["apiVersion"] = json!(desired);
            object
        })
        .collect();
    let result = if path.starts_with("/convert-fail") {
        json!({"status": "Failure", "message": "cannot convert today"})
    } else {
        json!({"status": "Success"})
    };
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": {"uid": request["uid"], "convertedObjects": converted, "result": result}})
}

impl WebhookServer {
    fn start() -> Self {
        Self::start_with(certificates())
    }

    fn start_with((ca_pem, cert_pem, key_pem): (String, String, String)) -> Self {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let certs = CertificateDer::pem_slice_iter(cert_pem.as_bytes()).map(Result::unwrap).collect();
        let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let reviews = Arc::new(Mutex::new(Vec::new()));
        let seen = reviews.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let (tcp, _) = listener.accept().await.unwrap();
                    let (acceptor, seen) = (acceptor.clone(), seen.clone());
                    tokio::spawn(async move {
                        let Ok(tls) = acceptor.accept(tcp).await else { return };
                        let service =
                            hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                                let seen = seen.clone();
                                async move {
                                    let path = request.uri().to_string();
                                    let body = request.into_body().collect().await?.to_bytes();
                                    let mut review: Value = serde_json::from_slice(&body).unwrap();
                                    let reply = answer(&path, &review);
                                    review["path"] = json!(path);
                                    seen.lock().push(review);
                                    let bytes = serde_json::to_vec(&reply).unwrap();
                                    Ok::<_, hyper::Error>(hyper::Response::new(Full::new(bytes::Bytes::from(bytes))))
                                }
                            });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(tls), service)
                            .await;
                    });
                }
            });
        });
        Self { addr, ca_pem, reviews }
    }

    /// A webhook's `clientConfig` for `path` on this server, trusting its CA.
    fn client_config(&self, path: &str) -> Value {
        use base64::Engine;
        let ca_bundle = base64::engine::general_purpose::STANDARD.encode(&self.ca_pem);
        json!({"url": format!("https://127.0.0.1:{}{path}", self.addr.port()), "caBundle": ca_bundle})
    }

    fn reviews(&self) -> Vec<Value> {
        self.reviews.lock().clone()
    }
}

fn configuration(name: &str, client_config: Value, failure_policy: &str) -> ValidatingWebhookConfiguration {
    serde_json::from_value(webhook_configuration("ValidatingWebhookConfiguration", name, client_config, failure_policy))
        .unwrap()
}

fn webhook_configuration(kind: &str, name: &str, client_config: Value, failure_policy: &str) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": [{
            "name": format!("{name}.example.com"),
            "clientConfig": client_config,
            "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
            "objectSelector": {"matchExpressions": [{"key": "skip-webhook", "operator": "DoesNotExist"}]},
            "matchConditions": [{"name": "not-the-system", "expression": "!request.userInfo.username.startsWith('system:kube')"}],
            "failurePolicy": failure_policy,
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 5,
        }],
    })
}

fn config_map(name: &str, labels: Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap()
}

fn refusal(result: Result<ConfigMap, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_validating_webhook_sees_matching_requests_and_its_denial_reaches_the_client() {
    use base64::Engine;
    let c = TestCluster::start().await;
    let server = WebhookServer::start();
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(&server.ca_pem);
    let url = format!("https://127.0.0.1:{}/validate", server.addr.port());
    let webhooks: Api<ValidatingWebhookConfiguration> = Api::all(c.client.clone());
    let check = configuration("check", json!({"url": url, "caBundle": ca_bundle}), "Fail");
    webhooks.create(&PostParams::default(), &check).await.unwrap();

    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    maps.create(&PostParams::default(), &config_map("dev", json!({"env": "dev"}))).await.expect("allowed");
    let denied = refusal(maps.create(&PostParams::default(), &config_map("prod", json!({"env": "prod"}))).await);
    assert_eq!(denied.code, 403);
    assert_eq!(denied.message, "admission webhook \"check.example.com\" denied the request: no prod here");
    let update = Patch::Merge(json!({"metadata": {"labels": {"env": "prod"}}}));
    assert_eq!(refusal(maps.patch("dev", &PatchParams::default(), &update).await).code, 403, "updates too");

    let reviews = server.reviews();
    assert_eq!(reviews.len(), 3, "one review per matching request: {reviews:#?}");
    let first = &reviews[0]["request"];
    assert_eq!(reviews[0]["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(reviews[0]["path"], "/validate?timeout=5s");
    assert_eq!(first["operation"], "CREATE");
    assert_eq!(first["resource"], json!({"group": "", "version": "v1", "resource": "configmaps"}));
    assert_eq!(first["kind"], json!({"group": "", "version": "v1", "kind": "ConfigMap"}));
    assert_eq!((first["namespace"].as_str(), first["name"].as_str()), (Some("default"), Some("dev")));
    assert_eq!(first["object"]["metadata"]["labels"]["env"], "dev");
    assert!(first["oldObject"].is_null());
    assert_eq!(first["options"]["kind"], "CreateOptions");
    assert_eq!(reviews[2]["request"]["oldObject"]["metadata"]["labels"]["env"], "dev", "an update sends both");

    // Not sent: another resource, an object the selector leaves out, a delete.
    let secrets: Api<Secret> = Api::namespaced(c.client.clone(), "default");
    let secret: Secret = serde_json::from_value(json!({"metadata": {"name": "s", "labels": {"env": "prod"}}})).unwrap();
    secrets.create(&PostParams::default(), &secret).await.expect("secrets are not in its rules");
    let skipped = config_map("skipped", json!({"env": "prod", "skip-webhook": "yes"}));
    maps.create(&PostParams::default(), &skipped).await.expect("the object selector leaves it out");
    maps.delete("dev", &DeleteParams::default()).await.expect("deletes are not in its rules");
    assert_eq!(server.reviews().len(), 3, "nothing else was sent");

    // Through a Service: its port maps to the endpoint, the certificate names the service.
    let services: Api<Service> = Api::namespaced(c.client.clone(), "default");
    let service: Service = serde_json::from_value(json!({"metadata": {"name": "webhook"},
        "spec": {"ports": [{"name": "https", "port": 443, "targetPort": server.addr.port()}]}}))
    .unwrap();
    services.create(&PostParams::default(), &service).await.unwrap();
    let endpoints: Endpoints = serde_json::from_value(json!({"metadata": {"name": "webhook"},
        "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": server.addr.port()}]}]}))
    .unwrap();
    Api::<Endpoints>::namespaced(c.client.clone(), "default").create(&PostParams::default(), &endpoints).await.unwrap();
    webhooks.delete("check", &DeleteParams::default()).await.unwrap();
    let by_service =
        json!({"service": {"namespace": "default", "name": "webhook", "path": "/svc"}, "caBundle": ca_bundle});
    webhooks.create(&PostParams::default(), &configuration("check", by_service, "Fail")).await.unwrap();
    let denied = refusal(maps.create(&PostParams::default(), &config_map("prod", json!({"env": "prod"}))).await);
    assert_eq!(denied.code, 403, "{denied:?}");
    assert_eq!(server.reviews().last().unwrap()["path"], "/svc?timeout=5s");
}

#[tokio::test]
async fn an_unreachable_webhook_refuses_under_fail_and_is_skipped_under_ignore() {
    use base64::Engine;
    let c = TestCluster::start().await;
    let server = WebhookServer::start();
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(&server.ca_pem);
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("https://127.0.0.1:{closed}/validate");
    let webhooks: Api<ValidatingWebhookConfiguration> = Api::all(c.client.clone());
    let down = configuration("down", json!({"url": url, "caBundle": ca_bundle}), "Fail");
    webhooks.create(&PostParams::default(), &down).await.unwrap();
    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let refused = refusal(maps.create(&PostParams::default(), &config_map("a", json!({}))).await);
    assert_eq!(refused.code, 500);
    assert!(
        refused.message.starts_with("Internal error occurred: failed calling webhook \"down.example.com\": failed to call webhook: Post \"https://127.0.0.1:"),
        "{}",
        refused.message
    );
    assert!(
        refused.message.ends_with(": connect: connection refused"),
        "worded as Go's net package: {}",
        refused.message
    );

    // The configuration itself can still be fixed: no webhook sees admission's own objects.
    let ignore = Patch::Merge(json!({"webhooks": [{"name": "down.example.com", "failurePolicy": "Ignore",
        "clientConfig": {"url": url, "caBundle": ca_bundle}, "sideEffects": "None", "admissionReviewVersions": ["v1"]}]}));
    webhooks.patch("down", &PatchParams::default(), &ignore).await.expect("the fix is admitted");
    maps.create(&PostParams::default(), &config_map("a", json!({}))).await.expect("Ignore lets it through");

    // A certificate the caBundle does not vouch for is a failed call.
    let other_ca = certificates().0;
    let wrong = base64::engine::general_purpose::STANDARD.encode(other_ca);
    let url = format!("https://127.0.0.1:{}/validate", server.addr.port());
    webhooks
        .create(&PostParams::default(), &configuration("untrusted", json!({"url": url, "caBundle": wrong}), "Fail"))
        .await
        .unwrap();
    let refused = refusal(maps.create(&PostParams::default(), &config_map("b", json!({}))).await);
    assert!(refused.message.contains("tls:"), "{}", refused.message);
    assert!(server.reviews().is_empty(), "nothing reached the server over an untrusted connection");
}

/// Mutating webhooks run before validation: their JSONPatch is applied (the server's own
/// metadata stays), the validating webhooks and the store see the patched object, on
/// create, update and dry run alike; a patch that renames the object is refused.
#[tokio::test]
async fn a_mutating_webhook_patches_the_object_before_validation_sees_it() {
    use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
    let c = TestCluster::start().await;
    let server = WebhookServer::start();
    let at = |path: &str| server.client_config(path);
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(c.client.clone());
    let label =
        serde_json::from_value(webhook_configuration("MutatingWebhookConfiguration", "label", at("/mutate"), "Fail"))
            .unwrap();
    mutating.create(&PostParams::default(), &label).await.unwrap();
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(c.client.clone());
    validating.create(&PostParams::default(), &configuration("check", at("/validate"), "Fail")).await.unwrap();

    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let created = maps.create(&PostParams::default(), &config_map("dev", json!({"env": "dev"}))).await.unwrap();
    assert_eq!(created.metadata.labels.as_ref().unwrap().get("mutated").map(String::as_str), Some("yes"));
    assert_eq!(created.data.as_ref().unwrap().get("injected").map(String::as_str), Some("true"));
    assert_ne!(created.metadata.uid.as_deref(), Some("forged"), "the server keeps its own metadata");
    let stored = maps.get("dev").await.unwrap();
    assert_eq!(stored.data, created.data, "what is stored is what was patched");

    let reviews = server.reviews();
    let paths: Vec<&str> = reviews.iter().filter_map(|r| r["path"].as_str()).collect();
    assert_eq!(paths, ["/mutate?timeout=5s", "/validate?timeout=5s"], "mutating first");
    assert_eq!(reviews[1]["request"]["object"]["metadata"]["labels"]["mutated"], "yes", "validation sees the patch");

    // An update is patched too (the data the client dropped comes back).
    let update = Patch::Merge(json!({"data": null, "metadata": {"labels": {"mutated": null}}}));
    let updated = maps.patch("dev", &PatchParams::default(), &update).await.unwrap();
    assert_eq!(updated.data.as_ref().unwrap().get("injected").map(String::as_str), Some("true"));
    let dry = PostParams { dry_run: true, ..PostParams::default() };
    let dry_run = maps.create(&dry, &config_map("dry", json!({}))).await.unwrap();
    assert_eq!(dry_run.metadata.labels.unwrap().get("mutated").map(String::as_str), Some("yes"), "a dry run shows it");
    assert!(maps.get_opt("dry").await.unwrap().is_none());

    let rename =
        serde_json::from_value(webhook_configuration("MutatingWebhookConfiguration", "rename", at("/rename"), "Fail"))
            .unwrap();
    mutating.create(&PostParams::default(), &rename).await.unwrap();
    let refused = refusal(maps.create(&PostParams::default(), &config_map("x", json!({}))).await);
    assert_eq!(refused.code, 500);
    assert!(refused.message.contains("the patch changes metadata.name"), "{}", refused.message);
}

/// A mutating webhook with `reinvocationPolicy: IfNeeded` is called once more when a later
/// webhook changed the object after it ran (upstream's reinvocation); with `Never` it is not.
#[tokio::test]
async fn a_mutating_webhook_that_asks_is_invoked_again_after_a_later_one_changed_the_object() {
    use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
    let c = TestCluster::start().await;
    let server = WebhookServer::start();
    let at = |path: &str| server.client_config(path);
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(c.client.clone());
    // Configurations run in the order of their names: a-saw-b before b-add-b.
    let mut saw = webhook_configuration("MutatingWebhookConfiguration", "a-saw-b", at("/saw-b"), "Fail");
    saw["webhooks"][0]["reinvocationPolicy"] = json!("IfNeeded");
    mutating.create(&PostParams::default(), &serde_json::from_value(saw).unwrap()).await.unwrap();
    let add = webhook_configuration("MutatingWebhookConfiguration", "b-add-b", at("/add-b"), "Fail");
    mutating.create(&PostParams::default(), &serde_json::from_value(add).unwrap()).await.unwrap();

    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let created = maps.create(&PostParams::default(), &config_map("again", json!({}))).await.unwrap();
    let labels = created.metadata.labels.unwrap_or_default();
    assert_eq!(labels.get("saw-b").map(String::as_str), Some("yes"), "the second call saw the later change");
    let paths: Vec<String> = server.reviews().iter().filter_map(|r| r["path"].as_str().map(str::to_string)).collect();
    assert_eq!(paths, ["/saw-b?timeout=5s", "/add-b?timeout=5s", "/saw-b?timeout=5s"]);

    // With the default policy (Never) it runs once and keeps what it saw then.
    mutating
        .patch(
            "a-saw-b",
            &PatchParams::default(),
            &Patch::Json::<()>(
                serde_json::from_value(json!([
            {"op": "remove", "path": "/webhooks/0/reinvocationPolicy"}]))
                .unwrap(),
            ),
        )
        .await
        .unwrap();
    let created = maps.create(&PostParams::default(), &config_map("once", json!({}))).await.unwrap();
    assert_eq!(created.metadata.labels.unwrap_or_default().get("saw-b").map(String::as_str), Some("no"));
}

/// Go's x509, which kube-apiserver's webhook client uses, trusts a certificate that is in
/// the CA bundle itself, even a CA certificate serving as its own server certificate.
#[tokio::test]
async fn a_self_signed_webhook_certificate_that_is_its_own_ca_bundle_is_trusted_as_go_trusts_it() {
    let c = TestCluster::start().await;
    let server = WebhookServer::start_with(self_signed());
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(c.client.clone());
    validating
        .create(&PostParams::default(), &configuration("check", server.client_config("/validate"), "Fail"))
        .await
        .unwrap();
    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    maps.create(&PostParams::default(), &config_map("dev", json!({"env": "dev"})))
        .await
        .expect("the webhook is called");
    let refused = refusal(maps.create(&PostParams::default(), &config_map("prod", json!({"env": "prod"}))).await);
    assert_eq!((refused.code, refused.message.contains("no prod here")), (403, true), "{refused:?}");
    assert_eq!(server.reviews().len(), 2);
}

/// A mutating webhook's patch of `.status` on a create is dropped with the rest of the
/// status (upstream's `PrepareForCreate` runs after mutating admission), so it is neither
/// validated nor kept: upstream's registration webhook patches a ManagedCluster's status.
#[tokio::test]
async fn a_mutating_webhooks_patch_of_status_on_create_is_reset_before_validation() {
    use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
    use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
    let c = TestCluster::start().await;
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "clusters.example.com"},
        "spec": {"group": "example.com", "scope": "Cluster", "names": {"plural": "clusters", "singular": "cluster", "kind": "Cluster"},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "status": {"type": "object", "properties": {"conditions": {"type": "array", "items": {"type": "object"}},
                        "phase": {"type": "string"}}}}}}}]}});
    let (code, body) = crate::support::cluster::raw(
        &c.client,
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        "application/json",
        crd.to_string().into_bytes(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let server = WebhookServer::start();
    let mut configuration =
        webhook_configuration("MutatingWebhookConfiguration", "status", server.client_config("/null-status"), "Fail");
    configuration["webhooks"][0]["rules"] = json!([{"operations": ["CREATE"], "apiGroups": ["example.com"], "apiVersions": ["v1"], "resources": ["clusters"]}]);
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(c.client.clone());
    mutating.create(&PostParams::default(), &serde_json::from_value(configuration).unwrap()).await.unwrap();
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Cluster");
    let clusters: Api<DynamicObject> =
        Api::all_with(c.client.clone(), &ApiResource::from_gvk_with_plural(&gvk, "clusters"));
    let cluster: DynamicObject = serde_json::from_value(
        json!({"apiVersion": "example.com/v1", "kind": "Cluster", "metadata": {"name": "c1"}, "spec": {}}),
    )
    .unwrap();
    let created =
        clusters.create(&PostParams::default(), &cluster).await.expect("the status patch does not fail the create");
    assert!(created.data.get("status").is_none(), "{:?}", created.data);
    assert_eq!(server.reviews().len(), 1, "the webhook was called");
}

/// A CRD served in two versions with `conversion.strategy: Webhook`: every object is
/// stored in the storage version and read in the version asked for, each converted by the
/// webhook (`ConversionReview` v1); a webhook that fails fails the read with 500, as the
/// apiextensions server answers.
#[tokio::test]
async fn a_crds_conversion_webhook_converts_between_the_served_versions_and_its_failure_is_a_500() {
    use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
    let c = TestCluster::start().await;
    let server = WebhookServer::start();
    let crd = |path: &str| {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "pools.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "pools", "singular": "pool", "kind": "Pool"},
            "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": server.client_config(path)}},
            "versions": [
                {"name": "v1alpha1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}},
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}}}]}})
    };
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, body) = crate::support::cluster::raw(
        &c.client,
        "POST",
        path,
        "application/json",
        crd("/convert").to_string().into_bytes(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let api = |version: &str| {
        let gvk = GroupVersionKind::gvk("example.com", version, "Pool");
        Api::<DynamicObject>::namespaced_with(
            c.client.clone(),
            "default",
            &ApiResource::from_gvk_with_plural(&gvk, "pools"),
        )
    };
    let old: DynamicObject = serde_json::from_value(json!({"apiVersion": "example.com/v1alpha1", "kind": "Pool",
        "metadata": {"name": "p"}, "spec": {"size": 3}}))
    .unwrap();
    let created = api("v1alpha1").create(&PostParams::default(), &old).await.expect("created through v1alpha1");
    assert_eq!(created.data["spec"], json!({"size": 3}), "answered in the version asked");
    let stored = c
        .server
        .state()
        .store
        .get(&fleetctl_apiserver::GroupResource::new("example.com", "pools"), "default/p")
        .unwrap()
        .value();
    assert_eq!(
        (stored["apiVersion"].as_str(), &stored["spec"]),
        (Some("example.com/v1"), &json!({"replicas": 3})),
        "stored as v1"
    );
    let read = api("v1").get("p").await.unwrap();
    assert_eq!(read.data["spec"], json!({"replicas": 3}));
    assert_eq!(api("v1alpha1").list(&Default::default()).await.unwrap().items[0].data["spec"], json!({"size": 3}));
    assert!(
        server
            .reviews()
            .iter()
            .all(|r| r["kind"] == "ConversionReview" && r["apiVersion"] == "apiextensions.k8s.io/v1")
    );

    // The webhook fails: reads in the other version fail with 500, the storage version reads as stored.
    let mut broken = crd("/convert-fail");
    let current = api("v1").get("p").await.unwrap();
    let (_, crd_now) =
        crate::support::cluster::raw(&c.client, "GET", &format!("{path}/pools.example.com"), "", Vec::new()).await;
    broken["metadata"]["resourceVersion"] = crd_now["metadata"]["resourceVersion"].clone();
    let (code, body) = crate::support::cluster::raw(
        &c.client,
        "PUT",
        &format!("{path}/pools.example.com"),
        "application/json",
        broken.to_string().into_bytes(),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let kube::Error::Api(status) = api("v1alpha1").get("p").await.expect_err("500") else { panic!() };
    assert_eq!(status.code, 500, "{status:?}");
    assert!(status.message.contains("conversion webhook for example.com/v1alpha1, Kind=Pool failed"), "{status:?}");
    assert_eq!(api("v1").get("p").await.unwrap().data, current.data);
}
