//! Leader election through a coordination.k8s.io Lease, so two replicas of a
//! controller never act at once.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, PostParams};
use kube::runtime::watcher;

/// Why leadership could not be taken or kept.
#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    /// The API refused a read or write of the Lease.
    #[error("reading or writing lease {name}")]
    Api {
        /// The lease.
        name: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// The lease could not be renewed in time and another candidate may lead now.
    #[error("lost the leader lease")]
    Lost,
}

/// One candidate for leadership of `name`.
#[derive(Clone)]
pub struct Candidate {
    api: Api<Lease>,
    name: String,
    identity: String,
    duration: Duration,
}

fn now() -> jiff::Timestamp {
    jiff::Timestamp::now()
}

impl Candidate {
    /// A candidate named `identity` for the Lease `name` in the Api's namespace.
    pub fn new(api: Api<Lease>, name: &str, identity: &str, duration: Duration) -> Self {
        Self { api, name: name.to_string(), identity: identity.to_string(), duration }
    }

    fn error(&self, source: kube::Error) -> LeaderError {
        LeaderError::Api { name: self.name.clone(), source }
    }

    /// The instant the current holder's claim runs out, or `None` if we may take it now.
    fn held_until(&self, lease: &Lease) -> Option<jiff::Timestamp> {
        let spec = lease.spec.as_ref()?;
        if spec.holder_identity.as_deref().is_none_or(|h| h.is_empty() || h == self.identity) {
            return None;
        }
        let renewed = spec.renew_time.as_ref()?.0;
        let seconds = i64::from(spec.lease_duration_seconds.unwrap_or(15));
        let until = renewed.checked_add(jiff::SignedDuration::from_secs(seconds)).ok()?;
        (until > now()).then_some(until)
    }

    fn claim(&self, lease: Option<&Lease>) -> Lease {
        let stamp = MicroTime(now());
        let acquired = lease
            .and_then(|l| l.spec.as_ref())
            .filter(|s| s.holder_identity.as_deref() == Some(self.identity.as_str()))
            .and_then(|s| s.acquire_time.clone())
            .unwrap_or_else(|| stamp.clone());
        let mut claimed = match lease {
            // The existing metadata carries the resourceVersion the replace is checked against.
            Some(existing) => Lease { metadata: existing.metadata.clone(), spec: existing.spec.clone() },
            None => {
                Lease { metadata: ObjectMeta { name: Some(self.name.clone()), ..ObjectMeta::default() }, spec: None }
            }
        };
        let spec = claimed.spec.get_or_insert_with(Default::default);
        // A change of holder is a transition, as client-go's leader election counts them.
        if spec.holder_identity.as_deref() != Some(self.identity.as_str()) && lease.is_some() {
            spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
        }
        spec.holder_identity = Some(self.identity.clone());
        spec.lease_duration_seconds = i32::try_from(self.duration.as_secs()).ok();
        spec.acquire_time = Some(acquired);
        spec.renew_time = Some(stamp);
        claimed
    }

    /// Tries once to hold the lease; `Ok(None)` means we hold it now, `Ok(Some(t))`
    /// that someone else holds it until `t`.
    async fn try_acquire(&self) -> Result<Option<jiff::Timestamp>, LeaderError> {
        let current = self.api.get_opt(&self.name).await.map_err(|e| self.error(e))?;
        if let Some(until) = current.as_ref().and_then(|l| self.held_until(l)) {
            return Ok(Some(until));
        }
        let claimed = self.claim(current.as_ref());
        let written = match current {
            None => self.api.create(&PostParams::default(), &claimed).await,
            Some(_) => self.api.replace(&self.name, &PostParams::default(), &claimed).await,
        };
        match written {
            Ok(_) => Ok(None),
            // Someone else wrote first: look again.
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(Some(now())),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Waits until this candidate leads; returns a guard that keeps renewing.
    pub async fn acquire(self) -> Result<Leadership, LeaderError> {
        loop {
            let Some(until) = self.try_acquire().await? else { break };
            // Wake when the holder's claim runs out or the lease changes (released or renewed).
            let changes =
                watcher(self.api.clone(), watcher::Config::default().fields(&format!("metadata.name={}", self.name)));
            let wait = until.duration_since(now()).unsigned_abs();
            let mut changes = std::pin::pin!(changes.skip(1));
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = changes.next() => {}
            }
        }
        tracing::info!(lease = %self.name, identity = %self.identity, "became leader");
        let (lost_tx, lost) = tokio::sync::watch::channel(false);
        let renewer = tokio::spawn(renew(self.clone(), lost_tx));
        Ok(Leadership { lost, renewer, candidate: self })
    }
}

async fn renew(candidate: Candidate, lost: tokio::sync::watch::Sender<bool>) {
    let every = candidate.duration / 3;
    let mut last_renewal = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        match candidate.try_acquire().await {
            Ok(None) => last_renewal = tokio::time::Instant::now(),
            Ok(Some(_)) => break,
            Err(e) => tracing::warn!(error = %e, "renewing the leader lease failed"),
        }
        if last_renewal.elapsed() >= candidate.duration {
            break;
        }
    }
    tracing::warn!(lease = %candidate.name, "lost leadership");
    let _ = lost.send(true);
}

/// Held leadership; dropping it stops renewing.
pub struct Leadership {
    lost: tokio::sync::watch::Receiver<bool>,
    renewer: tokio::task::JoinHandle<()>,
    candidate: Candidate,
}

impl Leadership {
    /// Resolves when leadership is lost (the lease could not be renewed in time).
    pub async fn lost(&mut self) {
        let _ = self.lost.wait_for(|lost| *lost).await;
    }

    /// Gives the lease up so a successor leads at once instead of after its expiry.
    pub async fn release(self) {
        self.renewer.abort();
        let api = &self.candidate.api;
        let Ok(Some(mut lease)) = api.get_opt(&self.candidate.name).await else { return };
        let spec = lease.spec.get_or_insert_with(Default::default);
        if spec.holder_identity.as_deref() != Some(self.candidate.identity.as_str()) {
            return;
        }
        spec.holder_identity = None;
        if let Err(e) = api.replace(&self.candidate.name, &PostParams::default(), &lease).await {
            tracing::debug!(error = %e, "releasing the leader lease failed; it expires instead");
        }
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        self.renewer.abort();
    }
}
