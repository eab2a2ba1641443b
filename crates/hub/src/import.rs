//! The import controller: for an accepted ManagedCluster, its namespace, bootstrap
//! identity and `<c>-import` secret; once it has joined, the klusterlet works; and the
//! `ManagedClusterImportSucceeded` condition. Deletion hands over to cleanup.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use fleetctl_api::conditions::{
    self as c, FINALIZER_IMPORT_CLEANUP, LABEL_CLUSTER_NAME, LABEL_IMPORT_SECRET, LABEL_MANAGED_CLUSTER,
};
use fleetctl_api::names::{ANNOTATION_CREATED_FOR_CLUSTER, ANNOTATION_KLUSTERLET_VERSION};
use fleetctl_api::{ManagedCluster, ManifestWork, crds};
use fleetctl_kube::kubeconfig::secret_text;
use fleetctl_kube::objects::{self, MetaExt, document, labels, meta, namespaced_meta};
use fleetctl_kube::{kube_error, update_conditions};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::Api;
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType};
use kube::runtime::finalizer::{self, finalizer};
use kube::{Resource, ResourceExt};
use serde_json::Value;

use super::bootstrap::{self, Token};
use super::context::{Ctx, HUB, HubAddress, HubError, SecretRef, set};
use super::works;
use crate::manifests::import::{self, ImportInputs};

/// The Klusterlet CRD as a manifest, rendered once: it is the same for every cluster.
fn klusterlet_crd() -> &'static Value {
    static CRD: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    CRD.get_or_init(|| document(&crds::klusterlet()))
}

/// The import secret's `crds.yaml` (the Klusterlet CRD), rendered once.
fn crds_yaml() -> &'static str {
    static YAML: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    YAML.get_or_init(|| crate::manifests::to_yaml(std::slice::from_ref(klusterlet_crd())))
}

/// The name of a cluster's import secret.
pub fn secret_name(cluster: &str) -> String {
    format!("{cluster}-import")
}

/// The klusterlet version a cluster should run.
pub fn desired_version<'a>(cluster: &'a ManagedCluster, default: &'a str) -> &'a str {
    cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION).map_or(default, String::as_str)
}

/// One pass over one cluster, behind the finalizer
/// `managedcluster-import-controller.open-cluster-management.io/cleanup`: an accepted
/// cluster is imported; a deleted one is detached ([`super::cleanup`]).
pub async fn reconcile(cluster: Arc<ManagedCluster>, ctx: Ctx) -> Result<Action, finalizer::Error<HubError>> {
    if !cluster.spec.hub_accepts_client && cluster.meta().deletion_timestamp.is_none() {
        return Ok(Action::await_change());
    }
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    finalizer(&clusters, FINALIZER_IMPORT_CLEANUP, cluster, |event| async {
        match event {
            finalizer::Event::Apply(cluster) => import(&clusters, &cluster, &ctx).await,
            finalizer::Event::Cleanup(cluster) => super::cleanup::reconcile(&cluster, &ctx).await,
        }
    })
    .await
}

/// The import of an accepted cluster: its namespace, bootstrap identity, import secret,
/// and once it has joined, its klusterlet works.
async fn import(clusters: &Api<ManagedCluster>, cluster: &ManagedCluster, ctx: &Ctx) -> Result<Action, HubError> {
    let name = cluster.name_any();
    let (hub_url, hub_ca_pem) = match &ctx.config.address {
        HubAddress::External { url, ca_pem } => (url, ca_pem),
        HubAddress::Unknown { in_cluster_url } => {
            refuse_import(clusters, cluster, ctx, "HubAddressUnknown", &HubError::NoHubAddress(in_cluster_url.clone()))
                .await?;
            // Only a restart with the address changes this.
            return Ok(Action::await_change());
        }
    };
    ensure_namespace(ctx, &name).await?;
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), &name);
    let now = jiff::Timestamp::now();
    let ((), current) = futures::try_join!(bootstrap::ensure(ctx, &name), current_token(ctx, &secrets, &name))?;
    let token = match current {
        Some(token) if !token.needs_refresh(now) => token,
        _ => bootstrap::issue(&ctx.client, &name, ctx.config.token_lifetime).await?,
    };
    let image = ctx.config.image(desired_version(cluster, &ctx.config.default_version));
    let pull_secret = match &ctx.config.image_pull_secret {
        Some(secret) => match registry_credentials(ctx, secret).await {
            Ok(credentials) => Some(credentials),
            Err(e) => {
                refuse_import(clusters, cluster, ctx, "ImagePullSecretUnusable", &e).await?;
                return Err(e);
            }
        },
        None => None,
    };
    let hub_ca_pem = ctx.bootstrap_ca(hub_ca_pem);
    let inputs = ImportInputs {
        cluster: &name,
        hub_url,
        hub_ca_pem: &hub_ca_pem,
        token: &token.token,
        image: &image,
        image_pull_secret: pull_secret.as_ref(),
    };
    let import_objects = import::objects(&inputs);
    let owner = cluster.controller_owner_ref(&()).ok_or_else(|| HubError::NoUid(name.clone()))?;
    let secret = import_secret(&name, &token, &import_objects, owner.clone());
    ctx.written.apply(HUB, &secrets, &secret).await?;
    ctx.tokens.lock().insert(name.clone(), token.clone());
    if cluster.is_joined() {
        let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &name);
        for work in works::klusterlet_works(&name, vec![klusterlet_crd().clone()], import_objects, &owner) {
            ctx.written.apply(HUB, &works_api, &work).await?;
        }
    }
    let klusterlet_available = cluster.is_joined() && klusterlet_work_available(ctx, &name).await?;
    update_conditions(clusters, cluster, |conditions| {
        let (status, reason, message) = match (cluster.is_joined(), klusterlet_available) {
            // Until the cluster joins, the auto-import tells how its import goes.
            (false, _) if super::autoimport::reports(conditions) => return false,
            (false, _) => (c::FALSE, c::REASON_WAIT_FOR_IMPORTING, "Wait for importing"),
            (true, false) => {
                (c::FALSE, c::REASON_IMPORTING, "Importing resources are applied, wait for resources be available")
            }
            (true, true) => (c::TRUE, c::REASON_IMPORTED, "Import succeeded"),
        };
        set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, status, reason, message)
    })
    .await?;
    let until_refresh = token.refresh_at().duration_since(now).unsigned_abs();
    Ok(Action::requeue(until_refresh.max(Duration::from_secs(1))))
}

/// The token the cluster's import secret carries: as this controller last wrote it, else
/// read from the secret (after a restart).
async fn current_token(ctx: &Ctx, secrets: &Api<Secret>, cluster: &str) -> Result<Option<Token>, HubError> {
    if ctx.written.holds::<Secret>(Some(cluster), &secret_name(cluster))
        && let Some(token) = ctx.tokens.lock().get(cluster)
    {
        return Ok(Some(token.clone()));
    }
    let existing = secrets
        .get_opt(&secret_name(cluster))
        .await
        .map_err(kube_error(format!("reading secret {cluster}/{cluster}-import")))?;
    Ok(existing.as_ref().and_then(recorded_token))
}

/// The `.dockerconfigjson` of the registry credentials the klusterlets get.
async fn registry_credentials(ctx: &Ctx, secret: &SecretRef) -> Result<ByteString, HubError> {
    let problem =
        |problem| HubError::PullSecret { namespace: secret.namespace.clone(), name: secret.name.clone(), problem };
    let found = Api::<Secret>::namespaced(ctx.client.clone(), &secret.namespace)
        .get_opt(&secret.name)
        .await
        .map_err(kube_error(format!("reading the image pull secret {}/{}", secret.namespace, secret.name)))?
        .ok_or_else(|| problem("does not exist"))?;
    import::docker_config(&found).cloned().map_err(problem)
}

/// Says on the cluster why it is not imported: ImportSucceeded=False/ImportFailed and a
/// warning Event with `reason`.
async fn refuse_import(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    ctx: &Ctx,
    reason: &str,
    why: &HubError,
) -> Result<(), HubError> {
    let message = why.to_string();
    let changed = update_conditions(clusters, cluster, |conditions| {
        set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::FALSE, c::REASON_IMPORT_FAILED, &message)
    })
    .await?;
    if changed {
        let event = Event {
            type_: EventType::Warning,
            reason: reason.into(),
            note: Some(message),
            action: "Import".into(),
            secondary: None,
        };
        let name = cluster.name_any();
        ctx.recorder
            .publish(&event, &cluster.object_ref(&()))
            .await
            .map_err(kube_error(format!("recording an event for cluster {name}")))?;
    }
    Ok(())
}

async fn klusterlet_work_available(ctx: &Ctx, cluster: &str) -> Result<bool, HubError> {
    let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), cluster);
    let work = works_api
        .get_opt(&works::klusterlet_work_name(cluster))
        .await
        .map_err(kube_error(format!("reading the klusterlet work of {cluster}")))?;
    Ok(work.is_some_and(|w| w.is_available()))
}

/// The cluster namespace, with the upstream labels. One the hub (or `fleetctl import`)
/// makes is marked as made for this cluster, so detach may delete it; one that existed
/// before is only labelled.
pub(super) async fn ensure_namespace(ctx: &Ctx, cluster: &str) -> Result<(), HubError> {
    // Whether it was made for the cluster is decided once; what was written stands.
    if ctx.written.holds::<Namespace>(None, cluster) {
        return Ok(());
    }
    let namespaces = Api::<Namespace>::all(ctx.client.clone());
    let labelled = meta(cluster).with_labels(labels([(LABEL_MANAGED_CLUSTER, cluster), (LABEL_CLUSTER_NAME, cluster)]));
    let existing = namespaces.get_opt(cluster).await.map_err(kube_error(format!("reading namespace {cluster}")))?;
    // The mark stays in every apply once made: an apply that left it out would drop it.
    let made_for_it =
        existing.is_none_or(|ns| ns.annotations().get(ANNOTATION_CREATED_FOR_CLUSTER).is_some_and(|c| c == cluster));
    let namespace = if made_for_it {
        objects::namespace(labelled.with_annotations(labels([(ANNOTATION_CREATED_FOR_CLUSTER, cluster)])))
    } else {
        objects::namespace(labelled)
    };
    ctx.written.apply(HUB, &namespaces, &namespace).await?;
    Ok(())
}

fn rfc3339(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The key of the import secret that holds the bootstrap token on its own, so that the
/// hub reuses it without reading it back out of `import.yaml`.
const TOKEN_KEY: &str = "token";

/// The `<c>-import` secret: upstream's `crds.yaml`, `import.yaml`, `creation` and
/// `expiration`, and the token.
fn import_secret(cluster: &str, token: &Token, import_objects: &[Value], owner: OwnerReference) -> Secret {
    let mut meta = namespaced_meta(cluster, &secret_name(cluster)).with_labels(labels([(LABEL_IMPORT_SECRET, "")]));
    meta.owner_references = Some(vec![owner]);
    objects::opaque_secret(
        meta,
        BTreeMap::from([
            ("crds.yaml".to_string(), crds_yaml().to_string()),
            ("import.yaml".to_string(), crate::manifests::to_yaml(import_objects)),
            ("creation".to_string(), rfc3339(token.creation)),
            ("expiration".to_string(), rfc3339(token.expiration)),
            (TOKEN_KEY.to_string(), token.token.clone()),
        ]),
    )
}

/// The token an import secret carries, with its recorded lifetime.
pub fn recorded_token(secret: &Secret) -> Option<Token> {
    let data = secret_text(secret);
    let time = |key: &str| data.get(key)?.parse::<jiff::Timestamp>().ok();
    let token = data.get(TOKEN_KEY).filter(|t| !t.is_empty())?.clone();
    Some(Token { token, creation: time("creation")?, expiration: time("expiration")? })
}
