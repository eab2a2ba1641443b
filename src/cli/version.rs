//! `fleetctl version`: the CLI's version and the image `hub install` deploys by default.

use clap::Args;
use serde::Serialize;

use super::exit::CommandError;
use super::flags::OutputFlags;
use super::printer::Printer;
use fleetctl_api::names::{VERSION, default_image};

/// `fleetctl version …`
#[derive(Debug, Args)]
pub struct VersionArgs {
    #[command(flatten)]
    output: OutputFlags,
}

/// What `version` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Versions {
    /// The CLI's version.
    version: String,
    /// The image `hub install` deploys unless `--image` says otherwise; its tag is the
    /// version, and the klusterlet version imported clusters run.
    default_image: String,
}

/// Prints the versions.
pub fn run(args: VersionArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let versions = Versions { version: VERSION.to_string(), default_image: default_image() };
    let text = |_: &Printer| format!("fleetctl {}\ndefault image: {}\n", versions.version, versions.default_image);
    printer.document(&versions, &format!("fleetctl/{VERSION}"), text)?;
    Ok(())
}
