//! The import controller: for an accepted ManagedCluster, its namespace, bootstrap
//! identity and `<c>-import` secret; once it has joined, the klusterlet works; and the
//! `ManagedClusterImportSucceeded` condition. Deletion hands over to cleanup.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::Api;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use super::bootstrap::{self, Token};
use super::context::{Ctx, HubError, add_finalizers, apply, kube_error, set, update_conditions};
use super::works;
use crate::manifests::import::{self, ImportInputs};
use fleetctl_api::conditions::{
    self as c, FINALIZER_IMPORT_CLEANUP, LABEL_CLUSTER_NAME, LABEL_IMPORT_SECRET, LABEL_MANAGED_CLUSTER,
};
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;
use fleetctl_api::names::BOOTSTRAP_SECRET;
use fleetctl_api::{ManagedCluster, ManifestWork, crds};

/// The Klusterlet CRD as JSON, rendered once: it is the same for every cluster.
fn klusterlet_crd() -> Result<&'static Value, HubError> {
    static CRD: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    if let Some(crd) = CRD.get() {
        return Ok(crd);
    }
    let crd =
        serde_json::to_value(crds::klusterlet()).map_err(|e| HubError::Render(format!("the Klusterlet CRD: {e}")))?;
    Ok(CRD.get_or_init(|| crd))
}

/// The name of a cluster's import secret.
pub fn secret_name(cluster: &str) -> String {
    format!("{cluster}-import")
}

/// The klusterlet version a cluster should run.
pub fn desired_version<'a>(cluster: &'a ManagedCluster, default: &'a str) -> &'a str {
    cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION).map_or(default, String::as_str)
}

/// One pass over one cluster.
pub async fn reconcile(cluster: Arc<ManagedCluster>, ctx: Ctx) -> Result<Action, HubError> {
    if cluster.meta().deletion_timestamp.is_some() {
        return super::cleanup::reconcile(&cluster, &ctx).await;
    }
    if !cluster.spec.hub_accepts_client {
        return Ok(Action::await_change());
    }
    let name = cluster.name_any();
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    add_finalizers(&clusters, &cluster, &[FINALIZER_IMPORT_CLEANUP]).await?;
    ensure_namespace(&ctx, &name).await?;
    bootstrap::ensure(&ctx.client, &name).await?;
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), &name);
    let existing = secrets
        .get_opt(&secret_name(&name))
        .await
        .map_err(kube_error(format!("reading secret {name}/{name}-import")))?;
    let now = jiff::Timestamp::now();
    let token = match existing.as_ref().and_then(recorded_token) {
        Some(token) if !token.needs_refresh(now) => token,
        _ => bootstrap::issue(&ctx.client, &name, ctx.config.token_lifetime).await?,
    };
    let image = ctx.config.image(desired_version(&cluster, &ctx.config.default_version));
    let inputs = ImportInputs {
        cluster: &name,
        hub_url: &ctx.config.hub_url,
        hub_ca_pem: &ctx.config.hub_ca_pem,
        token: &token.token,
        image: &image,
    };
    let import_objects = import::objects(&inputs);
    let crd_objects = vec![klusterlet_crd()?.clone()];
    let owner = cluster
        .controller_owner_ref(&())
        .ok_or_else(|| HubError::Render("an owner reference (the cluster has no uid)".into()))?;
    let secret = import_secret(&name, &token, &crd_objects, &import_objects, owner.clone())?;
    apply(&secrets, &secret).await?;
    if cluster.is_joined() {
        let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &name);
        for work in works::klusterlet_works(&name, crd_objects, import_objects, &owner) {
            apply(&works_api, &work).await?;
        }
    }
    let klusterlet_available = cluster.is_joined() && klusterlet_work_available(&ctx, &name).await?;
    update_conditions(&clusters, &cluster, |conditions| {
        let (status, reason, message) = match (cluster.is_joined(), klusterlet_available) {
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

async fn klusterlet_work_available(ctx: &Ctx, cluster: &str) -> Result<bool, HubError> {
    let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), cluster);
    let work = works_api
        .get_opt(&works::klusterlet_work_name(cluster))
        .await
        .map_err(kube_error(format!("reading the klusterlet work of {cluster}")))?;
    Ok(work.is_some_and(|w| w.is_available()))
}

/// The cluster namespace, with the upstream labels.
pub(super) async fn ensure_namespace(ctx: &Ctx, cluster: &str) -> Result<(), HubError> {
    let namespace: Namespace = serde_json::from_value(json!({
        "metadata": {"name": cluster, "labels": {LABEL_MANAGED_CLUSTER: cluster, LABEL_CLUSTER_NAME: cluster}}
    }))
    .map_err(|e| HubError::Render(format!("namespace {cluster}: {e}")))?;
    apply(&Api::<Namespace>::all(ctx.client.clone()), &namespace).await.map(|_| ())
}

fn rfc3339(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The `<c>-import` secret (`crds.yaml`, `import.yaml`, `creation`, `expiration`).
fn import_secret(
    cluster: &str,
    token: &Token,
    crd_objects: &[Value],
    import_objects: &[Value],
    owner: k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
) -> Result<Secret, HubError> {
    let data = BTreeMap::from([
        ("crds.yaml".to_string(), ByteString(crate::manifests::to_yaml(crd_objects).into_bytes())),
        ("import.yaml".to_string(), ByteString(crate::manifests::to_yaml(import_objects).into_bytes())),
        ("creation".to_string(), ByteString(rfc3339(token.creation).into_bytes())),
        ("expiration".to_string(), ByteString(rfc3339(token.expiration).into_bytes())),
    ]);
    let mut secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": secret_name(cluster), "namespace": cluster, "labels": {LABEL_IMPORT_SECRET: ""}},
        "type": "Opaque",
    }))
    .map_err(|e| HubError::Render(format!("the import secret: {e}")))?;
    secret.metadata.owner_references = Some(vec![owner]);
    secret.data = Some(data);
    Ok(secret)
}

/// The token an import secret carries, with its recorded lifetime.
pub fn recorded_token(secret: &Secret) -> Option<Token> {
    let data = secret.data.as_ref()?;
    let text = |key: &str| data.get(key).and_then(|b| String::from_utf8(b.0.clone()).ok());
    let time = |key: &str| text(key)?.parse::<jiff::Timestamp>().ok();
    let import_yaml = text("import.yaml")?;
    let token = serde_yaml::Deserializer::from_str(&import_yaml)
        .filter_map(|doc| serde::Deserialize::deserialize(doc).ok())
        .find(|doc: &Value| doc["kind"] == "Secret" && doc["metadata"]["name"] == BOOTSTRAP_SECRET)
        .and_then(|doc| BASE64.decode(doc["data"]["kubeconfig"].as_str()?).ok())
        .and_then(|raw| serde_yaml::from_slice::<Value>(&raw).ok())
        .and_then(|config| config["users"][0]["user"]["token"].as_str().map(str::to_string))?;
    Some(Token { token, creation: time("creation")?, expiration: time("expiration")? })
}
