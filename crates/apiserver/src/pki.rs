//! The cluster's certificate authority: the serving certificate, client certificates
//! for kubeconfigs, and signing of approved CertificateSigningRequests.
//!
//! While the CA rotates (see [`super::security::CaRotation`]) three roles come apart, as
//! on a kube-apiserver whose CA is rotated by hand: the CA that signs (the new one, from
//! the first step on), the CA the serving certificate chains to (the old one until the
//! switch), and the trust bundle — every CA clients should trust and the server accepts
//! client certificates from (old and new until the old one is retired).

use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType, SubjectPublicKeyInfo,
};
use time::OffsetDateTime;

use fleetctl_kube::certs::parse_csr;

/// The API server's address for its Pods (see `apiserver::SERVICE_HOST`).
pub const SERVICE_HOST: std::net::Ipv4Addr = std::net::Ipv4Addr::new(127, 0, 0, 2);

/// Lifetime of the CA and the serving certificate.
const CA_LIFETIME: Duration = Duration::from_secs(10 * 365 * 24 * 3600);
/// Lifetime of kubeconfig client certificates.
const CLIENT_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// Certificates are valid from a little before now, for clocks that disagree.
const BACKDATE: Duration = Duration::from_secs(5 * 60);

/// Why a certificate could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PkiError {
    /// Key or certificate generation failed.
    #[error("generating a certificate")]
    Generate(#[from] rcgen::Error),
    /// A CSR or certificate could not be parsed.
    #[error("{0}")]
    Parse(String),
}

/// A PEM certificate and its PEM private key.
#[derive(Debug, Clone)]
pub struct CertKey {
    /// The certificate, PEM.
    pub cert_pem: String,
    /// The private key, PEM (PKCS#8).
    pub key_pem: String,
}

/// The cluster CA.
pub struct Pki {
    /// The CA that signs client certificates and CSRs.
    ca: CertKey,
    issuer: Issuer<'static, KeyPair>,
    /// The CA the serving certificate chains to, while a rotation has not switched it
    /// to the signing one yet.
    serving_issuer: Option<Issuer<'static, KeyPair>>,
    /// Every trusted CA certificate, PEM, oldest first (the signing CA last).
    trust: String,
}

impl std::fmt::Debug for Pki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pki").finish_non_exhaustive()
    }
}

fn validity(params: &mut CertificateParams, lifetime: Duration) {
    let now = OffsetDateTime::now_utc();
    params.not_before = now - BACKDATE;
    params.not_after = now + lifetime;
}

impl Pki {
    /// A new CA named after the cluster.
    pub fn generate(cluster: &str) -> Result<Self, PkiError> {
        Self::load(new_ca(&format!("fleetctl-dev-ca-{cluster}"))?)
    }

    /// A CA from its stored PEM certificate and key.
    pub fn load(ca: CertKey) -> Result<Self, PkiError> {
        Self::rotating(ca, None, "")
    }

    /// A CA in the middle of a rotation: `ca` signs, the serving certificate chains to
    /// `serving_ca` (the signing CA when `None`), and clients trust `also_trusted` (PEM
    /// certificates, oldest first) besides the signing CA.
    pub fn rotating(ca: CertKey, serving_ca: Option<&CertKey>, also_trusted: &str) -> Result<Self, PkiError> {
        let serving_issuer = serving_ca.map(issuer_of).transpose()?;
        let trust = format!("{}{}", also_trusted, ca.cert_pem);
        Ok(Self { issuer: issuer_of(&ca)?, ca, serving_issuer, trust })
    }

    /// The signing CA's certificate and key.
    pub fn ca(&self) -> &CertKey {
        &self.ca
    }

    /// The PEM bundle clients trust the server by and client certificates are checked
    /// against: what kubeconfigs and `kube-root-ca.crt` carry.
    pub fn trust_bundle(&self) -> &str {
        &self.trust
    }

    /// A serving certificate for 127.0.0.1, ::1, localhost and [`SERVICE_HOST`].
    pub fn serving(&self) -> Result<CertKey, PkiError> {
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()])?;
        params.subject_alt_names.push(SanType::IpAddress(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)));
        params.subject_alt_names.push(SanType::IpAddress(std::net::IpAddr::V4(SERVICE_HOST)));
        params.subject_alt_names.push(SanType::IpAddress(std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)));
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, "kube-apiserver");
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        validity(&mut params, CA_LIFETIME);
        let cert = params.signed_by(&key, self.serving_issuer.as_ref().unwrap_or(&self.issuer))?;
        Ok(CertKey { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
    }

    /// A client certificate for `user` in `groups`.
    pub fn client(&self, user: &str, groups: &[&str]) -> Result<CertKey, PkiError> {
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::default();
        params.distinguished_name = subject(user, groups)?;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        params.use_authority_key_identifier_extension = true;
        validity(&mut params, CLIENT_LIFETIME);
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok(CertKey { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
    }

    /// Signs a PEM CSR as a client certificate valid for `lifetime`, keeping the
    /// CSR's subject (CN and O) exactly.
    pub fn sign_client_csr(&self, csr_pem: &str, lifetime: Duration) -> Result<String, PkiError> {
        let request = parse_csr(csr_pem).map_err(|e| PkiError::Parse(e.to_string()))?;
        let groups: Vec<&str> = request.organizations.iter().map(String::as_str).collect();
        let mut params = CertificateParams::default();
        params.distinguished_name = subject(&request.common_name, &groups)?;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        params.use_authority_key_identifier_extension = true;
        validity(&mut params, lifetime);
        let public_key = SubjectPublicKeyInfo::from_der(&request.public_key_der)?;
        Ok(params.signed_by(&public_key, &self.issuer)?.pem())
    }
}

/// A new self-signed CA named `common_name`.
pub fn new_ca(common_name: &str) -> Result<CertKey, PkiError> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::default();
    params.distinguished_name = DistinguishedName::new();
    params.distinguished_name.push(DnType::CommonName, common_name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    validity(&mut params, CA_LIFETIME);
    let cert = params.self_signed(&key)?;
    Ok(CertKey { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
}

fn issuer_of(ca: &CertKey) -> Result<Issuer<'static, KeyPair>, PkiError> {
    Ok(Issuer::from_ca_cert_pem(&ca.cert_pem, KeyPair::from_pem(&ca.key_pem)?)?)
}

/// A subject with CN `user` and one O per group.
///
/// rcgen keys names by attribute type, so a second O goes in as the same OID spelled
/// as a custom attribute; more than two groups cannot be expressed.
fn subject(user: &str, groups: &[&str]) -> Result<DistinguishedName, PkiError> {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, user);
    match groups {
        [] => {}
        [one] => name.push(DnType::OrganizationName, *one),
        [first, second] => {
            name.push(DnType::OrganizationName, *first);
            name.push(DnType::CustomDnType(vec![2, 5, 4, 10]), *second);
        }
        _ => {
            return Err(PkiError::Parse(format!(
                "at most two organizations (groups) are supported, got {}",
                groups.len()
            )));
        }
    }
    Ok(name)
}

/// The PEM certificates of a bundle as DER, for rustls.
pub fn pem_certs(pem: &str) -> Vec<rustls::pki_types::CertificateDer<'static>> {
    x509_parser::pem::Pem::iter_from_buffer(pem.as_bytes())
        .filter_map(Result::ok)
        .filter(|p| p.label == "CERTIFICATE")
        .map(|p| rustls::pki_types::CertificateDer::from(p.contents))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_csr_keeps_its_common_name_and_both_organizations() {
        let pki = Pki::generate("t").expect("ca");
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::default();
        params.distinguished_name = subject("system:open-cluster-management:c1:a", &["g1", "g2"]).expect("subject");
        let csr = params.serialize_request(&key).expect("csr").pem().expect("pem");
        let parsed = parse_csr(&csr).expect("parse");
        assert_eq!(parsed.common_name, "system:open-cluster-management:c1:a");
        assert_eq!(parsed.organizations, ["g1", "g2"]);
        let cert = pki.sign_client_csr(&csr, Duration::from_secs(600)).expect("sign");
        let der = &pem_certs(&cert)[0];
        let (_, parsed) = x509_parser::parse_x509_certificate(der).expect("x509");
        assert_eq!(
            fleetctl_kube::certs::names(parsed.subject()),
            ("system:open-cluster-management:c1:a".to_string(), vec!["g1".into(), "g2".into()])
        );
        let lifetime = parsed.validity().not_after.timestamp() - parsed.validity().not_before.timestamp();
        assert_eq!(lifetime, 600 + BACKDATE.as_secs() as i64);
    }

    #[test]
    fn a_stored_ca_signs_like_the_original() {
        let pki = Pki::generate("t").expect("ca");
        let again = Pki::load(pki.ca().clone()).expect("load");
        let client = again.client("alice", &["devs"]).expect("client");
        assert!(client.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"));
    }
}
