//! What an agent last applied, so that its periodic pass reads an object instead of
//! applying it again when nobody changed it — as upstream's klusterlet operator and work
//! agent compare what they want with what their caches hold before they write.
//!
//! An agent's pass re-applies everything it owns every few minutes, to put back what
//! another hand changed. A server-side apply that changes nothing still costs the server a
//! merge, a validation and a comparison; on a machine running thousands of simulated
//! clusters those no-op applies were most of the fleet's steady CPU. [`LastApplied`]
//! remembers, per object, a digest of what was applied and the resourceVersion the server
//! answered with. The next pass with the same desired object reads the object: at that
//! resourceVersion it is as the apply left it (any write, by anyone, moves the
//! resourceVersion), so the apply is skipped; otherwise, or when the desired object
//! changed, it applies.

use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;

use kube::api::Api;
use kube::{Resource, ResourceExt};
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::reconcile::{FieldManager, KubeError, kind};
use crate::written::digest;

/// Past this many objects the memory starts over (every object is then applied once
/// more): an agent applies a bounded set, but works come and go.
const CAPACITY: usize = 16_384;

/// One applied object: the digest of what was applied, and the resourceVersion it left.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    digest: u64,
    resource_version: String,
}

/// What a process applied, by object (kind, namespace and name).
#[derive(Debug, Default)]
pub struct LastApplied {
    entries: Mutex<HashMap<String, Entry>>,
}

impl LastApplied {
    /// Nothing applied yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The digest of what is to be applied: the object, and how (a field manager, force).
    pub fn digest(what: &impl Serialize) -> u64 {
        digest(what)
    }

    /// Server-side applies `object` as `manager`, unless the last apply of the same object
    /// left it as it still is; answers the object as the server has it.
    pub async fn apply<K>(&self, manager: FieldManager, api: &Api<K>, object: &K) -> Result<K, KubeError>
    where
        K: Resource + Serialize + DeserializeOwned + Clone + Debug,
        K::DynamicType: Default,
    {
        let name = object.name_any();
        let key = format!("{}/{}/{}", kind::<K>(), object.namespace().unwrap_or_default(), name);
        let read =
            || async { api.get_opt(&name).await.map_err(crate::kube_error(format!("reading {} {name}", kind::<K>()))) };
        self.apply_with(key, digest(&(object, manager.0)), ResourceExt::resource_version, read, || {
            manager.apply(api, object)
        })
        .await
    }

    /// The steps of [`LastApplied::apply`] for any object: `key` names the object, `digest`
    /// what is to be applied (the object and how it is applied), `read` reads it, `apply`
    /// applies it.
    pub async fn apply_with<T, E, R, A>(
        &self,
        key: String,
        digest: u64,
        version: impl Fn(&T) -> Option<String>,
        read: impl FnOnce() -> R,
        apply: impl FnOnce() -> A,
    ) -> Result<T, E>
    where
        R: Future<Output = Result<Option<T>, E>>,
        A: Future<Output = Result<T, E>>,
    {
        let applied_before = self.entries.lock().get(&key).filter(|entry| entry.digest == digest).cloned();
        if let Some(entry) = applied_before
            && let Some(live) = read().await?
            && version(&live).as_deref() == Some(entry.resource_version.as_str())
        {
            return Ok(live);
        }
        let applied = apply().await?;
        let mut entries = self.entries.lock();
        match version(&applied) {
            Some(resource_version) => {
                if entries.len() >= CAPACITY {
                    entries.clear();
                }
                entries.insert(key, Entry { digest, resource_version });
            }
            None => {
                entries.remove(&key);
            }
        }
        Ok(applied)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// An object as a fake server holds it: (content, resourceVersion).
    type Object = (u32, String);

    struct Server {
        object: Cell<Option<Object>>,
        reads: Cell<u32>,
        applies: Cell<u32>,
    }

    impl Server {
        fn new() -> Self {
            Self { object: Cell::new(None), reads: Cell::new(0), applies: Cell::new(0) }
        }

        async fn pass(&self, memory: &LastApplied, desired: u32) -> Object {
            let version = |object: &Object| Some(object.1.clone());
            let read = || async {
                self.reads.set(self.reads.get() + 1);
                Ok::<_, ()>(self.current())
            };
            let apply = || async {
                self.applies.set(self.applies.get() + 1);
                let unchanged = self.current().filter(|(content, _)| *content == desired);
                // A server writes nothing for an apply that changes nothing.
                let object = unchanged.unwrap_or_else(|| (desired, self.bump()));
                self.object.set(Some(object.clone()));
                Ok(object)
            };
            memory.apply_with("ConfigMap/ns/x".into(), u64::from(desired), version, read, apply).await.expect("pass")
        }

        fn current(&self) -> Option<Object> {
            let current = self.object.take();
            self.object.set(current.clone());
            current
        }

        fn bump(&self) -> String {
            let next = self.current().map_or(1, |(_, rv)| rv.parse::<u32>().expect("number") + 1);
            next.to_string()
        }

        /// Another hand writes the object.
        fn tamper(&self) {
            let rv = self.bump();
            self.object.set(Some((0, rv)));
        }
    }

    #[tokio::test]
    async fn a_pass_reads_instead_of_applying_what_nobody_changed_since_its_last_apply() {
        let (server, memory) = (Server::new(), LastApplied::new());
        assert_eq!(server.pass(&memory, 7).await, (7, "1".into()));
        assert_eq!((server.reads.get(), server.applies.get()), (0, 1), "nothing applied before: no read");
        assert_eq!(server.pass(&memory, 7).await, (7, "1".into()));
        assert_eq!((server.reads.get(), server.applies.get()), (1, 1), "unchanged: read, not applied");
        server.tamper();
        assert_eq!(server.pass(&memory, 7).await, (7, "3".into()), "another hand's change is put back");
        assert_eq!((server.reads.get(), server.applies.get()), (2, 2));
        assert_eq!(server.pass(&memory, 8).await, (8, "4".into()), "a changed desired object is applied");
        assert_eq!((server.reads.get(), server.applies.get()), (2, 3), "without reading first");
        server.object.set(None);
        assert_eq!(server.pass(&memory, 8).await, (8, "1".into()), "a deleted object is applied again");
        assert_eq!((server.reads.get(), server.applies.get()), (3, 4));
    }
}
