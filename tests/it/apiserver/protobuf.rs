//! The Kubernetes protobuf form as client-go's typed clients use it: option and object bodies
//! in, answers out, read back with k8s-pb's prost types.

use std::collections::BTreeMap;

use bytes::Bytes;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as pb_ext;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as pb_meta;
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use kube::api::{Api, PostParams};
use prost::Message as _;
use serde_json::json;

use crate::support::cluster::TestCluster;

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
/// What client-go's typed clients send as Accept.
const CLIENT_GO_ACCEPT: &str = "application/vnd.kubernetes.protobuf, application/json";

/// A raw request with an Accept header: status, content type, body.
async fn send(
    c: &TestCluster,
    method: &str,
    path: &str,
    content_type: &str,
    accept: &str,
    body: Vec<u8>,
) -> (u16, String, Bytes) {
    let request = axum::http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .header("accept", accept)
        .body(body)
        .expect("request");
    let response = c.client.send(request.map(kube::client::Body::from)).await.expect("response");
    let status = response.status().as_u16();
    let content_type =
        response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    let bytes = http_body_util::BodyExt::collect(response.into_body()).await.expect("body").to_bytes();
    (status, content_type, bytes)
}

/// `k8s\0` and runtime.Unknown around a message, as client-go's protobuf serializer frames a body.
fn envelope(api_version: &str, kind: &str, message: &impl prost::Message) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta { api_version: Some(api_version.into()), kind: Some(kind.into()) }),
        raw: Some(message.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    [b"k8s\0".as_slice(), &unknown.encode_to_vec()].concat()
}

/// Opens a protobuf answer: its type metadata and raw message.
fn open(body: &[u8]) -> (String, String, Vec<u8>) {
    let unknown = Unknown::decode(body.strip_prefix(b"k8s\0").expect("the k8s\\0 prefix")).expect("runtime.Unknown");
    let type_meta = unknown.type_meta.expect("type metadata");
    (type_meta.api_version.unwrap_or_default(), type_meta.kind.unwrap_or_default(), unknown.raw.unwrap_or_default())
}

async fn config_map(c: &TestCluster, name: &str) {
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": name}, "data": {"k": "v"}})).unwrap();
    Api::<ConfigMap>::namespaced(c.client.clone(), "default").create(&PostParams::default(), &cm).await.unwrap();
}

#[tokio::test]
async fn a_protobuf_delete_options_body_deletes_and_a_missing_object_is_404_as_kube_apiserver_answers() {
    let c = TestCluster::start().await;
    config_map(&c, "doomed").await;
    let options = pb_meta::DeleteOptions { propagation_policy: Some("Background".into()), ..Default::default() };
    // client-go names the option kind in the resource's group version, or in meta.k8s.io/v1.
    for (api_version, name, code) in [("v1", "doomed", 200), ("meta.k8s.io/v1", "doomed", 404), ("v1", "never", 404)] {
        let path = format!("/api/v1/namespaces/default/configmaps/{name}");
        let body = envelope(api_version, "DeleteOptions", &options);
        let (status, _, answer) = send(&c, "DELETE", &path, PROTOBUF, "application/json", body).await;
        assert_eq!(status, code, "{name} ({api_version}): {}", String::from_utf8_lossy(&answer));
    }
    let left = Api::<ConfigMap>::namespaced(c.client.clone(), "default").get_opt("doomed").await.unwrap();
    assert!(left.is_none(), "the first DELETE removed the ConfigMap");
}

fn schema(ty: &str) -> pb_ext::JsonSchemaProps {
    pb_ext::JsonSchemaProps { r#type: Some(ty.into()), ..Default::default() }
}

#[tokio::test]
async fn a_protobuf_custom_resource_definition_is_created_with_its_schema_and_its_resource_is_served() {
    let c = TestCluster::start().await;
    let size = pb_ext::JsonSchemaProps {
        maximum: Some(10.0),
        default: Some(pb_ext::Json { raw: Some(b"3".to_vec()) }),
        ..schema("integer")
    };
    let tags = pb_ext::JsonSchemaProps {
        items: Some(Box::new(pb_ext::JsonSchemaPropsOrArray {
            schema: Some(Box::new(schema("string"))),
            ..Default::default()
        })),
        ..schema("array")
    };
    let spec = pb_ext::JsonSchemaProps {
        properties: BTreeMap::from([("size".into(), size), ("tags".into(), tags)]),
        ..schema("object")
    };
    let root = pb_ext::JsonSchemaProps { properties: BTreeMap::from([("spec".into(), spec)]), ..schema("object") };
    let crd = pb_ext::CustomResourceDefinition {
        metadata: Some(pb_meta::ObjectMeta { name: Some("gadgets.example.com".into()), ..Default::default() }),
        spec: Some(pb_ext::CustomResourceDefinitionSpec {
            group: Some("example.com".into()),
            names: Some(pb_ext::CustomResourceDefinitionNames {
                plural: Some("gadgets".into()),
                singular: Some("gadget".into()),
                kind: Some("Gadget".into()),
                list_kind: Some("GadgetList".into()),
                ..Default::default()
            }),
            scope: Some("Namespaced".into()),
            versions: vec![pb_ext::CustomResourceDefinitionVersion {
                name: Some("v1".into()),
                served: Some(true),
                storage: Some(true),
                schema: Some(pb_ext::CustomResourceValidation { open_apiv3_schema: Some(root) }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: None,
    };
    let body = envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", &crd);
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (status, _, answer) = send(&c, "POST", crds, PROTOBUF, "application/json", body).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&answer));

    let stored = Api::<CustomResourceDefinition>::all(c.client.clone()).get("gadgets.example.com").await.unwrap();
    let spec_schema =
        serde_json::to_value(&stored.spec.versions[0].schema).unwrap()["openAPIV3Schema"]["properties"]["spec"].clone();
    // k8s-openapi reads `maximum` as an f64, which serde_json writes as 10.0.
    assert_eq!(spec_schema["properties"]["size"], json!({"type": "integer", "maximum": 10.0, "default": 3}));
    assert_eq!(spec_schema["properties"]["tags"], json!({"type": "array", "items": {"type": "string"}}));

    // The resource is served, its schema applied (the default filled in).
    let gadget =
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"tags": ["a"]}});
    let gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    let (status, _, answer) =
        send(&c, "POST", gadgets, "application/json", "application/json", gadget.to_string().into_bytes()).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&answer));
    let created: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(created["spec"], json!({"size": 3, "tags": ["a"]}));
}

#[tokio::test]
async fn reads_that_ask_for_protobuf_first_are_answered_in_protobuf_objects_lists_and_errors() {
    let c = TestCluster::start().await;
    config_map(&c, "one").await;
    let cms = "/api/v1/namespaces/default/configmaps";

    let (status, content_type, body) = send(&c, "GET", &format!("{cms}/one"), "", CLIENT_GO_ACCEPT, Vec::new()).await;
    assert_eq!((status, content_type.as_str()), (200, PROTOBUF));
    let (api_version, kind, raw) = open(&body);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "ConfigMap"));
    let cm = k8s_pb::api::core::v1::ConfigMap::decode(raw.as_slice()).unwrap();
    assert_eq!(cm.metadata.and_then(|m| m.name).as_deref(), Some("one"));
    assert_eq!(cm.data.get("k").map(String::as_str), Some("v"));

    // Lists are `<Kind>List`, their items without type metadata.
    let (status, _, body) = send(&c, "GET", cms, "", CLIENT_GO_ACCEPT, Vec::new()).await;
    assert_eq!(status, 200);
    let (_, kind, raw) = open(&body);
    assert_eq!(kind, "ConfigMapList");
    let list = k8s_pb::api::core::v1::ConfigMapList::decode(raw.as_slice()).unwrap();
    assert!(list.metadata.and_then(|m| m.resource_version).is_some_and(|rv| !rv.is_empty()));
    assert!(list.items.iter().any(|item| item.metadata.as_ref().and_then(|m| m.name.as_deref()) == Some("one")));

    // Errors are a protobuf Status too.
    let (status, content_type, body) = send(&c, "GET", &format!("{cms}/none"), "", CLIENT_GO_ACCEPT, Vec::new()).await;
    assert_eq!((status, content_type.as_str()), (404, PROTOBUF));
    let (api_version, kind, raw) = open(&body);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Status"));
    let error = pb_meta::Status::decode(raw.as_slice()).unwrap();
    assert_eq!((error.code, error.reason.as_deref()), (Some(404), Some("NotFound")));
}

#[tokio::test]
async fn a_protobuf_watch_sends_length_prefixed_watch_events_holding_protobuf_objects() {
    let c = TestCluster::start().await;
    config_map(&c, "watched").await;
    let request = axum::http::Request::builder()
        .uri("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dwatched")
        .header("accept", CLIENT_GO_ACCEPT)
        .body(Vec::new())
        .unwrap();
    let response = c.client.send(request.map(kube::client::Body::from)).await.unwrap();
    assert_eq!(response.headers()["content-type"], PROTOBUF);
    let mut body = response.into_body();
    let mut buffer = Vec::new();
    let frame = loop {
        if buffer.len() >= 4 {
            let length = u32::from_be_bytes(buffer[..4].try_into().unwrap()) as usize;
            if buffer.len() >= 4 + length {
                break buffer[4..4 + length].to_vec();
            }
        }
        let chunk = http_body_util::BodyExt::frame(&mut body).await.expect("a frame").expect("no error");
        buffer.extend_from_slice(&chunk.into_data().unwrap_or_default());
    };
    let event = pb_meta::WatchEvent::decode(frame.as_slice()).unwrap();
    assert_eq!(event.r#type.as_deref(), Some("ADDED"));
    let (_, kind, raw) = open(&event.object.and_then(|o| o.raw).unwrap_or_default());
    assert_eq!(kind, "ConfigMap");
    let cm = k8s_pb::api::core::v1::ConfigMap::decode(raw.as_slice()).unwrap();
    assert_eq!(cm.metadata.and_then(|m| m.name).as_deref(), Some("watched"));
}

#[tokio::test]
async fn custom_resources_have_no_protobuf_form_json_answers_where_accepted_else_406() {
    let c = TestCluster::start().await;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (status, content_type, _) = send(&c, "GET", crds, "", CLIENT_GO_ACCEPT, Vec::new()).await;
    assert_eq!((status, content_type.as_str()), (200, PROTOBUF), "CRDs themselves are built in");
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "things.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .unwrap();
    Api::<CustomResourceDefinition>::all(c.client.clone()).create(&PostParams::default(), &crd).await.unwrap();
    let things = "/apis/example.com/v1/namespaces/default/things";
    let (status, content_type, _) = send(&c, "GET", things, "", CLIENT_GO_ACCEPT, Vec::new()).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let (status, _, _) = send(&c, "GET", things, "", PROTOBUF, Vec::new()).await;
    assert_eq!(status, 406);
}
