//! The watches the hub controllers are built from: the one ManagedCluster watch every
//! controller that follows clusters shares, objects watched into stores by name, and the
//! mappers from a watched object to the cluster it belongs to.

use std::future::Future;
use std::time::Duration;

use futures::channel::mpsc;
use futures::{Stream, StreamExt};
use kube::api::Api;
use kube::runtime::controller;
use kube::runtime::reflector::{self, ObjectRef, Store, reflector};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;

use super::context::Ctx;
use fleetctl_api::ManagedCluster;
use fleetctl_api::names::LABEL_HOSTED_CLUSTER;

/// Reconciles of one controller running at once: bounded, so memory stays flat when a
/// thousand clusters arrive at once.
const CONCURRENCY: u16 = 16;

/// How long a controller waits to learn what it judges by (the admission rule guarding
/// acceptance, the hub's CA bundle) before it starts without it.
const KNOWN_WITHIN: Duration = Duration::from_secs(10);

/// The configuration of every hub controller.
pub fn bounded() -> controller::Config {
    controller::Config::default().concurrency(CONCURRENCY)
}

/// Waits until `store` has listed what it watches, or [`KNOWN_WITHIN`].
pub async fn known<K>(store: &Store<K>)
where
    K: Resource + Clone + 'static,
    K::DynamicType: Eq + std::hash::Hash + Clone,
{
    // A store never listed (an API the hub does not serve) is judged as empty.
    let _ = tokio::time::timeout(KNOWN_WITHIN, store.wait_until_ready()).await;
}

/// The cluster a namespaced object belongs to: its namespace is the cluster's — but for a
/// hosted cluster's work in its hosting cluster's namespace, whose label names the cluster.
pub fn cluster_of<K: ResourceExt>(object: K) -> Option<ObjectRef<ManagedCluster>> {
    if let Some(hosted) = object.labels().get(LABEL_HOSTED_CLUSTER) {
        return Some(ObjectRef::new(hosted));
    }
    object.namespace().map(|ns| ObjectRef::new(&ns))
}

/// A mapper for what a controller wrote and watches: the object is noted as seen
/// ([`Written::observe`](fleetctl_kube::Written::observe)) and its cluster reconciled.
pub fn observed<K>(ctx: &Ctx) -> impl Fn(K) -> Option<ObjectRef<ManagedCluster>> + Send + Sync + 'static
where
    K: Resource<DynamicType = ()> + ResourceExt,
{
    let ctx = ctx.clone();
    move |object| {
        ctx.written.observe(&object);
        cluster_of(object)
    }
}

/// The objects `api` lists as `config` selects them, watched into a store: the store, and
/// the stream of the objects as they change (to be run, by a controller's `watches_stream`
/// or otherwise), which updates the store before it yields.
pub fn stored<K>(
    api: Api<K>,
    config: watcher::Config,
) -> (Store<K>, impl Stream<Item = Result<K, watcher::Error>> + Send + 'static)
where
    K: Resource<DynamicType = ()> + Clone + std::fmt::Debug + DeserializeOwned + Send + Sync + 'static,
{
    let (store, writer) = reflector::store();
    (store, reflector(writer, watcher(api, config)).default_backoff().touched_objects())
}

/// The objects named `name` (in every namespace `api` reaches), [`stored`].
pub fn stored_by_name<K>(
    api: Api<K>,
    name: &str,
) -> (Store<K>, impl Stream<Item = Result<K, watcher::Error>> + Send + 'static)
where
    K: Resource<DynamicType = ()> + Clone + std::fmt::Debug + DeserializeOwned + Send + Sync + 'static,
{
    stored(api, watcher::Config::default().fields(&format!("metadata.name={name}")))
}

/// One object, watched into a store: the store, the watch (to be run), and a stream that
/// yields whenever the object changes (coalesced, for `reconcile_all_on`).
pub fn watch_one<K>(
    api: Api<K>,
    name: &str,
) -> (Store<K>, impl Future<Output = ()> + Send + 'static, impl Stream<Item = ()> + Send + 'static)
where
    K: Resource<DynamicType = ()> + Clone + std::fmt::Debug + DeserializeOwned + Send + Sync + 'static,
{
    let (store, objects) = stored_by_name(api, name);
    let (watch, changes) = coalesced(objects);
    (store, watch, changes)
}

/// Runs `objects` (the future, to be run) and yields whenever it yields, changes that come
/// faster than they are read coalesced into one: a trigger for `reconcile_all_on`.
pub fn coalesced<T>(
    objects: impl Stream<Item = T> + Send + 'static,
) -> (impl Future<Output = ()> + Send + 'static, impl Stream<Item = ()> + Send + 'static)
where
    T: Send + 'static,
{
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
    (watch, changes)
}

/// Whether the stores a controller reads have listed, for its reconciles to wait on. A
/// store's own `wait_until_ready` wakes only the last of the tasks waiting on it (its one-shot
/// channel keeps one waker), so the concurrent reconciles of a controller must not each wait
/// on it: one task does, and they wait here.
#[derive(Clone)]
pub struct Listed(tokio::sync::watch::Receiver<bool>);

impl Listed {
    /// Listed once `listing` (the one task that waits on the stores) says so; the future is
    /// to be run beside the controller.
    pub fn after(
        listing: impl Future<Output = bool> + Send + 'static,
    ) -> (Self, impl Future<Output = ()> + Send + 'static) {
        let (listed, receiver) = tokio::sync::watch::channel(false);
        let run = async move {
            if listing.await {
                listed.send_replace(true);
            }
            // Kept until every reconcile is gone, so that none sees the channel closed.
            listed.closed().await;
        };
        (Self(receiver), run)
    }

    /// Waits until the stores have listed; false when they never will (the controller stops).
    pub async fn wait(&self) -> bool {
        self.0.clone().wait_for(|listed| *listed).await.is_ok()
    }
}

/// What one controller gets of the shared ManagedCluster watch: the clusters as they
/// change, in order, and the store they are kept in.
pub struct Followed {
    /// Every cluster the watch applies, through a channel of this controller's own.
    pub changes: mpsc::UnboundedReceiver<Result<ManagedCluster, watcher::Error>>,
    /// The watched clusters.
    pub store: Store<ManagedCluster>,
}

/// One watch of the ManagedClusters into a store, every object it applies handed on to
/// each follower, in order, through a channel of the follower's own: a follower that lags
/// (or has not started yet) holds memory, never the watch. (kube-runtime's shared streams
/// hold the watch behind their slowest follower, and a follower of theirs loses its
/// wake-up when an object is deleted before it reads it: in a detach of 1,000 clusters
/// every controller following the clusters stopped for good.)
pub struct ClusterWatch {
    api: Api<ManagedCluster>,
    store: Store<ManagedCluster>,
    writer: reflector::store::Writer<ManagedCluster>,
    followers: Vec<Follower>,
}

/// One follower's channel, and whether it is told of deleted clusters too (a follower that
/// judges the clusters as a whole, as the placement scheduler does; the others act on each
/// cluster, whose finalizers bring it back while it goes).
struct Follower {
    sender: mpsc::UnboundedSender<Result<ManagedCluster, watcher::Error>>,
    deletions: bool,
}

impl ClusterWatch {
    /// The watch of the clusters `api` lists, with no follower yet.
    pub fn new(api: Api<ManagedCluster>) -> Self {
        let (store, writer) = reflector::store();
        Self { api, store, writer, followers: Vec::new() }
    }

    /// A follower more: what it gets of the watch.
    pub fn follow(&mut self) -> Followed {
        self.follower(false)
    }

    /// A follower more that is also handed each cluster as it is deleted.
    pub fn follow_with_deletions(&mut self) -> Followed {
        self.follower(true)
    }

    fn follower(&mut self, deletions: bool) -> Followed {
        let (sender, changes) = mpsc::unbounded();
        self.followers.push(Follower { sender, deletions });
        Followed { changes, store: self.store.clone() }
    }

    /// The watch, to be run once every follower is known.
    pub async fn run(self) {
        let followers = self.followers;
        reflector(self.writer, watcher(self.api, watcher::Config::default()))
            .default_backoff()
            .for_each(move |event| {
                // The backoff has already waited out an error; the store holds what was seen.
                let (object, deleted) = match event {
                    Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) => (Some(object), false),
                    Ok(watcher::Event::Delete(object)) => (Some(object), true),
                    Ok(watcher::Event::Init | watcher::Event::InitDone) | Err(_) => (None, false),
                };
                for follower in followers.iter().filter(|f| f.deletions || !deleted) {
                    if let Some(object) = &object {
                        // A follower that has ended (its controller stopped) needs nothing more.
                        let _ = follower.sender.unbounded_send(Ok(object.clone()));
                    }
                }
                async {}
            })
            .await;
    }
}
