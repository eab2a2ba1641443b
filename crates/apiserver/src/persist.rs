//! The durable side of the store (`dev serve --store DIR`): one redb database holding
//! every object, the recent watch events and the resourceVersion counter.
//!
//! Each write of the store is one redb write transaction, committed with immediate
//! durability before the in-memory state changes, so whatever a client was told is
//! written survives a crash, and a crash leaves either all of a write or none of it
//! (redb commits are atomic and checksummed). Starting again loads everything back:
//! the same objects, resourceVersions and history of changes (which continue tokens
//! read; watches resume only from the server's start, as from kube-apiserver's watch
//! cache).
//!
//! Layout (one file, `DIR/store.redb`):
//! - `objects`: (resource, key) → (resourceVersion, JSON)
//! - `events`: (resource, resourceVersion) → (type, key, JSON, previous JSON), trimmed
//!   to the same per-resource bound as the in-memory history
//! - `compacted`: resource → the resourceVersion at or below which that resource's
//!   events were trimmed (continue tokens from there answer 410, as before the restart)
//! - `meta`: `rv` (the counter) and `format` (the layout version)
//!
//! A resource is named `group/plural` (`/configmaps` for the core group).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::store::EventType;

/// The database file inside the store directory.
const FILE: &str = "store.redb";

/// The layout version written to `meta`; a store of another version is refused.
const FORMAT: u64 = 1;

/// redb's page cache. The database is read once, at start (the server then serves
/// from memory), and writes touch a few pages per B-tree: redb's default of 1 GiB
/// would only keep a second copy of every object.
const CACHE_BYTES: usize = 16 << 20;

const OBJECTS: TableDefinition<(&str, &str), (u64, &[u8])> = TableDefinition::new("objects");
/// An event: type, key, object, previous object.
type EventValue = (u8, &'static str, &'static [u8], Option<&'static [u8]>);
const EVENTS: TableDefinition<(&str, u64), EventValue> = TableDefinition::new("events");
const COMPACTED: TableDefinition<&str, u64> = TableDefinition::new("compacted");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

const META_RV: &str = "rv";
const META_FORMAT: &str = "format";

/// Why the durable store failed.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// The store directory could not be created.
    #[error("creating the store directory {}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The database file could not be opened (another server may be using it).
    #[error("opening the store {}", path.display())]
    Open {
        /// The database file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: redb::DatabaseError,
    },
    /// The store was written by a version of fleetctl with another layout.
    #[error("the store has layout version {found}; this fleetctl reads version {FORMAT}")]
    Format {
        /// The version found.
        found: u64,
    },
    /// A stored record does not decode.
    #[error("the store holds a corrupt record: {0}")]
    Corrupt(String),
    /// The database failed to read or write.
    #[error("store database")]
    Database(#[source] redb::Error),
    /// The store was closed (the server is shutting down).
    #[error("the store is closed")]
    Closed,
}

fn database<E: Into<redb::Error>>(error: E) -> PersistError {
    PersistError::Database(error.into())
}

/// One write of the store, as it is made durable.
#[derive(Debug)]
pub struct Record<'a> {
    /// `group/plural`.
    pub resource: &'a str,
    /// `namespace/name` or `name`.
    pub key: &'a str,
    /// The write's resourceVersion.
    pub rv: u64,
    /// The watch event type.
    pub kind: EventType,
    /// The object now at `key` (`None`: the key was removed).
    pub object: Option<&'a [u8]>,
    /// The event's object.
    pub event: &'a [u8],
    /// The event's previous object (MODIFIED only).
    pub prev: Option<&'a [u8]>,
    /// resourceVersions of this resource's events that leave the history with this write.
    pub trimmed: &'a [u64],
}

/// One stored watch event.
#[derive(Debug)]
pub struct LoadedEvent {
    /// Its resourceVersion.
    pub rv: u64,
    /// Its type.
    pub kind: EventType,
    /// The object's key.
    pub key: String,
    /// The event's object.
    pub json: Vec<u8>,
    /// The previous object (MODIFIED only).
    pub prev: Option<Vec<u8>>,
}

/// Everything stored for one resource.
#[derive(Debug, Default)]
pub struct LoadedResource {
    /// (key, resourceVersion, JSON) in key order.
    pub objects: Vec<(String, u64, Vec<u8>)>,
    /// The kept history, oldest first.
    pub events: Vec<LoadedEvent>,
    /// Events at or below this resourceVersion were trimmed.
    pub compacted: u64,
}

/// Everything stored.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The resourceVersion counter.
    pub rv: u64,
    /// By `group/plural`.
    pub resources: BTreeMap<String, LoadedResource>,
}

/// An open durable store.
pub struct Persist {
    /// `None` once closed, so a shutdown can release the file (and its lock) while
    /// request handlers still hold the server state.
    db: Mutex<Option<Database>>,
    path: PathBuf,
}

impl std::fmt::Debug for Persist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Persist").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Persist {
    /// Opens (or creates) the store in `dir` and reads everything back, keeping at most
    /// `history_limit` events per resource.
    pub fn open(dir: &Path, history_limit: usize) -> Result<(Self, Loaded), PersistError> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        // Owner only, directory and file: the store holds Secrets.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|source| PersistError::Dir { path: dir.to_path_buf(), source })?;
        let path = dir.join(FILE);
        let open = |path: &Path| -> Result<Database, redb::DatabaseError> {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(path)?;
            // After a crash this repairs the file first: redb rolls back to the last
            // committed transaction.
            Database::builder().set_cache_size(CACHE_BYTES).create_file(file)
        };
        let db = open(&path).map_err(|source| PersistError::Open { path: path.clone(), source })?;
        prepare(&db)?;
        let mut loaded = load(&db)?;
        trim(&db, &mut loaded, history_limit.max(1))?;
        Ok((Self { db: Mutex::new(Some(db)), path }, loaded))
    }

    /// Makes one write durable: when this returns `Ok`, the write survives a crash.
    pub fn commit(&self, record: &Record<'_>) -> Result<(), PersistError> {
        let guard = self.db.lock();
        let db = guard.as_ref().ok_or(PersistError::Closed)?;
        let txn = db.begin_write().map_err(database)?;
        {
            let mut objects = txn.open_table(OBJECTS).map_err(database)?;
            match record.object {
                Some(json) => objects.insert((record.resource, record.key), (record.rv, json)).map(drop),
                None => objects.remove((record.resource, record.key)).map(drop),
            }
            .map_err(database)?;
            let mut events = txn.open_table(EVENTS).map_err(database)?;
            events
                .insert((record.resource, record.rv), (encode(record.kind), record.key, record.event, record.prev))
                .map_err(database)?;
            for &old in record.trimmed {
                events.remove((record.resource, old)).map_err(database)?;
            }
            if let Some(&compacted) = record.trimmed.last() {
                txn.open_table(COMPACTED).map_err(database)?.insert(record.resource, compacted).map_err(database)?;
            }
            txn.open_table(META).map_err(database)?.insert(META_RV, record.rv).map_err(database)?;
        }
        // Dropping an uncommitted transaction (any `?` above) aborts it: nothing of the
        // write reaches the file.
        txn.commit().map_err(database)
    }

    /// Closes the database file; later commits fail with [`PersistError::Closed`].
    pub fn close(&self) {
        drop(self.db.lock().take());
    }
}

/// Creates the tables of a new store and checks the layout of an existing one.
fn prepare(db: &Database) -> Result<(), PersistError> {
    let txn = db.begin_write().map_err(database)?;
    {
        txn.open_table(OBJECTS).map_err(database)?;
        txn.open_table(EVENTS).map_err(database)?;
        txn.open_table(COMPACTED).map_err(database)?;
        let mut meta = txn.open_table(META).map_err(database)?;
        let found = meta.get(META_FORMAT).map_err(database)?.map(|v| v.value());
        match found {
            None => {
                meta.insert(META_FORMAT, FORMAT).map_err(database)?;
            }
            Some(FORMAT) => {}
            Some(found) => return Err(PersistError::Format { found }),
        }
    }
    txn.commit().map_err(database)
}

fn load(db: &Database) -> Result<Loaded, PersistError> {
    let txn = db.begin_read().map_err(database)?;
    let mut loaded = Loaded::default();
    let meta = txn.open_table(META).map_err(database)?;
    loaded.rv = meta.get(META_RV).map_err(database)?.map_or(0, |v| v.value());
    let objects = txn.open_table(OBJECTS).map_err(database)?;
    // Entries come in (resource, key) order, so each resource's objects arrive sorted
    // and one map lookup per resource suffices.
    let mut current: Option<(String, LoadedResource)> = None;
    for entry in objects.iter().map_err(database)? {
        let (k, v) = entry.map_err(database)?;
        let (resource, key) = k.value();
        let (rv, json) = v.value();
        let switch = current.as_ref().is_none_or(|(name, _)| name != resource);
        if switch {
            if let Some((name, r)) = current.take() {
                loaded.resources.insert(name, r);
            }
            current = Some((resource.to_string(), loaded.resources.remove(resource).unwrap_or_default()));
        }
        if let Some((_, r)) = current.as_mut() {
            r.objects.push((key.to_string(), rv, json.to_vec()));
        }
    }
    if let Some((name, r)) = current.take() {
        loaded.resources.insert(name, r);
    }
    let events = txn.open_table(EVENTS).map_err(database)?;
    for entry in events.iter().map_err(database)? {
        let (k, v) = entry.map_err(database)?;
        let (resource, rv) = k.value();
        let (kind, key, json, prev) = v.value();
        let event = LoadedEvent {
            rv,
            kind: decode(kind)
                .ok_or_else(|| PersistError::Corrupt(format!("event {rv} of {resource} has type {kind}")))?,
            key: key.to_string(),
            json: json.to_vec(),
            prev: prev.map(<[u8]>::to_vec),
        };
        loaded.resources.entry(resource.to_string()).or_default().events.push(event);
    }
    let compacted = txn.open_table(COMPACTED).map_err(database)?;
    for entry in compacted.iter().map_err(database)? {
        let (k, v) = entry.map_err(database)?;
        loaded.resources.entry(k.value().to_string()).or_default().compacted = v.value();
    }
    Ok(loaded)
}

/// Drops the events past `limit` per resource (the server may have been started with a
/// larger history before), in the file and in `loaded`.
fn trim(db: &Database, loaded: &mut Loaded, limit: usize) -> Result<(), PersistError> {
    if loaded.resources.values().all(|r| r.events.len() <= limit) {
        return Ok(());
    }
    let txn = db.begin_write().map_err(database)?;
    {
        let mut events = txn.open_table(EVENTS).map_err(database)?;
        let mut compacted = txn.open_table(COMPACTED).map_err(database)?;
        for (name, resource) in &mut loaded.resources {
            let excess = resource.events.len().saturating_sub(limit);
            if excess == 0 {
                continue;
            }
            for old in resource.events.drain(..excess) {
                events.remove((name.as_str(), old.rv)).map_err(database)?;
                resource.compacted = resource.compacted.max(old.rv);
            }
            compacted.insert(name.as_str(), resource.compacted).map_err(database)?;
        }
    }
    txn.commit().map_err(database)
}

fn encode(kind: EventType) -> u8 {
    match kind {
        EventType::Added => 0,
        EventType::Modified => 1,
        EventType::Deleted => 2,
    }
}

fn decode(code: u8) -> Option<EventType> {
    match code {
        0 => Some(EventType::Added),
        1 => Some(EventType::Modified),
        2 => Some(EventType::Deleted),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put<'a>(resource: &'a str, key: &'a str, rv: u64, json: &'a [u8], trimmed: &'a [u64]) -> Record<'a> {
        Record { resource, key, rv, kind: EventType::Added, object: Some(json), event: json, prev: None, trimmed }
    }

    #[test]
    fn writes_survive_reopening() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let (persist, loaded) = Persist::open(dir.path(), 10).expect("open");
            assert_eq!(loaded.rv, 0);
            assert!(loaded.resources.is_empty());
            persist.commit(&put("/configmaps", "default/a", 1, b"{\"a\":1}", &[])).expect("commit");
            persist.commit(&put("/configmaps", "default/b", 2, b"{\"b\":2}", &[])).expect("commit");
            persist
                .commit(&Record {
                    resource: "/configmaps",
                    key: "default/a",
                    rv: 3,
                    kind: EventType::Modified,
                    object: Some(b"{\"a\":3}"),
                    event: b"{\"a\":3}",
                    prev: Some(b"{\"a\":1}"),
                    trimmed: &[],
                })
                .expect("commit");
            persist
                .commit(&Record {
                    resource: "/configmaps",
                    key: "default/b",
                    rv: 4,
                    kind: EventType::Deleted,
                    object: None,
                    event: b"{\"b\":4}",
                    prev: None,
                    trimmed: &[],
                })
                .expect("commit");
            persist.commit(&put("apps/deployments", "default/d", 5, b"{}", &[])).expect("commit");
            persist.close();
            assert!(matches!(persist.commit(&put("/configmaps", "x", 6, b"{}", &[])), Err(PersistError::Closed)));
        }
        let (_persist, loaded) = Persist::open(dir.path(), 10).expect("reopen");
        assert_eq!(loaded.rv, 5);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join(FILE)).expect("file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the store holds Secrets: owner only");
        let cms = &loaded.resources["/configmaps"];
        assert_eq!(cms.objects, vec![("default/a".to_string(), 3, b"{\"a\":3}".to_vec())]);
        let kinds: Vec<(u64, EventType)> = cms.events.iter().map(|e| (e.rv, e.kind)).collect();
        assert_eq!(
            kinds,
            vec![(1, EventType::Added), (2, EventType::Added), (3, EventType::Modified), (4, EventType::Deleted)]
        );
        assert_eq!(cms.events[2].prev.as_deref(), Some(&b"{\"a\":1}"[..]));
        assert_eq!(cms.compacted, 0);
        assert_eq!(loaded.resources["apps/deployments"].objects.len(), 1);
    }

    #[test]
    fn the_event_log_is_trimmed() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let (persist, _) = Persist::open(dir.path(), 3).expect("open");
            for rv in 1..=3 {
                persist.commit(&put("/configmaps", &format!("k{rv}"), rv, b"{}", &[])).expect("commit");
            }
            // The store trims as its in-memory history does: the oldest leaves with the fourth.
            persist.commit(&put("/configmaps", "k4", 4, b"{}", &[1])).expect("commit");
        }
        let (_, loaded) = Persist::open(dir.path(), 3).expect("reopen");
        let cms = &loaded.resources["/configmaps"];
        assert_eq!(cms.events.iter().map(|e| e.rv).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(cms.compacted, 1);
        assert_eq!(cms.objects.len(), 4);
        drop(loaded);
        // A smaller bound on the next start trims the file too.
        {
            let (_, loaded) = Persist::open(dir.path(), 1).expect("reopen smaller");
            let cms = &loaded.resources["/configmaps"];
            assert_eq!(cms.events.iter().map(|e| e.rv).collect::<Vec<_>>(), vec![4]);
            assert_eq!(cms.compacted, 3);
        }
        let (_, loaded) = Persist::open(dir.path(), 10).expect("reopen larger");
        let cms = &loaded.resources["/configmaps"];
        assert_eq!(cms.events.len(), 1);
        assert_eq!(cms.compacted, 3);
    }

    #[test]
    fn a_second_server_cannot_open_the_same_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (_first, _) = Persist::open(dir.path(), 10).expect("open");
        assert!(matches!(Persist::open(dir.path(), 10), Err(PersistError::Open { .. })));
    }
}
