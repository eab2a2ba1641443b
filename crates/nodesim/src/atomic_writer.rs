//! Writing a volume's files so that a reader never sees a mix of old and new ones, as
//! kubelet's `AtomicWriter` (`pkg/volume/util/atomic_writer.go`) does:
//!
//! ```text
//! <volume>/..2026_12_05_13_04_05.123456789/<files>   a generation of the payload
//! <volume>/..data -> ..2026_12_05_13_04_05.123456789  swapped by a rename
//! <volume>/<top-level name> -> ..data/<top-level name>
//! ```
//!
//! A new payload is written into a fresh generation directory; a `..data_tmp` symlink to
//! it then replaces `..data` with one rename (atomic), the visible names are linked through
//! `..data`, names the payload no longer has are removed, and so is the old generation.
//! Names starting with `..` are the writer's own; a payload equal to what is there is not
//! written again.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// The link to the current generation.
const DATA: &str = "..data";
/// The link made beside it before the rename.
const DATA_TMP: &str = "..data_tmp";

/// One file of a payload.
#[derive(Clone, PartialEq, Eq)]
pub struct File {
    /// Its contents.
    pub data: Vec<u8>,
    /// Its permission bits.
    pub mode: u32,
}

/// Its size and mode, never its contents (a Secret's must not reach a log).
impl std::fmt::Debug for File {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "File({} bytes, {:o})", self.data.len(), self.mode)
    }
}

/// The files of a volume by their path relative to it.
pub type Payload = BTreeMap<String, File>;

/// Why a payload could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A path is absolute, has `..` in it, or starts with `..`.
    #[error("invalid path {0:?} in the volume")]
    Path(String),
    /// The filesystem refused.
    #[error("{what} {}", path.display())]
    Io {
        /// The step.
        what: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> WriteError {
    let path = path.to_path_buf();
    move |source| WriteError::Io { what, path, source }
}

/// Writes payloads into one volume directory.
#[derive(Debug, Clone)]
pub struct AtomicWriter {
    dir: PathBuf,
}

impl AtomicWriter {
    /// A writer of the volume at `dir` (created on the first write).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Makes the volume hold exactly `payload`; returns whether anything changed.
    pub fn write(&self, payload: &Payload) -> Result<bool, WriteError> {
        for path in payload.keys() {
            validate(path)?;
        }
        std::fs::DirBuilder::new().recursive(true).mode(0o755).create(&self.dir).map_err(io("creating", &self.dir))?;
        let old = std::fs::read_link(self.dir.join(DATA)).ok();
        if let Some(old) = &old
            && holds(&self.dir.join(old), payload)
        {
            return Ok(false);
        }
        let generation = self.write_generation(payload)?;
        let tmp = self.dir.join(DATA_TMP);
        // A crash between the two steps below leaves it behind.
        remove_if_present(&tmp)?;
        std::os::unix::fs::symlink(&generation, &tmp).map_err(io("linking", &tmp))?;
        let data = self.dir.join(DATA);
        std::fs::rename(&tmp, &data).map_err(io("renaming to", &data))?;
        let visible: BTreeSet<OsString> = payload.keys().filter_map(|p| top_level(p)).collect();
        for name in &visible {
            let link = self.dir.join(name);
            if std::fs::symlink_metadata(&link).is_err() {
                std::os::unix::fs::symlink(Path::new(DATA).join(name), &link).map_err(io("linking", &link))?;
            }
        }
        for entry in std::fs::read_dir(&self.dir).map_err(io("reading", &self.dir))?.flatten() {
            let name = entry.file_name();
            if !name.as_encoded_bytes().starts_with(b"..") && !visible.contains(&name) {
                remove_if_present(&entry.path())?;
            }
        }
        if let Some(old) = old
            && old != generation
        {
            let old = self.dir.join(old);
            std::fs::remove_dir_all(&old).map_err(io("removing", &old))?;
        }
        Ok(true)
    }

    /// Writes the payload into a new generation directory; returns its name.
    fn write_generation(&self, payload: &Payload) -> Result<PathBuf, WriteError> {
        let stamp = jiff::Timestamp::now().strftime("..%Y_%m_%d_%H_%M_%S.%f").to_string();
        // Two writes within one nanosecond's stamp get distinct names.
        let name = (0..)
            .map(|n| if n == 0 { stamp.clone() } else { format!("{stamp}{n}") })
            .find(|name| std::fs::symlink_metadata(self.dir.join(name)).is_err())
            .unwrap_or(stamp);
        let generation = self.dir.join(&name);
        std::fs::DirBuilder::new().mode(0o755).create(&generation).map_err(io("creating", &generation))?;
        for (path, file) in payload {
            let target = generation.join(path);
            if let Some(parent) = target.parent() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(parent)
                    .map_err(io("creating", parent))?;
            }
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(file.mode)
                .open(&target)
                .map_err(io("creating", &target))?;
            out.write_all(&file.data).map_err(io("writing", &target))?;
            // The mode asked for, whatever the umask.
            out.set_permissions(std::fs::Permissions::from_mode(file.mode))
                .map_err(io("setting the mode of", &target))?;
        }
        Ok(PathBuf::from(name))
    }
}

/// Whether the generation at `dir` holds exactly `payload` (contents and modes).
fn holds(dir: &Path, payload: &Payload) -> bool {
    let same = payload.iter().all(|(path, file)| {
        let target = dir.join(path);
        let mode = std::fs::metadata(&target).map(|m| m.permissions().mode() & 0o7777);
        mode.is_ok_and(|mode| mode == file.mode) && std::fs::read(&target).is_ok_and(|data| data == file.data)
    });
    same && count_files(dir) == payload.len()
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| if entry.path().is_dir() { count_files(&entry.path()) } else { 1 })
        .sum()
}

/// A relative path of plain names that does not start with `..`.
fn validate(path: &str) -> Result<(), WriteError> {
    let plain = Path::new(path).components().all(|c| matches!(c, Component::Normal(_)));
    if path.is_empty() || path.starts_with("..") || !plain {
        return Err(WriteError::Path(path.to_string()));
    }
    Ok(())
}

fn top_level(path: &str) -> Option<OsString> {
    Path::new(path).components().next().map(|c| c.as_os_str().to_os_string())
}

fn remove_if_present(path: &Path) -> Result<(), WriteError> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
    };
    removed.map_err(io("removing", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(files: &[(&str, &str, u32)]) -> Payload {
        files.iter().map(|(p, d, m)| (p.to_string(), File { data: d.as_bytes().to_vec(), mode: *m })).collect()
    }

    fn generations(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("..2"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_payload_is_swapped_in_through_the_data_link_and_old_files_go() {
        let dir = tempfile::tempdir().unwrap();
        let volume = dir.path().join("v");
        let writer = AtomicWriter::new(volume.clone());
        assert!(writer.write(&payload(&[("a", "1", 0o644), ("sub/b", "2", 0o400)])).unwrap());
        assert_eq!(std::fs::read_to_string(volume.join("a")).unwrap(), "1");
        assert_eq!(std::fs::read_to_string(volume.join("sub/b")).unwrap(), "2");
        assert_eq!(std::fs::read_link(volume.join("a")).unwrap(), Path::new("..data/a"));
        assert_eq!(std::fs::metadata(volume.join("sub/b")).unwrap().permissions().mode() & 0o777, 0o400);
        let first = generations(&volume);
        assert_eq!(first.len(), 1);

        assert!(!writer.write(&payload(&[("a", "1", 0o644), ("sub/b", "2", 0o400)])).unwrap(), "unchanged");
        assert_eq!(generations(&volume), first, "an unchanged payload is not written again");

        assert!(writer.write(&payload(&[("a", "3", 0o644)])).unwrap());
        assert_eq!(std::fs::read_to_string(volume.join("a")).unwrap(), "3");
        assert!(std::fs::symlink_metadata(volume.join("sub")).is_err(), "a name the payload lost is removed");
        let second = generations(&volume);
        assert_eq!(second.len(), 1, "the old generation is removed: {second:?}");
        assert_ne!(second, first);
        assert!(std::fs::symlink_metadata(volume.join(DATA_TMP)).is_err());
    }

    #[test]
    fn a_mode_change_alone_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let writer = AtomicWriter::new(dir.path().join("v"));
        writer.write(&payload(&[("a", "1", 0o644)])).unwrap();
        assert!(writer.write(&payload(&[("a", "1", 0o600)])).unwrap());
        assert_eq!(std::fs::metadata(dir.path().join("v/a")).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn paths_that_leave_the_volume_or_name_the_writers_own_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let writer = AtomicWriter::new(dir.path().join("v"));
        for bad in ["/etc/passwd", "../x", "a/../../x", "..data", "..x", ""] {
            assert!(matches!(writer.write(&payload(&[(bad, "1", 0o644)])), Err(WriteError::Path(_))), "{bad}");
        }
    }
}
