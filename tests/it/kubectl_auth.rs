//! kubectl's identity commands against `fleetctl dev serve` (they send protobuf bodies):
//! `auth can-i`, `auth whoami`, `create token`, `create namespace`, `certificate approve`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::support::kubectl::{DevServe, kubectl_available};

fn cluster() -> Option<DevServe> {
    if !kubectl_available() {
        return None;
    }
    Some(DevServe::start())
}

const ALICE_READS_CONFIGMAPS: &str = r#"{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "cm-reader", "namespace": "default"},
   "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]},
  {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "alice", "namespace": "default"},
   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
   "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}]}]}"#;

#[test]
fn auth_can_i_answers_for_the_caller_and_for_an_impersonated_user() {
    let Some(k) = cluster() else { return };
    k.apply(ALICE_READS_CONFIGMAPS);
    assert_eq!(k.ok(&["auth", "can-i", "delete", "secrets"]).trim(), "yes");
    assert_eq!(k.ok(&["auth", "can-i", "list", "configmaps", "--as", "alice"]).trim(), "yes");
    let denied = k.kubectl(&["auth", "can-i", "list", "secrets", "--as", "alice"]);
    assert_eq!(String::from_utf8_lossy(&denied.stdout).trim(), "no");
    assert!(!denied.status.success(), "can-i exits 1 for no");
    let whoami = k.ok(&["auth", "whoami", "--as", "alice", "--as-group", "devs"]);
    assert!(whoami.contains("alice") && whoami.contains("devs"), "{whoami}");
}

/// `kubectl auth can-i --list` asks a SelfSubjectRulesReview: alice sees her Role's rule
/// in `default` (and the discovery rules every authenticated user has), not in another
/// namespace.
#[test]
fn auth_can_i_list_shows_what_the_bindings_grant_in_the_namespace() {
    let Some(k) = cluster() else { return };
    k.apply(ALICE_READS_CONFIGMAPS);
    let listed = k.ok(&["auth", "can-i", "--list", "--as", "alice", "-n", "default"]);
    let row = listed.lines().find(|l| l.starts_with("configmaps ")).unwrap_or_else(|| panic!("{listed}"));
    assert!(row.contains("[get list]"), "{row}");
    assert!(listed.contains("selfsubjectaccessreviews.authorization.k8s.io"), "{listed}");
    assert!(listed.lines().any(|l| l.contains("[/healthz]") || l.contains("/healthz")), "{listed}");
    let elsewhere = k.ok(&["auth", "can-i", "--list", "--as", "alice", "-n", "kube-system"]);
    assert!(!elsewhere.lines().any(|l| l.starts_with("configmaps ")), "{elsewhere}");
}

#[test]
fn a_denied_request_prints_the_upstream_forbidden_message() {
    let Some(k) = cluster() else { return };
    let err = k.fails(&["get", "secrets", "--as", "alice"]);
    assert!(
        err.contains(
            "Error from server (Forbidden): secrets is forbidden: User \"alice\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\""
        ),
        "{err}"
    );
}

#[test]
fn create_namespace_and_create_token_yield_a_working_service_account_token() {
    let Some(k) = cluster() else { return };
    k.ok(&["create", "namespace", "team"]);
    k.ok(&["create", "serviceaccount", "bot", "-n", "team"]);
    k.apply(
        r#"{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "bot-view", "namespace": "team"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": "bot", "namespace": "team"}]}"#,
    );
    let token = k.ok(&["create", "token", "bot", "-n", "team", "--duration=20m"]);
    let token = token.trim();
    assert_eq!(token.split('.').count(), 3, "a JWT");
    let as_bot = |args: &[&str]| {
        let mut command = k.command(args);
        command.args(["--token", token, "--user", ""]);
        command.output().expect("kubectl")
    };
    let ok = as_bot(&["get", "configmaps", "-n", "team", "-o", "name"]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("configmap/kube-root-ca.crt"));
    let denied = as_bot(&["get", "secrets", "-n", "team"]);
    assert!(String::from_utf8_lossy(&denied.stderr).contains("User \"system:serviceaccount:team:bot\" cannot list"));
}

#[test]
fn certificate_approve_gets_a_csr_signed() {
    let Some(k) = cluster() else { return };
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, "dora");
    let csr = params.serialize_request(&key).expect("csr").pem().expect("pem");
    let manifest = serde_json::json!({
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "dora"},
        "spec": {"request": BASE64.encode(&csr), "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"]}
    });
    k.apply(&manifest.to_string());
    assert!(k.ok(&["certificate", "approve", "dora"]).contains("approved"));
    k.ok(&["wait", "--for=jsonpath={.status.certificate}", "csr/dora", "--timeout=10s"]);
    let cert = k.ok(&["get", "csr", "dora", "-o", "jsonpath={.status.certificate}"]);
    let pem = String::from_utf8(BASE64.decode(cert.trim()).expect("base64")).expect("pem");
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"));
}

#[test]
fn the_rendered_import_manifests_apply_with_kubectl() {
    let Some(k) = cluster() else { return };
    let crds =
        fleetctl_hub::manifests::to_yaml(&[serde_json::to_value(fleetctl_api::crds::klusterlet()).expect("crd")]);
    let inputs = fleetctl_hub::manifests::import::ImportInputs {
        cluster: "cluster1",
        hub_url: "https://127.0.0.1:6443",
        hub_ca_pem: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        token: "a.b.c",
        image: "quay.io/fleetctl/fleetctl:0.1.0",
        image_pull_secret: Some(&k8s_openapi::ByteString(
            br#"{"auths":{"registry.example":{"auth":"dTpw"}}}"#.to_vec(),
        )),
        mode: fleetctl_api::operator::InstallMode::Default,
        recovery: None,
    };
    let import = fleetctl_hub::manifests::to_yaml(&fleetctl_hub::manifests::import::objects(&inputs));
    let applied = k.ok_with_stdin(&["apply", "-f", "-"], &crds);
    assert!(applied.contains("klusterlets.operator.open-cluster-management.io created"), "{applied}");
    k.ok(&[
        "wait",
        "--for=condition=Established",
        "crd/klusterlets.operator.open-cluster-management.io",
        "--timeout=10s",
    ]);
    let applied = k.ok_with_stdin(&["apply", "-f", "-"], &import);
    for object in [
        "namespace/open-cluster-management-agent created",
        "secret/bootstrap-hub-kubeconfig created",
        "secret/open-cluster-management-image-pull-credentials created",
        "serviceaccount/klusterlet created",
        "deployment.apps/klusterlet created",
        "klusterlet.operator.open-cluster-management.io/klusterlet created",
    ] {
        assert!(applied.contains(object), "{object} missing from: {applied}");
    }
    let again = k.ok_with_stdin(&["apply", "-f", "-"], &import);
    assert!(again.contains("klusterlet.operator.open-cluster-management.io/klusterlet unchanged"), "{again}");
    let pulls = k.ok(&[
        "get",
        "sa",
        "klusterlet",
        "-n",
        "open-cluster-management-agent",
        "-o",
        "jsonpath={.imagePullSecrets[0].name}",
    ]);
    assert_eq!(pulls, "open-cluster-management-image-pull-credentials");
}
