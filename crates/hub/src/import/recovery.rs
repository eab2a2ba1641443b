//! The fleet's recovery hub (`fleetctl hub backup --recovery-hub-context`): the Secret
//! [`recovery_secret`] in a cluster's namespace holds that hub's bootstrap kubeconfig for the
//! cluster, which the klusterlet works carry to the agent namespace. Its registration agent
//! bootstraps with it once this hub has not answered for the Secret's
//! [`ANNOTATION_RECOVER_AFTER`].

use fleetctl_api::ManagedCluster;
use fleetctl_api::names::{ANNOTATION_RECOVER_AFTER, ANNOTATION_RECOVERY_HUB, recovery_secret};
use fleetctl_kube::kube_error;
use fleetctl_kube::kubeconfig::secret_text;
use k8s_openapi::api::core::v1::Secret;
use kube::ResourceExt;
use kube::api::Api;

use crate::context::{Ctx, HubError};
use crate::manifests::import::Recovery;

/// How long a hub may stay silent before its klusterlets turn to the recovery hub, unless
/// the recovery Secret says otherwise.
pub const DEFAULT_RECOVER_AFTER: &str = "10m";

/// The recovery hub of `cluster`, if it names one ([`ANNOTATION_RECOVERY_HUB`]) and its Secret
/// holds a kubeconfig; the Secret is read only for a cluster that names one.
pub(super) async fn of(ctx: &Ctx, managed: &ManagedCluster) -> Result<Option<Recovery>, HubError> {
    if !managed.annotations().contains_key(ANNOTATION_RECOVERY_HUB) {
        return Ok(None);
    }
    let cluster = managed.name_any();
    let cluster = cluster.as_str();
    let name = recovery_secret(cluster);
    let secret = Api::<Secret>::namespaced(ctx.client.clone(), cluster)
        .get_opt(&name)
        .await
        .map_err(kube_error(format!("reading secret {cluster}/{name}")))?;
    Ok(secret.and_then(|secret| {
        let kubeconfig = secret_text(&secret).remove("kubeconfig").filter(|k| !k.trim().is_empty())?;
        let recover_after =
            secret.annotations().get(ANNOTATION_RECOVER_AFTER).cloned().unwrap_or_else(|| DEFAULT_RECOVER_AFTER.into());
        Some(Recovery { kubeconfig, recover_after })
    }))
}
