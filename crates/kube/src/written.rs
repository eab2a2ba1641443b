//! What a controller last wrote, so that a pass writes only what differs — as a client-go
//! controller compares its desired objects with its informers' caches before it writes.
//!
//! A pass runs again on every change of what it watches, its own writes included; most
//! passes find nothing to do. [`Written::apply`] remembers, per object, a digest of the
//! desired object and the resourceVersion the server answered the apply with, and skips
//! an apply whose object is unchanged since. What changes an object behind the
//! controller's back is seen by the watch that brings the pass back: the watch's mapper
//! hands the object to [`Written::observe`], and an object at another resourceVersion (or
//! deleted) is written again. An object the controller does not watch is written again once
//! its entry is older than the resync period, as an informer resyncs; and a controller
//! [`forget`](Written::forget)s what it wrote for a subject whose pass failed (whatever
//! broke may have taken those objects with it) and for one it is done with.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use kube::api::Api;
use kube::core::DynamicObject;
use kube::runtime::reflector::ObjectRef;
use kube::{Resource, ResourceExt};
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::objects::document;
use crate::reconcile::{FieldManager, KubeError};

/// One object as last written.
#[derive(Debug, Clone)]
struct Entry {
    /// The digest of the desired object that was applied.
    digest: u64,
    /// The resourceVersion the server answered the apply with.
    resource_version: Option<String>,
    /// When it was written.
    at: Instant,
}

/// Where an object's entry is kept: with its namespace's, or for a cluster-scoped object
/// with those of its name, so that what was written for a subject is forgotten at once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Group {
    Namespace(String),
    Named(String),
}

impl Group {
    fn of(key: &ObjectRef<DynamicObject>) -> Self {
        match &key.namespace {
            Some(namespace) => Self::Namespace(namespace.clone()),
            None => Self::Named(key.name.clone()),
        }
    }
}

/// The objects a controller wrote, by reference. Shared by the controllers of a process
/// (two that write the same object skip each other's identical writes too).
#[derive(Debug)]
pub struct Written {
    entries: Mutex<HashMap<Group, HashMap<ObjectRef<DynamicObject>, Entry>>>,
    resync: Duration,
}

impl Written {
    /// Nothing written yet; an entry counts for `resync` at most.
    pub fn new(resync: Duration) -> Self {
        Self { entries: Mutex::new(HashMap::new()), resync }
    }

    /// Server-side applies `object` as `manager` unless the same object was applied since
    /// the last resync and has not changed since: `Ok(true)` if it was applied.
    pub async fn apply<K>(&self, manager: FieldManager, api: &Api<K>, object: &K) -> Result<bool, KubeError>
    where
        K: Resource + Serialize + DeserializeOwned + Clone + Debug,
        K::DynamicType: Default,
    {
        let key = reference(object);
        let digest = digest(object);
        let unchanged = self.fresh(&key).is_some_and(|entry| entry.digest == digest);
        if unchanged {
            return Ok(false);
        }
        let applied = manager.apply(api, object).await?;
        let entry = Entry { digest, resource_version: applied.resource_version(), at: Instant::now() };
        self.entries.lock().entry(Group::of(&key)).or_default().insert(key, entry);
        Ok(true)
    }

    /// Whether an object of kind `K` named `name` (in `namespace`) was written since the
    /// last resync and not seen changed since.
    pub fn holds<K>(&self, namespace: Option<&str>, name: &str) -> bool
    where
        K: Resource,
        K::DynamicType: Default,
    {
        let reference = ObjectRef::<K>::new(name);
        let reference = match namespace {
            Some(namespace) => reference.within(namespace),
            None => reference,
        };
        self.fresh(&reference.erase()).is_some()
    }

    /// The entry of `key`, if it was written since the last resync.
    fn fresh(&self, key: &ObjectRef<DynamicObject>) -> Option<Entry> {
        let entries = self.entries.lock();
        entries.get(&Group::of(key))?.get(key).filter(|entry| entry.at.elapsed() < self.resync).cloned()
    }

    /// Takes note of `object` as a watch delivers it (changed, or deleted): unless it is
    /// the version this controller wrote, the next [`Written::apply`] of it writes again.
    pub fn observe<K>(&self, object: &K)
    where
        K: Resource,
        K::DynamicType: Default,
    {
        let key = reference(object);
        let mut entries = self.entries.lock();
        let Some(group) = entries.get_mut(&Group::of(&key)) else { return };
        if group.get(&key).is_some_and(|entry| entry.resource_version != object.resource_version()) {
            group.remove(&key);
        }
    }

    /// Forgets everything written in `namespace`, and the cluster-scoped objects named in
    /// `names` (the namespace itself among them, if it is to be forgotten too): the next
    /// pass writes them all again.
    pub fn forget(&self, namespace: &str, names: &[&str]) {
        let mut entries = self.entries.lock();
        entries.remove(&Group::Namespace(namespace.to_string()));
        for name in names {
            entries.remove(&Group::Named((*name).to_string()));
        }
    }
}

/// The reference of an object, its kind included.
fn reference<K>(object: &K) -> ObjectRef<DynamicObject>
where
    K: Resource,
    K::DynamicType: Default,
{
    ObjectRef::from_obj(object).erase()
}

/// A digest of the object as it would be applied.
pub(crate) fn digest<K: Serialize>(object: &K) -> u64 {
    let mut hasher = DefaultHasher::new();
    document(object).to_string().hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn map(name: &str, value: &str, resource_version: Option<&str>) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                resource_version: resource_version.map(String::from),
                ..ObjectMeta::default()
            },
            data: Some([("k".to_string(), value.to_string())].into()),
            ..ConfigMap::default()
        }
    }

    fn remember<K>(written: &Written, object: &K, resource_version: &str, at: Instant)
    where
        K: Resource + Serialize,
        K::DynamicType: Default,
    {
        let entry = Entry { digest: digest(object), resource_version: Some(resource_version.into()), at };
        let key = reference(object);
        written.entries.lock().entry(Group::of(&key)).or_default().insert(key, entry);
    }

    fn remembered<K>(written: &Written, object: &K) -> bool
    where
        K: Resource,
        K::DynamicType: Default,
    {
        written.fresh(&reference(object)).is_some()
    }

    #[test]
    fn a_watch_event_of_the_version_written_keeps_the_entry_and_any_other_drops_it() {
        let written = Written::new(Duration::from_secs(600));
        let desired = map("a", "1", None);
        remember(&written, &desired, "7", Instant::now());
        written.observe(&map("a", "1", Some("7")));
        assert!(remembered(&written, &desired), "our own write's event keeps the entry");
        written.observe(&map("a", "2", Some("8")));
        assert!(!remembered(&written, &desired), "another writer's change drops it");
    }

    #[test]
    fn a_changed_desired_object_has_another_digest_and_kinds_do_not_collide() {
        assert_ne!(digest(&map("a", "1", None)), digest(&map("a", "2", None)));
        let secret = k8s_openapi::api::core::v1::Secret {
            metadata: ObjectMeta { name: Some("a".into()), namespace: Some("ns".into()), ..ObjectMeta::default() },
            ..Default::default()
        };
        assert_ne!(reference(&secret), reference(&map("a", "1", None)));
    }

    #[test]
    fn forgetting_a_cluster_drops_its_namespace_and_its_named_cluster_scoped_objects() {
        let written = Written::new(Duration::from_secs(600));
        let in_namespace = map("a", "1", None);
        remember(&written, &in_namespace, "1", Instant::now());
        let other = ConfigMap {
            metadata: ObjectMeta { name: Some("b".into()), namespace: Some("other".into()), ..ObjectMeta::default() },
            ..ConfigMap::default()
        };
        remember(&written, &other, "2", Instant::now());
        let namespace = |name: &str| k8s_openapi::api::core::v1::Namespace {
            metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() },
            ..Default::default()
        };
        remember(&written, &namespace("ns"), "3", Instant::now());
        remember(&written, &namespace("other"), "4", Instant::now());
        written.forget("ns", &["ns"]);
        assert!(!remembered(&written, &in_namespace));
        assert!(!remembered(&written, &namespace("ns")), "a named cluster-scoped object");
        assert!(remembered(&written, &other));
        assert!(remembered(&written, &namespace("other")));
    }
}
