//! `fleetctl hub backup -o FILE` and `fleetctl hub restore -f FILE`: the hub's fleet written
//! to a file (no Secret of the hub in it), and that file applied to another hub.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use clap::Args;
use thiserror::Error;

use super::connect::{Right, Role, check_rights, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::HubFlags;
use super::printer::Printer;
use crate::lifecycle::backup::{Backup, BackupOptions, backup, designate_recovery_hub, restore};
use fleetctl_hub::import::DEFAULT_RECOVER_AFTER;

/// `fleetctl hub backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The file to write (YAML, readable by its owner only); `-` writes to standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    file: PathBuf,
    /// Write ManifestWorks that carry Secrets too: their data is then in the file, as on the hub.
    #[arg(long)]
    include_work_secrets: bool,
    /// Make this hub (a context of --recovery-hub-kubeconfig, else of the hub's file) the
    /// fleet's recovery hub: the backup is restored onto it as a standby, and each imported
    /// cluster's klusterlet gets its bootstrap kubeconfig there, which it turns to once this
    /// hub has not answered for --recover-after. Run again to follow the fleet's changes.
    #[arg(long, value_name = "NAME")]
    recovery_hub_context: Option<String>,
    /// Kubeconfig of the recovery hub.
    #[arg(long, value_name = "FILE", requires = "recovery_hub_context")]
    recovery_hub_kubeconfig: Option<PathBuf>,
    /// How long the hub may stay silent before the klusterlets turn to the recovery hub.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_RECOVER_AFTER, value_parser = recover_after,
          requires = "recovery_hub_context")]
    recover_after: String,
}

/// `--recover-after`: a duration, kept as written (the klusterlets read it).
fn recover_after(text: &str) -> Result<String, String> {
    fleetctl_kube::duration::parse(text).map(|_| text.to_string())
}

/// `fleetctl hub restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The file `fleetctl hub backup` wrote.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    file: PathBuf,
}

/// What restoring needs on the hub, checked before anything is written.
const RESTORE_RIGHTS: [Right; 3] = [
    Right::new("create", "", "namespaces"),
    Right::new("create", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("create", "work.open-cluster-management.io", "manifestworks"),
];

/// A backup file that cannot be written or read.
#[derive(Debug, Error)]
enum FileError {
    /// Writing failed.
    #[error("writing {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Reading failed.
    #[error("reading {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not YAML of a backup.
    #[error("{path} is not a backup `fleetctl hub backup` wrote: {why}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl Fault for FileError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Write { .. } | Self::Read { .. } => ExitStatus::Failure,
            Self::Parse { .. } => ExitStatus::Usage,
        }
    }
}

/// Runs `hub backup`.
pub async fn run_backup(
    hub: &HubFlags,
    args: BackupArgs,
    timeout: std::time::Duration,
    printer: &Printer,
) -> Result<(), CommandError> {
    let (client, config) = connect(&hub.selection(), Role::Hub).await?;
    let options = BackupOptions { work_secrets: args.include_work_secrets };
    let taken = backup(&client, &config.cluster_url.to_string(), &options).await?;
    let yaml =
        serde_yaml::to_string(&taken).map_err(|e| FileError::Parse { path: args.file.clone(), why: e.to_string() })?;
    if args.file.as_os_str() == "-" {
        return Ok(printer.data(&yaml)?);
    }
    write_private(&args.file, &yaml).map_err(|source| FileError::Write { path: args.file.clone(), source })?;
    printer.note(&format!(
        "{} clusters, {} works, {} placements, {} cluster sets written to {}",
        taken.clusters.len(),
        taken.works.len(),
        taken.placements.len(),
        taken.cluster_sets.len(),
        args.file.display()
    ));
    if let Some(context) = &args.recovery_hub_context {
        let selection = hub.selection();
        let selection = fleetctl_kube::Selection {
            path: args.recovery_hub_kubeconfig.clone().or(selection.path),
            context: Some(context.clone()),
            flag: "--recovery-hub-kubeconfig",
            ..selection
        };
        let (recovery, recovery_config) = connect(&selection, Role::NewHub).await?;
        if recovery_config.cluster_url == config.cluster_url {
            return Err(SameHub(recovery_config.cluster_url.to_string()).into());
        }
        check_rights(&recovery, Role::NewHub, None, &RESTORE_RIGHTS).await?;
        let handed = designate_recovery_hub(
            &client,
            &recovery,
            &recovery_config.cluster_url.to_string(),
            &taken,
            &args.recover_after,
            timeout,
        )
        .await?;
        printer.note(&format!(
            "{handed} clusters will turn to the recovery hub at {} after {} without an answer from this one",
            recovery_config.cluster_url, args.recover_after
        ));
    }
    Ok(())
}

/// The recovery hub named is this hub.
#[derive(Debug, Error)]
#[error("the recovery hub is this hub ({0}): name another with --recovery-hub-context")]
struct SameHub(String);

impl Fault for SameHub {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Usage
    }
}

/// Writes `text` to `path` readable by its owner only, whole or not at all: a file beside it
/// renamed over it once written.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&partial)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&partial, path)
}

/// Runs `hub restore`.
pub async fn run_restore(hub: &HubFlags, args: RestoreArgs, printer: &Printer) -> Result<(), CommandError> {
    let text =
        std::fs::read_to_string(&args.file).map_err(|source| FileError::Read { path: args.file.clone(), source })?;
    let taken: Backup =
        serde_yaml::from_str(&text).map_err(|e| FileError::Parse { path: args.file.clone(), why: e.to_string() })?;
    let (client, _) = connect(&hub.selection(), Role::Hub).await?;
    check_rights(&client, Role::Hub, None, &RESTORE_RIGHTS).await?;
    let restored = restore(&client, &taken).await?;
    let counts: Vec<String> = restored.0.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
    printer.note(&format!(
        "restored from {} (taken {} from {}): {}",
        args.file.display(),
        taken.taken,
        taken.hub,
        counts.join(", ")
    ));
    Ok(())
}
