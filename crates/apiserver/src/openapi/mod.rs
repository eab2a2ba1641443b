//! The OpenAPI documents: `/openapi/v3` as kube-apiserver serves it — a root of one
//! content-hashed URL per group/version (kubectl caches by URL, so a changed document
//! gets a new one) and a document per group/version with its kinds' schemas — and a
//! minimal `/openapi/v2`.
//!
//! Documents are built on first request and kept until the registry changes (a CRD
//! comes, goes or changes); an unchanged document keeps its hash across rebuilds.

mod builtin;
mod custom;
mod document;
mod paths;
mod v2;

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::registry::Registry;

pub use builtin::{Added, add};
pub use v2::document as v2;

/// The v3 documents of one server.
#[derive(Default)]
pub struct Documents {
    built: Mutex<Option<Arc<Built>>>,
}

/// Every group/version document at one registry revision.
struct Built {
    revision: u64,
    /// `apis/apps/v1` or `api/v1` → the document.
    documents: BTreeMap<String, Served>,
}

/// One serialized document and the hash of its bytes.
struct Served {
    body: Bytes,
    hash: String,
}

/// The root document: `paths` maps `apis/<group>/<version>` to its URL.
#[derive(Serialize)]
struct Root {
    paths: BTreeMap<String, RootPath>,
}

#[derive(Serialize)]
struct RootPath {
    #[serde(rename = "serverRelativeURL")]
    server_relative_url: String,
}

/// `apis/apps/v1` or `api/v1`.
fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

impl Documents {
    fn current(&self, registry: &Registry) -> Result<Arc<Built>, serde_json::Error> {
        let (revision, groups) = registry.snapshot();
        let mut built = self.built.lock();
        if let Some(current) = built.as_ref().filter(|b| b.revision == revision) {
            return Ok(current.clone());
        }
        let mut documents = BTreeMap::new();
        for (group, versions) in &groups {
            for (version, resources) in versions {
                let body = Bytes::from(serde_json::to_vec(&document::build(resources)?)?);
                let hash = Sha256::digest(&body).iter().map(|b| format!("{b:02X}")).collect();
                documents.insert(gv_path(group, version), Served { body, hash });
            }
        }
        let fresh = Arc::new(Built { revision, documents });
        *built = Some(fresh.clone());
        Ok(fresh)
    }

    /// The root document.
    pub fn root(&self, registry: &Registry) -> Result<Bytes, serde_json::Error> {
        let built = self.current(registry)?;
        let paths = built
            .documents
            .iter()
            .map(|(path, served)| {
                (path.clone(), RootPath { server_relative_url: format!("/openapi/v3/{path}?hash={}", served.hash) })
            })
            .collect();
        Ok(Bytes::from(serde_json::to_vec(&Root { paths })?))
    }

    /// The document of one group/version (`None`: not served).
    pub fn group_version(
        &self,
        registry: &Registry,
        group: &str,
        version: &str,
    ) -> Result<Option<Bytes>, serde_json::Error> {
        let built = self.current(registry)?;
        Ok(built.documents.get(&gv_path(group, version)).map(|served| served.body.clone()))
    }
}

#[cfg(test)]
mod tests;
