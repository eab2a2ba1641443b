//! `fleetctl hub install|uninstall`: the OCM CRDs, the hub namespace, least-privilege
//! RBAC and the hub controller Deployment.

use clap::{Args, Subcommand};

use super::connect::{Role, connect};
use super::exit::CommandError;
use super::flags::HubFlags;
use super::printer::Printer;
use fleetctl_api::names::{DEFAULT_REPOSITORY, VERSION, image as image_of};
use fleetctl_hub::manifests::{self, install};
use fleetctl_kube::{ApplyOptions, apply, delete_all};

/// `fleetctl hub …`
#[derive(Debug, Args)]
pub struct HubArgs {
    #[command(subcommand)]
    command: HubCommand,
    #[command(flatten)]
    hub: HubFlags,
}

#[derive(Debug, Subcommand)]
enum HubCommand {
    /// Install (or update) the hub: CRDs, RBAC and the hub controller. Idempotent.
    Install {
        /// The fleetctl image the hub controller runs.
        #[arg(long, value_name = "IMAGE")]
        image: Option<String>,
        /// Print the YAML instead of applying it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay
    /// unless --purge-crds).
    Uninstall {
        /// Also delete the OCM CRDs, and with them every ManagedCluster and ManifestWork.
        #[arg(long)]
        purge_crds: bool,
    },
}

/// Runs a `hub` subcommand.
pub async fn run(args: HubArgs, printer: &Printer) -> Result<(), CommandError> {
    match args.command {
        HubCommand::Install { image, dry_run } => {
            let image = image.unwrap_or_else(|| image_of(DEFAULT_REPOSITORY, VERSION));
            let objects = install::objects(&image);
            if dry_run {
                printer.data(&manifests::to_yaml(&objects))?;
                return Ok(());
            }
            let (client, _) = connect(&args.hub.selection(), Role::Hub).await?;
            for outcome in apply(&client, &objects, &ApplyOptions::default()).await? {
                printer.note(&format!("{} {}", outcome.object, outcome.action));
            }
        }
        HubCommand::Uninstall { purge_crds } => {
            let mut objects = install::objects(&image_of(DEFAULT_REPOSITORY, VERSION));
            if !purge_crds {
                objects.retain(|o| o["kind"] != "CustomResourceDefinition");
            }
            let (client, _) = connect(&args.hub.selection(), Role::Hub).await?;
            for outcome in delete_all(&client, &objects, &ApplyOptions::default()).await? {
                printer.note(&format!("{} {}", outcome.object, outcome.action));
            }
        }
    }
    Ok(())
}
