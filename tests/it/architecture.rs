//! ARCHITECTURE.md stays true to the workspace: the crate edges it lists are the ones
//! `cargo metadata` reports.

use std::collections::{BTreeMap, BTreeSet};

type Edges = BTreeMap<String, BTreeSet<String>>;

/// The edges between the workspace's crates, as `cargo metadata --no-deps` reports them.
fn workspace_edges() -> Edges {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages.iter().filter_map(|p| p["name"].as_str().map(String::from)).collect();
    packages
        .iter()
        .map(|package| {
            let dependencies = package["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str())
                .filter(|name| names.contains(*name))
                .map(String::from)
                .collect();
            (package["name"].as_str().expect("a name").to_string(), dependencies)
        })
        .collect()
}

/// The edges ARCHITECTURE.md lists: the `text` block after the sentence that names
/// `cargo metadata`, one `crate → dependencies` line per crate.
fn documented_edges() -> Edges {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/ARCHITECTURE.md")).expect("read");
    let from = text.find("cargo metadata --no-deps").expect("ARCHITECTURE.md names cargo metadata");
    let block = text[from..].split("```text\n").nth(1).and_then(|b| b.split("```").next()).expect("the edges");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (name, dependencies) = line.split_once('→').expect("crate → dependencies");
            (name.trim().to_string(), dependencies.split_whitespace().map(String::from).collect())
        })
        .collect()
}

#[test]
fn the_crate_edges_architecture_md_lists_are_the_ones_cargo_metadata_reports() {
    assert_eq!(documented_edges(), workspace_edges(), "update the edges in ARCHITECTURE.md (and its picture)");
}
