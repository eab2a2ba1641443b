//! Container logs as a kubelet keeps them: one file per run of a container,
//! `<dir>/logs/<node>/pods/<namespace>_<pod>_<uid>/<container>/<restart>.log`, each line
//! in the CRI format (`<RFC 3339 time> stdout|stderr F <text>`), removed with the Pod.
//! The simulator copies a process's stdout and stderr there (and, raw, to the
//! Deployment's log that `fleetctl dev logs` reads), and wakes whoever follows the file.
//!
//! [`read`] answers the kubelet's `containerLogs` options: `tailLines`, `sinceSeconds` /
//! `sinceTime`, `timestamps`, `limitBytes`, `previous` and `follow` (which ends when that
//! run of the container ends).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use futures::Stream;
use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::watch;

use super::process::open_log;

/// The logs of one node's containers.
#[derive(Debug)]
pub struct Logs {
    root: PathBuf,
    /// Per run file: bumped on every line, and dropped when the run ends.
    live: Mutex<HashMap<PathBuf, watch::Sender<u64>>>,
}

/// One run of a container: where its output goes.
#[derive(Debug, Clone)]
pub struct Sink {
    /// The run's file.
    pub path: PathBuf,
    /// The Deployment's log, which gets the raw lines too.
    pub combined: PathBuf,
    logs: Option<Arc<Logs>>,
}

impl Sink {
    /// A sink no one follows (tests).
    pub fn detached(path: PathBuf, combined: PathBuf) -> Self {
        Self { path, combined, logs: None }
    }

    /// Appends one line of `stream` output.
    fn line(&self, stream: &str, text: &[u8]) {
        let stamp = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.9fZ");
        let mut entry = format!("{stamp} {stream} F ").into_bytes();
        entry.extend_from_slice(text);
        entry.push(b'\n');
        let mut raw = text.to_vec();
        raw.push(b'\n');
        for (path, bytes) in [(&self.path, &entry), (&self.combined, &raw)] {
            if let Err(e) = open_log(path).and_then(|mut f| f.write_all(bytes)) {
                tracing::debug!(error = %e, log = %path.display(), "writing a container log");
            }
        }
        if let Some(logs) = &self.logs
            && let Some(sender) = logs.live.lock().get(&self.path)
        {
            sender.send_modify(|n| *n += 1);
        }
    }

    /// Copies a process's output stream, line by line, until it closes.
    pub fn copy(
        &self,
        stream: &'static str,
        output: impl AsyncRead + Unpin + Send + 'static,
    ) -> tokio::task::JoinHandle<()> {
        let sink = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(output);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = line.strip_suffix(b"\n").unwrap_or(&line);
                        sink.line(stream, text);
                    }
                }
            }
        })
    }

    /// The run ended: followers stop at the end of the file.
    pub fn close(&self) {
        if let Some(logs) = &self.logs {
            logs.live.lock().remove(&self.path);
        }
    }
}

/// Why logs cannot be served, with the status a kubelet answers.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// No such Pod or container on this node.
    #[error("{0}")]
    NotFound(String),
    /// The container has no run (yet, or before the one asked for).
    #[error("{0}")]
    BadRequest(String),
}

/// The options of a `containerLogs` request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    /// Only the last lines.
    pub tail_lines: Option<usize>,
    /// Only lines newer than this many seconds.
    pub since_seconds: Option<i64>,
    /// Only lines from this time on (RFC 3339).
    pub since_time: Option<String>,
    /// Each line with its time.
    pub timestamps: bool,
    /// At most this many bytes.
    pub limit_bytes: Option<usize>,
    /// The run before the current one.
    pub previous: bool,
    /// Keep sending what the run writes until it ends.
    pub follow: bool,
}

impl LogOptions {
    /// The options of a query the API server wrote (`name=value&…`, values unescaped);
    /// what does not parse is left unset.
    pub fn parse(query: &str) -> Self {
        let mut options = Self::default();
        for (name, value) in query.split('&').filter_map(|pair| pair.split_once('=')) {
            match name {
                "tailLines" => options.tail_lines = value.parse().ok(),
                "sinceSeconds" => options.since_seconds = value.parse().ok(),
                "sinceTime" => options.since_time = Some(value.to_string()),
                "timestamps" => options.timestamps = value == "true",
                "limitBytes" => options.limit_bytes = value.parse().ok(),
                "previous" => options.previous = value == "true",
                "follow" => options.follow = value == "true",
                _ => {}
            }
        }
        options
    }
}

impl Logs {
    /// The logs under `dir` (the node's log directory).
    pub fn new(dir: &Path) -> Self {
        Self { root: dir.join("pods"), live: Mutex::new(HashMap::new()) }
    }

    fn pod_dir(&self, namespace: &str, pod: &str, uid: &str) -> PathBuf {
        self.root.join(format!("{namespace}_{pod}_{uid}"))
    }

    /// The sink of run `restart` of a container, followed until [`Sink::close`].
    pub fn open(self: &Arc<Self>, pod: (&str, &str, &str), container: &str, restart: i32, combined: &Path) -> Sink {
        let (namespace, name, uid) = pod;
        let path = self.pod_dir(namespace, name, uid).join(container).join(format!("{restart}.log"));
        // The file exists from the start: a run with no output yet has an empty log.
        if let Err(e) = open_log(&path) {
            tracing::debug!(error = %e, log = %path.display(), "creating a container log");
        }
        self.live.lock().insert(path.clone(), watch::channel(0).0);
        Sink { path, combined: combined.to_path_buf(), logs: Some(self.clone()) }
    }

    /// Removes a Pod's logs (it is gone).
    pub fn remove(&self, namespace: &str, pod: &str, uid: &str) {
        let dir = self.pod_dir(namespace, pod, uid);
        if let Err(e) = std::fs::remove_dir_all(&dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!(error = %e, dir = %dir.display(), "removing a pod's logs");
        }
    }

    /// The runs of a container on this node, oldest first.
    fn runs(&self, namespace: &str, pod: &str, container: &str) -> Result<Vec<PathBuf>, LogError> {
        let prefix = format!("{namespace}_{pod}_");
        let dir = std::fs::read_dir(&self.root)
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix)))
            .ok_or_else(|| {
                LogError::NotFound(format!("pod \"{pod}\" in namespace \"{namespace}\" is not on this node"))
            })?;
        let mut runs: Vec<(i32, PathBuf)> = std::fs::read_dir(dir.join(container))
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let path = e.path();
                let n = path.file_stem()?.to_str()?.parse().ok()?;
                Some((n, path))
            })
            .collect();
        runs.sort();
        Ok(runs.into_iter().map(|(_, p)| p).collect())
    }

    /// The log of a container as the options ask, as a stream of bytes.
    pub fn read(
        self: &Arc<Self>,
        namespace: &str,
        pod: &str,
        container: &str,
        options: &LogOptions,
    ) -> Result<impl Stream<Item = Result<Bytes, std::io::Error>> + Send + use<>, LogError> {
        let runs = self.runs(namespace, pod, container)?;
        let path = if options.previous {
            runs.iter().rev().nth(1).cloned().ok_or_else(|| {
                LogError::BadRequest(format!(
                    "previous terminated container \"{container}\" in pod \"{pod}\" not found"
                ))
            })?
        } else {
            runs.last().cloned().ok_or_else(|| {
                LogError::BadRequest(format!(
                    "container \"{container}\" in pod \"{pod}\" is waiting to start: ContainerCreating"
                ))
            })?
        };
        let since = match (&options.since_time, options.since_seconds) {
            (Some(time), _) => time.parse::<jiff::Timestamp>().ok(),
            (None, Some(seconds)) => jiff::Timestamp::now().checked_sub(jiff::SignedDuration::from_secs(seconds)).ok(),
            (None, None) => None,
        };
        let format = Format { since, timestamps: options.timestamps };
        let content = std::fs::read(&path).unwrap_or_default();
        let mut lines: Vec<Vec<u8>> =
            content.split(|b| *b == b'\n').filter(|l| !l.is_empty()).filter_map(|l| format.line(l)).collect();
        if let Some(tail) = options.tail_lines {
            lines.drain(..lines.len().saturating_sub(tail));
        }
        let mut first: Vec<u8> = lines.concat();
        let mut budget = options.limit_bytes.unwrap_or(usize::MAX);
        first.truncate(budget);
        budget -= first.len();
        let follow = if options.follow && !options.previous && budget > 0 {
            self.live.lock().get(&path).map(watch::Sender::subscribe)
        } else {
            None
        };
        let state = Follow { path, offset: content.len(), changes: follow, format, budget, first: Some(first) };
        Ok(futures::stream::unfold(state, Follow::next))
    }
}

/// How stored lines are shown.
#[derive(Debug, Clone, Copy)]
struct Format {
    since: Option<jiff::Timestamp>,
    timestamps: bool,
}

impl Format {
    /// A stored CRI line as the client sees it, or `None` when filtered out.
    fn line(&self, stored: &[u8]) -> Option<Vec<u8>> {
        let mut parts = stored.splitn(4, |b| *b == b' ');
        let stamp = parts.next()?;
        let _stream = parts.next()?;
        let _tag = parts.next()?;
        let text = parts.next().unwrap_or_default();
        if let Some(since) = self.since {
            let at: jiff::Timestamp = std::str::from_utf8(stamp).ok()?.parse().ok()?;
            if at < since {
                return None;
            }
        }
        let mut out = Vec::with_capacity(stamp.len() + text.len() + 2);
        if self.timestamps {
            out.extend_from_slice(stamp);
            out.push(b' ');
        }
        out.extend_from_slice(text);
        out.push(b'\n');
        Some(out)
    }
}

/// A log being sent: what is there, then (following) what comes.
struct Follow {
    path: PathBuf,
    offset: usize,
    changes: Option<watch::Receiver<u64>>,
    format: Format,
    budget: usize,
    first: Option<Vec<u8>>,
}

impl Follow {
    async fn next(mut self) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        if let Some(first) = self.first.take()
            && !first.is_empty()
        {
            return Some((Ok(Bytes::from(first)), self));
        }
        loop {
            let changes = self.changes.as_mut()?;
            // The run ended (its sender dropped): one last read, then the end.
            let ended = changes.changed().await.is_err();
            let content = std::fs::read(&self.path).unwrap_or_default();
            let fresh = content.get(self.offset..).unwrap_or_default();
            // Only whole lines; a partial one waits for its end.
            let whole = fresh.iter().rposition(|b| *b == b'\n').map_or(0, |at| at + 1);
            self.offset += whole;
            let mut out: Vec<u8> = fresh[..whole]
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .filter_map(|l| self.format.line(l))
                .flatten()
                .collect();
            out.truncate(self.budget);
            self.budget -= out.len();
            if ended || self.budget == 0 {
                self.changes = None;
            }
            if !out.is_empty() {
                return Some((Ok(Bytes::from(out)), self));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    async fn text(logs: &Arc<Logs>, options: LogOptions) -> Result<String, LogError> {
        let stream = logs.read("ns", "p", "c", &options)?;
        let chunks: Vec<Bytes> = stream.map(|c| c.unwrap()).collect().await;
        Ok(String::from_utf8(chunks.concat()).unwrap())
    }

    #[test]
    fn the_kubelet_reads_every_log_option_from_the_query() {
        let options = LogOptions {
            tail_lines: Some(5),
            since_seconds: Some(60),
            since_time: Some("2026-01-01T00:00:00Z".into()),
            timestamps: true,
            limit_bytes: Some(100),
            previous: true,
            follow: true,
        };
        let query = "tailLines=5&sinceSeconds=60&sinceTime=2026-01-01T00:00:00Z&timestamps=true&limitBytes=100&previous=true&follow=true&other=1";
        assert_eq!(LogOptions::parse(query), options);
        assert_eq!(LogOptions::parse(""), LogOptions::default());
    }

    #[tokio::test]
    async fn logs_answer_tail_timestamps_previous_and_follow_until_the_run_ends() {
        let dir = tempfile::tempdir().unwrap();
        let logs = Arc::new(Logs::new(dir.path()));
        let combined = dir.path().join("combined.log");
        let missing = text(&logs, LogOptions::default()).await.unwrap_err();
        assert!(matches!(missing, LogError::NotFound(_)), "{missing:?}");

        let first = logs.open(("ns", "p", "u1"), "c", 0, &combined);
        first.line("stdout", b"one");
        first.line("stderr", b"two");
        first.close();
        let no_previous = text(&logs, LogOptions { previous: true, ..LogOptions::default() }).await.unwrap_err();
        assert_eq!(no_previous.to_string(), "previous terminated container \"c\" in pod \"p\" not found");
        let second = logs.open(("ns", "p", "u1"), "c", 1, &combined);
        second.line("stdout", b"three");
        second.line("stdout", b"four");

        assert_eq!(text(&logs, LogOptions::default()).await.unwrap(), "three\nfour\n");
        assert_eq!(text(&logs, LogOptions { previous: true, ..LogOptions::default() }).await.unwrap(), "one\ntwo\n");
        assert_eq!(text(&logs, LogOptions { tail_lines: Some(1), ..LogOptions::default() }).await.unwrap(), "four\n");
        assert_eq!(
            text(&logs, LogOptions { limit_bytes: Some(7), ..LogOptions::default() }).await.unwrap(),
            "three\nf"
        );
        let stamped = text(&logs, LogOptions { timestamps: true, ..LogOptions::default() }).await.unwrap();
        let (stamp, rest) = stamped.split_once(' ').unwrap();
        assert!(stamp.parse::<jiff::Timestamp>().is_ok(), "{stamp}");
        assert!(rest.starts_with("three\n"));
        let future = LogOptions { since_time: Some("2999-01-01T00:00:00Z".into()), ..LogOptions::default() };
        assert_eq!(text(&logs, future).await.unwrap(), "");
        assert_eq!(std::fs::read_to_string(&combined).unwrap(), "one\ntwo\nthree\nfour\n");

        let followed = {
            let logs = logs.clone();
            tokio::spawn(async move { text(&logs, LogOptions { follow: true, ..LogOptions::default() }).await })
        };
        // The follower has read what was there before this line comes, or reads it
        // with the rest: either way it ends when the run does.
        tokio::task::yield_now().await;
        second.line("stdout", b"five");
        second.close();
        assert_eq!(followed.await.unwrap().unwrap(), "three\nfour\nfive\n");
        logs.remove("ns", "p", "u1");
        assert!(matches!(text(&logs, LogOptions::default()).await, Err(LogError::NotFound(_))));
    }
}
