//! Reads k8s-openapi's serde types: each struct's JSON field names (the `"name" => Field::Key_…`
//! arms of its `Deserialize` impl), and the API kinds (`impl crate::Resource`, subresource kinds
//! such as Scale and TokenRequest included).

use std::collections::BTreeMap;
use std::path::Path;

use syn::visit::Visit;
use syn::{Expr, ImplItem, Item, Lit, Pat, Type};

use super::GenerateError;
use super::prost::MessageName;
use super::sources::rust_files;

/// An API kind, with the struct k8s-openapi names it by.
#[derive(Debug, Clone)]
pub struct ResourceKind {
    pub api_version: String,
    pub kind: String,
    pub name: MessageName,
}

/// The JSON field names of the structs of one Kubernetes version of k8s-openapi, by module path
/// and lower-case name (k8s-openapi keeps Go's `CSIDriver` where k8s-pb has `CsiDriver`).
#[derive(Default)]
pub struct OpenApi {
    structs: BTreeMap<(String, String), Vec<String>>,
    pub kinds: Vec<ResourceKind>,
}

impl OpenApi {
    /// Parses every file of the version folder `src/v1_NN` of k8s-openapi.
    pub fn read(version_dir: &Path) -> Result<Self, GenerateError> {
        let mut openapi = OpenApi::default();
        for path in rust_files(version_dir)? {
            let module = module_of(version_dir, &path);
            let text = std::fs::read_to_string(&path).map_err(|e| GenerateError::Read(path.clone(), e))?;
            let file = syn::parse_file(&text).map_err(|e| GenerateError::Parse(path.clone(), e))?;
            let mut arms = JsonArms::default();
            arms.visit_file(&file);
            for item in &file.items {
                if let Item::Impl(item) = item
                    && let Some(kind) = resource_kind(&module, item)
                {
                    openapi.kinds.push(kind);
                }
                let Item::Struct(item) = item else { continue };
                let fields = item
                    .fields
                    .iter()
                    .filter_map(|field| field.ident.as_ref())
                    .filter_map(|ident| arms.names.get(ident.to_string().trim_start_matches("r#")).cloned())
                    .collect();
                openapi.structs.insert((module.clone(), item.ident.to_string().to_ascii_lowercase()), fields);
            }
        }
        Ok(openapi)
    }

    /// The JSON fields of a k8s-pb message's struct: the same module and name, but for the case of
    /// acronyms.
    pub fn get(&self, message: &MessageName) -> Option<&Vec<String>> {
        self.structs.get(&(message.module.clone(), message.name.to_ascii_lowercase()))
    }
}

/// `api/apps/v1/deployment_spec.rs` under the version folder belongs to module `api::apps::v1`.
fn module_of(version_dir: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(version_dir).unwrap_or(file);
    let parent = relative.parent().unwrap_or(Path::new(""));
    parent.iter().map(|part| part.to_string_lossy().into_owned()).collect::<Vec<_>>().join("::")
}

/// `impl crate::Resource for X { const API_VERSION = "…"; const KIND = "…"; … }`.
fn resource_kind(module: &str, item: &syn::ItemImpl) -> Option<ResourceKind> {
    let (_, trait_path, _) = item.trait_.as_ref()?;
    if trait_path.segments.last()?.ident != "Resource" {
        return None;
    }
    let Type::Path(self_ty) = &*item.self_ty else { return None };
    let name = self_ty.path.segments.last()?.ident.to_string();
    let constant = |wanted: &str| {
        item.items.iter().find_map(|item| match item {
            ImplItem::Const(c) if c.ident == wanted => match &c.expr {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
    };
    Some(ResourceKind {
        api_version: constant("API_VERSION")?,
        kind: constant("KIND")?,
        name: MessageName { module: module.to_string(), name },
    })
}

/// The `"jsonName" => Field::Key_rust_name` arms of a file's field visitor.
#[derive(Default)]
struct JsonArms {
    /// Rust field name → JSON name.
    names: BTreeMap<String, String>,
}

impl<'ast> Visit<'ast> for JsonArms {
    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if let (Pat::Lit(pattern), Expr::Path(body)) = (&arm.pat, &*arm.body)
            && let Lit::Str(json) = &pattern.lit
            && let Some(last) = body.path.segments.last()
            && let Some(rust) = last.ident.to_string().strip_prefix("Key_")
        {
            self.names.insert(rust.to_string(), json.value());
        }
        syn::visit::visit_arm(self, arm);
    }
}
