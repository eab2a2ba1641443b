//! Where a container sees its Pod's volumes (`volumeMounts`: `mountPath`, `readOnly`,
//! `subPath`, `subPathExpr`), and how a container that cannot be given mounts finds them.
//!
//! - A podman container gets each volume's directory bound at its `mountPath`
//!   ([`super::container`]).
//! - A process in a mount namespace of its own ([`super::process::Isolation::MountNamespace`],
//!   the simulator running as root) gets the same bind mounts there, made between fork and
//!   exec. A `mountPath` missing from the machine gets an empty directory (or file) created
//!   as its mount point, as a runtime creates one in an image's root filesystem: the process
//!   shares the machine's filesystem, so the empty mount point stays (outside `/run`, which
//!   is the Pod's own).
//! - A process without one ([`super::process::Isolation::Kubeconfig`]) and a container run as
//!   a task of the simulator share this machine's mounts, so a mount cannot be placed at its
//!   `mountPath`. Their args and env values are rewritten instead: a value that is a
//!   `mountPath`, or starts with one followed by `/` (or follows `=` in a `--flag=path`
//!   argument), names the volume's directory on this machine. What a program reads from a
//!   path it was not given (a compiled-in default) is not found: the fix is to pass the path.

use std::path::{Component, Path, PathBuf};

use k8s_openapi::api::core::v1::{Container, VolumeMount};

use super::env::expand;

/// One mount of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// The directory (or file, for a `subPath`) on this machine.
    pub source: PathBuf,
    /// Where the container sees it.
    pub target: String,
    /// Whether the container may only read it.
    pub read_only: bool,
}

/// A mount that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MountError {
    /// The mount names a volume the Pod does not have.
    #[error("volume {0:?} not found in the pod")]
    NoVolume(String),
    /// A `subPath` that leaves its volume or is absolute.
    #[error("invalid subPath {0:?}")]
    SubPath(String),
}

/// The mounts of `container`, given the directory of each volume by name and the
/// container's environment (for `subPathExpr`), sorted so that a mount nested in another
/// comes after it.
pub fn mounts_of(
    container: &Container,
    volume_dir: impl Fn(&str) -> Option<PathBuf>,
    env: &[(String, String)],
) -> Result<Vec<Mount>, MountError> {
    let mut mounts = container
        .volume_mounts
        .iter()
        .flatten()
        .map(|mount| {
            let dir = volume_dir(&mount.name).ok_or_else(|| MountError::NoVolume(mount.name.clone()))?;
            Ok(Mount {
                source: with_sub_path(dir, mount, env)?,
                target: mount.mount_path.clone(),
                read_only: mount.read_only == Some(true),
            })
        })
        .collect::<Result<Vec<_>, MountError>>()?;
    mounts.sort_by_key(|m| Path::new(&m.target).components().count());
    Ok(mounts)
}

fn with_sub_path(dir: PathBuf, mount: &VolumeMount, env: &[(String, String)]) -> Result<PathBuf, MountError> {
    let sub_path = match (&mount.sub_path, &mount.sub_path_expr) {
        (Some(path), _) if !path.is_empty() => path.clone(),
        (_, Some(expr)) if !expr.is_empty() => expand(expr, env),
        _ => return Ok(dir),
    };
    let plain = Path::new(&sub_path).components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !plain {
        return Err(MountError::SubPath(sub_path));
    }
    Ok(dir.join(sub_path))
}

/// The mount with its source as the container gets it: a `subPath` missing from its
/// volume is made a directory (as kubelet does), and links are resolved (a `subPath` of a
/// Secret or ConfigMap volume binds the file of the current generation, which — as with
/// kubelet — an update does not replace).
pub fn resolve(mount: Mount) -> Result<Mount, std::io::Error> {
    if std::fs::symlink_metadata(&mount.source).is_err() {
        std::fs::create_dir_all(&mount.source)?;
    }
    let source = std::fs::canonicalize(&mount.source)?;
    Ok(Mount { source, ..mount })
}

/// `value` with a leading mount path (or one after the `=` of a `--flag=`) replaced by its
/// directory on this machine; the longest matching mount path wins.
pub fn rewrite(value: &str, mounts: &[Mount]) -> String {
    let (head, path) = match value.split_once('=') {
        Some((flag, path)) if flag.starts_with('-') => (&value[..=flag.len()], path),
        _ => ("", value),
    };
    let matched = mounts
        .iter()
        .filter(|m| {
            let target = m.target.trim_end_matches('/');
            path == target || path.strip_prefix(target).is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|m| m.target.len());
    match matched {
        Some(mount) => {
            let rest = &path[mount.target.trim_end_matches('/').len()..];
            format!("{head}{}{rest}", mount.source.display())
        }
        None => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn container(mounts: serde_json::Value) -> Container {
        serde_json::from_value(json!({"name": "c", "volumeMounts": mounts})).unwrap()
    }

    fn dirs(name: &str) -> Option<PathBuf> {
        ["cfg", "data", "tmp"].contains(&name).then(|| PathBuf::from(format!("/pods/p/volumes/{name}")))
    }

    #[test]
    fn mounts_take_their_volume_directory_sub_path_and_read_only_flag_outer_first() {
        let c = container(json!([
            {"name": "cfg", "mountPath": "/etc/app/conf", "readOnly": true},
            {"name": "data", "mountPath": "/etc/app/key", "subPath": "keys/k1"},
            {"name": "tmp", "mountPath": "/etc"},
            {"name": "data", "mountPath": "/srv", "subPathExpr": "$(POD)"},
        ]));
        let env = [("POD".to_string(), "p1".to_string())];
        let mounts = mounts_of(&c, dirs, &env).unwrap();
        let seen: Vec<(&str, String, bool)> =
            mounts.iter().map(|m| (m.target.as_str(), m.source.display().to_string(), m.read_only)).collect();
        assert_eq!(
            seen,
            [
                ("/etc", "/pods/p/volumes/tmp".into(), false),
                ("/srv", "/pods/p/volumes/data/p1".into(), false),
                ("/etc/app/conf", "/pods/p/volumes/cfg".into(), true),
                ("/etc/app/key", "/pods/p/volumes/data/keys/k1".into(), false),
            ]
        );
        let escape = container(json!([{"name": "data", "mountPath": "/x", "subPath": "../../etc"}]));
        assert_eq!(mounts_of(&escape, dirs, &[]), Err(MountError::SubPath("../../etc".into())));
        let unknown = container(json!([{"name": "nope", "mountPath": "/x"}]));
        assert_eq!(mounts_of(&unknown, dirs, &[]), Err(MountError::NoVolume("nope".into())));
    }

    #[test]
    fn paths_under_a_mount_path_in_args_and_env_name_the_volume_directory_without_a_mount_namespace() {
        let mounts = vec![
            Mount { source: "/v/spoke".into(), target: "/spoke".into(), read_only: false },
            Mount { source: "/v/boot".into(), target: "/spoke/bootstrap".into(), read_only: true },
        ];
        let cases = [
            ("/spoke/hub-kubeconfig/kubeconfig", "/v/spoke/hub-kubeconfig/kubeconfig"),
            ("/spoke/bootstrap/kubeconfig", "/v/boot/kubeconfig"),
            ("--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig", "--bootstrap-kubeconfig=/v/boot/kubeconfig"),
            ("/spoke", "/v/spoke"),
            ("/spokes/x", "/spokes/x"),
            ("name=/spoke/x", "name=/spoke/x"),
            ("relative/spoke", "relative/spoke"),
        ];
        for (value, rewritten) in cases {
            assert_eq!(rewrite(value, &mounts), rewritten, "{value}");
        }
    }
}
