//! CertificateSigningRequests: the checks of `ValidateCertificateSigningRequestCreate` (a request
//! that is a signed PEM CSR, a signer name, usages, an expiration of at least ten minutes), and the
//! strategy's rule that an update never changes the spec.

use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use serde_json::Value;

use super::super::status::Cause;
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
