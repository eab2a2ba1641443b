//! The controller: ManifestWorks of the cluster's namespace on the hub, each reconciled
//! into its resources on the managed cluster and its AppliedManifestWork, and back into
//! its status on the hub — written only when something changed.

use std::collections::HashSet;
use std::future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::{self, ObjectRef};
use kube::runtime::watcher::{self, Event};
use kube::{Client, Resource, ResourceExt};
use serde_json::json;

use super::WorkReconcileError;
use super::apply::{Tracking, apply_manifests};
use super::cleanup::{let_go, listing, plan};
use super::evict::{self, Eviction};
use super::owners::owner_of;
use super::status;
use fleetctl_api::conditions::{
    self, FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP, FINALIZER_MANIFEST_WORK_CLEANUP, new_condition, set_condition,
};
use fleetctl_api::work::{AppliedManifestResourceMeta, DeleteOption};
use fleetctl_api::{AppliedManifestWork, ManifestWork};
use fleetctl_kube::controller;
use fleetctl_kube::errors::chain;
use fleetctl_kube::resolve::Kinds;
use fleetctl_kube::runner::health::Health;
use fleetctl_kube::watch::{AlreadyBackedOff, BackedOff as _};
use fleetctl_kube::{Read, Written, kube_error};

/// How often an unchanged work is applied again, so drift on the managed cluster (an
/// applied object edited or deleted there) is repaired and reported. Costs reads and
/// no-op applies on the managed cluster; the hub sees no write unless the status moved.
const RESYNC: Duration = Duration::from_secs(300);
/// How often a work with feedback or condition rules reads its objects' status again (upstream's
/// `--status-sync-interval` default).
const STATUS_SYNC: Duration = Duration::from_secs(10);
/// How long one reconcile waits on watches for deleted resources to go before it
/// hands the work back to the queue (to wait again).
const DELETE_WAIT: Duration = Duration::from_secs(30);
/// When a work whose resources are still going is looked at again after [`DELETE_WAIT`].
pub(super) const DELETE_AGAIN: Duration = Duration::from_millis(100);

/// What every reconcile shares: both clients and who we are.
pub struct Context {
    /// The hub, as the agent's own identity.
    pub hub: Client,
    /// The managed cluster.
    pub local: Client,
    /// The managed cluster's name: its namespace on the hub.
    pub cluster: String,
    /// The agent id written into AppliedManifestWorks.
    pub agent_id: String,
    /// The hub hash that prefixes AppliedManifestWork names.
    pub hub_hash: String,
    /// The longest JSON text a feedback value of a list or an object holds; `None` refuses
    /// them (upstream's `RawFeedbackJsonString` gate off).
    pub raw_json: Option<usize>,
    /// The managed cluster's kinds, learned through discovery.
    pub kinds: Kinds,
    /// What the passes applied: a resync applies only what changed since.
    pub applied: Written<Read>,
    /// Readiness (the agent is ready while its watches reach the hub), and the
    /// controller's metrics.
    pub health: Health,
}

impl Context {
    fn works(&self) -> Api<ManifestWork> {
        Api::namespaced(self.hub.clone(), &self.cluster)
    }

    pub(super) fn records(&self) -> Api<AppliedManifestWork> {
        Api::all(self.local.clone())
    }

    fn record_name(&self, work: &str) -> String {
        format!("{}-{work}", self.hub_hash)
    }
}

/// How many record events the eviction controller may lag behind the work controller.
const RECORD_EVENTS_BUFFER: usize = 256;

/// Runs the work controller, and beside it the eviction of records whose work is gone
/// ([`evict`]), until the returned future is dropped. The two share one watch of the records
/// and one of the works.
pub async fn run(ctx: Arc<Context>, grace: Duration) {
    let (hash, cluster) = (ctx.hub_hash.clone(), ctx.cluster.clone());
    // A work event (or a relisting of the works) has the eviction controller look at the
    // work's record: a work deleted past its finalizer, or back on the hub, changes its fate.
    let (seen, work_seen) = futures::channel::mpsc::unbounded::<ObjectRef<AppliedManifestWork>>();
    let (relisted, works_relisted) = futures::channel::mpsc::unbounded::<()>();
    let works_listed = Arc::new(AtomicBool::new(false));
    let first_listing = works_listed.clone();
    let health = ctx.health.clone();
    let record_of = {
        let hash = hash.clone();
        move |work: &ManifestWork| ObjectRef::new(&format!("{hash}-{}", work.name_any()))
    };
    // Each watch backs off on its own, relisting at once when the hub answers 410 (as it does
    // to the first watch after it restarts): a work created as the hub comes back is seen in
    // seconds, not after a second ceiling of the back-off.
    let (store, writer) = reflector::store();
    let works = watcher::watcher(ctx.works(), watcher::Config::default())
        .backed_off()
        .reflect(writer)
        .inspect(move |event| {
            // Sends fail only once the eviction controller is gone, with the agent.
            match event {
                Ok(Event::Apply(work) | Event::Delete(work)) => drop(seen.unbounded_send(record_of(work))),
                Ok(Event::InitDone) => {
                    // Listed: the hub's works are reachable, which a cluster without works
                    // would otherwise never show by a reconcile.
                    if !health.is_ready() {
                        tracing::info!("the hub's ManifestWorks are listed: ready");
                        health.set_ready(true);
                    }
                    first_listing.store(true, Ordering::Release);
                    drop(relisted.unbounded_send(()));
                }
                _ => {}
            }
        })
        .applied_objects();
    let (records_store, records_writer) = reflector::store_shared(RECORD_EVENTS_BUFFER);
    let Some(record_events) = records_writer.subscribe() else {
        tracing::error!("the records' shared store takes no subscriber: the work controller does not start");
        return;
    };
    let records = watcher::watcher(ctx.records(), watcher::Config::default())
        .backed_off()
        .reflect_shared(records_writer)
        .touched_objects();
    let eviction = Arc::new(Eviction { ctx: ctx.clone(), works: store.clone(), works_listed, grace });
    let evictions = Controller::for_shared_stream(record_events, records_store)
        .reconcile_on(work_seen)
        .reconcile_all_on(works_relisted);
    let evictions =
        controller::run(evictions, super::EVICTION_CONTROLLER, &ctx.health.metrics, evict::reconcile, eviction);
    let works = Controller::for_stream(works, store)
        .trigger_backoff(AlreadyBackedOff)
        // A record changed or deleted on the managed cluster is put right by its work.
        .watches_stream(records, move |record: AppliedManifestWork| {
            (record.spec.hub_hash == hash).then(|| ObjectRef::new(&record.spec.manifest_work_name).within(&cluster))
        })
        // A new kind on the managed cluster may be what a failed manifest was waiting for.
        .reconcile_all_on(established_crds_changed(ctx.local.clone()));
    let works =
        controller::results(works, super::CONTROLLER, &ctx.health.metrics, reconcile, ctx.clone()).for_each(|result| {
            reachable(&ctx.health, &result);
            future::ready(())
        });
    tokio::join!(works, evictions);
}

/// Readiness from the controller's output: a failed watch (the hub's ManifestWorks, or the
/// records here) makes the agent not ready — and says so once — until a reconcile
/// completes again (the watch's relist after it recovers reconciles every work).
fn reachable<T, E: std::error::Error>(
    health: &Health,
    result: &Result<T, kube::runtime::controller::Error<E, watcher::Error>>,
) {
    match result {
        Ok(_) => {
            if !health.is_ready() {
                tracing::info!("the hub's ManifestWorks are reachable: ready");
                health.set_ready(true);
            }
        }
        Err(kube::runtime::controller::Error::QueueError(error)) => {
            if health.is_ready() {
                tracing::warn!(error = %chain(error), "cannot watch the ManifestWorks on the hub: not ready");
                health.set_ready(false);
            }
        }
        Err(_) => {}
    }
}

/// One pass over a work behind the hub finalizer
/// `cluster.open-cluster-management.io/manifest-work-cleanup`: nothing is applied before
/// the hub work holds it, so a work deleted while it is applied cannot leave resources
/// nobody removes.
async fn reconcile(work: Arc<ManifestWork>, ctx: Arc<Context>) -> Result<Action, finalizer::Error<WorkReconcileError>> {
    let works = ctx.works();
    finalizer(&works, FINALIZER_MANIFEST_WORK_CLEANUP, work, |event| async {
        match event {
            finalizer::Event::Apply(work) => apply_work(&work, &ctx).await,
            finalizer::Event::Cleanup(work) => remove_work(&work, &ctx).await,
        }
    })
    .await
}

/// A deleted work: its resources go as its deleteOption says, then its record; then
/// (once this returns `Ok`) the finalizer that held the work on the hub.
async fn remove_work(work: &ManifestWork, ctx: &Context) -> Result<Action, WorkReconcileError> {
    let name = work.name_any();
    // The hub learns the work is being taken apart (upstream's Deleting condition).
    if !conditions::is_true(work.conditions(), conditions::WORK_DELETING) {
        let mut marked = work.conditions().to_vec();
        let deleting = new_condition(
            conditions::WORK_DELETING,
            conditions::TRUE,
            conditions::REASON_WORK_DELETING,
            "ManifestWork is being deleted",
        );
        set_condition(&mut marked, Condition { observed_generation: work.metadata.generation, ..deleting });
        ctx.works()
            .patch_status(&name, &PatchParams::default(), &Patch::Merge(json!({"status": {"conditions": marked}})))
            .await
            .map_err(kube_error(format!("marking manifestwork {name} as deleting")))?;
    }
    let record_name = ctx.record_name(&name);
    let record = ctx
        .records()
        .get_opt(&record_name)
        .await
        .map_err(kube_error(format!("reading appliedmanifestwork {record_name}")))?;
    if let Some(record) = record
        && !finish_record(ctx, &record, work.spec.delete_option.as_ref()).await?
    {
        return Err(WorkReconcileError::Waiting(format!("the resources of work {name} are still going")));
    }
    tracing::info!(work = %name, "work removed from the managed cluster");
    Ok(Action::await_change())
}

/// Lets go of what a record lists (as `option` says, Foreground without one), then
/// removes the record itself. Returns false while deleted resources are still there.
pub(super) async fn finish_record(
    ctx: &Context,
    record: &AppliedManifestWork,
    option: Option<&DeleteOption>,
) -> Result<bool, WorkReconcileError> {
    let record_name = record.name_any();
    let recorded = record.status.as_ref().map(|s| s.applied_resources.as_slice()).unwrap_or_default();
    let left = let_go(&ctx.local, &ctx.records(), &owner_of(record), recorded, option, DELETE_WAIT).await?;
    if !left.is_empty() {
        tracing::debug!(record = %record_name, left = left.len(), "waiting for applied resources to go");
        return Ok(false);
    }
    let records = ctx.records();
    let finalizers: Vec<String> =
        record.finalizers().iter().filter(|f| *f != FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP).cloned().collect();
    if finalizers.len() != record.finalizers().len() {
        set_finalizers(&records, record, &finalizers, "appliedmanifestwork").await?;
    }
    match records.delete(&record_name, &DeleteParams::background()).await {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(status)) if status.is_not_found() => Ok(true),
        Err(source) => Err(kube_error(format!("deleting appliedmanifestwork {record_name}"))(source).into()),
    }
}

/// A live work (holding the hub finalizer): its record, then every manifest, then the
/// record and the status, and last the resources it no longer lists.
async fn apply_work(work: &ManifestWork, ctx: &Context) -> Result<Action, WorkReconcileError> {
    let name = work.name_any();
    let works = ctx.works();
    let Some(record) = ensure_record(work, ctx).await? else {
        return Ok(Action::requeue(DELETE_AGAIN));
    };

    let owner = owner_of(&record);
    let outcomes = apply_manifests(&ctx.local, &ctx.kinds, &ctx.applied, work, &owner, ctx.raw_json).await;
    let recorded = record.status.as_ref().map(|s| s.applied_resources.clone()).unwrap_or_default();
    let tracking: Vec<Tracking> = outcomes.iter().map(|o| o.tracking.clone()).collect();
    let plan = plan(&recorded, &tracking);
    // What this pass applied is recorded before anything else happens, with the stale
    // resources still listed until they are gone: a crash at any point leaves every
    // resource of ours on the record.
    let listed = listing(plan.applied.iter().chain(&plan.stale));
    if listed != recorded {
        write_record(ctx, &record.name_any(), &listed).await?;
    }

    let status = status::build(work, &outcomes);
    if work.status.as_ref() != Some(&status) {
        let patch = json!({"status": {
            "conditions": status.conditions,
            "resourceStatus": {"manifests": status.resource_status.manifests},
        }});
        works
            .patch_status(&name, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .map_err(kube_error(format!("writing the status of manifestwork {name}")))?;
    }

    if !plan.stale.is_empty() {
        let option = work.spec.delete_option.as_ref();
        let left = let_go(&ctx.local, &ctx.records(), &owner, &plan.stale, option, DELETE_WAIT).await?;
        let now = listing(plan.applied.iter().chain(&left));
        if now != listed {
            write_record(ctx, &record.name_any(), &now).await?;
        }
        if !left.is_empty() {
            return Ok(Action::requeue(DELETE_AGAIN));
        }
    }
    // A work with a failed manifest is tried again after the work's back-off (a CRD becoming
    // Established retries it at once; the back-off covers everything else, such as a
    // rejected object), as upstream's work agent requeues it rate-limited.
    let failed = outcomes.iter().filter(|o| o.applied.is_err()).count();
    if failed > 0 {
        return Err(WorkReconcileError::ManifestsFailed { work: name, failed });
    }
    // Feedback and rule conditions follow their objects' status: read again at upstream's
    // status sync interval.
    let feeds_back =
        work.spec.manifest_configs.iter().any(|c| !c.feedback_rules.is_empty() || !c.condition_rules.is_empty());
    Ok(Action::requeue(if feeds_back { STATUS_SYNC } else { RESYNC }))
}

/// The work's record `<hub hash>-<work>`, made if missing, and made this agent's with the
/// work's labels if it is not (as upstream, a record left by another agent of the cluster,
/// or before the agent's id changed, is taken over). `None` while a record that someone
/// deleted on the managed cluster is being finished: as upstream, its resources go (as the
/// work's deleteOption says) and a later pass makes a new record and applies the work again.
async fn ensure_record(work: &ManifestWork, ctx: &Context) -> Result<Option<AppliedManifestWork>, WorkReconcileError> {
    let records = ctx.records();
    let record_name = ctx.record_name(&work.name_any());
    let read_error = || kube_error(format!("reading appliedmanifestwork {record_name}"));
    let mut wanted = AppliedManifestWork::for_work(&ctx.hub_hash, &ctx.agent_id, &work.name_any());
    wanted.metadata.labels = Some(work.labels().clone());
    match records.get_opt(&record_name).await.map_err(read_error())? {
        Some(record) if record.meta().deletion_timestamp.is_some() => {
            finish_record(ctx, &record, work.spec.delete_option.as_ref()).await?;
            Ok(None)
        }
        Some(record) => {
            let finalized = record.finalizers().iter().any(|f| f == FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP);
            let labelled = work.labels().iter().all(|(key, value)| record.labels().get(key) == Some(value));
            if finalized && labelled && record.spec == wanted.spec {
                return Ok(Some(record));
            }
            let mut finalizers = record.finalizers().to_vec();
            if !finalized {
                finalizers.push(FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP.to_owned());
            }
            let patch = json!({
                "metadata": {"finalizers": finalizers, "labels": work.labels(), "resourceVersion": record.resource_version()},
                "spec": wanted.spec,
            });
            let patched = records
                .patch(&record_name, &PatchParams::default(), &Patch::Merge(patch))
                .await
                .map_err(kube_error(format!("taking over appliedmanifestwork {record_name}")))?;
            Ok(Some(patched))
        }
        None => {
            wanted.metadata.finalizers = Some(vec![FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP.to_owned()]);
            match records.create(&PostParams::default(), &wanted).await {
                Ok(created) => Ok(Some(created)),
                // Made by a pass that raced us: use it.
                Err(kube::Error::Api(status)) if status.code == 409 => {
                    Ok(records.get_opt(&record_name).await.map_err(read_error())?)
                }
                Err(source) => Err(kube_error(format!("creating appliedmanifestwork {record_name}"))(source).into()),
            }
        }
    }
}

async fn write_record(
    ctx: &Context,
    record_name: &str,
    applied: &[AppliedManifestResourceMeta],
) -> Result<(), WorkReconcileError> {
    let patch = Patch::Merge(json!({"status": {"appliedResources": applied}}));
    ctx.records()
        .patch_status(record_name, &PatchParams::default(), &patch)
        .await
        .map_err(kube_error(format!("recording the resources of appliedmanifestwork {record_name}")))?;
    Ok(())
}

/// Sets an object's finalizers, guarded by the resourceVersion it was read at so a
/// finalizer someone else added meanwhile is never dropped (the write then conflicts
/// and the next pass starts over).
async fn set_finalizers<K>(api: &Api<K>, object: &K, finalizers: &[String], kind: &str) -> Result<K, WorkReconcileError>
where
    K: Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let name = object.name_any();
    let patch = json!({"metadata": {"finalizers": finalizers, "resourceVersion": object.resource_version()}});
    Ok(api
        .patch(&name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .map_err(kube_error(format!("setting the finalizers of {kind} {name}")))?)
}

/// Fires when the set of Established CRDs on the managed cluster changes (not on their
/// other updates, and not for the first listing).
fn established_crds_changed(client: Client) -> impl Stream<Item = ()> + Send + 'static {
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let established = |crd: &CustomResourceDefinition| {
        crd.status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| c.iter().any(|c| c.type_ == "Established" && c.status == "True"))
    };
    let mut known: Option<HashSet<String>> = None;
    let mut listing: HashSet<String> = HashSet::new();
    watcher::watcher(crds, watcher::Config::default()).backed_off().filter_map(move |event| {
        let changed = match event {
            Ok(Event::Init) => {
                listing.clear();
                false
            }
            Ok(Event::InitApply(crd)) => {
                if established(&crd) {
                    listing.insert(crd.name_any());
                }
                false
            }
            Ok(Event::InitDone) => {
                let fresh = std::mem::take(&mut listing);
                let changed = known.as_ref().is_some_and(|k| *k != fresh);
                known = Some(fresh);
                changed
            }
            Ok(Event::Apply(crd)) => {
                let set = known.get_or_insert_with(HashSet::new);
                if established(&crd) { set.insert(crd.name_any()) } else { set.remove(&crd.name_any()) }
            }
            Ok(Event::Delete(crd)) => known.get_or_insert_with(HashSet::new).remove(&crd.name_any()),
            Err(error) => {
                tracing::debug!(%error, "watching CRDs failed; the watch restarts");
                false
            }
        };
        future::ready(changed.then_some(()))
    })
}
