//! A Pod's volumes on this machine, kept as kubelet's volume manager keeps them: each one a
//! directory `<pod dir>/volumes/<name>/`, written with [`super::atomic_writer`] from what
//! [`super::volumes`] computes, and written again whenever a Secret or ConfigMap it reads
//! changes — the change arrives through a watch of that object ([`super::sources`]), so it
//! reaches the files as soon as the API server delivers it (kubelet's own sync period is up
//! to a minute plus its cache's TTL). Projected ServiceAccount tokens are requested when the
//! Pod starts and again at 80% of their lifetime, as kubelet refreshes them.
//!
//! `emptyDir` is a directory of the Pod's, mode 0777, for `medium: Memory` too: a tmpfs
//! would need a mount on this machine per Pod (and root), for no behaviour a dev cluster's
//! Pods can tell apart — so its contents count against the disk, not the Pod's memory.
//!
//! What the containers need is published on a watch channel: the Secrets and ConfigMaps as
//! last seen (for their env) and which volumes could not be set up and why. The directory
//! goes with the Pod (`pod.rs` removes it once every container has stopped).

use std::collections::BTreeMap;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, ObjectReference, Volume};
use kube::runtime::events::EventType;
use tokio::sync::watch;
use tokio::time::Instant;

use super::atomic_writer::{AtomicWriter, WriteError};
use super::downward::PodFields;
use super::process;
use super::sources::{Sources, Watches, references};
use super::tokens::{self, Ask, TokenError};
use super::volumes::{Content, TokenKey, VolumeContext, VolumeError, token_keys};
use super::{Node, error_chain};

/// A token is refreshed once this share of its lifetime has passed (kubelet: 80%).
const REFRESH_AT: f64 = 0.8;
/// The first pause before a failed token request is tried again; it doubles up to
/// [`RETRY_MAX`].
const RETRY_START: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(300);

/// Why one volume is not set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// What it should hold cannot be read.
    #[error(transparent)]
    Content(#[from] VolumeError),
    /// Its files could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Its directory could not be made.
    #[error("creating {}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// What the Pod's containers wait for.
#[derive(Debug, Default)]
pub struct Prepared {
    /// The Secrets and ConfigMaps the Pod reads, as last seen.
    pub sources: Sources,
    /// The volumes that are not set up, by name.
    pub failures: BTreeMap<String, SetupError>,
}

/// Everything about a Pod its volumes are made of.
pub struct PodVolumes {
    /// `<pod dir>/volumes`.
    pub root: PathBuf,
    /// The Pod's fields.
    pub fields: PodFields,
    /// Its volumes.
    pub volumes: Vec<Volume>,
    /// Its containers.
    pub containers: Vec<Container>,
    /// The Pod, for Events.
    pub reference: ObjectReference,
    /// Its log.
    pub log: PathBuf,
}

/// The directory of volume `name` under `root`.
pub fn volume_dir(root: &Path, name: &str) -> PathBuf {
    root.join(name)
}

/// An issued token and when to ask again.
struct Issued {
    token: String,
    refresh: Instant,
    retry: Duration,
}

impl PodVolumes {
    /// The directory of volume `name`, if the Pod has it.
    pub fn dir(&self, name: &str) -> Option<PathBuf> {
        self.volumes.iter().any(|v| v.name == name).then(|| volume_dir(&self.root, name))
    }

    /// Sets the volumes up and keeps them in sync until `stop`, publishing what the
    /// containers need on `prepared` after each change.
    pub async fn run(
        self: Arc<Self>,
        node: Arc<Node>,
        prepared: watch::Sender<Option<Arc<Prepared>>>,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut watches =
            Watches::start(&node.client(), &self.fields.namespace, references(&self.volumes, &self.containers));
        let mut tokens: BTreeMap<TokenKey, Issued> = BTreeMap::new();
        for key in token_keys(&self.volumes) {
            let issued = tokio::select! {
                _ = stop.wait_for(|s| *s) => return,
                issued = self.token(&node, &key) => issued,
            };
            let retry = RETRY_START;
            let issued = match issued {
                Ok(token) => Issued { token, refresh: refresh_time(&key), retry },
                Err(e) => {
                    self.note(&format!("requesting a token for audience {:?}: {}", key.0, error_chain(&e)));
                    Issued { token: String::new(), refresh: Instant::now() + retry, retry: retry * 2 }
                }
            };
            tokens.insert(key, issued);
        }
        let mut sources = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            // `None`: the Pod reads no Secret or ConfigMap.
            listed = watches.next() => listed.cloned().unwrap_or_default(),
        };
        let mut reported: BTreeMap<String, String> = BTreeMap::new();
        loop {
            let issued: BTreeMap<TokenKey, String> =
                tokens.iter().filter(|(_, i)| !i.token.is_empty()).map(|(k, i)| (k.clone(), i.token.clone())).collect();
            let failures = self.write(&sources, &issued);
            self.report(&node, &failures, &mut reported);
            prepared.send_replace(Some(Arc::new(Prepared { sources: sources.clone(), failures })));
            let next_refresh = tokens.iter().min_by_key(|(_, i)| i.refresh).map(|(k, i)| (k.clone(), i.refresh));
            let refresh = async {
                match &next_refresh {
                    Some((_, at)) => tokio::time::sleep_until(*at).await,
                    None => std::future::pending().await,
                }
            };
            let due = tokio::select! {
                _ = stop.wait_for(|s| *s) => return,
                // Without any object to watch, only tokens change.
                Some(changed) = watches.next(), if !watches.is_empty() => {
                    sources = changed.clone();
                    None
                }
                () = refresh => next_refresh.map(|(key, _)| key),
            };
            if let Some(key) = due {
                let result = tokio::select! {
                    _ = stop.wait_for(|s| *s) => return,
                    result = self.token(&node, &key) => result,
                };
                self.refreshed(&mut tokens, key, result);
            }
        }
    }

    /// Records a token refresh (or its failure, keeping the old token until it works).
    fn refreshed(&self, tokens: &mut BTreeMap<TokenKey, Issued>, key: TokenKey, result: Result<String, TokenError>) {
        let Some(issued) = tokens.get_mut(&key) else { return };
        match result {
            Ok(token) => {
                *issued = Issued { token, refresh: refresh_time(&key), retry: RETRY_START };
            }
            Err(e) => {
                self.note(&format!("refreshing a token for audience {:?}: {}", key.0, error_chain(&e)));
                issued.refresh = Instant::now() + issued.retry;
                issued.retry = (issued.retry * 2).min(RETRY_MAX);
            }
        }
    }

    async fn token(&self, node: &Node, key: &TokenKey) -> Result<String, TokenError> {
        let ask = Ask {
            namespace: &self.fields.namespace,
            service_account: &self.fields.service_account,
            pod: Some((&self.fields.name, &self.fields.uid)),
            audience: Some(key.0.as_str()).filter(|a| !a.is_empty()),
            seconds: key.1,
            log: &self.log,
        };
        tokens::request(node.client(), &ask).await
    }

    /// Writes every volume; returns those that could not be set up.
    fn write(&self, sources: &Sources, tokens: &BTreeMap<TokenKey, String>) -> BTreeMap<String, SetupError> {
        let context = VolumeContext { pod: &self.fields, containers: &self.containers, sources, tokens };
        let mut failures = BTreeMap::new();
        for volume in &self.volumes {
            let dir = volume_dir(&self.root, &volume.name);
            let written = match context.content(volume) {
                Ok(Content::Files(payload)) => {
                    AtomicWriter::new(dir).write(&payload).map(drop).map_err(SetupError::from)
                }
                Ok(Content::Empty) => empty_dir(&dir),
                Ok(Content::Unsupported(kind)) => {
                    if !dir.exists() {
                        self.note(&format!(
                            "volume {:?}: {kind} volumes are not provided by the dev cluster; an empty directory stands in",
                            volume.name
                        ));
                    }
                    empty_dir(&dir)
                }
                Err(e) => Err(e.into()),
            };
            if let Err(e) = written {
                failures.insert(volume.name.clone(), e);
            }
        }
        failures
    }

    /// Files a `FailedMount` Event for each failure that is new or says something new.
    fn report(&self, node: &Node, failures: &BTreeMap<String, SetupError>, reported: &mut BTreeMap<String, String>) {
        reported.retain(|name, _| failures.contains_key(name));
        for (name, failure) in failures {
            let message = format!("MountVolume.SetUp failed for volume {name:?} : {}", error_chain(failure));
            if reported.get(name) != Some(&message) {
                self.note(&message);
                node.event(&self.reference, EventType::Warning, "FailedMount", "Mount", message.clone());
                reported.insert(name.clone(), message);
            }
        }
    }

    fn note(&self, line: &str) {
        process::log_line(&self.log, &format!("pod {}: {line}", self.fields.name));
    }
}

fn refresh_time(key: &TokenKey) -> Instant {
    let lifetime = Duration::from_secs(u64::try_from(key.1).unwrap_or(0));
    Instant::now() + lifetime.mul_f64(REFRESH_AT)
}

fn empty_dir(dir: &Path) -> Result<(), SetupError> {
    use std::os::unix::fs::PermissionsExt;
    let made = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o777)
        .create(dir)
        .and_then(|()| std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)));
    made.map_err(|source| SetupError::Dir { path: dir.to_path_buf(), source })
}
