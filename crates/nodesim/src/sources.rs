//! The Secrets and ConfigMaps a Pod reads (through volumes, projections, `env` and
//! `envFrom`), each watched by name as kubelet's watch-based configmap and secret managers
//! do: a change reaches the Pod's volumes and waiting containers as soon as the watch
//! delivers it, with no polling.

use std::collections::{BTreeMap, BTreeSet};

use futures::stream::{BoxStream, SelectAll};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Container, Secret, Volume};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};

/// Which kind of object a Pod reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A Secret.
    Secret,
    /// A ConfigMap.
    ConfigMap,
}

impl Kind {
    /// As kubelet's messages name it (`secret "x" not found`).
    pub fn noun(self) -> &'static str {
        match self {
            Self::Secret => "secret",
            Self::ConfigMap => "configmap",
        }
    }

    /// As kubelet's key errors name it (`couldn't find key k in Secret ns/x`).
    pub fn title(self) -> &'static str {
        match self {
            Self::Secret => "Secret",
            Self::ConfigMap => "ConfigMap",
        }
    }
}

/// A Secret or ConfigMap of the Pod's namespace, by name.
pub type Reference = (Kind, String);

/// The keys of one object with their values (a ConfigMap's `data` and `binaryData`).
pub type Data = BTreeMap<String, Vec<u8>>;

/// What the watches have seen of the objects a Pod reads: each one's data, or `None` for
/// an object that does not exist.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Sources {
    objects: BTreeMap<Reference, Option<Data>>,
}

/// The objects and their keys, never their values (a Secret's must not reach a log).
impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = self
            .objects
            .iter()
            .map(|(reference, data)| (reference, data.as_ref().map(|d| d.keys().collect::<Vec<_>>())));
        f.debug_map().entries(keys).finish()
    }
}

/// A Secret or ConfigMap that is missing, or lacks a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// The object does not exist.
    #[error("{} {name:?} not found", kind.noun())]
    NotFound {
        /// Its kind.
        kind: Kind,
        /// Its name.
        name: String,
    },
    /// It exists without the key.
    #[error("couldn't find key {key} in {} {namespace}/{name}", kind.title())]
    NoKey {
        /// Its kind.
        kind: Kind,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The key.
        key: String,
    },
}

impl Sources {
    /// Sources holding the given objects (for tests of what reads them).
    #[cfg(test)]
    pub fn of(objects: impl IntoIterator<Item = (Reference, Option<Data>)>) -> Self {
        Self { objects: objects.into_iter().collect() }
    }

    /// The data of an object, `None` if it does not exist (or is not watched).
    pub fn get(&self, kind: Kind, name: &str) -> Option<&Data> {
        self.objects.get(&(kind, name.to_string())).and_then(Option::as_ref)
    }

    /// The data of an object that must exist.
    pub fn require(&self, kind: Kind, name: &str) -> Result<&Data, SourceError> {
        self.get(kind, name).ok_or_else(|| SourceError::NotFound { kind, name: name.to_string() })
    }
}

/// The Secrets and ConfigMaps a Pod's volumes and containers name.
pub fn references(volumes: &[Volume], containers: &[Container]) -> BTreeSet<Reference> {
    let mut refs = BTreeSet::new();
    let mut add = |kind, name: Option<&String>| {
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            refs.insert((kind, name.clone()));
        }
    };
    for volume in volumes {
        add(Kind::Secret, volume.secret.as_ref().and_then(|s| s.secret_name.as_ref()));
        add(Kind::ConfigMap, volume.config_map.as_ref().map(|c| &c.name));
        for projection in volume.projected.iter().flat_map(|p| p.sources.iter().flatten()) {
            add(Kind::Secret, projection.secret.as_ref().map(|s| &s.name));
            add(Kind::ConfigMap, projection.config_map.as_ref().map(|c| &c.name));
        }
    }
    for container in containers {
        for var in container.env.iter().flatten() {
            let from = var.value_from.as_ref();
            add(Kind::Secret, from.and_then(|f| f.secret_key_ref.as_ref()).map(|s| &s.name));
            add(Kind::ConfigMap, from.and_then(|f| f.config_map_key_ref.as_ref()).map(|c| &c.name));
        }
        for from in container.env_from.iter().flatten() {
            add(Kind::Secret, from.secret_ref.as_ref().map(|s| &s.name));
            add(Kind::ConfigMap, from.config_map_ref.as_ref().map(|c| &c.name));
        }
    }
    refs
}

fn secret_data(secret: Secret) -> Data {
    let mut data: Data = secret.data.into_iter().flatten().map(|(k, v)| (k, v.0)).collect();
    for (key, value) in secret.string_data.into_iter().flatten() {
        data.insert(key, value.into_bytes());
    }
    data
}

fn config_map_data(config_map: ConfigMap) -> Data {
    let mut data: Data = config_map.binary_data.into_iter().flatten().map(|(k, v)| (k, v.0)).collect();
    data.extend(config_map.data.into_iter().flatten().map(|(k, v)| (k, v.into_bytes())));
    data
}

/// One change a watch reported: the object's (new) data, or its absence.
type Change = (Reference, watcher::Event<Option<Data>>);

/// The watches of a Pod's objects, merged.
pub struct Watches {
    streams: SelectAll<BoxStream<'static, Change>>,
    /// What each watch has listed since its last (re)start.
    listing: BTreeMap<Reference, Option<Data>>,
    /// The watches that have not finished their first list.
    unlisted: BTreeSet<Reference>,
    sources: Sources,
}

impl Watches {
    /// Starts watching each object by name in `namespace`.
    pub fn start(client: &Client, namespace: &str, references: BTreeSet<Reference>) -> Self {
        let mut streams = SelectAll::new();
        for reference in &references {
            let config = watcher::Config::default().fields(&format!("metadata.name={}", reference.1));
            let key = reference.clone();
            let tag = move |event: watcher::Event<Option<Data>>| (key.clone(), event);
            let stream: BoxStream<'static, Change> = match reference.0 {
                Kind::Secret => {
                    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
                    watched(watcher(api, config), secret_data).map(tag).boxed()
                }
                Kind::ConfigMap => {
                    let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
                    watched(watcher(api, config), config_map_data).map(tag).boxed()
                }
            };
            streams.push(stream);
        }
        Self { streams, listing: BTreeMap::new(), unlisted: references, sources: Sources::default() }
    }

    /// Whether nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }

    /// Waits for the next change; returns the objects as the watches now see them once
    /// each has been listed, `None` if nothing is watched (the Pod reads no object).
    pub async fn next(&mut self) -> Option<&Sources> {
        loop {
            let (reference, event) = self.streams.next().await?;
            let changed = match event {
                watcher::Event::Init => {
                    self.listing.insert(reference, None);
                    false
                }
                watcher::Event::InitApply(data) => {
                    self.listing.insert(reference, data);
                    false
                }
                watcher::Event::InitDone => {
                    let listed = self.listing.remove(&reference).flatten();
                    self.unlisted.remove(&reference);
                    self.set(reference, listed)
                }
                watcher::Event::Apply(data) => self.set(reference, data),
                watcher::Event::Delete(_) => self.set(reference, None),
            };
            if changed && self.unlisted.is_empty() {
                return Some(&self.sources);
            }
        }
    }

    /// Records an object's data; whether that changed anything.
    fn set(&mut self, reference: Reference, data: Option<Data>) -> bool {
        let previous = self.sources.objects.insert(reference, data.clone());
        // The first listing of an object that does not exist is news too.
        previous.is_none_or(|previous| previous != data)
    }
}

/// A watch of one kind, its objects turned into their data; errors are retried with the
/// watcher's back-off (and only logged: the Pod keeps what it has meanwhile).
fn watched<K, S>(stream: S, data: fn(K) -> Data) -> impl futures::Stream<Item = watcher::Event<Option<Data>>>
where
    S: futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static,
{
    let convert = move |event: watcher::Event<K>| match event {
        watcher::Event::Init => watcher::Event::Init,
        watcher::Event::InitApply(object) => watcher::Event::InitApply(Some(data(object))),
        watcher::Event::InitDone => watcher::Event::InitDone,
        watcher::Event::Apply(object) => watcher::Event::Apply(Some(data(object))),
        watcher::Event::Delete(_) => watcher::Event::Delete(None),
    };
    stream.default_backoff().map_ok(convert).filter_map(|event| async move {
        match event {
            Ok(event) => Some(event),
            Err(e) => {
                tracing::debug!(error = %e, "watching a pod's secret or config map (retrying)");
                None
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn what_the_watches_saw_prints_keys_but_never_values() {
        let data: Data = [("password".to_string(), b"hunter2".to_vec())].into();
        let sources = Sources::of([((Kind::Secret, "creds".to_string()), Some(data))]);
        let printed = format!("{sources:?}");
        assert!(printed.contains("creds") && printed.contains("password"), "{printed}");
        assert!(!printed.contains("hunter2"), "{printed}");
    }

    #[test]
    fn a_pod_reads_the_objects_its_volumes_env_and_env_from_name() {
        let spec: k8s_openapi::api::core::v1::PodSpec = serde_json::from_value(json!({
            "containers": [{"name": "c", "env": [
                {"name": "A", "valueFrom": {"secretKeyRef": {"name": "s1", "key": "k"}}},
                {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "c1", "key": "k"}}},
                {"name": "C", "value": "x"},
            ], "envFrom": [{"secretRef": {"name": "s2"}}, {"configMapRef": {"name": "c2"}}]}],
            "volumes": [
                {"name": "v1", "secret": {"secretName": "s3"}},
                {"name": "v2", "configMap": {"name": "c1"}},
                {"name": "v3", "emptyDir": {}},
                {"name": "v4", "projected": {"sources": [{"secret": {"name": "s4"}}, {"configMap": {"name": "c3"}}]}},
            ],
        }))
        .unwrap();
        let references = references(spec.volumes.as_deref().unwrap_or_default(), &spec.containers);
        let names: Vec<(Kind, &str)> = references.iter().map(|(k, n)| (*k, n.as_str())).collect();
        assert_eq!(
            names,
            [
                (Kind::Secret, "s1"),
                (Kind::Secret, "s2"),
                (Kind::Secret, "s3"),
                (Kind::Secret, "s4"),
                (Kind::ConfigMap, "c1"),
                (Kind::ConfigMap, "c2"),
                (Kind::ConfigMap, "c3"),
            ]
        );
    }
}
