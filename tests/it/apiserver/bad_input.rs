//! Bad input gets a precise Status error and writes nothing.

use crate::support::cluster::{TestCluster, raw};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

async fn assert_refused(
    c: &TestCluster,
    method: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
    expected: (u16, &str, &str),
) {
    let (code, reason, message) = expected;
    let before = c.server.state().store.rv();
    let (status, body) = raw(&c.client, method, path, content_type, body).await;
    assert_eq!(status, code, "{body}");
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["status"], "Failure");
    assert_eq!(body["reason"], reason, "{body}");
    assert_eq!(body["code"], code);
    let text = body["message"].as_str().unwrap_or_default();
    assert!(text.contains(message), "message {text:?} lacks {message:?}");
    assert_eq!(c.server.state().store.rv(), before, "nothing may be written");
}

#[tokio::test]
async fn malformed_json_is_a_bad_request() {
    let c = TestCluster::start().await;
    assert_refused(
        &c,
        "POST",
        CMS,
        "application/json",
        b"{\"metadata\": {".to_vec(),
        (400, "BadRequest", "not valid JSON"),
    )
    .await;
}

#[tokio::test]
async fn malformed_yaml_is_a_bad_request() {
    let c = TestCluster::start().await;
    assert_refused(
        &c,
        "POST",
        CMS,
        "application/yaml",
        b"metadata: [unclosed".to_vec(),
        (400, "BadRequest", "not valid YAML"),
    )
    .await;
}

#[tokio::test]
async fn a_body_whose_kind_does_not_match_the_url_is_refused() {
    let c = TestCluster::start().await;
    let body = br#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}"#.to_vec();
    assert_refused(
        &c,
        "POST",
        CMS,
        "application/json",
        body,
        (400, "BadRequest", "the kind in the body (Secret) does not match"),
    )
    .await;
    let body = br#"{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"s"}}"#.to_vec();
    assert_refused(
        &c,
        "POST",
        CMS,
        "application/json",
        body,
        (400, "BadRequest", "does not match the expected API version (v1)"),
    )
    .await;
}

#[tokio::test]
async fn an_unknown_resource_is_not_found() {
    let c = TestCluster::start().await;
    let body = br#"{"metadata":{"name":"s"}}"#.to_vec();
    assert_refused(
        &c,
        "POST",
        "/api/v1/namespaces/default/gizmos",
        "application/json",
        body,
        (404, "NotFound", "could not find the requested resource"),
    )
    .await;
    let (status, _) = raw(&c.client, "GET", "/apis/nope.example.com/v1/things", "application/json", Vec::new()).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_body_over_three_mebibytes_is_too_large() {
    let c = TestCluster::start().await;
    let big = format!(r#"{{"metadata":{{"name":"big"}},"data":{{"a":"{}"}}}}"#, "x".repeat(3 * 1024 * 1024 + 10));
    assert_refused(
        &c,
        "POST",
        CMS,
        "application/json",
        big.into_bytes(),
        (413, "RequestEntityTooLarge", "limit is 3145728"),
    )
    .await;
}

#[tokio::test]
async fn protobuf_of_a_custom_resource_is_refused_with_a_pointer_to_json() {
    let c = TestCluster::start().await;
    // Custom resources have no protobuf form (kube-apiserver serves them as JSON, YAML, CBOR):
    // k8s\0 + runtime.Unknown{typeMeta{"example.com/v1", "Widget"}}.
    let mut body = b"k8s\0".to_vec();
    let type_meta = [&[0x0a, 0x0e][..], b"example.com/v1", &[0x12, 0x06], b"Widget"].concat();
    body.extend_from_slice(&[0x0a, type_meta.len() as u8]);
    body.extend_from_slice(&type_meta);
    body.extend_from_slice(&[0x12, 0x00]);
    assert_refused(
        &c,
        "POST",
        CMS,
        "application/vnd.kubernetes.protobuf",
        body,
        (415, "UnsupportedMediaType", "send JSON"),
    )
    .await;
}

#[tokio::test]
async fn a_malformed_protobuf_body_is_a_bad_request() {
    let c = TestCluster::start().await;
    let body = b"k8s\0\x0a\xff".to_vec();
    assert_refused(&c, "POST", CMS, "application/vnd.kubernetes.protobuf", body, (400, "BadRequest", "protobuf")).await;
}

#[tokio::test]
async fn an_unsupported_verb_is_method_not_allowed() {
    let c = TestCluster::start().await;
    assert_refused(
        &c,
        "PUT",
        CMS,
        "application/json",
        b"{}".to_vec(),
        (405, "MethodNotAllowed", "does not allow this method"),
    )
    .await;
}

#[tokio::test]
async fn creating_in_a_missing_namespace_is_not_found() {
    let c = TestCluster::start().await;
    let body = br#"{"metadata":{"name":"x"}}"#.to_vec();
    assert_refused(
        &c,
        "POST",
        "/api/v1/namespaces/ghost/configmaps",
        "application/json",
        body,
        (404, "NotFound", "namespaces \"ghost\" not found"),
    )
    .await;
}

#[tokio::test]
async fn an_unknown_field_selector_is_a_bad_request() {
    let c = TestCluster::start().await;
    let path = format!("{CMS}?fieldSelector=spec.nope%3Dx");
    assert_refused(
        &c,
        "GET",
        &path,
        "application/json",
        Vec::new(),
        (400, "BadRequest", "field label not supported: spec.nope"),
    )
    .await;
}

#[tokio::test]
async fn a_malformed_label_selector_is_a_bad_request() {
    let c = TestCluster::start().await;
    let path = format!("{CMS}?labelSelector=a%20in%20(b");
    assert_refused(
        &c,
        "GET",
        &path,
        "application/json",
        Vec::new(),
        (400, "BadRequest", "unable to parse requirement"),
    )
    .await;
}
