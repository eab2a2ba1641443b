//! The decoder against hand-built messages and against bodies kubectl 1.32 sent.
use super::transcode::rfc3339;
use super::*;
use serde_json::json;

// A tiny encoder, enough to build the messages under test by hand.

fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn key(number: u32, wire_type: u8) -> Vec<u8> {
    let mut out = Vec::new();
    varint(u64::from(number) << 3 | u64::from(wire_type), &mut out);
    out
}

/// A length-delimited field (string, bytes, embedded message, map entry).
pub(super) fn len(number: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = key(number, 2);
    varint(payload.len() as u64, &mut out);
    out.extend_from_slice(payload);
    out
}

pub(super) fn string(number: u32, text: &str) -> Vec<u8> {
    len(number, text.as_bytes())
}

pub(super) fn int(number: u32, value: i64) -> Vec<u8> {
    let mut out = key(number, 0);
    varint(value as u64, &mut out);
    out
}

pub(super) fn double(number: u32, value: f64) -> Vec<u8> {
    let mut out = key(number, 1);
    out.extend_from_slice(&value.to_le_bytes());
    out
}

pub(super) fn message(number: u32, fields: &[Vec<u8>]) -> Vec<u8> {
    len(number, &fields.concat())
}

fn entry(number: u32, map_key: &str, value: &[u8]) -> Vec<u8> {
    message(number, &[string(1, map_key), len(2, value)])
}

fn time(number: u32, seconds: i64) -> Vec<u8> {
    message(number, &[int(1, seconds), int(2, 0)])
}

/// The `k8s\0` prefix plus runtime.Unknown, the way kubectl frames a body.
fn body(api_version: &str, kind: &str, fields: &[Vec<u8>]) -> Vec<u8> {
    body_of(api_version, kind, &fields.concat())
}

/// The `k8s\0` prefix plus runtime.Unknown around an encoded object, the way kubectl frames a body.
pub(super) fn body_of(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let type_meta = message(1, &[string(1, api_version), string(2, kind)]);
    [MAGIC.to_vec(), type_meta, len(2, raw), string(3, ""), string(4, "")].concat()
}

fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).expect("ascii"), 16).expect("hex digit"))
        .collect()
}

/// ObjectMeta the way Go writes it for a new object: every string present, even when empty.
fn new_meta(name: &str) -> Vec<u8> {
    message(
        1,
        &[
            string(1, name),
            string(2, ""),
            string(3, ""),
            string(4, ""),
            string(5, ""),
            string(6, ""),
            int(7, 0),
            len(8, &[]),
        ],
    )
}

#[test]
fn namespace_with_full_object_meta() {
    let meta = message(
        1,
        &[
            string(1, "team-a"),
            string(2, "team-"),
            string(3, ""),
            string(5, "0b5e"),
            string(6, "42"),
            int(7, 3),
            time(8, 1_704_164_645),
            time(9, 1_704_164_700),
            int(10, 0),
            entry(11, "env", b"prod"),
            entry(11, "tier", b"web"),
            entry(12, "note", b"hi"),
            message(
                13,
                &[string(5, "apps/v1"), string(1, "Deployment"), string(3, "web"), string(4, "u-1"), int(6, 1)],
            ),
            string(14, "a/b"),
            string(14, "c/d"),
            message(17, &[string(1, "kubectl")]),
        ],
    );
    let spec = message(2, &[string(1, "kubernetes")]);
    let status = message(3, &[string(1, "Active")]);
    let decoded = decode(&body("v1", "Namespace", &[meta, spec, status])).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": "team-a",
                "generateName": "team-",
                "uid": "0b5e",
                "resourceVersion": "42",
                "generation": 3,
                "creationTimestamp": "2024-01-02T03:04:05Z",
                "deletionTimestamp": "2024-01-02T03:05:00Z",
                "deletionGracePeriodSeconds": 0,
                "labels": {"env": "prod", "tier": "web"},
                "annotations": {"note": "hi"},
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u-1", "controller": true}
                ],
                "finalizers": ["a/b", "c/d"],
                // A client that read the object before it writes it back sends managedFields too.
                "managedFields": [{"manager": "kubectl"}],
            },
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        })
    );
}

#[test]
fn config_map_with_binary_data_and_immutable_false() {
    let fields =
        [new_meta("cfg"), entry(2, "a", b"b"), entry(2, "empty", b""), entry(3, "bin", &[0xff, 0, 1]), int(4, 0)];
    let decoded = decode(&body("v1", "ConfigMap", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"creationTimestamp": null, "name": "cfg"},
            "data": {"a": "b", "empty": ""},
            "binaryData": {"bin": "/wAB"},
            "immutable": false,
        })
    );
}

#[test]
fn secret_data_is_base64() {
    let fields = [
        new_meta("s"),
        entry(2, "k", b"v"),
        message(2, &[string(1, "no-value")]),
        string(3, "kubernetes.io/basic-auth"),
        entry(4, "plain", b"text"),
        int(5, 1),
    ];
    let decoded = decode(&body("v1", "Secret", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"creationTimestamp": null, "name": "s"},
            "data": {"k": "dg==", "no-value": ""},
            "stringData": {"plain": "text"},
            "type": "kubernetes.io/basic-auth",
            "immutable": true,
        })
    );
}

#[test]
fn service_account_references() {
    let secret_ref = message(
        2,
        &[
            string(1, "Secret"),
            string(2, "default"),
            string(3, "tok"),
            string(4, ""),
            string(5, "v1"),
            string(6, ""),
            string(7, ""),
        ],
    );
    let fields = [new_meta("robot"), secret_ref, message(3, &[string(1, "registry")]), int(4, 0)];
    let decoded = decode(&body("v1", "ServiceAccount", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"creationTimestamp": null, "name": "robot"},
            "secrets": [{"kind": "Secret", "namespace": "default", "name": "tok", "apiVersion": "v1"}],
            "imagePullSecrets": [{"name": "registry"}],
            "automountServiceAccountToken": false,
        })
    );
}

#[test]
fn token_request_spec() {
    let bound = message(3, &[string(1, "Pod"), string(2, "v1"), string(3, "web-0"), string(4, "p-1")]);
    let spec = message(2, &[string(1, "api"), string(1, "vault"), bound, int(4, 3600)]);
    let fields = [new_meta(""), spec, message(3, &[string(1, ""), len(2, &[])])];
    let decoded = decode(&body("authentication.k8s.io/v1", "TokenRequest", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "metadata": {"creationTimestamp": null},
            "spec": {
                "audiences": ["api", "vault"],
                "expirationSeconds": 3600,
                "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web-0", "uid": "p-1"},
            },
            "status": {"expirationTimestamp": null, "token": ""},
        })
    );
}

#[test]
fn self_subject_access_review_resource_attributes() {
    let requirement = message(2, &[string(1, "app"), string(2, "In"), string(3, "web"), string(3, "db")]);
    let attributes = message(
        1,
        &[
            string(1, "prod"),
            string(2, "get"),
            string(3, "apps"),
            string(4, "v1"),
            string(5, "deployments"),
            string(6, "scale"),
            string(7, "web"),
            message(8, &[string(1, "metadata.name=web")]),
            message(9, &[string(1, ""), requirement]),
        ],
    );
    let status = message(3, &[int(1, 0), string(2, ""), string(3, ""), int(4, 0)]);
    let fields = [new_meta(""), message(2, &[attributes]), status];
    let decoded = decode(&body("authorization.k8s.io/v1", "SelfSubjectAccessReview", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "metadata": {"creationTimestamp": null},
            "spec": {"resourceAttributes": {
                "namespace": "prod",
                "verb": "get",
                "group": "apps",
                "version": "v1",
                "resource": "deployments",
                "subresource": "scale",
                "name": "web",
                "fieldSelector": {"rawSelector": "metadata.name=web"},
                "labelSelector": {"requirements": [{"key": "app", "operator": "In", "values": ["web", "db"]}]},
            }},
            "status": {"allowed": false},
        })
    );
}

#[test]
fn self_subject_access_review_non_resource_attributes() {
    let spec = message(2, &[message(2, &[string(1, "/healthz"), string(2, "get")])]);
    let decoded = decode(&body("authorization.k8s.io/v1", "SelfSubjectAccessReview", &[spec])).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}},
        })
    );
}

#[test]
fn certificate_signing_request_spec_and_status() {
    let spec = message(
        2,
        &[
            len(1, b"hello"),
            string(2, "alice"),
            string(3, "u-9"),
            string(4, "devs"),
            string(4, "system:authenticated"),
            string(5, "digital signature"),
            string(5, "client auth"),
            entry(6, "scopes", &[string(1, "read"), string(1, "write")].concat()),
            message(6, &[string(1, "empty")]),
            string(7, "kubernetes.io/kube-apiserver-client"),
            int(8, -1),
        ],
    );
    let approved = message(
        1,
        &[
            string(1, "Approved"),
            string(2, "KubectlApprove"),
            string(3, "ok"),
            time(4, 1_704_164_645),
            len(5, &[]),
            string(6, "True"),
        ],
    );
    let status = message(3, &[approved, len(2, b"cert")]);
    let fields = [new_meta("csr1"), spec, status];
    let decoded = decode(&body("certificates.k8s.io/v1", "CertificateSigningRequest", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "certificates.k8s.io/v1",
            "kind": "CertificateSigningRequest",
            "metadata": {"creationTimestamp": null, "name": "csr1"},
            "spec": {
                "request": "aGVsbG8=",
                "signerName": "kubernetes.io/kube-apiserver-client",
                "expirationSeconds": -1,
                "usages": ["digital signature", "client auth"],
                "username": "alice",
                "uid": "u-9",
                "groups": ["devs", "system:authenticated"],
                "extra": {"scopes": ["read", "write"], "empty": []},
            },
            "status": {
                "conditions": [{
                    "type": "Approved",
                    "status": "True",
                    "reason": "KubectlApprove",
                    "message": "ok",
                    "lastUpdateTime": "2024-01-02T03:04:05Z",
                    // Unset on the wire as an empty message: Go writes a zero Time as null.
                    "lastTransitionTime": null,
                }],
                "certificate": "Y2VydA==",
            },
        })
    );
}

#[test]
fn unknown_fields_of_every_wire_type_are_skipped() {
    let fixed64 = [key(90, 1), vec![0; 8]].concat();
    let fixed32 = [key(91, 5), vec![0; 4]].concat();
    let fields = [int(89, 7), fixed64, fixed32, string(92, "later"), new_meta("x"), entry(2, "a", b"b")];
    let decoded = decode(&body("v1", "ConfigMap", &fields)).expect("decodes");
    assert_eq!(
        decoded,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"creationTimestamp": null, "name": "x"}, "data": {"a": "b"}})
    );
}

#[test]
fn unsupported_kinds_and_versions_name_the_kind() {
    // kubectl and client-go send custom resources and CRDs as JSON only.
    let error = decode(&body("example.test/v1", "Widget", &[])).expect_err("Widget is not built in");
    assert_eq!(error.to_string(), "protobuf bodies of kind Widget are not supported: send JSON (application/json)");
    assert!(error.is_unsupported());
    let error = decode(&body("certificates.k8s.io/v1beta1", "CertificateSigningRequest", &[])).expect_err("v1beta1");
    assert_eq!(
        error.to_string(),
        "protobuf bodies of kind CertificateSigningRequest in certificates.k8s.io/v1beta1 are not supported: \
         send JSON (application/json)"
    );
}

#[test]
fn envelope_errors() {
    assert!(matches!(decode(b"{\"kind\":\"ConfigMap\"}"), Err(ProtobufError::MissingMagic)));
    assert!(matches!(decode(MAGIC), Err(ProtobufError::MissingKind)));
    let gzip = [body("v1", "ConfigMap", &[]), string(3, "gzip")].concat();
    let error = decode(&gzip).expect_err("compressed raw");
    assert!(error.is_unsupported());
    assert_eq!(
        error.to_string(),
        "protobuf bodies with content encoding \"gzip\" are not supported: send JSON (application/json)"
    );
}

#[test]
fn malformed_bodies_are_rejected() {
    let truncated = [body("v1", "ConfigMap", &[]), vec![0x12, 0x05, 0x0a]].concat();
    assert!(matches!(decode(&truncated), Err(ProtobufError::Malformed(_))));
    let endless_varint = [MAGIC.to_vec(), vec![0x08], vec![0xff; 11]].concat();
    assert!(matches!(decode(&endless_varint), Err(ProtobufError::Malformed(_))));
    let group = [MAGIC.to_vec(), key(5, 3)].concat();
    assert!(matches!(decode(&group), Err(ProtobufError::Malformed(_))));
    let bad_utf8 = body("v1", "ConfigMap", &[message(1, &[len(1, &[0xff, 0xfe])])]);
    assert!(matches!(decode(&bad_utf8), Err(ProtobufError::Malformed(_))));
    let name_as_varint = body("v1", "ConfigMap", &[message(1, &[int(1, 5)])]);
    let error = decode(&name_as_varint).expect_err("wrong wire type");
    assert_eq!(error.to_string(), "malformed protobuf body: field name has the wrong wire type");
    assert!(!error.is_unsupported());
}

#[test]
fn timestamps_format_as_rfc3339() {
    let cases = [
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_704_164_645, "2024-01-02T03:04:05Z"),
        (-62_135_596_800, "0001-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ];
    for (seconds, text) in cases {
        assert_eq!(rfc3339(seconds).expect("in range"), text);
    }
    assert!(rfc3339(253_402_300_800).is_err());
}

// Bodies captured from kubectl v1.32.4 (its request bodies, verbatim) by pointing it at a loopback
// listener that answered discovery and recorded each POST/PUT body.

/// `kubectl create namespace ns1`
const KUBECTL_CREATE_NAMESPACE: &str = "6b3873000a0f0a02763112094e616d657370616365121b0a130a036e733112001a0022002a00\
    32003800420012001a020a001a002200";

/// `kubectl create configmap cm3 --from-file=blob=<the bytes ff 00 01> --from-literal=c=d`
const KUBECTL_CREATE_CONFIGMAP: &str = "6b3873000a0f0a0276311209436f6e6669674d6170122a0a130a03636d3312001a0022002a\
    0032003800420012060a01631201641a0b0a04626c6f621203ff00011a002200";

/// `kubectl create secret generic s2 --from-literal=a=b --type=Opaque`
const KUBECTL_CREATE_SECRET: &str = "6b3873000a0c0a027631120653656372657412240a120a02733212001a0022002a0032003800\
    420012060a01611201621a064f70617175651a002200";

/// `kubectl create serviceaccount sa1`
const KUBECTL_CREATE_SERVICEACCOUNT: &str = "6b3873000a140a027631120e536572766963654163636f756e7412150a130a037361\
    3112001a0022002a003200380042001a002200";

/// `kubectl create token default --audience=aud1 --audience=aud2 --duration=10m --bound-object-kind=Secret
/// --bound-object-name=s1 --bound-object-uid=uid-1`
const KUBECTL_CREATE_TOKEN: &str = "6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b65\
    6e5265717565737412420a100a0012001a0022002a0032003800420012280a04617564310a04617564321a170a065365637265741202\
    76311a02733122057569642d3120d8041a040a0012001a002200";

/// `kubectl auth can-i list deployments.apps --subresource=status -n kube-system` (the test server did not
/// serve the apps group, so kubectl sent the resource unresolved)
const KUBECTL_AUTH_CAN_I_RESOURCE: &str = "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c\
    665375626a65637441636365737352657669657712530a100a0012001a0022002a003200380042001235\
    0a330a0b6b7562652d73797374656d12046c6973741a0022002a106465706c6f796d656e74732e617070733206737461747573\
    3a001a08080012001a0020001a002200";

/// `kubectl auth can-i get /healthz`
const KUBECTL_AUTH_CAN_I_NON_RESOURCE: &str = "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f763112\
    1753656c665375626a656374416363657373526576696577122f0a100a0012001a0022002a003200380042001211120f0a082f686561\
    6c74687a12036765741a08080012001a0020001a002200";

/// `kubectl certificate approve csr1`, after a GET that returned csr1 with one Failed condition
const KUBECTL_CERTIFICATE_APPROVE: &str = "6b3873000a330a166365727469666963617465732e6b38732e696f2f76311219436572\
    74696669636174655369676e696e67526571756573741295020a200a046373723112001a0022002a03752d313201373800420808a5fa\
    cdac061000125b0a0568656c6c6f1205616c6963651a00221473797374656d3a61757468656e746963617465642a0b636c69656e7420\
    617574683a236b756265726e657465732e696f2f6b7562652d6170697365727665722d636c69656e7440901c1a93010a2c0a06466169\
    6c65641204507265761a016d220808a5facdac0610002a0808a5facdac061000320546616c73650a630a08417070726f766564120e4b\
    75626563746c417070726f76651a3554686973204353522077617320617070726f766564206279206b75626563746c2063657274696669\
    6361746520617070726f76652e220808e494b5d80610002a003204547275651a002200";

fn decode_hex(text: &str) -> Value {
    decode(&hex(text)).expect("kubectl body decodes")
}

#[test]
fn kubectl_create_core_kinds() {
    assert_eq!(
        decode_hex(KUBECTL_CREATE_NAMESPACE),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"creationTimestamp": null, "name": "ns1"}, "spec": {}, "status": {}})
    );
    assert_eq!(
        decode_hex(KUBECTL_CREATE_CONFIGMAP),
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"creationTimestamp": null, "name": "cm3"},
            "data": {"c": "d"},
            "binaryData": {"blob": "/wAB"},
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_CREATE_SECRET),
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"creationTimestamp": null, "name": "s2"},
            "data": {"a": "Yg=="},
            "type": "Opaque",
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_CREATE_SERVICEACCOUNT),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"creationTimestamp": null, "name": "sa1"}})
    );
}

#[test]
fn kubectl_create_token() {
    assert_eq!(
        decode_hex(KUBECTL_CREATE_TOKEN),
        json!({
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "metadata": {"creationTimestamp": null},
            "spec": {
                "audiences": ["aud1", "aud2"],
                "expirationSeconds": 600,
                "boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s1", "uid": "uid-1"},
            },
            "status": {"expirationTimestamp": null, "token": ""},
        })
    );
}

#[test]
fn kubectl_auth_can_i() {
    assert_eq!(
        decode_hex(KUBECTL_AUTH_CAN_I_RESOURCE),
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "metadata": {"creationTimestamp": null},
            "spec": {"resourceAttributes": {
                "namespace": "kube-system",
                "verb": "list",
                "resource": "deployments.apps",
                "subresource": "status",
            }},
            "status": {"allowed": false},
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_AUTH_CAN_I_NON_RESOURCE),
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "metadata": {"creationTimestamp": null},
            "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}},
            "status": {"allowed": false},
        })
    );
}

#[test]
fn kubectl_certificate_approve() {
    assert_eq!(
        decode_hex(KUBECTL_CERTIFICATE_APPROVE),
        json!({
            "apiVersion": "certificates.k8s.io/v1",
            "kind": "CertificateSigningRequest",
            "metadata": {
                "name": "csr1",
                "uid": "u-1",
                "resourceVersion": "7",
                "creationTimestamp": "2024-01-02T03:04:05Z",
            },
            "spec": {
                "request": "aGVsbG8=",
                "signerName": "kubernetes.io/kube-apiserver-client",
                "expirationSeconds": 3600,
                "usages": ["client auth"],
                "username": "alice",
                "groups": ["system:authenticated"],
            },
            "status": {"conditions": [
                {
                    "type": "Failed",
                    "status": "False",
                    "reason": "Prev",
                    "message": "m",
                    "lastUpdateTime": "2024-01-02T03:04:05Z",
                    "lastTransitionTime": "2024-01-02T03:04:05Z",
                },
                {
                    "type": "Approved",
                    "status": "True",
                    "reason": "KubectlApprove",
                    "message": "This CSR was approved by kubectl certificate approve.",
                    "lastUpdateTime": "2026-11-30T10:05:24Z",
                    "lastTransitionTime": null,
                },
            ]},
        })
    );
}
/// `kubectl create deployment web --image=nginx:1.27 --replicas=2 --port=80`
const KUBECTL_CREATE_DEPLOYMENT: &str = "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412bd010a1f0a0377656212001a0022002a003200380042\
    005a0a0a036170701203776562128b010802120c0a0a0a0361707012037765621a710a1c0a0012001a0022002a0032003800\
    42005a0a0a036170701203776562125112330a056e67696e78120a6e67696e783a312e32372a00320a0a001000185022002a\
    0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a\
    00280038001a0c0800100018002000280038001a002200";

/// `kubectl create role r1 --verb=get,list --resource=configmaps --resource-name=cfg`
const KUBECTL_CREATE_ROLE: &str = "6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512340a120a027231\
    12001a0022002a00320038004200121e0a036765740a046c69737412001a0a636f6e6669676d61707322036366671a002200";

/// `kubectl create rolebinding rb1 --role=r1 --user=alice --group=devs --serviceaccount=default:bot`
const KUBECTL_CREATE_ROLEBINDING: &str = "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b526f6c6542696e64696e6712\
    b6010a130a0372623112001a0022002a00320038004200122a0a04557365721219726261632e617574686f72697a6174696f\
    6e2e6b38732e696f1a05616c6963652200122a0a0547726f75701219726261632e617574686f72697a6174696f6e2e6b3873\
    2e696f1a0464657673220012200a0e536572766963654163636f756e7412001a03626f74220764656661756c741a250a1972\
    6261632e617574686f72697a6174696f6e2e6b38732e696f1204526f6c651a0272311a002200";

/// `kubectl create clusterrole cr2 --verb=get --non-resource-url=/healthz`
const KUBECTL_CREATE_CLUSTERROLE: &str = "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c6512\
    260a130a0363723212001a0022002a00320038004200120f0a036765742a082f6865616c74687a1a002200";

/// `kubectl create clusterrolebinding crb1 --clusterrole=cr1 --user=alice`
const KUBECTL_CREATE_CLUSTERROLEBINDING: &str = "6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c7573746572526f6c6542\
    696e64696e6712710a140a046372623112001a0022002a00320038004200122a0a04557365721219726261632e617574686f\
    72697a6174696f6e2e6b38732e696f1a05616c69636522001a2d0a19726261632e617574686f72697a6174696f6e2e6b3873\
    2e696f120b436c7573746572526f6c651a036372311a002200";

/// `kubectl create priorityclass high --value=1000 --description=urgent --preemption-policy=Never`
const KUBECTL_CREATE_PRIORITYCLASS: &str = "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c617373122a0a140a0468\
    69676812001a0022002a0032003800420010e80718002206757267656e742a054e657665721a002200";

/// `kubectl auth reconcile -f -` of a ClusterRole `recon` that may get pods (the create it sends)
const KUBECTL_AUTH_RECONCILE: &str = "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c6512\
    260a150a057265636f6e12001a0022002a00320038004200120d0a0367657412001a04706f64731a002200";

/// What `kubectl create deployment … -o json --dry-run=client` prints: Go writes the empty structs
/// (strategy, resources, status) and leaves out every empty value field.
#[test]
fn kubectl_create_deployment() {
    assert_eq!(
        decode_hex(KUBECTL_CREATE_DEPLOYMENT),
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"creationTimestamp": null, "name": "web", "labels": {"app": "web"}},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "strategy": {},
                "template": {
                    "metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
                    "spec": {"containers": [{
                        "name": "nginx",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80}],
                        "resources": {},
                    }]},
                },
            },
            "status": {},
        })
    );
}

#[test]
fn kubectl_create_rbac_kinds() {
    let rbac = "rbac.authorization.k8s.io/v1";
    assert_eq!(
        decode_hex(KUBECTL_CREATE_ROLE),
        json!({
            "apiVersion": rbac,
            "kind": "Role",
            "metadata": {"creationTimestamp": null, "name": "r1"},
            // The core group is an empty string, kept as a list item.
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cfg"], "verbs": ["get", "list"]}],
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_CREATE_ROLEBINDING),
        json!({
            "apiVersion": rbac,
            "kind": "RoleBinding",
            "metadata": {"creationTimestamp": null, "name": "rb1"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r1"},
            "subjects": [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"},
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "devs"},
                {"kind": "ServiceAccount", "name": "bot", "namespace": "default"},
            ],
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_CREATE_CLUSTERROLE),
        json!({
            "apiVersion": rbac,
            "kind": "ClusterRole",
            "metadata": {"creationTimestamp": null, "name": "cr2"},
            "rules": [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}],
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_CREATE_CLUSTERROLEBINDING),
        json!({
            "apiVersion": rbac,
            "kind": "ClusterRoleBinding",
            "metadata": {"creationTimestamp": null, "name": "crb1"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cr1"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}],
        })
    );
    assert_eq!(
        decode_hex(KUBECTL_AUTH_RECONCILE),
        json!({
            "apiVersion": rbac,
            "kind": "ClusterRole",
            "metadata": {"creationTimestamp": null, "name": "recon"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
        })
    );
}

#[test]
fn kubectl_create_priorityclass() {
    assert_eq!(
        decode_hex(KUBECTL_CREATE_PRIORITYCLASS),
        json!({
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"creationTimestamp": null, "name": "high"},
            "value": 1000,
            "description": "urgent",
            "preemptionPolicy": "Never",
        })
    );
}

/// The special types, each handled once for every kind: Quantity, IntOrString, MicroTime and raw
/// JSON (RawExtension, FieldsV1), and an inlined embedded struct (a Volume's VolumeSource).
#[test]
fn special_types_and_inlined_structs() {
    let resources = message(8, &[entry(1, "cpu", &string(1, "250m")), entry(2, "memory", &[])]);
    let container = message(2, &[string(1, "c"), resources]);
    let empty_dir = message(2, &[message(2, &[string(1, "1Gi")])]);
    let volume = message(1, &[string(1, "scratch"), message(2, &[empty_dir])]);
    let pod_spec = message(2, &[container, volume]);
    let pod = decode(&body("v1", "Pod", &[new_meta("p"), pod_spec])).expect("decodes");
    assert_eq!(
        pod["spec"]["containers"][0]["resources"],
        json!({"limits": {"cpu": "250m"}, "requests": {"memory": "0"}})
    );
    assert_eq!(pod["spec"]["volumes"], json!([{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}]));

    let max_surge = message(2, &[int(1, 1), string(3, "25%")]);
    let max_unavailable = message(1, &[int(1, 0), int(2, 3)]);
    let strategy = message(4, &[string(1, "RollingUpdate"), message(2, &[max_unavailable, max_surge])]);
    let deployment =
        decode(&body("apps/v1", "Deployment", &[new_meta("d"), message(2, &[strategy])])).expect("decodes");
    assert_eq!(
        deployment["spec"]["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3, "maxSurge": "25%"}})
    );

    let renew = message(4, &[int(1, 1_704_164_645), int(2, 123_456_789)]);
    let lease =
        decode(&body("coordination.k8s.io/v1", "Lease", &[new_meta("l"), message(2, &[renew])])).expect("decodes");
    assert_eq!(lease["spec"]["renewTime"], "2024-01-02T03:04:05.123456Z");

    let revision = [new_meta("r"), message(2, &[string(1, r#"{"spec":{"x":1}}"#)]), int(3, 4)];
    let revision = decode(&body("apps/v1", "ControllerRevision", &revision)).expect("decodes");
    assert_eq!(revision["data"], json!({"spec": {"x": 1}}));
    assert_eq!(revision["revision"], 4);
}
