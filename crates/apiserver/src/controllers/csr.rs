//! The `kubernetes.io/kube-apiserver-client` signer: approved CSRs get a client
//! certificate from the cluster CA; requests it must not honour get `Failed`. And the CSR
//! cleaner, as kube-controller-manager's: decided and stale requests go.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use super::super::key::ObjectKey;
use super::super::kinds;
use super::super::object;
use super::super::options::WriteOptions;
use super::super::state::Shared;
use super::super::store::ObjectRef;
use super::{Step, read, remove};

/// The signer this cluster implements.
pub const KUBE_APISERVER_CLIENT: &str = "kubernetes.io/kube-apiserver-client";
/// The usages a client certificate may carry.
const ALLOWED_USAGES: [&str; 3] = ["digital signature", "key encipherment", "client auth"];
/// Shortest lifetime the signer grants (upstream's minimum for expirationSeconds).
const MIN_LIFETIME: Duration = Duration::from_secs(600);
/// Lifetime when the CSR names none (upstream's default cluster-signing-duration).
const DEFAULT_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long the cleaner keeps a request after it was issued, denied or failed.
const DECIDED_RETENTION: jiff::SignedDuration = jiff::SignedDuration::from_hours(1);
/// How long the cleaner keeps a request nobody decided on.
const PENDING_RETENTION: jiff::SignedDuration = jiff::SignedDuration::from_hours(24);

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
    let result = state.resource(&rt).write(ObjectKey::cluster(name), Some("status"), &WriteOptions::default(), None, &mut |current| {
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

/// When a condition of `kind` was last set (its `lastUpdateTime`, else its transition).
fn decided_at(csr: &Value, kind: &str) -> Option<jiff::Timestamp> {
    let condition =
        csr["status"]["conditions"].as_array()?.iter().find(|c| c["type"] == kind && c["status"] != "False")?;
    let stamp = condition["lastUpdateTime"].as_str().or_else(|| condition["lastTransitionTime"].as_str())?;
    stamp.parse().ok()
}

/// Whether the cleaner removes `csr` at `now`, by kube-controller-manager's rules: its
/// certificate has expired; it was issued, denied or failed more than an hour ago; or
/// nobody decided on it for a day.
pub(super) fn expired(csr: &Value, now: jiff::Timestamp) -> bool {
    let issued = csr["status"]["certificate"]
        .as_str()
        .filter(|c| !c.is_empty())
        .and_then(|c| BASE64.decode(c).ok())
        .and_then(|pem| String::from_utf8(pem).ok());
    if issued.as_deref().and_then(fleetctl_kube::certs::validity).is_some_and(|(_, not_after)| not_after <= now) {
        return true;
    }
    let older = |at: Option<jiff::Timestamp>, keep: jiff::SignedDuration| at.is_some_and(|at| at + keep < now);
    let decided = |kind: &str| older(decided_at(csr, kind), DECIDED_RETENTION);
    if (issued.is_some() && decided("Approved")) || decided("Denied") || decided("Failed") {
        return true;
    }
    let pending = !["Approved", "Denied", "Failed"].iter().any(|kind| condition(csr, kind));
    let created = csr["metadata"]["creationTimestamp"].as_str().and_then(|t| t.parse().ok());
    pending && older(created, PENDING_RETENTION)
}

/// Removes every CSR the cleaner's rules say is done with.
pub(super) fn clean(state: &Shared) -> Step {
    let now = jiff::Timestamp::now();
    let resource = kinds::certificate_signing_requests();
    let page = state.store.list(&resource, None, None, 0, &|_| true);
    let done: Vec<String> = page
        .items
        .iter()
        .map(|stored| stored.value())
        .filter(|csr| expired(csr, now))
        .filter_map(|csr| object::name(&csr).map(str::to_string))
        .collect();
    for name in done {
        tracing::debug!(csr = %name, "the CSR cleaner removes a request it is done with");
        remove(state, &ObjectRef { resource: resource.clone(), key: name })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(created: &str, conditions: Value, certificate: Option<&str>) -> Value {
        let mut csr = json!({"metadata": {"name": "x", "creationTimestamp": created},
            "status": {"conditions": conditions}});
        if let Some(pem) = certificate {
            csr["status"]["certificate"] = json!(BASE64.encode(pem));
        }
        csr
    }

    fn decided(kind: &str, at: &str) -> Value {
        json!([{"type": kind, "status": "True", "reason": "R", "lastUpdateTime": at}])
    }

    #[test]
    fn the_cleaner_keeps_what_kube_controller_managers_csrcleaner_keeps_and_no_more() {
        let now: jiff::Timestamp = "2026-12-01T12:00:00Z".parse().expect("time");
        let pki = crate::pki::Pki::generate("test").expect("pki");
        let cert = pki.client("u", &[]).expect("cert").cert_pem;
        let two_hours_ago = "2026-12-01T10:00:00Z";
        let a_minute_ago = "2026-12-01T11:59:00Z";
        // Decided more than an hour ago: gone.
        assert!(expired(&csr(two_hours_ago, decided("Denied", two_hours_ago), None), now));
        assert!(expired(&csr(two_hours_ago, decided("Failed", two_hours_ago), None), now));
        assert!(expired(&csr(two_hours_ago, decided("Approved", two_hours_ago), Some(&cert)), now));
        // Decided just now, or approved and not yet issued: kept.
        assert!(!expired(&csr(two_hours_ago, decided("Denied", a_minute_ago), None), now));
        assert!(!expired(&csr(two_hours_ago, decided("Approved", a_minute_ago), Some(&cert)), now));
        assert!(!expired(&csr(two_hours_ago, decided("Approved", two_hours_ago), None), now));
        // Pending: a day.
        assert!(!expired(&csr(two_hours_ago, json!([]), None), now));
        assert!(expired(&csr("2026-11-30T11:00:00Z", json!([]), None), now));
        // An issued certificate past its end goes at once.
        let (_, not_after) = fleetctl_kube::certs::validity(&cert).expect("validity");
        let later = not_after + jiff::SignedDuration::from_secs(1);
        assert!(expired(&csr(a_minute_ago, decided("Approved", a_minute_ago), Some(&cert)), later));
    }
}
