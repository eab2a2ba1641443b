//! CertificateSigningRequests: the checks of `ValidateCertificateSigningRequestCreate` (a request
//! that is a signed PEM CSR, a signer name, usages, an expiration of at least ten minutes), and the
//! strategy's rule that an update never changes the spec.

use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use serde_json::{Value, json};

use super::super::auth::User;
use super::super::object;
use super::super::status::{ApiError, Cause};
use super::Strategy;

/// The CertificateSigningRequest strategy.
pub struct CertificateSigningRequests;

/// The shortest lifetime a request may ask for (`spec.expirationSeconds`).
const MIN_EXPIRATION_SECONDS: i32 = 600;

fn validate_request(request: &[u8]) -> Option<Cause> {
    let problem = match std::str::from_utf8(request) {
        Ok(pem) => fleetctl_kube::certs::parse_csr(pem).err()?.to_string(),
        Err(_) => "PEM block type must be CERTIFICATE REQUEST".to_owned(),
    };
    Some(Cause::new("FieldValueInvalid", "spec.request", format!("Invalid value: {problem}")))
}

impl Strategy for CertificateSigningRequests {
    fn check_name(&self, name: &str) -> Option<Cause> {
        object::check_path_segment("metadata.name", name)
    }

    /// The requester is whoever sent the CSR, never what the body claims.
    fn finish_create(&self, object: &mut Value, user: Option<&User>) -> Result<(), ApiError> {
        let (name, uid, groups) = user.map(|u| (u.name.clone(), u.uid.clone(), u.groups.clone())).unwrap_or_default();
        object["spec"]["username"] = json!(name);
        object["spec"]["uid"] = json!(uid);
        object["spec"]["groups"] = json!(groups);
        if let Some(spec) = object["spec"].as_object_mut() {
            spec.remove("extra");
        }
        Ok(())
    }

    fn update_subresource(&self, subresource: &str, old: &Value, new: &Value) -> Option<Result<Value, ApiError>> {
        (subresource == "approval").then(|| approval(old, new))
    }

    /// The spec is fixed at creation: what an update carries there is replaced by the stored one.
    fn prepare_update(&self, old: &Value, new: &mut Value) {
        if let (Some(spec), Some(object)) = (old.get("spec"), new.as_object_mut()) {
            object.insert("spec".to_owned(), spec.clone());
        }
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        let Ok(csr) = serde_json::from_value::<CertificateSigningRequest>(object.clone()) else { return Vec::new() };
        let spec = csr.spec;
        let mut causes = Vec::new();
        if spec.request.0.is_empty() {
            causes.push(Cause::new("FieldValueRequired", "spec.request", "Required value"));
        } else {
            causes.extend(validate_request(&spec.request.0));
        }
        if spec.signer_name.is_empty() {
            causes.push(Cause::new("FieldValueRequired", "spec.signerName", "Required value"));
        }
        if spec.usages.as_ref().is_none_or(Vec::is_empty) {
            causes.push(Cause::new("FieldValueRequired", "spec.usages", "Required value"));
        }
        if let Some(seconds) = spec.expiration_seconds.filter(|s| *s < MIN_EXPIRATION_SECONDS) {
            causes.push(Cause::new(
                "FieldValueInvalid",
                "spec.expirationSeconds",
                format!("Invalid value: {seconds}: may not specify a duration less than 600 seconds (10 minutes)"),
            ));
        }
        causes
    }
}

/// The CSR `/approval` subresource: only Approved and Denied conditions may change.
fn approval(old: &Value, new: &Value) -> Result<Value, ApiError> {
    let name = object::name(old).unwrap_or_default();
    let is_decision = |c: &&Value| matches!(c["type"].as_str(), Some("Approved" | "Denied"));
    let requested: Vec<Value> = new["status"]["conditions"].as_array().cloned().unwrap_or_default();
    if let Some(other) = requested.iter().find(|c| !is_decision(c) && !old_has(old, c)) {
        return Err(ApiError::invalid(
            "CertificateSigningRequest",
            "certificates.k8s.io",
            name,
            vec![Cause::new(
                "FieldValueForbidden",
                "status.conditions",
                format!(
                    "Forbidden: only Approved and Denied conditions may be set through /approval, not {:?}",
                    other["type"]
                ),
            )],
        ));
    }
    let approved = requested.iter().any(|c| c["type"] == "Approved");
    let denied = requested.iter().any(|c| c["type"] == "Denied");
    if approved && denied {
        return Err(ApiError::invalid(
            "CertificateSigningRequest",
            "certificates.k8s.io",
            name,
            vec![Cause::new(
                "FieldValueInvalid",
                "status.conditions",
                "Invalid value: Approved and Denied conditions are mutually exclusive",
            )],
        ));
    }
    let mut conditions: Vec<Value> =
        old["status"]["conditions"].as_array().into_iter().flatten().filter(|c| !is_decision(c)).cloned().collect();
    let now = object::now();
    for mut c in requested.into_iter().filter(|c| is_decision(&c)) {
        if c["status"].is_null() {
            c["status"] = json!("True");
        }
        for stamp in ["lastUpdateTime", "lastTransitionTime"] {
            if c[stamp].is_null() {
                c[stamp] = json!(now);
            }
        }
        conditions.push(c);
    }
    let mut out = old.clone();
    out["status"]["conditions"] = Value::Array(conditions);
    Ok(out)
}

fn old_has(old: &Value, condition: &Value) -> bool {
    old["status"]["conditions"].as_array().is_some_and(|a| a.contains(condition))
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD as BASE64;
    use serde_json::json;

    use super::*;

    /// The request of a CSR object as its JSON form carries it: base64 of the PEM text.
    fn request_field(pem: &str) -> Value {
        Value::String(BASE64.encode(pem))
    }

    fn csr(request: Value) -> Value {
        json!({"metadata": {"name": "c"}, "spec": {
            "request": request, "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"],
        }})
    }

    #[test]
    fn the_request_must_be_a_signed_pem_csr() {
        let key = rcgen::KeyPair::generate().expect("key");
        let pem = rcgen::CertificateParams::new(Vec::<String>::new())
            .expect("params")
            .serialize_request(&key)
            .expect("csr")
            .pem()
            .expect("pem");
        assert!(CertificateSigningRequests.validate_create(&csr(request_field(&pem))).is_empty());
        let causes = CertificateSigningRequests.validate_create(&csr(request_field("not pem")));
        assert_eq!(causes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(), ["spec.request"]);
    }

    #[test]
    fn signer_usages_and_a_long_enough_expiration_are_required() {
        let bare =
            json!({"metadata": {"name": "c"}, "spec": {"request": "", "signerName": "", "expirationSeconds": 60}});
        let causes = CertificateSigningRequests.validate_create(&bare);
        assert_eq!(
            causes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(),
            ["spec.request", "spec.signerName", "spec.usages", "spec.expirationSeconds"]
        );
    }

    #[test]
    fn an_update_keeps_the_stored_spec() {
        let old = csr(request_field("stored"));
        let mut new = csr(request_field("changed"));
        CertificateSigningRequests.prepare_update(&old, &mut new);
        assert_eq!(new["spec"], old["spec"]);
    }
}
