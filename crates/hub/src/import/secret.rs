//! The `<c>-import` secret: upstream's `crds.yaml`, `import.yaml`, `creation` and
//! `expiration`, and the bootstrap token on its own — and the tokens as last written, so a
//! pass need not read the secret back.

use std::collections::{BTreeMap, HashMap};

use fleetctl_api::conditions::LABEL_IMPORT_SECRET;
use fleetctl_api::crds;
use fleetctl_api::names::import_secret;
use fleetctl_kube::kube_error;
use fleetctl_kube::kubeconfig::secret_text;
use fleetctl_kube::objects::{self, MetaExt, document, labels, namespaced_meta};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::Api;
use parking_lot::Mutex;
use serde_json::Value;

use crate::bootstrap::Token;
use crate::context::{Ctx, HubError};

/// The key of the import secret that holds the bootstrap token on its own, so that the
/// hub reuses it without reading it back out of `import.yaml`.
const TOKEN_KEY: &str = "token";

/// The keys of the import manifests: the Klusterlet CRD, applied first, and the rest.
const CRDS_KEY: &str = "crds.yaml";
const IMPORT_KEY: &str = "import.yaml";

/// An import secret's manifests, `crds.yaml` then `import.yaml`, once both are rendered.
pub fn manifests(secret: &Secret) -> Option<(String, String)> {
    let mut data = secret_text(secret);
    Some((data.remove(CRDS_KEY)?, data.remove(IMPORT_KEY)?))
}

/// The Klusterlet CRD as a manifest, rendered once: it is the same for every cluster.
pub fn klusterlet_crd() -> &'static Value {
    static CRD: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    CRD.get_or_init(|| document(&crds::klusterlet()))
}

/// The import secret's `crds.yaml` (the Klusterlet CRD), rendered once.
pub fn crds_yaml() -> &'static str {
    static YAML: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    YAML.get_or_init(|| crate::manifests::to_yaml(std::slice::from_ref(klusterlet_crd())))
}

fn rfc3339(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The `<c>-import` secret of `cluster`, owned by its ManagedCluster.
pub fn render(cluster: &str, token: &Token, import_objects: &[Value], owner: OwnerReference) -> Secret {
    let mut meta = namespaced_meta(cluster, &import_secret(cluster)).with_labels(labels([(LABEL_IMPORT_SECRET, "")]));
    meta.owner_references = Some(vec![owner]);
    objects::opaque_secret(
        meta,
        BTreeMap::from([
            (CRDS_KEY.to_string(), crds_yaml().to_string()),
            (IMPORT_KEY.to_string(), crate::manifests::to_yaml(import_objects)),
            ("creation".to_string(), rfc3339(token.creation)),
            ("expiration".to_string(), rfc3339(token.expiration)),
            (TOKEN_KEY.to_string(), token.token.clone()),
        ]),
    )
}

/// The token an import secret carries, with its recorded lifetime.
fn recorded_token(secret: &Secret) -> Option<Token> {
    let data = secret_text(secret);
    let time = |key: &str| data.get(key)?.parse::<jiff::Timestamp>().ok();
    let token = data.get(TOKEN_KEY).filter(|t| !t.is_empty())?.clone();
    Some(Token { token, creation: time("creation")?, expiration: time("expiration")? })
}

/// The bootstrap token each cluster's import secret carries, as this controller last
/// wrote it.
#[derive(Debug, Default)]
pub struct Tokens(Mutex<HashMap<String, Token>>);

impl Tokens {
    /// The token the cluster's import secret carries: as last written while the secret is
    /// known to be as written, else read from the secret (after a restart, or once another
    /// hand changed it).
    pub async fn current(&self, ctx: &Ctx, cluster: &str) -> Result<Option<Token>, HubError> {
        let name = import_secret(cluster);
        if ctx.written.holds::<Secret>(Some(cluster), &name)
            && let Some(token) = self.0.lock().get(cluster)
        {
            return Ok(Some(token.clone()));
        }
        let existing = Api::<Secret>::namespaced(ctx.client.clone(), cluster)
            .get_opt(&name)
            .await
            .map_err(kube_error(format!("reading secret {cluster}/{name}")))?;
        Ok(existing.as_ref().and_then(recorded_token))
    }

    /// Notes the token the cluster's import secret was written with.
    pub fn written(&self, cluster: &str, token: Token) {
        self.0.lock().insert(cluster.to_string(), token);
    }

    /// Forgets the token of a detached cluster.
    pub fn forget(&self, cluster: &str) {
        self.0.lock().remove(cluster);
    }
}
