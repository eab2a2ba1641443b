//! The `kubernetes.io/kube-apiserver-client` signer: approved CSRs get a client
//! certificate from the cluster CA; requests it must not honour get `Failed`.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use super::super::kinds;
use super::super::object;
use super::super::resource::WriteOptions;
use super::super::state::Shared;
use super::super::store::ObjectRef;
use super::{Step, read};

/// The signer this cluster implements.
pub const KUBE_APISERVER_CLIENT: &str = "kubernetes.io/kube-apiserver-client";
/// The usages a client certificate may carry.
const ALLOWED_USAGES: [&str; 3] = ["digital signature", "key encipherment", "client auth"];
/// Shortest lifetime the signer grants (upstream's minimum for expirationSeconds).
const MIN_LIFETIME: Duration = Duration::from_secs(600);
/// Lifetime when the CSR names none (upstream's default cluster-signing-duration).
const DEFAULT_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);

fn condition(csr: &Value, kind: &str) -> bool {
    csr["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] != "False")
}

/// What the signer should do with a CSR.
enum Decision {
    Skip,
    Fail(String),
    Sign { pem: String, lifetime: Duration },
}

fn decide(csr: &Value) -> Decision {
    let spec = &csr["spec"];
    if spec["signerName"] != KUBE_APISERVER_CLIENT
        || !condition(csr, "Approved")
        || condition(csr, "Denied")
        || condition(csr, "Failed")
        || csr["status"]["certificate"].as_str().is_some_and(|c| !c.is_empty())
    {
        return Decision::Skip;
    }
    let usages: Vec<&str> = spec["usages"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if let Some(bad) = usages.iter().find(|u| !ALLOWED_USAGES.contains(u)) {
        return Decision::Fail(format!("invalid usage for client certificate: {bad}"));
    }
    if !usages.contains(&"client auth") {
        return Decision::Fail("missing required usage for client certificate: client auth".into());
    }
    let Some(pem) =
        spec["request"].as_str().and_then(|r| BASE64.decode(r).ok()).and_then(|b| String::from_utf8(b).ok())
    else {
        return Decision::Fail("the request is not base64-encoded PEM".into());
    };
    let lifetime = spec["expirationSeconds"]
        .as_u64()
        .map_or(DEFAULT_LIFETIME, |s| Duration::from_secs(s).clamp(MIN_LIFETIME, DEFAULT_LIFETIME));
    Decision::Sign { pem, lifetime }
}

/// Signs or fails one CSR if it is approved and not yet issued.
pub(super) fn sign(state: &Shared, name: &str) -> Step {
    let target = ObjectRef { resource: kinds::certificate_signing_requests(), key: name.to_string() };
    let Some((rt, csr)) = read(state, &target) else { return Ok(()) };
    let outcome = match decide(&csr) {
        Decision::Skip => return Ok(()),
        Decision::Fail(why) => Err(why),
        Decision::Sign { pem, lifetime } => match fleetctl_kube::certs::parse_csr(&pem) {
            Ok(subject) if subject.organizations.iter().any(|o| o == "system:masters") => {
                Err("the kube-apiserver-client signer never issues certificates in system:masters".to_string())
            }
            Ok(_) => state.security.pki.sign_client_csr(&pem, lifetime).map_err(|e| format!("{e:#}")),
            Err(e) => Err(e.to_string()),
        },
    };
    let result = state.write(&rt, None, name, Some("status"), &WriteOptions::default(), None, &mut |current| {
        let mut next = current.clone();
        match &outcome {
            Ok(cert) => next["status"]["certificate"] = json!(BASE64.encode(cert)),
            Err(why) => {
                let failed = json!({"type": "Failed", "status": "True", "reason": "SignerValidationFailure", "message": why,
                    "lastUpdateTime": object::now(), "lastTransitionTime": object::now()});
                let mut conditions = current["status"]["conditions"].as_array().cloned().unwrap_or_default();
                conditions.push(failed);
                next["status"]["conditions"] = Value::Array(conditions);
            }
        }
        Ok(next)
    });
    result.map(|_| ())
}
