//! Earning a client certificate from the hub: an ECDSA P-256 key, a CSR with the
//! upstream subject and signer, and a watch until the hub's signer answers.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use futures::TryStreamExt;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use kube::api::{Api, ListParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::RegistrationError;
use fleetctl_api::conditions::LABEL_CLUSTER_NAME;
use fleetctl_api::names::{AGENT_SIGNER as SIGNER, MANAGED_CLUSTERS_GROUP, agent_group, agent_user};
use fleetctl_kube::kube_error;

/// The most CSRs of one cluster that may wait (neither issued, denied nor failed) at once,
/// upstream's bound; past it the agent makes no new one until some are settled.
pub const MAX_PENDING: usize = 10;

/// A signed certificate and its key, PEM.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The certificate.
    pub cert_pem: String,
    /// The private key.
    pub key_pem: String,
}

/// The CSR of `agent_id` in `cluster`, and its private key.
pub fn request(cluster: &str, agent_id: &str) -> Result<(String, String), rcgen::Error> {
    let key = rcgen::KeyPair::generate()?;
    let mut params = rcgen::CertificateParams::default();
    let mut name = rcgen::DistinguishedName::new();
    name.push(rcgen::DnType::CommonName, agent_user(cluster, agent_id));
    name.push(rcgen::DnType::OrganizationName, agent_group(cluster));
    // rcgen keys names by attribute type: the second O is the same OID spelled as custom.
    name.push(rcgen::DnType::CustomDnType(vec![2, 5, 4, 10]), MANAGED_CLUSTERS_GROUP);
    params.distinguished_name = name;
    let csr = params.serialize_request(&key)?.pem()?;
    Ok((csr, key.serialize_pem()))
}

/// Submits a CSR as `hub` (the bootstrap identity, or the agent renewing) and waits,
/// watching, until it is issued, denied or failed.
pub async fn obtain(
    hub: &Client,
    cluster: &str,
    agent_id: &str,
    expiration: Option<Duration>,
) -> Result<Issued, RegistrationError> {
    let (csr_pem, key_pem) = request(cluster, agent_id).map_err(|e| RegistrationError::Csr(e.to_string()))?;
    let mut spec = json!({
        "request": BASE64.encode(&csr_pem),
        "signerName": SIGNER,
        "usages": ["digital signature", "key encipherment", "client auth"],
    });
    if let Some(expiration) = expiration {
        spec["expirationSeconds"] = json!(expiration.as_secs());
    }
    let object: CertificateSigningRequest = serde_json::from_value(json!({
        "metadata": {"generateName": format!("{cluster}-"), "labels": {LABEL_CLUSTER_NAME: cluster}},
        "spec": spec,
    }))
    .map_err(|e| RegistrationError::Csr(e.to_string()))?;
    let api: Api<CertificateSigningRequest> = Api::all(hub.clone());
    let ours = ListParams::default().labels(&format!("{LABEL_CLUSTER_NAME}={cluster}"));
    let listed = api.list(&ours).await.map_err(kube_error("listing our cluster's csrs"))?;
    let pending = waiting(&listed.items);
    if pending >= MAX_PENDING {
        return Err(RegistrationError::TooManyPending(pending));
    }
    let created = api.create(&PostParams::default(), &object).await.map_err(kube_error("creating a csr"))?;
    let name = created.name_any();
    tracing::info!(csr = %name, "certificate requested");
    let settled = watcher(api, watcher::Config::default().fields(&format!("metadata.name={name}")))
        .applied_objects()
        .try_filter(|csr| futures::future::ready(outcome(csr).is_some()));
    let mut settled = std::pin::pin!(settled);
    let csr = settled
        .try_next()
        .await
        .map_err(|e| RegistrationError::Watch(format!("watching csr {name}: {e}")))?
        .ok_or_else(|| RegistrationError::Watch(format!("the watch of csr {name} ended")))?;
    match outcome(&csr) {
        Some(Ok(cert_pem)) => Ok(Issued { cert_pem, key_pem }),
        Some(Err(why)) => Err(RegistrationError::Refused(format!("csr {name}: {why}"))),
        None => Err(RegistrationError::Watch(format!("csr {name} settled without an outcome"))),
    }
}

/// How many of the CSRs still wait: neither issued, denied nor failed.
fn waiting(csrs: &[CertificateSigningRequest]) -> usize {
    csrs.iter().filter(|csr| outcome(csr).is_none()).count()
}

/// The certificate of an issued CSR, the reason of a denied or failed one, or `None`.
fn outcome(csr: &CertificateSigningRequest) -> Option<Result<String, String>> {
    let status = csr.status.as_ref()?;
    if let Some(cert) = status.certificate.as_ref().filter(|c| !c.0.is_empty()) {
        return Some(Ok(String::from_utf8_lossy(&cert.0).into_owned()));
    }
    status
        .conditions
        .iter()
        .flatten()
        .find(|c| matches!(c.type_.as_str(), "Denied" | "Failed"))
        .map(|c| Err(format!("{}: {}", c.type_, c.message.clone().unwrap_or_default())))
}

/// When a certificate should be renewed: with a fifth to a quarter of its life left
/// (the jitter keeps a fleet from renewing at once).
pub fn renew_at(cert_pem: &str) -> Option<jiff::Timestamp> {
    let (not_before, not_after) = fleetctl_kube::certs::validity(cert_pem)?;
    let (not_before, not_after) = (not_before.as_second(), not_after.as_second());
    let life = not_after - not_before;
    let jitter = i64::from(uuid::Uuid::new_v4().as_bytes()[0]) * life / 20 / 255;
    jiff::Timestamp::from_second(not_after - life / 5 - jitter).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csrs_wait_until_issued_denied_or_failed_even_when_approved() {
        let csr = |status: serde_json::Value| -> CertificateSigningRequest {
            serde_json::from_value(
                json!({"metadata": {"name": "c1-x"}, "spec": {"request": "", "signerName": SIGNER}, "status": status}),
            )
            .expect("csr")
        };
        let condition = |type_: &str| json!({"conditions": [{"type": type_, "status": "True"}]});
        let csrs = [
            csr(json!({})),
            csr(condition("Approved")),
            csr(json!({"certificate": BASE64.encode("pem"), "conditions": [{"type": "Approved", "status": "True"}]})),
            csr(condition("Denied")),
            csr(condition("Failed")),
        ];
        assert_eq!(waiting(&csrs), 2);
    }

    #[test]
    fn a_renewal_falls_between_75_and_80_percent_of_the_life() {
        let key = rcgen::KeyPair::generate().expect("key");
        let mut params = rcgen::CertificateParams::default();
        let start = time::OffsetDateTime::from_unix_timestamp(1_000_000).expect("time");
        params.not_before = start;
        params.not_after = start + time::Duration::seconds(1000);
        let cert = params.self_signed(&key).expect("cert").pem();
        for _ in 0..20 {
            let at = renew_at(&cert).expect("renewal time").as_second() - 1_000_000;
            assert!((750..=800).contains(&at), "{at}");
        }
    }

    #[test]
    fn the_request_names_the_agent_and_both_groups() {
        let (csr, key) = request("c1", "a1").expect("csr");
        let subject = fleetctl_kube::certs::parse_csr(&csr).expect("parse");
        assert_eq!(subject.common_name, "system:open-cluster-management:c1:a1");
        assert_eq!(subject.organizations, ["system:open-cluster-management:c1", MANAGED_CLUSTERS_GROUP]);
        assert!(key.contains("PRIVATE KEY"));
    }
}
