//! ServiceAccount tokens: JWTs signed with the cluster's ES256 key, carrying issuer,
//! audiences, expiry and the ServiceAccount they stand for, as upstream issues them.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use parking_lot::Mutex;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair, UnparsedPublicKey,
};
use serde::{Deserialize, Serialize};

/// Tokens whose signature [`TokenSigner::verify`] remembers having checked. A hub's
/// controllers and every bootstrapping agent present the same token on each request;
/// checking its ECDSA signature each time was a quarter of a busy dev hub's CPU.
const VERIFIED_TOKENS: usize = 4096;

/// The issuer and the audience the API server accepts, as a default cluster names them.
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// Why a token was not accepted (every variant answers 401).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not three base64url parts of JSON.
    #[error("the token is malformed")]
    Malformed,
    /// The signature does not verify with this cluster's key.
    #[error("the token signature is invalid")]
    Signature,
    /// `exp` has passed (or `nbf` is ahead).
    #[error("the token has expired")]
    Expired,
    /// Another issuer or no accepted audience.
    #[error("the token is not meant for this server")]
    Audience,
    /// Its ServiceAccount, or the Pod it is bound to, is gone (or was replaced).
    #[error("the token has been invalidated")]
    Invalidated,
    /// The signing key could not be made or used.
    #[error("token signing failed")]
    Key,
}

/// The ServiceAccount a token names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceAccountRef {
    /// ServiceAccount name.
    pub name: String,
    /// ServiceAccount uid (a token dies with its ServiceAccount).
    pub uid: String,
}

/// The object a token is bound to (a TokenRequest's `boundObjectRef`): the token is
/// valid only while that object exists under this uid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundRef {
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct KubernetesClaims {
    namespace: String,
    serviceaccount: ServiceAccountRef,
    /// The Pod the token is bound to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pod: Option<BoundRef>,
}

/// The claims of a ServiceAccount token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// Audiences.
    pub aud: Vec<String>,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
    /// Issued at.
    pub iat: i64,
    /// Not before.
    pub nbf: i64,
    /// Issuer.
    pub iss: String,
    /// Token id.
    pub jti: String,
    /// `system:serviceaccount:<ns>:<name>`.
    pub sub: String,
    #[serde(rename = "kubernetes.io")]
    kubernetes: KubernetesClaims,
}

impl Claims {
    /// The ServiceAccount's namespace.
    pub fn namespace(&self) -> &str {
        &self.kubernetes.namespace
    }

    /// The ServiceAccount.
    pub fn service_account(&self) -> &ServiceAccountRef {
        &self.kubernetes.serviceaccount
    }

    /// The Pod the token is bound to.
    pub fn pod(&self) -> Option<&BoundRef> {
        self.kubernetes.pod.as_ref()
    }
}

/// Issues and verifies tokens with one key pair.
pub struct TokenSigner {
    key: EcdsaKeyPair,
    pkcs8: Vec<u8>,
    kid: String,
    /// Tokens with a good signature and their claims (a token's signature under this key
    /// never stops being good; its time window is checked on every use).
    verified: Mutex<std::collections::HashMap<String, Claims>>,
}

impl std::fmt::Debug for TokenSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSigner").field("kid", &self.kid).finish_non_exhaustive()
    }
}

impl TokenSigner {
    /// A signer with a new key.
    pub fn generate() -> Result<Self, TokenError> {
        let rng = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).map_err(|_| TokenError::Key)?;
        Self::from_pkcs8(pkcs8.as_ref())
    }

    /// A signer from a stored PKCS#8 key.
    pub fn from_pkcs8(pkcs8: &[u8]) -> Result<Self, TokenError> {
        let rng = SystemRandom::new();
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &rng).map_err(|_| TokenError::Key)?;
        let digest = ring::digest::digest(&ring::digest::SHA256, key.public_key().as_ref());
        let kid = URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16]);
        Ok(Self { key, pkcs8: pkcs8.to_vec(), kid, verified: Mutex::default() })
    }

    /// The PKCS#8 key, for storing.
    pub fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// Issues a token for ServiceAccount `sa` in `namespace`, bound to `pod` if given.
    pub fn issue(
        &self,
        namespace: &str,
        sa: ServiceAccountRef,
        pod: Option<BoundRef>,
        audiences: Vec<String>,
        now: i64,
        lifetime_seconds: i64,
    ) -> Result<(String, Claims), TokenError> {
        let claims = Claims {
            aud: audiences,
            exp: now + lifetime_seconds,
            iat: now,
            nbf: now,
            iss: ISSUER.to_string(),
            jti: uuid::Uuid::new_v4().to_string(),
            sub: format!("system:serviceaccount:{namespace}:{}", sa.name),
            kubernetes: KubernetesClaims { namespace: namespace.to_string(), serviceaccount: sa, pod },
        };
        let header = serde_json::json!({"alg": "ES256", "kid": self.kid});
        let body = serde_json::to_vec(&claims).map_err(|_| TokenError::Key)?;
        let signing_input = format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(body));
        let signature = self.key.sign(&SystemRandom::new(), signing_input.as_bytes()).map_err(|_| TokenError::Key)?;
        Ok((format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())), claims))
    }

    /// Verifies signature, time window, issuer and audience; returns the claims.
    pub fn verify(&self, token: &str, now: i64) -> Result<Claims, TokenError> {
        let known = self.verified.lock().get(token).cloned();
        let claims = match known {
            Some(claims) => claims,
            None => {
                let claims = self.check_signature(token)?;
                let mut verified = self.verified.lock();
                if verified.len() >= VERIFIED_TOKENS {
                    verified.retain(|_, claims| claims.exp > now);
                    if verified.len() >= VERIFIED_TOKENS {
                        verified.clear();
                    }
                }
                verified.insert(token.to_string(), claims.clone());
                claims
            }
        };
        if now >= claims.exp || now < claims.nbf {
            return Err(TokenError::Expired);
        }
        if claims.iss != ISSUER || !claims.aud.iter().any(|a| a == ISSUER) {
            return Err(TokenError::Audience);
        }
        Ok(claims)
    }

    /// The claims of a token signed with this key.
    fn check_signature(&self, token: &str) -> Result<Claims, TokenError> {
        let mut parts = token.split('.');
        let (Some(header), Some(body), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| TokenError::Malformed)?;
        let signing_input = &token[..header.len() + 1 + body.len()];
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, self.key.public_key().as_ref())
            .verify(signing_input.as_bytes(), &signature)
            .map_err(|_| TokenError::Signature)?;
        URL_SAFE_NO_PAD.decode(body).ok().and_then(|raw| serde_json::from_slice(&raw).ok()).ok_or(TokenError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sa() -> ServiceAccountRef {
        ServiceAccountRef { name: "agent".into(), uid: "u-1".into() }
    }

    #[test]
    fn an_issued_token_verifies_until_it_expires() {
        let signer = TokenSigner::generate().expect("key");
        let (token, _) = signer.issue("ns", sa(), None, vec![ISSUER.into()], 1_000, 600).expect("issue");
        let claims = signer.verify(&token, 1_100).expect("valid");
        assert_eq!(claims.sub, "system:serviceaccount:ns:agent");
        assert_eq!(claims.service_account().uid, "u-1");
        assert_eq!(signer.verify(&token, 1_600), Err(TokenError::Expired));
    }

    #[test]
    fn a_tampered_token_or_another_key_is_refused() {
        let signer = TokenSigner::generate().expect("key");
        let (token, _) = signer.issue("ns", sa(), None, vec![ISSUER.into()], 1_000, 600).expect("issue");
        // The genuine token verified first: what is remembered of it covers no other token.
        assert!(signer.verify(&token, 1_100).is_ok());
        let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
        let mut claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&parts[1]).expect("b64")).expect("json");
        claims["sub"] = serde_json::json!("system:serviceaccount:kube-system:admin");
        parts[1] = URL_SAFE_NO_PAD.encode(claims.to_string());
        assert_eq!(signer.verify(&parts.join("."), 1_100), Err(TokenError::Signature));
        let other = TokenSigner::generate().expect("key");
        assert_eq!(other.verify(&token, 1_100), Err(TokenError::Signature));
        assert_eq!(signer.verify("a.b", 1_100), Err(TokenError::Malformed));
    }

    #[test]
    fn a_token_for_another_audience_is_not_for_the_api() {
        let signer = TokenSigner::generate().expect("key");
        let (token, _) = signer.issue("ns", sa(), None, vec!["vault".into()], 1_000, 600).expect("issue");
        assert_eq!(signer.verify(&token, 1_100), Err(TokenError::Audience));
    }

    #[test]
    fn a_stored_key_verifies_tokens_of_the_original() {
        let signer = TokenSigner::generate().expect("key");
        let (token, _) = signer.issue("ns", sa(), None, vec![ISSUER.into()], 1_000, 600).expect("issue");
        let again = TokenSigner::from_pkcs8(signer.pkcs8()).expect("reload");
        assert!(again.verify(&token, 1_100).is_ok());
    }
}
