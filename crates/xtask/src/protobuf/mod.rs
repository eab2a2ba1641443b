//! `cargo run -p xtask -- protobuf`: the dev API server's protobuf field tables
//! (`crates/apimachinery/src/protobuf/generated.rs`) and their cross-check test
//! (`check_kinds.rs`), generated from the k8s-pb and k8s-openapi sources that cargo already has.
//! `--check` compares instead of writing, as the test below does.

mod openapi;
mod prost;
mod render;
mod sources;
mod tables;
mod zero_values;

use std::path::{Path, PathBuf};

/// What the command does with the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Write,
    Check,
}

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("locating the k8s-pb and k8s-openapi sources: {0}")]
    Cargo(String),
    #[error("reading {0}")]
    Read(PathBuf, #[source] std::io::Error),
    #[error("writing {0}")]
    Write(PathBuf, #[source] std::io::Error),
    #[error("parsing {0}")]
    Parse(PathBuf, #[source] syn::Error),
    #[error("reading k8s-pb: {0}")]
    Prost(String),
    #[error("k8s-pb has no message {0}")]
    Missing(String),
    #[error("no JSON name for {0}: neither a k8s-openapi field nor an inlined struct")]
    Unnamed(String),
    #[error("strategic merge patch markers of {0}")]
    Patch(String),
    #[error("zero_values.txt: {0}")]
    ZeroValues(String),
    #[error("stale generated files (run `cargo run -p xtask -- protobuf`): {0}")]
    Stale(String),
}

/// The folder of the API machinery's protobuf module.
const TARGET: &str = "crates/apimachinery/src/protobuf";

/// The generated files, by name, with their contents.
pub fn generate(workspace: &Path) -> Result<Vec<(&'static str, String)>, GenerateError> {
    let sources = sources::Sources::locate(workspace)?;
    let prost = prost::Prost::read(&sources.k8s_pb)?;
    let openapi = openapi::OpenApi::read(&sources.k8s_openapi)?;
    let zero_values = zero_values::ZeroValues::parse(include_str!("zero_values.txt"))?;
    let tables = tables::build(&prost, &openapi, &zero_values)?;
    Ok(vec![
        ("generated.rs", render::generated(&tables, &sources.versions)),
        ("check_kinds.rs", render::check_kinds(&tables)),
    ])
}

/// Writes or checks the generated files; the text says what was done.
pub fn run(mode: Mode) -> Result<String, GenerateError> {
    let workspace = workspace();
    let mut stale = Vec::new();
    for (name, text) in generate(&workspace)? {
        let path = workspace.join(TARGET).join(name);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == text {
            continue;
        }
        match mode {
            Mode::Write => std::fs::write(&path, text).map_err(|e| GenerateError::Write(path, e))?,
            Mode::Check => stale.push(name),
        }
    }
    if !stale.is_empty() {
        return Err(GenerateError::Stale(stale.join(", ")));
    }
    Ok(match mode {
        Mode::Write => format!("wrote {TARGET}/generated.rs and check_kinds.rs"),
        Mode::Check => format!("{TARGET} is up to date"),
    })
}

/// The workspace root: this crate lives in `crates/xtask`.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated tables are checked in; a k8s-pb or k8s-openapi upgrade, or an edit by hand,
    /// shows here until the generator is run again.
    #[test]
    fn the_checked_in_protobuf_tables_are_what_the_generator_writes() {
        match run(Mode::Check) {
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    }
}
