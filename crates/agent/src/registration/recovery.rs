//! The fleet's recovery hub: when the hub has not answered for as long as the agent
//! namespace's [`RECOVERY_HUB_SECRET`] says ([`ANNOTATION_RECOVER_AFTER`]), its kubeconfig
//! becomes the bootstrap kubeconfig — upstream's rule for a bootstrap kubeconfig that names
//! another hub then has the agent bootstrap there, with the identity that hub holds for this
//! cluster. The hub that wrote it (the live one, before it was lost) named the recovery hub;
//! nothing the agent reads from elsewhere can.

use std::time::Duration;

use fleetctl_api::names::{ANNOTATION_RECOVER_AFTER, BOOTSTRAP_SECRET, RECOVERY_HUB_SECRET};
use fleetctl_kube::kube_error;
use fleetctl_kube::kubeconfig::{self, secret_text};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::{Identity, RegistrationError};

/// How long the hub may stay silent when the Secret does not say.
const DEFAULT_AFTER: Duration = Duration::from_secs(600);

/// Makes the recovery hub's kubeconfig the bootstrap kubeconfig if the hub has been silent
/// for `silent` — longer than the recovery Secret allows — and the bootstrap kubeconfig does
/// not name that hub already. Returns whether it did.
pub async fn turn_to_recovery_hub(
    local: &Client,
    identity: &Identity,
    silent: Duration,
) -> Result<bool, RegistrationError> {
    let secrets: Api<Secret> = Api::namespaced(local.clone(), &identity.namespace);
    let read = |name: &'static str| {
        let secrets = secrets.clone();
        async move { secrets.get_opt(name).await.map_err(kube_error(format!("reading secret {name}"))) }
    };
    let Some(recovery) = read(RECOVERY_HUB_SECRET).await? else { return Ok(false) };
    let after = recovery
        .annotations()
        .get(ANNOTATION_RECOVER_AFTER)
        .and_then(|text| fleetctl_kube::duration::parse(text).ok())
        .unwrap_or(DEFAULT_AFTER);
    if silent < after {
        return Ok(false);
    }
    let Some(text) = secret_text(&recovery).remove("kubeconfig") else { return Ok(false) };
    let server =
        |text: &str| kubeconfig::parse(text).ok().and_then(|k| kubeconfig::endpoint(&k).ok()).map(|e| e.server);
    let Some(recovery_server) = server(&text) else {
        tracing::warn!("the recovery hub's kubeconfig does not parse: staying with the silent hub");
        return Ok(false);
    };
    let bootstrap = read(BOOTSTRAP_SECRET).await?;
    let current = bootstrap.as_ref().and_then(|secret| server(secret_text(secret).get("kubeconfig")?));
    if current.as_deref() == Some(recovery_server.as_str()) {
        return Ok(false);
    }
    let patch = json!({"stringData": {"kubeconfig": text}});
    secrets
        .patch(BOOTSTRAP_SECRET, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(kube_error("handing the bootstrap secret the recovery hub"))?;
    tracing::warn!(
        silent = ?silent,
        recovery_hub = %recovery_server,
        cluster = %identity.cluster,
        "the hub has not answered: bootstrapping with the recovery hub"
    );
    Ok(true)
}
