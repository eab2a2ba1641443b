//! Storage: every object of every resource, one resourceVersion counter, a bounded
//! event history per resource and a broadcast of changes for watchers.
//!
//! Objects are kept as their serialized JSON, large ones compressed ([`Packed`]), so
//! reads and watch fan-out copy no more than a reference count or a decompression;
//! writes stamp the resourceVersion before serializing.
//!
//! With a durable store ([`Store::open`]) every write is committed to disk before the
//! in-memory state changes and before anyone (the writer, watchers, the built-in
//! controllers) hears of it; without one, nothing but memory is touched.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::Bound;
use std::path::Path;
use std::sync::{Arc, Weak};

use bytes::Bytes;
use parking_lot::{RwLock, RwLockUpgradableReadGuard};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::encoding::Packed;
use super::persist::{Loaded, Persist, PersistError, Record};
use super::registry::GroupResource;
use super::{encoding, object};

/// Capacity of each resource's broadcast by default; a watcher that falls this far
/// behind is told its resourceVersion expired and relists.
pub const BROADCAST_CAPACITY: usize = 4096;

/// Bytes of object states each resource's history keeps by default: on a hub of
/// thousands of clusters, an event count alone let the history of large objects (the
/// klusterlet works, the import secrets) hold hundreds of superseded copies of each.
pub const HISTORY_BYTES: usize = 32 * 1024 * 1024;

/// Capacity of the broadcast of one namespace or one name: a watcher of one namespace
/// sees only its events, far fewer than a resource's. A broadcast allocates its capacity
/// up front, and a hub holds a few per managed cluster (each agent's namespace and
/// cluster): at 256 slots they took ~40 KiB per cluster; a watcher 64 events behind
/// relists its one namespace.
const SCOPED_CAPACITY: usize = 64;

/// Events a history keeps whatever their size (upstream's watch cache never holds fewer
/// than 100 either).
const MIN_HISTORY: usize = 100;

/// A stored object: its resourceVersion and JSON.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The object's resourceVersion.
    pub rv: u64,
    /// The object as JSON, resourceVersion included.
    pub packed: Packed,
}

impl Stored {
    /// The object's JSON.
    pub fn json(&self) -> Cow<'_, [u8]> {
        self.packed.json()
    }

    /// The object parsed.
    pub fn value(&self) -> Value {
        encoding::parse_own(&self.json())
    }
}

/// Watch event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// The object was created.
    Added,
    /// The object changed.
    Modified,
    /// The object is gone; the payload is its last state.
    Deleted,
}

impl EventType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }
}

/// One change to one object.
#[derive(Debug)]
pub struct Event {
    /// The resourceVersion of the change.
    pub rv: u64,
    /// What happened.
    pub kind: EventType,
    /// `namespace/name` or `name`.
    pub key: String,
    /// The object after the change (before it, for deletions, with the deletion's rv).
    pub packed: Packed,
    /// The object before the change (for MODIFIED), so filtered watches can tell an
    /// object that stopped matching from one that never did.
    pub prev: Option<Packed>,
}

impl Event {
    /// The namespace of the object, from its key.
    pub fn namespace(&self) -> Option<&str> {
        self.key.split_once('/').map(|(ns, _)| ns)
    }

    /// The name of the object, from its key.
    pub fn name(&self) -> &str {
        self.key.split_once('/').map_or(self.key.as_str(), |(_, name)| name)
    }

    /// The object parsed. Not kept with the event: a parsed object takes several times
    /// the memory of its JSON, and the history keeps events long after the owner check or
    /// the filtered watch that parsed them.
    pub fn value(&self) -> Value {
        encoding::parse_own(&self.json())
    }

    /// The object's JSON.
    pub fn json(&self) -> Cow<'_, [u8]> {
        self.packed.json()
    }

    /// The bytes the event keeps: the object's JSON, and the previous state's.
    pub fn size(&self) -> usize {
        self.packed.size() + self.prev.as_ref().map_or(0, Packed::size)
    }
}

/// A change that the built-in controllers (garbage collector, namespace and CRD
/// lifecycle) must look at.
#[derive(Debug, Clone)]
pub struct Notice {
    /// Which resource.
    pub resource: GroupResource,
    /// The change.
    pub event: Arc<Event>,
    /// Whether the object is gone or marked for deletion (known without parsing it).
    pub deleting: bool,
}

/// The store's answer to a write that could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitError {
    /// Create of a key that exists.
    Exists,
    /// Write of a key that does not exist.
    Missing,
    /// The object changed since the expected resourceVersion.
    Conflict,
    /// The durable store could not commit the write; nothing changed.
    Storage(String),
}

/// What a write expects of the current state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The key must be free.
    Absent,
    /// The key must hold exactly this resourceVersion.
    Rv(u64),
}

/// Addresses one object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    /// Its resource.
    pub resource: GroupResource,
    /// `namespace/name` or `name`.
    pub key: String,
}

/// The storage key of an object.
pub fn key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

struct Table {
    objects: BTreeMap<String, Stored>,
    /// The resourceVersion of the table's last change.
    revision: u64,
    history: VecDeque<Arc<Event>>,
    /// The size of the object states in `history`.
    history_bytes: usize,
    /// Events at or below this resourceVersion are no longer in `history`.
    compacted: u64,
    /// Every event, for watchers of the whole resource.
    ///
    /// The broadcasts carry weak references and the history owns the events: a broadcast
    /// keeps its last events until newer ones overwrite them, so owning ones kept
    /// thousands of superseded states of each large object (import secrets, works) after
    /// the history had let them go, and a quiet namespace's broadcast kept them for good.
    /// A watcher that has not read an event by the time the history lets it go fell
    /// behind, and is expired as one that fell behind the broadcast.
    tx: broadcast::Sender<Weak<Event>>,
    /// The events of one namespace, or of one name, for the watchers of just that: a
    /// hub's thousands of agents each watch their own namespace or cluster, and an
    /// event wakes only the watchers it concerns.
    scoped: HashMap<Scope, broadcast::Sender<Weak<Event>>>,
}

impl Table {
    fn new(capacity: usize) -> Self {
        Self {
            objects: BTreeMap::new(),
            revision: 0,
            history: VecDeque::new(),
            history_bytes: 0,
            compacted: 0,
            tx: broadcast::channel(capacity).0,
            scoped: HashMap::new(),
        }
    }

    /// A receiver of the events in `scope`.
    fn feed(&mut self, scope: &Scope, capacity: usize) -> broadcast::Receiver<Weak<Event>> {
        match scope {
            Scope::All => self.tx.subscribe(),
            scoped => self
                .scoped
                .entry(scoped.clone())
                .or_insert_with(|| broadcast::channel(capacity.min(SCOPED_CAPACITY)).0)
                .subscribe(),
        }
    }

    /// Sends `event` to the watchers it concerns; a scope nobody watches any longer is
    /// dropped.
    fn send(&mut self, event: &Arc<Event>) {
        let weak = Arc::downgrade(event);
        // No receivers is fine: nobody watches this resource now.
        let _ = self.tx.send(weak.clone());
        let scopes =
            [event.namespace().map(|ns| Scope::Namespace(ns.to_string())), Some(Scope::Name(event.name().to_string()))];
        for scope in scopes.into_iter().flatten() {
            if let Some(tx) = self.scoped.get(&scope)
                && tx.send(weak.clone()).is_err()
            {
                self.scoped.remove(&scope);
            }
        }
    }
}

/// Which events of a resource a watch receives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every event.
    All,
    /// The events of one namespace.
    Namespace(String),
    /// The events of the objects of one name (in any namespace).
    Name(String),
}

struct Inner {
    rv: u64,
    /// The oldest resourceVersion a watch may resume from ([`Store::start_watch_cache`]).
    watch_from: u64,
    tables: HashMap<GroupResource, Table>,
    /// Live objects by uid, so the garbage collector can tell whether an owner exists.
    uids: HashMap<String, ObjectRef>,
    /// Owner uid → objects that name it in ownerReferences.
    dependents: HashMap<String, HashSet<ObjectRef>>,
}

/// The object store of one API server.
pub struct Store {
    inner: RwLock<Inner>,
    history_limit: usize,
    /// Bytes of object states each resource's history keeps, beyond its newest
    /// [`MIN_HISTORY`] events.
    history_bytes: usize,
    /// Capacity of each resource's broadcast (tokio allocates it whole, per table).
    broadcast_capacity: usize,
    notices: mpsc::UnboundedSender<Notice>,
    /// Where writes are made durable first; `None` keeps everything in memory only.
    persist: Option<Persist>,
}

/// A validated write, ready to be made durable and applied.
struct Change {
    rv: u64,
    kind: EventType,
    key: String,
    /// The object after the write (its last state, for removals), parsed.
    object: Value,
    /// `object` serialized.
    json: Packed,
    /// What the key held before.
    previous: Option<Stored>,
    /// Whether the key is removed.
    removes: bool,
}

impl Change {
    /// The bytes its event keeps ([`Event::size`]).
    fn event_size(&self) -> usize {
        let prev = if self.removes { 0 } else { self.previous.as_ref().map_or(0, |p| p.packed.size()) };
        self.json.size() + prev
    }
}

/// A page of a list.
#[derive(Debug)]
pub struct Page {
    /// Matching objects in key order.
    pub items: Vec<Stored>,
    /// The store's resourceVersion when the page was read.
    pub rv: u64,
    /// The last key returned when more matching objects remain.
    pub next: Option<String>,
}

/// A watch starting point: the events to replay and the live feed after them.
pub struct Subscription {
    /// Past events to send first.
    pub replay: Vec<Arc<Event>>,
    /// Changes from now on; an event that no longer upgrades was let go by the history
    /// before it was read.
    pub feed: broadcast::Receiver<Weak<Event>>,
    /// The store's resourceVersion at subscription.
    pub rv: u64,
}

impl Store {
    /// An empty store keeping `history_limit` events per resource; notices for the
    /// built-in controllers go to the returned receiver.
    pub fn new(history_limit: usize) -> (Self, mpsc::UnboundedReceiver<Notice>) {
        Self::with_broadcast(history_limit, BROADCAST_CAPACITY)
    }

    /// An empty store whose per-resource broadcasts hold `broadcast_capacity` events
    /// (small for the many small clusters of a simulated fleet).
    pub fn with_broadcast(history_limit: usize, broadcast_capacity: usize) -> (Self, mpsc::UnboundedReceiver<Notice>) {
        let (notices, rx) = mpsc::unbounded_channel();
        let inner =
            Inner { rv: 0, watch_from: 0, tables: HashMap::new(), uids: HashMap::new(), dependents: HashMap::new() };
        let store = Self {
            inner: RwLock::new(inner),
            history_limit: history_limit.max(1),
            history_bytes: HISTORY_BYTES,
            broadcast_capacity: broadcast_capacity.max(1),
            notices,
            persist: None,
        };
        (store, rx)
    }

    /// The store with each resource's history bounded to `bytes` of object states as well
    /// (its newest events are kept whatever their size).
    #[must_use]
    pub fn with_history_bytes(mut self, bytes: usize) -> Self {
        self.history_bytes = bytes;
        self
    }

    /// A store kept durable in `dir`, holding what was stored there before: the same
    /// objects, resourceVersions and history of changes.
    ///
    /// Objects that were being deleted, and dependents whose owner is gone, are handed
    /// to the built-in controllers again, since what they had not yet done when the
    /// server stopped would otherwise never be done.
    pub fn open(history_limit: usize, dir: &Path) -> Result<(Self, mpsc::UnboundedReceiver<Notice>), PersistError> {
        let (mut store, rx) = Self::new(history_limit);
        let (persist, loaded) = Persist::open(dir, store.history_limit)?;
        store.restore(loaded)?;
        store.persist = Some(persist);
        Ok((store, rx))
    }

    fn restore(&self, loaded: Loaded) -> Result<(), PersistError> {
        let mut guard = self.inner.write();
        let inner = &mut *guard;
        inner.rv = loaded.rv;
        let mut resync = Vec::new();
        for (name, stored) in loaded.resources {
            let (group, plural) = name
                .split_once('/')
                .ok_or_else(|| PersistError::Corrupt(format!("resource name {name:?} has no group separator")))?;
            let resource = GroupResource::new(group, plural);
            let mut objects = Vec::with_capacity(stored.objects.len());
            for (key, rv, json) in stored.objects {
                let value: Value =
                    serde_json::from_slice(&json).map_err(|e| PersistError::Corrupt(format!("{name} {key}: {e}")))?;
                let target = ObjectRef { resource: resource.clone(), key: key.clone() };
                index(inner, &target, &value);
                let packed = Packed::new(Bytes::from(json));
                if object::deletion_timestamp(&value).is_some() {
                    let event =
                        Event { rv, kind: EventType::Modified, key: key.clone(), packed: packed.clone(), prev: None };
                    resync.push(Notice { resource: resource.clone(), event: Arc::new(event), deleting: true });
                }
                objects.push((key, Stored { rv, packed }));
            }
            let mut table = Table::new(self.broadcast_capacity);
            // Sorted input: the map is built in bulk.
            table.objects = objects.into_iter().collect();
            for e in stored.events {
                // Watchers parse history lazily: what the file holds is checked now.
                if !encoding::is_valid(&e.json) || e.prev.as_deref().is_some_and(|prev| !encoding::is_valid(prev)) {
                    return Err(PersistError::Corrupt(format!("{name}: event {} is not JSON", e.rv)));
                }
                table.history.push_back(Arc::new(Event {
                    rv: e.rv,
                    kind: e.kind,
                    key: e.key,
                    packed: Packed::new(Bytes::from(e.json)),
                    prev: e.prev.map(|prev| Packed::new(Bytes::from(prev))),
                }));
            }
            table.history_bytes = table.history.iter().map(|e| e.size()).sum();
            table.compacted = stored.compacted;
            let newest_object = table.objects.values().map(|s| s.rv).max().unwrap_or(0);
            table.revision = table.history.back().map_or(stored.compacted, |e| e.rv).max(newest_object);
            inner.rv = inner.rv.max(table.revision);
            inner.tables.insert(resource, table);
        }
        // Owners that are gone while dependents still name them: the collector hears of
        // the owner's deletion again (only the uid matters to it; the empty key names no
        // namespace).
        for (owner, dependents) in &inner.dependents {
            if inner.uids.contains_key(owner) {
                continue;
            }
            let Some(dependent) = dependents.iter().next() else {
                continue;
            };
            let event = Event {
                rv: inner.rv,
                kind: EventType::Deleted,
                key: String::new(),
                packed: Packed::new(encoding::to_bytes(&serde_json::json!({"metadata": {"uid": owner}}))),
                prev: None,
            };
            resync.push(Notice { resource: dependent.resource.clone(), event: Arc::new(event), deleting: true });
        }
        for notice in resync {
            // The receiver is held by the caller until the controllers start.
            let _ = self.notices.send(notice);
        }
        Ok(())
    }

    /// Closes the durable store, if any, releasing its file; later writes fail.
    pub fn close(&self) {
        if let Some(persist) = &self.persist {
            // Under the write lock: no write is half-way through its commit.
            let _guard = self.inner.write();
            persist.close();
        }
    }

    /// The current resourceVersion.
    pub fn rv(&self) -> u64 {
        self.inner.read().rv
    }

    /// The resourceVersion of a resource's last change (0: never changed), so callers
    /// can cache what they derive from it.
    pub fn revision(&self, resource: &GroupResource) -> u64 {
        self.inner.read().tables.get(resource).map_or(0, |t| t.revision)
    }

    /// One object.
    pub fn get(&self, resource: &GroupResource, key: &str) -> Option<Stored> {
        self.inner.read().tables.get(resource)?.objects.get(key).cloned()
    }

    /// One object as a list of at most one, with the resourceVersion the list is at, read
    /// together: a watch from that resourceVersion then misses no change of the object.
    pub fn list_one(&self, resource: &GroupResource, key: &str) -> Page {
        let inner = self.inner.read();
        let items = inner.tables.get(resource).and_then(|t| t.objects.get(key)).cloned().into_iter().collect();
        Page { items, rv: inner.rv, next: None }
    }

    /// The object with this uid.
    pub fn owner_ref(&self, uid: &str) -> Option<ObjectRef> {
        self.inner.read().uids.get(uid).cloned()
    }

    /// Objects that name `owner_uid` as an owner.
    pub fn dependents(&self, owner_uid: &str) -> Vec<ObjectRef> {
        self.inner.read().dependents.get(owner_uid).map(|set| set.iter().cloned().collect()).unwrap_or_default()
    }

    /// Keys of a resource's objects in a namespace (all of them for `None`).
    pub fn keys(&self, resource: &GroupResource, namespace: Option<&str>) -> Vec<String> {
        let inner = self.inner.read();
        let Some(table) = inner.tables.get(resource) else {
            return Vec::new();
        };
        match namespace {
            Some(ns) => {
                let prefix = format!("{ns}/");
                table
                    .objects
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .map(|(k, _)| k.clone())
                    .collect()
            }
            None => table.objects.keys().cloned().collect(),
        }
    }

    /// Lists objects in key order, starting after `after`, keeping those `keep` accepts,
    /// stopping after `limit` of them (0: no limit).
    pub fn list(
        &self,
        resource: &GroupResource,
        namespace: Option<&str>,
        after: Option<&str>,
        limit: usize,
        keep: &dyn Fn(&Stored) -> bool,
    ) -> Page {
        let inner = self.inner.read();
        let rv = inner.rv;
        let Some(table) = inner.tables.get(resource) else {
            return Page { items: Vec::new(), rv, next: None };
        };
        let range = Range::new(namespace, after);
        page(table.objects.range(range.bounds()).map(|(k, s)| (k.as_str(), s)), &range, limit, keep, rv)
    }

    /// Lists as [`Store::list`] does, but the objects as they stood at resourceVersion `at` (a
    /// continue token's snapshot): objects changed since show their state then, objects created
    /// since are left out and objects deleted since are back. `Err(oldest)` when the history
    /// kept no longer reaches back to `at`.
    pub fn list_at(
        &self,
        resource: &GroupResource,
        namespace: Option<&str>,
        after: Option<&str>,
        limit: usize,
        keep: &dyn Fn(&Stored) -> bool,
        at: u64,
    ) -> Result<Page, u64> {
        let inner = self.inner.read();
        let Some(table) = inner.tables.get(resource) else {
            return Ok(Page { items: Vec::new(), rv: at, next: None });
        };
        if at < table.compacted {
            return Err(table.compacted + 1);
        }
        let range = Range::new(namespace, after);
        let mut view: BTreeMap<&str, Stored> =
            table.objects.range(range.bounds()).map(|(k, s)| (k.as_str(), s.clone())).collect();
        let mut settled = HashSet::new();
        // The first change after `at` of each key tells what the key held at `at`.
        for event in table.history.iter().filter(|e| e.rv > at) {
            if !range.contains(&event.key) || !settled.insert(event.key.as_str()) {
                continue;
            }
            let then = match event.kind {
                EventType::Added => None,
                EventType::Modified => event.prev.clone(),
                EventType::Deleted => Some(event.packed.clone()),
            };
            match then {
                Some(packed) => {
                    view.insert(event.key.as_str(), Stored { rv: resource_version(&packed.json()), packed })
                }
                None => view.remove(event.key.as_str()),
            };
        }
        Ok(page(view.iter().map(|(k, s)| (*k, s)), &range, limit, keep, at))
    }

    /// How many objects of a resource (in a namespace, or all) come after `key`.
    pub fn count_after(&self, resource: &GroupResource, namespace: Option<&str>, key: &str) -> usize {
        let inner = self.inner.read();
        let Some(table) = inner.tables.get(resource) else { return 0 };
        let prefix = namespace.map(|ns| format!("{ns}/"));
        table
            .objects
            .range::<str, _>((Bound::Excluded(key), Bound::Unbounded))
            .take_while(|(k, _)| prefix.as_ref().is_none_or(|p| k.starts_with(p.as_str())))
            .count()
    }

    /// Watches resume only from now on, as from a kube-apiserver's watch cache, which
    /// starts with a list at the server's start: a watch from an older resourceVersion
    /// answers 410 and its client relists (k8s.io/apiserver's watchCache: the oldest event
    /// it delivers is the one after its list's resourceVersion). The history before stays
    /// for continue tokens, which upstream reads from etcd's own history.
    pub fn start_watch_cache(&self) {
        let mut inner = self.inner.write();
        inner.watch_from = inner.rv;
    }

    /// Subscribes to changes after `from` (`None` means "from now"); the live feed holds
    /// the events in `scope`, the replay every event. Returns `Err(oldest)` when `from` is
    /// older than the history kept or than the watch cache's start.
    pub fn subscribe(&self, resource: &GroupResource, from: Option<u64>, scope: &Scope) -> Result<Subscription, u64> {
        let mut inner = self.inner.write();
        let rv = inner.rv;
        let watch_from = inner.watch_from;
        let capacity = self.broadcast_capacity;
        let table = inner.tables.entry(resource.clone()).or_insert_with(|| Table::new(capacity));
        let oldest = table.compacted.max(watch_from);
        let feed = table.feed(scope, capacity);
        let replay = match from {
            None => Vec::new(),
            Some(from) if from < oldest => return Err(oldest + 1),
            Some(from) => table.history.iter().filter(|e| e.rv > from).cloned().collect(),
        };
        Ok(Subscription { replay, feed, rv })
    }

    /// The changes to a resource after resourceVersion `from`, oldest first, with the
    /// resource's revision they bring it to, so that what is derived from the objects can
    /// take in only what changed. `Err(oldest)` when the history kept no longer reaches
    /// back to `from`.
    pub fn changes_after(&self, resource: &GroupResource, from: u64) -> Result<(Vec<Arc<Event>>, u64), u64> {
        let inner = self.inner.read();
        let Some(table) = inner.tables.get(resource) else {
            return Ok((Vec::new(), 0));
        };
        if from < table.compacted {
            return Err(table.compacted + 1);
        }
        let start = table.history.partition_point(|e| e.rv <= from);
        Ok((table.history.range(start..).cloned().collect(), table.revision))
    }

    /// Every object of a resource in `scope` plus a feed of its later changes, taken
    /// atomically. A [`Scope::Name`] is looked up as the key of a cluster-scoped object.
    pub fn snapshot(&self, resource: &GroupResource, scope: &Scope) -> (Vec<Stored>, Subscription) {
        let mut inner = self.inner.write();
        let rv = inner.rv;
        let capacity = self.broadcast_capacity;
        let table = inner.tables.entry(resource.clone()).or_insert_with(|| Table::new(capacity));
        let feed = table.feed(scope, capacity);
        let items = match scope {
            Scope::Name(name) => table.objects.get(name).cloned().into_iter().collect(),
            Scope::Namespace(ns) => {
                let prefix = format!("{ns}/");
                table
                    .objects
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .map(|(_, s)| s.clone())
                    .collect()
            }
            Scope::All => table.objects.values().cloned().collect(),
        };
        (items, Subscription { replay: Vec::new(), feed, rv })
    }

    /// Stores `object` at `key`, stamping the next resourceVersion into it.
    pub fn put(
        &self,
        resource: &GroupResource,
        key: &str,
        expect: Expect,
        mut object: Value,
    ) -> Result<Stored, CommitError> {
        self.commit(resource, |inner| {
            let previous = inner.tables.get(resource).and_then(|t| t.objects.get(key)).cloned();
            let current = previous.as_ref().map(|s| s.rv);
            let kind = match (expect, current) {
                (Expect::Absent, None) => EventType::Added,
                (Expect::Absent, Some(_)) => return Err(CommitError::Exists),
                (Expect::Rv(_), None) => return Err(CommitError::Missing),
                (Expect::Rv(want), Some(have)) if want != have => return Err(CommitError::Conflict),
                (Expect::Rv(_), Some(_)) => EventType::Modified,
            };
            let rv = inner.rv + 1;
            object::set_resource_version(&mut object, rv);
            let json = Packed::new(encoding::to_bytes(&object));
            Ok(Change { rv, kind, key: key.to_string(), object, json, previous, removes: false })
        })
    }

    /// Removes the object at `key` if it still holds resourceVersion `expect`.
    pub fn remove(&self, resource: &GroupResource, key: &str, expect: u64) -> Result<Stored, CommitError> {
        self.commit(resource, |inner| {
            let current = inner.tables.get(resource).and_then(|t| t.objects.get(key)).cloned();
            let Some(current) = current else {
                return Err(CommitError::Missing);
            };
            if current.rv != expect {
                return Err(CommitError::Conflict);
            }
            let rv = inner.rv + 1;
            let mut last = current.value();
            object::set_resource_version(&mut last, rv);
            let json = Packed::new(encoding::to_bytes(&last));
            Ok(Change {
                rv,
                kind: EventType::Deleted,
                key: key.to_string(),
                object: last,
                json,
                previous: Some(current),
                removes: true,
            })
        })
    }

    /// Validates a write with `prepare`, makes it durable (with a durable store), then
    /// applies and publishes it.
    fn commit(
        &self,
        resource: &GroupResource,
        prepare: impl FnOnce(&Inner) -> Result<Change, CommitError>,
    ) -> Result<Stored, CommitError> {
        let Some(persist) = &self.persist else {
            let mut inner = self.inner.write();
            let change = prepare(&inner)?;
            return Ok(self.apply(&mut inner, resource, change));
        };
        // Waiting for the writer before us and for the disk blocks this thread for a
        // while: on a multi-threaded runtime the worker hands its other tasks over first.
        let on_workers = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if on_workers {
            tokio::task::block_in_place(|| self.commit_durably(persist, resource, prepare))
        } else {
            self.commit_durably(persist, resource, prepare)
        }
    }

    fn commit_durably(
        &self,
        persist: &Persist,
        resource: &GroupResource,
        prepare: impl FnOnce(&Inner) -> Result<Change, CommitError>,
    ) -> Result<Stored, CommitError> {
        // An upgradable read excludes other writers but not readers, so reads go on
        // while the disk syncs; the state they see changes only once the write is durable.
        let inner = self.inner.upgradable_read();
        let change = prepare(&inner)?;
        let trimmed: Vec<u64> = inner
            .tables
            .get(resource)
            .map(|t| t.history.iter().take(self.trimmed(t, change.event_size())).map(|e| e.rv).collect())
            .unwrap_or_default();
        let name = format!("{}/{}", resource.group, resource.resource);
        let (json, prev) = (change.json.json(), change.previous.as_ref().map(Stored::json));
        let record = Record {
            resource: &name,
            key: &change.key,
            rv: change.rv,
            kind: change.kind,
            object: (!change.removes).then_some(&json[..]),
            event: &json,
            prev: if change.removes { None } else { prev.as_deref() },
            trimmed: &trimmed,
        };
        persist.commit(&record).map_err(|e| CommitError::Storage(fleetctl_kube::errors::chain(&e)))?;
        let mut inner = RwLockUpgradableReadGuard::upgrade(inner);
        Ok(self.apply(&mut inner, resource, change))
    }

    /// Applies a validated write to memory and tells watchers and controllers.
    fn apply(&self, inner: &mut Inner, resource: &GroupResource, change: Change) -> Stored {
        let Change { rv, kind, key, object, json, previous, removes } = change;
        inner.rv = rv;
        let target = ObjectRef { resource: resource.clone(), key };
        if let Some(old) = &previous {
            if removes {
                // The last state names the same uid and owners as the stored one.
                unindex(inner, &target, &object);
            } else {
                unindex(inner, &target, &object::metadata_only(&old.json()));
            }
        }
        if !removes {
            index(inner, &target, &object);
        }
        let stored = Stored { rv, packed: json.clone() };
        let capacity = self.broadcast_capacity;
        let table = inner.tables.entry(target.resource).or_insert_with(|| Table::new(capacity));
        let deleting = if removes {
            table.objects.remove(&target.key);
            true
        } else {
            table.objects.insert(target.key.clone(), stored.clone());
            object::deletion_timestamp(&object).is_some()
        };
        let prev = if removes { None } else { previous.map(|p| p.packed) };
        let event = Event { rv, kind, key: target.key, packed: json, prev };
        self.publish(table, resource, event, deleting);
        stored
    }

    /// How many of the oldest events leave `table`'s history when an event with an object
    /// of `incoming` bytes joins it: those beyond the history's event limit, and those
    /// beyond its byte limit while more than [`MIN_HISTORY`] events remain.
    fn trimmed(&self, table: &Table, incoming: usize) -> usize {
        let (mut len, mut bytes) = (table.history.len() + 1, table.history_bytes + incoming);
        let mut count = 0;
        for event in &table.history {
            if len <= self.history_limit && (bytes <= self.history_bytes || len <= MIN_HISTORY) {
                break;
            }
            len -= 1;
            bytes -= event.size();
            count += 1;
        }
        count
    }

    fn publish(&self, table: &mut Table, resource: &GroupResource, event: Event, deleting: bool) {
        table.revision = event.rv;
        let event = Arc::new(event);
        for _ in 0..self.trimmed(table, event.size()) {
            if let Some(old) = table.history.pop_front() {
                table.history_bytes -= old.size();
                table.compacted = old.rv;
            }
        }
        table.history_bytes += event.size();
        table.history.push_back(event.clone());
        table.send(&event);
        // The receiver lives as long as the server; a send error means shutdown.
        let _ = self.notices.send(Notice { resource: resource.clone(), event, deleting });
    }

    /// Number of stored objects (for figures and tests).
    pub fn len(&self) -> usize {
        self.inner.read().tables.values().map(|t| t.objects.len()).sum()
    }

    /// Whether the store holds no objects.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The keys a list covers: a namespace's (or all), after a continue token's key.
struct Range {
    prefix: Option<String>,
    after: Option<String>,
}

impl Range {
    fn new(namespace: Option<&str>, after: Option<&str>) -> Self {
        Self { prefix: namespace.map(|ns| format!("{ns}/")), after: after.map(str::to_string) }
    }

    fn bounds(&self) -> (Bound<String>, Bound<String>) {
        let start = match (&self.after, &self.prefix) {
            (Some(a), _) => Bound::Excluded(a.clone()),
            (None, Some(p)) => Bound::Included(p.clone()),
            (None, None) => Bound::Unbounded,
        };
        (start, Bound::Unbounded)
    }

    fn contains(&self, key: &str) -> bool {
        self.prefix.as_ref().is_none_or(|p| key.starts_with(p.as_str()))
            && self.after.as_ref().is_none_or(|a| key > a.as_str())
    }
}

/// One page of `objects` (in key order, from the range's start): those `keep` accepts, at most
/// `limit` (0: no limit), with the key to continue after when more match.
fn page<'a>(
    objects: impl Iterator<Item = (&'a str, &'a Stored)>,
    range: &Range,
    limit: usize,
    keep: &dyn Fn(&Stored) -> bool,
    rv: u64,
) -> Page {
    let mut items = Vec::new();
    let mut next = None;
    let mut last_key = None;
    for (k, stored) in objects {
        if !range.contains(k) {
            break;
        }
        if !keep(stored) {
            continue;
        }
        if limit > 0 && items.len() == limit {
            // One more match exists past the page: the client continues after the last key.
            next = last_key;
            break;
        }
        items.push(stored.clone());
        last_key = Some(k.to_string());
    }
    Page { items, rv, next }
}

/// The resourceVersion written in a stored object's JSON.
fn resource_version(json: &[u8]) -> u64 {
    object::resource_version(&object::metadata_only(json)).ok().flatten().unwrap_or_default()
}

fn index(inner: &mut Inner, target: &ObjectRef, object: &Value) {
    if let Some(uid) = object::uid(object) {
        inner.uids.insert(uid.to_string(), target.clone());
    }
    for owner in object::owner_uids(object) {
        inner.dependents.entry(owner.to_string()).or_default().insert(target.clone());
    }
}

fn unindex(inner: &mut Inner, target: &ObjectRef, object: &Value) {
    if let Some(uid) = object::uid(object) {
        inner.uids.remove(uid);
    }
    for owner in object::owner_uids(object) {
        if let Some(set) = inner.dependents.get_mut(owner) {
            set.remove(target);
            if set.is_empty() {
                inner.dependents.remove(owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn history(store: &Store, resource: &GroupResource, from: u64) -> Result<Vec<(u64, EventType, String)>, u64> {
        let subscription = store.subscribe(resource, Some(from), &Scope::All)?;
        Ok(subscription.replay.iter().map(|e| (e.rv, e.kind, e.key.clone())).collect())
    }

    /// The keys a feed holds now.
    fn received(feed: &mut broadcast::Receiver<Weak<Event>>) -> Vec<String> {
        std::iter::from_fn(|| feed.try_recv().ok()).map(|e| e.upgrade().expect("in the history").key.clone()).collect()
    }

    /// kube-apiserver answers a list from one snapshot: the list's resourceVersion covers
    /// exactly the state it shows, so a watch from it sees every later change. Read apart,
    /// a write between the two would be neither in the list nor in the watch (a Klusterlet
    /// update the operator never saw).
    #[test]
    fn a_list_of_one_object_is_at_the_resource_version_of_the_state_it_shows() {
        let (store, _rx) = Store::new(16);
        let cms = GroupResource::new("", "configmaps");
        store.put(&cms, "a/x", Expect::Absent, json!({})).expect("put");
        std::thread::scope(|threads| {
            threads.spawn(|| {
                for _ in 0..20_000 {
                    let rv = store.get(&cms, "a/x").expect("x").rv;
                    store.put(&cms, "a/x", Expect::Rv(rv), json!({})).expect("update");
                }
            });
            for _ in 0..20_000 {
                let page = store.list_one(&cms, "a/x");
                // The only object that changes: the list is at its last change.
                assert_eq!(page.items.iter().map(|s| s.rv).collect::<Vec<_>>(), [page.rv]);
            }
        });
    }

    /// A large object is kept compressed — in the table and in its events — and every read
    /// answers its JSON whole; the history's byte limit counts what is kept.
    #[test]
    fn a_large_object_is_kept_compressed_and_read_back_whole() {
        let (store, _rx) = Store::new(16);
        let cms = GroupResource::new("", "configmaps");
        let object = json!({"metadata": {"name": "big"}, "data": {"crd": "x: y\n".repeat(4096)}});
        let first = store.put(&cms, "a/big", Expect::Absent, object.clone()).expect("put");
        let mut changed = object;
        changed["data"]["more"] = json!("z");
        let second = store.put(&cms, "a/big", Expect::Rv(first.rv), changed.clone()).expect("update");
        let read = store.get(&cms, "a/big").expect("stored");
        assert!(read.packed.size() < read.json().len() / 10, "{} bytes kept", read.packed.size());
        assert_eq!(read.value()["data"], changed["data"]);
        assert_eq!(store.list(&cms, None, None, 0, &|_| true).items[0].value(), read.value());
        let events = store.subscribe(&cms, Some(0), &Scope::All).expect("history").replay;
        let update = events.last().expect("the update");
        assert_eq!(update.value()["data"], changed["data"]);
        let before = encoding::parse_own::<Value>(&update.prev.as_ref().expect("previous state").json());
        assert_eq!(before["metadata"]["resourceVersion"], json!(first.rv.to_string()));
        assert_eq!(update.rv, second.rv);
        let table_bytes = store.inner.read().tables[&cms].history_bytes;
        assert_eq!(table_bytes, events.iter().map(|e| e.size()).sum::<usize>());
        assert!(table_bytes < 4096, "{table_bytes} bytes of history");
    }

    /// The history owns the events and the broadcasts point at them: a broadcast keeps its
    /// last events until newer ones overwrite them, which in a quiet namespace is never.
    #[test]
    fn an_event_the_history_let_go_is_freed_though_a_watcher_of_its_namespace_never_read_it() {
        let (store, notices) = Store::new(10 * MIN_HISTORY);
        // The built-in controllers read their notices at once; unread, they would own the events.
        drop(notices);
        let store = store.with_history_bytes(0);
        let cms = GroupResource::new("", "configmaps");
        let quiet = Scope::Namespace("quiet".into());
        let mut early = store.subscribe(&cms, None, &quiet).expect("early").feed;
        let mut late = store.subscribe(&cms, None, &quiet).expect("late").feed;
        store.put(&cms, "quiet/x", Expect::Absent, json!({"data": {"big": "x".repeat(4096)}})).expect("put");
        let busy = |range: std::ops::Range<usize>| {
            for i in range {
                store.put(&cms, &format!("busy/{i}"), Expect::Absent, json!({})).expect("put");
            }
        };
        busy(0..MIN_HISTORY - 1);
        let read_in_time = early.try_recv().expect("the event").upgrade();
        assert_eq!(read_in_time.map(|e| e.key.clone()).as_deref(), Some("quiet/x"), "still in the history");
        busy(MIN_HISTORY - 1..MIN_HISTORY);
        let read_too_late = late.try_recv().expect("the event, as a reference");
        assert!(read_too_late.upgrade().is_none(), "the history let it go: so does the broadcast");
    }

    #[test]
    fn a_scoped_feed_receives_only_its_namespace_or_name_and_goes_with_its_last_watcher() {
        let (store, _rx) = Store::new(16);
        let cms = GroupResource::new("", "configmaps");
        let namespace = Scope::Namespace("a".into());
        let mut all = store.subscribe(&cms, None, &Scope::All).expect("all").feed;
        let mut in_a = store.subscribe(&cms, None, &namespace).expect("a").feed;
        let mut named_x = store.subscribe(&cms, None, &Scope::Name("x".into())).expect("x").feed;
        for key in ["a/x", "a/y", "b/x", "b/y"] {
            store.put(&cms, key, Expect::Absent, json!({})).expect("put");
        }
        assert_eq!(received(&mut all), ["a/x", "a/y", "b/x", "b/y"]);
        assert_eq!(received(&mut in_a), ["a/x", "a/y"]);
        assert_eq!(received(&mut named_x), ["a/x", "b/x"]);
        drop(in_a);
        store.put(&cms, "a/z", Expect::Absent, json!({})).expect("put");
        let scoped = store.inner.read().tables[&cms].scoped.keys().cloned().collect::<Vec<_>>();
        assert_eq!(scoped, [Scope::Name("x".into())], "the namespace nobody watches is dropped");
    }

    #[test]
    fn a_reopened_store_has_the_same_objects_counter_and_history() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cms = GroupResource::new("", "configmaps");
        let before = {
            let (store, _rx) = Store::open(4, dir.path()).expect("open");
            for i in 0..6 {
                store
                    .put(&cms, &format!("ns/c{i}"), Expect::Absent, json!({"metadata": {"name": format!("c{i}")}}))
                    .expect("put");
            }
            let c1 = store.get(&cms, "ns/c1").expect("c1");
            store
                .put(&cms, "ns/c1", Expect::Rv(c1.rv), json!({"metadata": {"name": "c1"}, "data": {"a": "b"}}))
                .expect("update");
            let c2 = store.get(&cms, "ns/c2").expect("c2");
            store.remove(&cms, "ns/c2", c2.rv).expect("remove");
            let snapshot = (store.rv(), store.keys(&cms, None), history(&store, &cms, 4), history(&store, &cms, 3));
            store.close();
            assert!(matches!(store.put(&cms, "ns/late", Expect::Absent, json!({})), Err(CommitError::Storage(_))));
            snapshot
        };
        let (store, _rx) = Store::open(4, dir.path()).expect("reopen");
        let after = (store.rv(), store.keys(&cms, None), history(&store, &cms, 4), history(&store, &cms, 3));
        assert_eq!(after, before);
        assert_eq!(after.0, 8);
        assert_eq!(after.3, Err(5), "older events answer 'expired' as before the restart");
        assert_eq!(store.get(&cms, "ns/c1").map(|s| s.value()["data"]["a"].clone()), Some(json!("b")));
        assert_eq!(store.revision(&cms), 8);
        let next = store.put(&cms, "ns/c9", Expect::Absent, json!({})).expect("put after reopening");
        assert_eq!(next.rv, 9);
    }

    fn names(page: &Page) -> Vec<String> {
        page.items
            .iter()
            .map(|s| {
                format!("{}:{}", s.value()["metadata"]["name"].as_str().unwrap_or_default(), s.value()["data"]["v"])
            })
            .collect()
    }

    #[test]
    fn a_list_at_an_older_resource_version_shows_the_objects_as_they_were_then() {
        let (store, _rx) = Store::new(8);
        let cms = GroupResource::new("", "configmaps");
        let cm = |name: &str, v: u64| json!({"metadata": {"name": name}, "data": {"v": v}});
        for name in ["a", "b", "c"] {
            store.put(&cms, &format!("ns/{name}"), Expect::Absent, cm(name, 1)).expect("put");
        }
        let at = store.rv();
        let b = store.get(&cms, "ns/b").expect("b");
        store.remove(&cms, "ns/b", b.rv).expect("remove");
        let c = store.get(&cms, "ns/c").expect("c");
        store.put(&cms, "ns/c", Expect::Rv(c.rv), cm("c", 2)).expect("update");
        store.put(&cms, "ns/bb", Expect::Absent, cm("bb", 1)).expect("put");
        let then = store.list_at(&cms, Some("ns"), Some("ns/a"), 0, &|_| true, at).expect("in history");
        assert_eq!(names(&then), ["b:1", "c:1"]);
        assert_eq!(then.rv, at);
        let paged = store.list_at(&cms, Some("ns"), Some("ns/a"), 1, &|_| true, at).expect("in history");
        assert_eq!((names(&paged), paged.next.as_deref()), (vec!["b:1".to_string()], Some("ns/b")));
        let now = store.list(&cms, Some("ns"), Some("ns/a"), 0, &|_| true);
        assert_eq!(names(&now), ["bb:1", "c:2"]);
    }

    /// As upstream's watch cache holds a bounded window of events but never fewer than 100,
    /// the history gives up its oldest events once their objects pass the byte bound,
    /// keeping the newest 100 whatever their size: a resume from before them is expired.
    #[test]
    fn the_history_is_bounded_by_the_bytes_of_its_objects_beyond_its_newest_hundred_events() {
        let (store, _rx) = Store::new(8192);
        let store = store.with_history_bytes(4096);
        let cms = GroupResource::new("", "configmaps");
        let large = "x".repeat(1024);
        for i in 0..150 {
            let object = json!({"metadata": {"name": format!("c{i}")}, "data": {"v": large}});
            store.put(&cms, &format!("ns/c{i}"), Expect::Absent, object).expect("put");
        }
        let newest = store.rv();
        assert_eq!(history(&store, &cms, newest - 100).map(|events| events.len()), Ok(100));
        assert_eq!(history(&store, &cms, newest - 101), Err(newest - 99), "older events are no longer kept");
    }

    /// A kube-apiserver's watch cache starts with a list at the server's start: a watch
    /// from before then is expired, while a continue token (read from etcd upstream) still
    /// reaches back.
    #[test]
    fn a_watch_from_before_the_watch_cache_started_is_expired_but_a_list_at_it_is_not() {
        let (store, _rx) = Store::new(16);
        let cms = GroupResource::new("", "configmaps");
        store.put(&cms, "ns/a", Expect::Absent, json!({"metadata": {"name": "a"}})).expect("put");
        let before = store.rv();
        store.put(&cms, "ns/b", Expect::Absent, json!({"metadata": {"name": "b"}})).expect("put");
        store.start_watch_cache();
        let started = store.rv();
        store.put(&cms, "ns/c", Expect::Absent, json!({"metadata": {"name": "c"}})).expect("put");
        assert_eq!(history(&store, &cms, before), Err(started + 1));
        assert_eq!(history(&store, &cms, started).map(|events| events.len()), Ok(1));
        assert!(store.list_at(&cms, None, None, 0, &|_| true, before).is_ok());
    }

    #[test]
    fn a_list_at_a_compacted_resource_version_is_expired() {
        let (store, _rx) = Store::new(2);
        let cms = GroupResource::new("", "configmaps");
        store.put(&cms, "ns/a", Expect::Absent, json!({"metadata": {"name": "a"}})).expect("put");
        let at = store.rv();
        for name in ["b", "c", "d"] {
            store.put(&cms, &format!("ns/{name}"), Expect::Absent, json!({"metadata": {"name": name}})).expect("put");
        }
        assert!(store.list_at(&cms, None, None, 0, &|_| true, at).is_err());
        assert!(store.list_at(&cms, None, None, 0, &|_| true, store.rv() - 1).is_ok());
    }
}
