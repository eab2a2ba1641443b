//! Flags before the command, as kubectl takes them (`fleetctl --hub-context hub get
//! clusters`): a flag of some command written before the command's name is moved after it,
//! where clap reads it as that command's — and refuses it, as any misplaced flag, when the
//! command does not take it (`fleetctl -o json completion bash` is a usage error). The
//! terminal flags (`-q`, `-v`, `--no-color`) and `--help`/`--version` stay where they are.

use std::collections::BTreeMap;
use std::ffi::OsString;

use clap::CommandFactory;

use super::Cli;

/// Every flag of every command, by how it is written (`--hub-context`, `-o`), with whether
/// it takes a value; the top-level flags apart.
fn command_flags() -> (BTreeMap<String, bool>, Vec<String>) {
    let mut root = Cli::command();
    root.build();
    let written = |arg: &clap::Arg| {
        let mut forms: Vec<String> = arg.get_long().map(|l| format!("--{l}")).into_iter().collect();
        forms.extend(arg.get_short().map(|s| format!("-{s}")));
        forms.extend(arg.get_all_aliases().into_iter().flatten().map(|a| format!("--{a}")));
        forms
    };
    let top: Vec<String> = root.get_arguments().flat_map(written).collect();
    let mut flags = BTreeMap::new();
    let mut commands: Vec<&clap::Command> = root.get_subcommands().collect();
    while let Some(command) = commands.pop() {
        for arg in command.get_arguments().filter(|a| !a.is_positional()) {
            let takes_value = arg.get_action().takes_values();
            for form in written(arg) {
                flags.entry(form).or_insert(takes_value);
            }
        }
        commands.extend(command.get_subcommands());
    }
    (flags, top)
}

/// The command line with the command flags written before the command moved to its end.
pub fn hoisted(args: Vec<OsString>) -> Vec<OsString> {
    let (flags, top) = command_flags();
    let mut head = Vec::new();
    let mut moved = Vec::new();
    let mut words = args.into_iter();
    if let Some(program) = words.next() {
        head.push(program);
    }
    let mut words = words.peekable();
    while let Some(word) = words.next_if(|w| w.to_str().is_some_and(|w| w.starts_with('-') && w != "--")) {
        let text = word.to_string_lossy().into_owned();
        // `--flag=value`, `-ovalue`: the value is in the word.
        let (name, joined) = match text.split_once('=') {
            Some((name, _)) => (name.to_string(), true),
            None if !text.starts_with("--") && text.len() > 2 => (text[..2].to_string(), true),
            None => (text.clone(), false),
        };
        match flags.get(&name) {
            Some(takes_value) if !top.contains(&name) => {
                moved.push(word);
                if *takes_value
                    && !joined
                    && let Some(value) = words.next()
                {
                    moved.push(value);
                }
            }
            // A terminal flag, or one no command has: clap says so where it stands.
            _ => head.push(word),
        }
    }
    head.extend(words);
    head.extend(moved);
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Vec<String> {
        let args = text.split_whitespace().map(OsString::from).collect();
        hoisted(args).into_iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_flags_of_a_command_written_before_it_go_after_it() {
        assert_eq!(
            line("fleetctl --hub-context hub get clusters"),
            ["fleetctl", "get", "clusters", "--hub-context", "hub"]
        );
        assert_eq!(
            line("fleetctl -q -ojson --timeout=5s upgrade c1 --to 0.2.0"),
            ["fleetctl", "-q", "upgrade", "c1", "--to", "0.2.0", "-ojson", "--timeout=5s"]
        );
        assert_eq!(
            line("fleetctl -o yaml -v describe cluster c1"),
            ["fleetctl", "-v", "describe", "cluster", "c1", "-o", "yaml"]
        );
        // Nothing before the command: as written.
        assert_eq!(line("fleetctl get clusters -o wide"), ["fleetctl", "get", "clusters", "-o", "wide"]);
    }
}
