//! The CA of the webhook's certificate, written into the `caBundle` of every CRD whose
//! conversion webhook is this hub's Service — as upstream's cluster-manager operator keeps
//! the addon CRDs' bundle. It follows the CRDs (one re-applied by `fleetctl hub install`,
//! or by anyone, gets it back at once) and the certificate (a renewed CA is written to
//! every such CRD).

use std::sync::Arc;

use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use serde_json::json;
use tokio::sync::watch;

use super::certificate::Serving;
use fleetctl_api::names::{HUB_NAMESPACE, WEBHOOK_SERVICE};
use fleetctl_kube::watch::BackedOff;

/// The field manager of the bundle.
const MANAGER: &str = "fleetctl-hub-webhook";

/// Whether `crd` converts through this hub's webhook Service.
fn converts_here(crd: &CustomResourceDefinition) -> bool {
    let service = crd
        .spec
        .conversion
        .as_ref()
        .filter(|c| c.strategy == "Webhook")
        .and_then(|c| c.webhook.as_ref())
        .and_then(|w| w.client_config.as_ref())
        .and_then(|c| c.service.as_ref());
    service.is_some_and(|s| s.namespace == HUB_NAMESPACE && s.name == WEBHOOK_SERVICE)
}

/// Whether `crd`'s bundle is `ca_pem`.
fn has_bundle(crd: &CustomResourceDefinition, ca_pem: &str) -> bool {
    let bundle = crd
        .spec
        .conversion
        .as_ref()
        .and_then(|c| c.webhook.as_ref())
        .and_then(|w| w.client_config.as_ref())
        .and_then(|c| c.ca_bundle.as_ref());
    bundle.is_some_and(|b| b.0 == ca_pem.as_bytes())
}

/// Keeps the bundle of every CRD converted here equal to the current certificate's CA.
pub async fn keep(client: Client, certificate: watch::Receiver<Option<Arc<Serving>>>) {
    let api = Api::<CustomResourceDefinition>::all(client);
    let mut crds = std::pin::pin!(watcher(api.clone(), watcher::Config::default()).backed_off().applied_objects());
    let mut certificate = certificate;
    let mut known: Vec<CustomResourceDefinition> = Vec::new();
    loop {
        tokio::select! {
            event = crds.next() => match event {
                Some(Ok(crd)) if converts_here(&crd) => {
                    known.retain(|k| k.name_any() != crd.name_any());
                    let current = certificate.borrow().clone();
                    write(&api, &crd, current.as_deref()).await;
                    known.push(crd);
                }
                Some(Ok(crd)) => known.retain(|k| k.name_any() != crd.name_any()),
                Some(Err(e)) => tracing::debug!(error = %e, "watching CRDs"),
                None => return,
            },
            changed = certificate.changed() => {
                if changed.is_err() {
                    return;
                }
                let current = certificate.borrow().clone();
                for crd in &known {
                    write(&api, crd, current.as_deref()).await;
                }
            }
        }
    }
}

/// Writes `serving`'s CA into `crd`'s bundle unless it is there.
async fn write(api: &Api<CustomResourceDefinition>, crd: &CustomResourceDefinition, serving: Option<&Serving>) {
    let Some(serving) = serving else { return };
    if has_bundle(crd, &serving.ca_pem) {
        return;
    }
    let name = crd.name_any();
    let patch = json!({"spec": {"conversion": {"webhook": {"clientConfig": {
        "caBundle": k8s_openapi::ByteString(serving.ca_pem.clone().into_bytes()),
    }}}}});
    match api
        .patch(
            &name,
            &PatchParams { field_manager: Some(MANAGER.into()), ..PatchParams::default() },
            &Patch::Merge(&patch),
        )
        .await
    {
        Ok(_) => tracing::info!(crd = %name, "conversion webhook CA bundle written"),
        // The watch brings the CRD again (or its deletion) and the next attempt.
        Err(e) => tracing::warn!(crd = %name, error = %e, "writing the conversion webhook CA bundle"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(conversion: serde_json::Value) -> CustomResourceDefinition {
        serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "managedclusteraddons.addon.open-cluster-management.io"},
            "spec": {"group": "addon.open-cluster-management.io", "scope": "Namespaced",
                     "names": {"kind": "ManagedClusterAddOn", "plural": "managedclusteraddons"},
                     "versions": [], "conversion": conversion},
        }))
        .unwrap()
    }

    #[test]
    fn only_crds_converted_by_this_hubs_webhook_service_get_its_bundle() {
        let service = |ns: &str, name: &str| {
            json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                   "clientConfig": {"service": {"namespace": ns, "name": name, "path": "/convert", "port": 9443}}}})
        };
        assert!(converts_here(&crd(service(HUB_NAMESPACE, WEBHOOK_SERVICE))));
        assert!(!converts_here(&crd(service("open-cluster-management-hub", "cluster-manager-addon-webhook"))));
        assert!(!converts_here(&crd(json!({"strategy": "None"}))));
        let mut bundled = service(HUB_NAMESPACE, WEBHOOK_SERVICE);
        bundled["webhook"]["clientConfig"]["caBundle"] = json!(k8s_openapi::ByteString(b"CA".to_vec()));
        assert!(has_bundle(&crd(bundled.clone()), "CA"));
        assert!(!has_bundle(&crd(bundled), "another CA"));
    }
}
