//! Where the inputs are: the sources of the k8s-pb and k8s-openapi versions the workspace
//! resolves (from `cargo metadata`, so the registry copies cargo already has), and the
//! Kubernetes version whose k8s-openapi module the workspace enables.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::GenerateError;

/// The two source trees the tables are generated from.
pub struct Sources {
    /// k8s-pb's `src/`.
    pub k8s_pb: PathBuf,
    /// k8s-openapi's `src/v1_NN/`, the version the workspace enables.
    pub k8s_openapi: PathBuf,
    /// `k8s-pb 0.9.0`, `k8s-openapi 0.29.0 (v1_33)`: for the generated file's header.
    pub versions: String,
}

impl Sources {
    /// Asks cargo for the workspace's resolved packages.
    pub fn locate(workspace: &Path) -> Result<Self, GenerateError> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // Filtered to this platform: unfiltered, cargo wants the manifests of every
        // platform's dependencies, which an offline machine may not have.
        let host = host_triple(&cargo)?;
        let output = Command::new(&cargo)
            .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", &host])
            .current_dir(workspace)
            .output()
            .map_err(|e| GenerateError::Cargo(format!("running cargo metadata: {e}")))?;
        if !output.status.success() {
            return Err(GenerateError::Cargo(String::from_utf8_lossy(&output.stderr).into_owned()));
        }
        let metadata: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| GenerateError::Cargo(format!("cargo metadata printed no JSON: {e}")))?;
        let (pb_dir, pb_version) = package(&metadata, "k8s-pb")?;
        let (openapi_dir, openapi_version) = package(&metadata, "k8s-openapi")?;
        let feature = enabled_version(&metadata)?;
        Ok(Self {
            k8s_pb: pb_dir.join("src"),
            k8s_openapi: openapi_dir.join("src").join(&feature),
            versions: format!("k8s-pb {pb_version} and k8s-openapi {openapi_version} ({feature})"),
        })
    }
}

fn host_triple(cargo: &std::ffi::OsStr) -> Result<String, GenerateError> {
    let rustc = Path::new(cargo).with_file_name("rustc");
    let rustc = if rustc.exists() { rustc.into_os_string() } else { "rustc".into() };
    let output =
        Command::new(rustc).arg("-vV").output().map_err(|e| GenerateError::Cargo(format!("running rustc -vV: {e}")))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| GenerateError::Cargo("rustc -vV names no host".into()))
}

/// The folder and version of the one resolved package called `name`.
fn package(metadata: &Value, name: &str) -> Result<(PathBuf, String), GenerateError> {
    let packages = metadata["packages"].as_array().into_iter().flatten();
    let mut found = packages.filter(|package| package["name"] == name);
    let package = found.next().ok_or_else(|| GenerateError::Cargo(format!("the workspace does not use {name}")))?;
    if found.next().is_some() {
        return Err(GenerateError::Cargo(format!("the workspace resolves two versions of {name}")));
    }
    let manifest = package["manifest_path"].as_str().unwrap_or_default();
    let dir = Path::new(manifest).parent().ok_or_else(|| GenerateError::Cargo(format!("{name} has no folder")))?;
    Ok((dir.to_path_buf(), package["version"].as_str().unwrap_or_default().to_string()))
}

/// The `v1_NN` feature of k8s-openapi that the workspace turns on.
fn enabled_version(metadata: &Value) -> Result<String, GenerateError> {
    let nodes = metadata["resolve"]["nodes"].as_array().into_iter().flatten();
    nodes
        .filter(|node| node["id"].as_str().is_some_and(|id| id.contains("k8s-openapi@")))
        .flat_map(|node| node["features"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .find(|feature| feature.starts_with("v1_"))
        .map(str::to_string)
        .ok_or_else(|| GenerateError::Cargo("no k8s-openapi version feature is enabled".into()))
}

/// Every `.rs` file under `dir`, in a stable order.
pub fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, GenerateError> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| GenerateError::Read(dir.clone(), e))?;
        for entry in entries {
            let path = entry.map_err(|e| GenerateError::Read(dir.clone(), e))?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}
