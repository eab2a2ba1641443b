//! `fleetctl completion bash|zsh|fish|powershell|elvish`: the shell completion script on
//! stdout, generated from the clap definitions.
//!
//! The same scripts are checked in under `completions/` for packagers; a unit test fails
//! when they are stale, and rewrites them with `FLEETCTL_UPDATE_COMPLETIONS=1`.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;
use super::exit::CommandError;
use super::printer::Printer;

/// `fleetctl completion …`
#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the completion script of the shell asked for.
pub fn run(args: CompletionArgs, printer: &Printer) -> Result<(), CommandError> {
    printer.data(&script(args.shell))?;
    Ok(())
}

/// The completion script of `shell` for the current command line definition.
pub fn script(shell: Shell) -> String {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "fleetctl", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use clap::ValueEnum;

    use super::*;

    /// The file under `completions/` that holds the script of `shell`, named as each shell's
    /// loader looks for it.
    fn file_name(shell: Shell) -> Option<&'static str> {
        match shell {
            Shell::Bash => Some("fleetctl.bash"),
            Shell::Zsh => Some("_fleetctl"),
            Shell::Fish => Some("fleetctl.fish"),
            Shell::PowerShell => Some("_fleetctl.ps1"),
            Shell::Elvish => Some("fleetctl.elv"),
            _ => None,
        }
    }

    /// Compares each checked-in script with a fresh one; with `FLEETCTL_UPDATE_COMPLETIONS`
    /// set, rewrites the stale ones instead (every new flag changes them).
    #[test]
    fn the_checked_in_completions_are_current() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
        let update = std::env::var_os("FLEETCTL_UPDATE_COMPLETIONS").is_some();
        assert!(
            !(update && std::env::var_os("CI").is_some()),
            "FLEETCTL_UPDATE_COMPLETIONS is set under CI: the test would rewrite the scripts instead of checking them"
        );
        let mut stale = Vec::new();
        for &shell in Shell::value_variants() {
            let Some(name) = file_name(shell) else { continue };
            let path = dir.join(name);
            let fresh = script(shell);
            if std::fs::read_to_string(&path).ok().as_deref() == Some(fresh.as_str()) {
                continue;
            }
            if update {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, fresh).unwrap();
            } else {
                stale.push(name);
            }
        }
        assert!(
            stale.is_empty(),
            "completions are stale: run `FLEETCTL_UPDATE_COMPLETIONS=1 cargo test --lib completion` ({})",
            stale.join(", ")
        );
    }

    #[test]
    fn every_shell_has_a_file_and_completes_the_subcommands() {
        for &shell in Shell::value_variants() {
            assert!(file_name(shell).is_some(), "{shell}");
            let script = script(shell);
            assert!(script.contains("describe") && script.contains("completion"), "{shell}");
        }
    }
}
