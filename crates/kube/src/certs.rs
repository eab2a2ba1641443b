//! Certificate requests: what a CSR asks for (CN, O, key) — read by the dev cluster's
//! signer, the hub's approver and the registration agent.

/// Why a CSR could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CsrError(String);

/// What a CSR asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsrSubject {
    /// CN.
    pub common_name: String,
    /// Every O, in order.
    pub organizations: Vec<String>,
    /// The SubjectPublicKeyInfo, DER.
    pub public_key_der: Vec<u8>,
}

/// Parses a PEM CSR and checks its self-signature.
pub fn parse_csr(csr_pem: &str) -> Result<CsrSubject, CsrError> {
    let (_, pem) = x509_parser::pem::parse_x509_pem(csr_pem.as_bytes())
        .map_err(|e| CsrError(format!("the request is not a PEM CSR: {e}")))?;
    use x509_parser::prelude::FromDer;
    let (_, csr) = x509_parser::certification_request::X509CertificationRequest::from_der(&pem.contents)
        .map_err(|e| CsrError(format!("the request is not a valid CSR: {e}")))?;
    csr.verify_signature().map_err(|e| CsrError(format!("the CSR signature does not verify: {e}")))?;
    let info = &csr.certification_request_info;
    let (common_name, organizations) = names(&info.subject);
    Ok(CsrSubject { common_name, organizations, public_key_der: info.subject_pki.raw.to_vec() })
}

/// CN and every O of an X.509 name.
pub fn names(name: &x509_parser::x509::X509Name<'_>) -> (String, Vec<String>) {
    let text = |attr: &x509_parser::x509::AttributeTypeAndValue<'_>| attr.as_str().map(str::to_string).ok();
    let common_name = name.iter_common_name().filter_map(text).next().unwrap_or_default();
    let organizations = name.iter_organization().filter_map(text).collect();
    (common_name, organizations)
}

/// When a PEM certificate's validity begins and ends, if it parses.
pub fn validity(cert_pem: &str) -> Option<(jiff::Timestamp, jiff::Timestamp)> {
    let (_, pem) = x509_parser::pem::parse_x509_pem(cert_pem.as_bytes()).ok()?;
    let (_, cert) = x509_parser::parse_x509_certificate(&pem.contents).ok()?;
    let at = |time: x509_parser::time::ASN1Time| jiff::Timestamp::from_second(time.timestamp()).ok();
    Some((at(cert.validity().not_before)?, at(cert.validity().not_after)?))
}

/// A DER certificate as PEM.
pub fn pem_of_der(der: &[u8]) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = body.as_bytes().chunks(64).filter_map(|c| std::str::from_utf8(c).ok()).collect();
    format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n"))
}

/// The certificates of a PEM bundle, DER, each once: what the bundle trusts, in
/// whatever order and spelling.
pub fn bundle_certificates(pem: &str) -> std::collections::BTreeSet<Vec<u8>> {
    x509_parser::pem::Pem::iter_from_buffer(pem.as_bytes())
        .filter_map(Result::ok)
        .filter(|p| p.label == "CERTIFICATE")
        .map(|p| p.contents)
        .collect()
}

/// Whether two PEM bundles trust the same certificates (the same text, or the same
/// certificates in another order).
pub fn same_bundle(a: &str, b: &str) -> bool {
    if a.trim() == b.trim() {
        return true;
    }
    let certificates = bundle_certificates(a);
    !certificates.is_empty() && certificates == bundle_certificates(b)
}
