//! The hub controllers (`fleetctld hub`): import, auto-import, registration (accept and
//! CSR approval), lease and cleanup, run under leader election with health and metrics.

pub mod addons;
pub mod autoimport;
pub mod bootstrap;
pub mod cleanup;
pub mod context;
pub mod import;
pub mod lease;
pub mod manifests;
pub mod registration;
pub mod serve;
pub mod works;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::reflector::{self, ObjectRef, reflector};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use manifests::admission::ACCEPT_POLICY;

pub use context::{Context, Ctx, HubAddress, HubConfig, HubError, SecretRef};

use fleetctl_api::conditions::{LABEL_ADDON_NAME, LABEL_CLUSTER_NAME, LABEL_IMPORT_SECRET};
use fleetctl_api::names::{AUTO_IMPORT_SECRET, CLUSTER_LEASE, ROOT_CA_CONFIGMAP};
use fleetctl_api::{KlusterletAddonConfig, ManagedCluster, ManagedClusterAddOn, ManifestWork};
use fleetctl_kube::Written;
use fleetctl_kube::reconcile::{self, ReconcileError};
use fleetctl_kube::runner::metrics::Registry;

/// Reconciles of one controller running at once.
const CONCURRENCY: u16 = 16;

/// How long the registration controller waits to learn whether the admission rule is in
/// place before it judges clusters (and the import controller, the hub's CA bundle).
const GUARD_WAIT: Duration = Duration::from_secs(10);

/// How long what a controller wrote counts as written without being seen again: an
/// object it does not watch is written again at the first pass after this.
const RESYNC: Duration = Duration::from_secs(600);

/// Retry delay after a failed reconcile.
const RETRY: Duration = Duration::from_secs(1);

/// The error policy of every hub controller.
fn retry<K, E: ReconcileError>(controller: &'static str) -> impl Fn(Arc<K>, &E, Ctx) -> Action {
    move |_, error, _| reconcile::retry(controller, error, RETRY)
}

/// The error policy of the controllers that write a cluster's objects: a pass that failed
/// forgets what was written for the cluster, so the next one writes it all again.
fn retry_anew<E: ReconcileError>(controller: &'static str) -> impl Fn(Arc<ManagedCluster>, &E, Ctx) -> Action {
    move |cluster, error, ctx| {
        if error.failure() == reconcile::Failure::Failed {
            ctx.forget_cluster(&cluster.name_any());
        }
        reconcile::retry(controller, error, RETRY)
    }
}

/// A reconcile of `controller`, counted in its metrics.
async fn measured<E: ReconcileError>(
    ctx: &Ctx,
    controller: &str,
    reconcile: impl Future<Output = Result<Action, E>>,
) -> Result<Action, E> {
    reconcile::measured(&ctx.metrics.controller(controller), reconcile).await
}

/// The cluster a namespaced object belongs to (its namespace is the cluster's).
fn cluster_of<K: ResourceExt>(object: K) -> Option<ObjectRef<ManagedCluster>> {
    object.namespace().map(|ns| ObjectRef::new(&ns))
}

/// A mapper for what a controller wrote and watches: the object is noted as seen
/// ([`Written::observe`]) and its cluster reconciled.
fn observed<K>(ctx: &Ctx) -> impl Fn(K) -> Option<ObjectRef<ManagedCluster>> + Send + Sync + 'static
where
    K: kube::Resource<DynamicType = ()> + ResourceExt,
{
    let ctx = ctx.clone();
    move |object| {
        ctx.written.observe(&object);
        cluster_of(object)
    }
}

/// The KlusterletAddonConfig of the cluster a namespaced object belongs to (named after
/// the cluster, in its namespace).
fn addon_config_of<K: ResourceExt>(object: K) -> Option<ObjectRef<KlusterletAddonConfig>> {
    object.namespace().map(|ns| ObjectRef::new(&ns).within(&ns))
}

/// The objects named `name` (in every namespace `api` reaches), watched into a store: the
/// store, and the stream of the objects as they change (to be run, by a controller's
/// `watches_stream` or otherwise), which updates the store before it yields.
fn stored_by_name<K>(
    api: Api<K>,
    name: &str,
) -> (reflector::Store<K>, impl futures::Stream<Item = Result<K, watcher::Error>> + Send + 'static)
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let (store, writer) = reflector::store();
    let changes = reflector(writer, watcher(api, watcher::Config::default().fields(&format!("metadata.name={name}"))))
        .default_backoff()
        .touched_objects();
    (store, changes)
}

/// The channel on which one controller follows a watch that several share.
type Follower<K> = futures::channel::mpsc::UnboundedReceiver<Result<K, watcher::Error>>;

/// One watch of `api` into a store, every object it applies handed on to each follower,
/// in order, through a channel of the follower's own: a follower that lags holds memory,
/// never the watch. (kube-runtime's shared streams hold the watch behind their slowest
/// follower, and a follower of theirs loses its wake-up when an object is deleted before
/// it reads it: in a detach of 1,000 clusters every controller following the clusters
/// stopped for good.) Returns the store and the watch, to be run.
fn fanned_out<K>(
    api: Api<K>,
    followers: Vec<futures::channel::mpsc::UnboundedSender<Result<K, watcher::Error>>>,
) -> (reflector::Store<K>, impl Future<Output = ()> + Send + 'static)
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let (store, writer) = reflector::store();
    let watch = reflector(writer, watcher(api, watcher::Config::default()))
        .default_backoff()
        .applied_objects()
        .for_each(move |object| {
            // The backoff has already waited out an error; the store holds what was seen.
            if let Ok(object) = object {
                for follower in &followers {
                    // A follower that has ended (its controller stopped) needs nothing more.
                    let _ = follower.unbounded_send(Ok(object.clone()));
                }
            }
            async {}
        });
    (store, watch)
}

/// One object, watched into a store: the store, the watch (to be run), and a stream that
/// yields whenever the object changes (coalesced, for `reconcile_all_on`).
fn watch_one<K>(
    api: Api<K>,
    name: &str,
) -> (reflector::Store<K>, impl Future<Output = ()> + Send + 'static, impl futures::Stream<Item = ()> + Send + 'static)
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let (store, objects) = stored_by_name(api, name);
    let (changed, changes) = tokio::sync::watch::channel(());
    let watch = objects.for_each(move |_| {
        changed.send_replace(());
        async {}
    });
    let changes =
        futures::stream::unfold(
            changes,
            |mut changes| async move { changes.changed().await.ok().map(|()| ((), changes)) },
        );
    (store, watch, changes)
}

/// Runs every hub controller until the returned future is dropped.
pub async fn controllers(client: Client, config: HubConfig, metrics: Registry) {
    let reporter = kube::runtime::events::Reporter { controller: "fleetctl-hub".into(), instance: None };
    let recorder = kube::runtime::events::Recorder::new(client.clone(), reporter);
    // The binding of the admission rule that guards acceptance, watched: clusters are
    // accepted only while it is in place (see `registration::admit`).
    let (accept_binding, binding_watch, binding_changes) =
        watch_one(Api::<ValidatingAdmissionPolicyBinding>::all(client.clone()), ACCEPT_POLICY);
    let (accept_policy, policy_watch, policy_changes) =
        watch_one(Api::<ValidatingAdmissionPolicy>::all(client.clone()), ACCEPT_POLICY);
    let guard_watch = futures::future::join(binding_watch, policy_watch);
    let guard_changes = futures::stream::select(binding_changes, policy_changes);
    // The CA bundle the hub publishes, when bootstrap kubeconfigs follow it: a rotated CA
    // re-renders every cluster's import.
    let (root_ca, root_ca_watch, root_ca_changes) = match &config.root_ca_namespace {
        Some(namespace) => {
            let (store, watch, changes) =
                watch_one(Api::<ConfigMap>::namespaced(client.clone(), namespace), ROOT_CA_CONFIGMAP);
            (store, futures::FutureExt::boxed(watch), changes.boxed())
        }
        None => {
            let (store, _) = reflector::store();
            (store, futures::FutureExt::boxed(futures::future::ready(())), futures::stream::pending().boxed())
        }
    };
    let ctx: Ctx = Arc::new(Context {
        client: client.clone(),
        config,
        metrics,
        recorder,
        accept_policy,
        accept_binding,
        root_ca,
        written: Written::new(RESYNC),
        tokens: Default::default(),
        pending_csrs: Default::default(),
    });
    let all = watcher::Config::default;
    // One watch of the ManagedClusters, followed by every controller that follows them.
    let mut followers = Vec::new();
    let mut follow = || -> Follower<ManagedCluster> {
        let (follower, followed) = futures::channel::mpsc::unbounded();
        followers.push(follower);
        followed
    };
    let (import_clusters, auto_import_clusters, accept_clusters, lease_clusters, addon_clusters, csr_clusters) =
        (follow(), follow(), follow(), follow(), follow(), follow());
    let (clusters, cluster_watch) = fanned_out(Api::<ManagedCluster>::all(client.clone()), followers);
    // Bounded parallelism keeps memory flat when a thousand clusters arrive at once.
    let bounded = || controller::Config::default().concurrency(CONCURRENCY);

    let import = Controller::for_stream(import_clusters, clusters.clone())
        .with_config(bounded())
        // The import secrets live in their cluster's namespace (kube-runtime's `owns`
        // would look for the cluster-scoped owner in that namespace). What the import
        // wrote and watches, another hand's change included, is written again.
        .watches(Api::<Secret>::all(client.clone()), all().labels(LABEL_IMPORT_SECRET), observed(&ctx))
        .watches(Api::<ManifestWork>::all(client.clone()), all(), observed(&ctx))
        .watches(Api::<ManagedClusterAddOn>::all(client.clone()), all(), cluster_of)
        .reconcile_all_on(root_ca_changes)
        .run(
            |c, ctx: Ctx| async move { measured(&ctx.clone(), "import", import::reconcile(c, ctx)).await },
            retry_anew("import"),
            ctx.clone(),
        )
        .for_each(|_| async {});

    // The hub applies the import manifests itself to clusters whose auto-import secret
    // says how to reach them (kept in a store: few clusters have one); the import secret's
    // rendering brings a waiting cluster back.
    let (auto_import_secrets, auto_import_secret_changes) =
        stored_by_name(Api::<Secret>::all(client.clone()), AUTO_IMPORT_SECRET);
    let auto_import_state = Arc::new(autoimport::State::new(auto_import_secrets));
    let auto_import = Controller::for_stream(auto_import_clusters, clusters.clone())
        .with_config(bounded())
        .watches_stream(auto_import_secret_changes, cluster_of)
        .watches(Api::<Secret>::all(client.clone()), all().labels(LABEL_IMPORT_SECRET), cluster_of)
        .run(
            move |c, ctx: Ctx| {
                let state = auto_import_state.clone();
                async move { measured(&ctx.clone(), "auto-import", autoimport::reconcile(c, ctx, state)).await }
            },
            retry("auto-import"),
            ctx.clone(),
        )
        .for_each(|_| async {});

    let accept = Controller::for_stream(accept_clusters, clusters.clone())
        .with_config(bounded())
        .reconcile_all_on(guard_changes)
        .run(
            |c, ctx: Ctx| async move { measured(&ctx.clone(), "registration", registration::accept(c, ctx)).await },
            retry_anew("registration"),
            ctx.clone(),
        )
        .for_each(|_| async {});

    // The cluster leases, kept in a store: a renewal brings its cluster back, which reads
    // the lease there.
    let (leases, lease_changes) = stored_by_name(Api::<Lease>::all(client.clone()), CLUSTER_LEASE);
    let lease = Controller::for_stream(lease_clusters, clusters)
        .with_config(bounded())
        .watches_stream(lease_changes, cluster_of)
        .run(
            move |c, ctx: Ctx| {
                let leases = leases.clone();
                async move { measured(&ctx.clone(), "lease", lease::reconcile(c, ctx, leases)).await }
            },
            retry("lease"),
            ctx.clone(),
        )
        .for_each(|_| async {});

    // Addons follow their config, their cluster (joined, image version) and their objects.
    let addon = Controller::new(Api::<KlusterletAddonConfig>::all(client.clone()), all())
        .with_config(bounded())
        .watches(Api::<ManagedClusterAddOn>::all(client.clone()), all(), addon_config_of)
        .watches(Api::<ManifestWork>::all(client.clone()), all().labels(LABEL_ADDON_NAME), addon_config_of)
        .watches_stream(addon_clusters, |c: ManagedCluster| {
            let name = c.name_any();
            Some(ObjectRef::new(&name).within(&name))
        })
        .run(
            |c, ctx: Ctx| async move { measured(&ctx.clone(), "addon", addons::reconcile(c, ctx)).await },
            retry("addon"),
            ctx.clone(),
        )
        .for_each(|_| async {});

    // A CSR left pending waits on its cluster: a change of that cluster judges it again.
    let pending = ctx.clone();
    let csr = Controller::new(Api::<CertificateSigningRequest>::all(client), all().labels(LABEL_CLUSTER_NAME))
        .watches_stream(csr_clusters, move |cluster: ManagedCluster| pending.pending_csrs.of(&cluster.name_any()))
        .run(
            |c, ctx: Ctx| async move { measured(&ctx.clone(), "csr", registration::approve(c, ctx)).await },
            retry("csr"),
            ctx.clone(),
        )
        .for_each(|_| async {});

    // The controllers start once the guard (and the followed CA bundle) are known: the
    // registration controller judges clusters by the guard (a hub without the policy API
    // never lists it: after the wait, nothing is accepted), and the import controller
    // renders with the CA, so that no import flips to the configured CA and back.
    let controllers = async {
        let guard_known = tokio::time::timeout(
            GUARD_WAIT,
            futures::future::join(ctx.accept_policy.wait_until_ready(), ctx.accept_binding.wait_until_ready()),
        );
        let root_ca_known = async {
            if ctx.config.root_ca_namespace.is_some() {
                let _ = tokio::time::timeout(GUARD_WAIT, ctx.root_ca.wait_until_ready()).await;
            }
        };
        let _ = tokio::join!(guard_known, root_ca_known);
        tokio::join!(cluster_watch, import, auto_import, accept, lease, addon, csr);
    };
    tokio::join!(guard_watch, root_ca_watch, controllers);
}
