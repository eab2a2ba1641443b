//! The conversion webhook's serving certificate: a CA of its own and a certificate it signs
//! for the webhook Service's DNS names, kept in a `kubernetes.io/tls` Secret of the hub
//! namespace (`tls.crt`, `tls.key`, `ca.crt`) so that every replica and every restart serves
//! the same one, and the CRDs' `caBundle` names that CA. Issued again, CA included, when
//! less than [`RENEW_BEFORE`] of it is left or it does not name the Service.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::ObjectMeta;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use time::OffsetDateTime;
use x509_parser::extensions::GeneralName;

/// The Secret that holds it, in the hub namespace.
pub const SECRET: &str = "fleetctl-hub-webhook-serving-cert";
/// How long a certificate is valid.
const LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long before its end a certificate is issued again.
pub const RENEW_BEFORE: Duration = Duration::from_secs(60 * 24 * 3600);
/// The keys of a `kubernetes.io/tls` Secret, and the CA's.
const CERT_KEY: &str = "tls.crt";
const PRIVATE_KEY: &str = "tls.key";
const CA_KEY: &str = "ca.crt";

/// A serving certificate with its key and the CA that signed it (PEM).
#[derive(Clone, PartialEq, Eq)]
pub struct Serving {
    /// The CA certificate: the CRDs' `caBundle`.
    pub ca_pem: String,
    /// The serving certificate.
    pub cert_pem: String,
    /// Its private key.
    pub key_pem: String,
    /// When it ends.
    not_after: OffsetDateTime,
    /// The DNS names it is valid for.
    names: Vec<String>,
}

impl std::fmt::Debug for Serving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key never reaches a log.
        f.debug_struct("Serving").field("not_after", &self.not_after).field("names", &self.names).finish()
    }
}

/// The DNS names kube-apiserver may check a Service's webhook certificate against.
pub fn service_names(service: &str, namespace: &str) -> Vec<String> {
    vec![
        service.to_string(),
        format!("{service}.{namespace}"),
        format!("{service}.{namespace}.svc"),
        format!("{service}.{namespace}.svc.cluster.local"),
    ]
}

impl Serving {
    /// A new CA and a certificate it signs for `names`, valid from `now` for [`LIFETIME`].
    pub fn issue(names: &[String], now: OffsetDateTime) -> Result<Self, rcgen::Error> {
        let not_after = now + LIFETIME;
        let ca_key = KeyPair::generate()?;
        let mut ca_params = CertificateParams::default();
        ca_params.distinguished_name.push(DnType::CommonName, "fleetctl-hub-webhook-ca");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        (ca_params.not_before, ca_params.not_after) = (now, not_after);
        let ca = CertifiedIssuer::self_signed(ca_params, ca_key)?;
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(names.to_vec())?;
        params.distinguished_name.push(DnType::CommonName, names.first().map_or("webhook", String::as_str));
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        (params.not_before, params.not_after) = (now, not_after);
        let cert = params.signed_by(&key, &ca)?;
        Ok(Self {
            ca_pem: ca.pem(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            not_after: truncated(not_after),
            names: names.to_vec(),
        })
    }

    /// What a Secret holds, if it holds a certificate, its key and a CA.
    pub fn from_secret(secret: &Secret) -> Option<Self> {
        let data = secret.data.as_ref()?;
        let text = |key: &str| data.get(key).and_then(|b| String::from_utf8(b.0.clone()).ok());
        let (cert_pem, key_pem, ca_pem) = (text(CERT_KEY)?, text(PRIVATE_KEY)?, text(CA_KEY)?);
        let (_, pem) = x509_parser::pem::parse_x509_pem(cert_pem.as_bytes()).ok()?;
        let cert = pem.parse_x509().ok()?;
        let not_after = OffsetDateTime::from_unix_timestamp(cert.validity().not_after.timestamp()).ok()?;
        let names = cert
            .subject_alternative_name()
            .ok()
            .flatten()
            .map(|san| {
                san.value
                    .general_names
                    .iter()
                    .filter_map(|n| match n {
                        GeneralName::DNSName(name) => Some((*name).to_string()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self { ca_pem, cert_pem, key_pem, not_after, names })
    }

    /// The Secret that keeps it.
    pub fn to_secret(&self, namespace: &str) -> Secret {
        let data = [(CERT_KEY, &self.cert_pem), (PRIVATE_KEY, &self.key_pem), (CA_KEY, &self.ca_pem)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), ByteString(v.clone().into_bytes())))
            .collect::<BTreeMap<_, _>>();
        Secret {
            metadata: ObjectMeta {
                name: Some(SECRET.into()),
                namespace: Some(namespace.into()),
                ..ObjectMeta::default()
            },
            type_: Some("kubernetes.io/tls".into()),
            data: Some(data),
            ..Secret::default()
        }
    }

    /// Whether it may still serve `names` at `now`: it names each of them and more than
    /// [`RENEW_BEFORE`] of it is left.
    pub fn serves(&self, names: &[String], now: OffsetDateTime) -> bool {
        names.iter().all(|n| self.names.contains(n)) && now + RENEW_BEFORE < self.not_after
    }

    /// When it is to be issued again.
    pub fn renew_at(&self) -> OffsetDateTime {
        self.not_after - RENEW_BEFORE
    }
}

/// A time as a certificate keeps it (whole seconds).
fn truncated(at: OffsetDateTime) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(at.unix_timestamp()).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        service_names("fleetctl-hub-webhook", "open-cluster-management-hub")
    }

    #[test]
    fn an_issued_certificate_survives_its_secret_and_names_the_services_dns_names() {
        let now = OffsetDateTime::now_utc();
        let issued = Serving::issue(&names(), now).unwrap();
        let secret = issued.to_secret("open-cluster-management-hub");
        assert_eq!(secret.type_.as_deref(), Some("kubernetes.io/tls"));
        let read = Serving::from_secret(&secret).expect("read back");
        assert_eq!(read, issued);
        assert!(read.serves(&names(), now));
        assert!(read.names.contains(&"fleetctl-hub-webhook.open-cluster-management-hub.svc".to_string()));
        assert!(!read.serves(&service_names("other", "open-cluster-management-hub"), now), "another Service");
        assert!(!read.serves(&names(), read.renew_at() + Duration::from_secs(1)), "renewed before its end");
        assert!(!format!("{read:?}").contains("PRIVATE"), "the key stays out of Debug");
    }

    #[test]
    fn the_serving_certificate_verifies_against_the_ca_bundle_alone() {
        let issued = Serving::issue(&names(), OffsetDateTime::now_utc()).unwrap();
        let (_, ca) = x509_parser::pem::parse_x509_pem(issued.ca_pem.as_bytes()).unwrap();
        let (_, leaf) = x509_parser::pem::parse_x509_pem(issued.cert_pem.as_bytes()).unwrap();
        let (ca, leaf) = (ca.parse_x509().unwrap(), leaf.parse_x509().unwrap());
        leaf.verify_signature(Some(ca.public_key())).expect("signed by the CA");
        assert!(ca.is_ca() && !leaf.is_ca());
    }

    #[test]
    fn a_secret_without_every_key_holds_no_certificate() {
        let mut secret = Serving::issue(&names(), OffsetDateTime::now_utc()).unwrap().to_secret("ns");
        secret.data.as_mut().unwrap().remove("ca.crt");
        assert!(Serving::from_secret(&secret).is_none());
    }
}
