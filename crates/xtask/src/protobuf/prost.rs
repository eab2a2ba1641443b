//! Reads k8s-pb's prost types: each message's fields with their numbers and wire shapes.

use std::collections::BTreeMap;
use std::path::Path;

use syn::{Attribute, Expr, ExprLit, Fields, GenericArgument, Item, Lit, Meta, MetaNameValue, PathArguments, Type};

use super::GenerateError;
use super::sources::rust_files;

/// A message, by its module path and name (`api::apps::v1` + `DeploymentSpec`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MessageName {
    pub module: String,
    pub name: String,
}

impl std::fmt::Display for MessageName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}::{}", self.module, self.name)
    }
}

/// The protobuf type of one field value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scalar {
    String,
    Bytes,
    Bool,
    /// int32 or int64: both are varints read the same way.
    Int,
    Double,
    Message(MessageName),
}

/// How often a field occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    Single,
    Repeated,
    /// `map<string, T>`.
    Map,
}

#[derive(Debug, Clone)]
pub struct Field {
    /// The Rust identifier, without `r#`.
    pub ident: String,
    pub number: u32,
    pub value: Scalar,
    pub shape: Shape,
    pub markers: PatchMarkers,
}

/// A field's strategic-merge-patch markers: the Go field's `patchStrategy` and `patchMergeKey`
/// tags, which k8s-pb keeps as `+patchStrategy=` and `+patchMergeKey=` lines of its doc comment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatchMarkers {
    /// `merge`, `retainKeys`, `merge,retainKeys` or `replace`.
    pub strategy: Option<String>,
    pub merge_key: Option<String>,
}

#[derive(Default)]
pub struct Prost {
    pub messages: BTreeMap<MessageName, Vec<Field>>,
}

impl Prost {
    /// The message k8s-openapi's struct `name` corresponds to: the same module and name, but for
    /// the case of acronyms (k8s-pb writes `CsiDriver` for Go's `CSIDriver`).
    pub fn find(&self, name: &MessageName) -> Option<&MessageName> {
        let lower = name.name.to_ascii_lowercase();
        self.messages.keys().find(|known| known.module == name.module && known.name.to_ascii_lowercase() == lower)
    }

    /// Parses every module of the crate at `src` (its `src/` folder).
    pub fn read(src: &Path) -> Result<Self, GenerateError> {
        let mut prost = Prost::default();
        for path in rust_files(src)? {
            let module = module_of(src, &path);
            let text = std::fs::read_to_string(&path).map_err(|e| GenerateError::Read(path.clone(), e))?;
            let file = syn::parse_file(&text).map_err(|e| GenerateError::Parse(path.clone(), e))?;
            for item in &file.items {
                if let Item::Struct(item) = item
                    && is_message(&item.attrs)
                {
                    let name = MessageName { module: module.clone(), name: item.ident.to_string() };
                    let fields = message_fields(&module, &item.fields).map_err(|e| e.within(&name))?;
                    prost.messages.insert(name, fields);
                }
            }
        }
        Ok(prost)
    }
}

/// `api/apps/v1/mod.rs` under `src` is module `api::apps::v1`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> =
        relative.iter().map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.last().is_some_and(|last| last == "mod" || last == "lib") {
        parts.pop();
    }
    parts.join("::")
}

fn is_message(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                .is_ok_and(|paths| paths.iter().any(|path| path.segments.last().is_some_and(|s| s.ident == "Message")))
    })
}

/// A field-level parse failure, named with its message by [`FieldError::within`].
struct FieldError(String);

impl FieldError {
    fn within(self, message: &MessageName) -> GenerateError {
        GenerateError::Prost(format!("{message}: {}", self.0))
    }
}

fn message_fields(module: &str, fields: &Fields) -> Result<Vec<Field>, FieldError> {
    let mut out = Vec::new();
    for field in fields {
        let Some(attr) = field.attrs.iter().find(|attr| attr.path().is_ident("prost")) else { continue };
        let ident = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
        let ident = ident.trim_start_matches("r#").to_string();
        let mut number = None;
        let mut scalar = None;
        let mut shape = Shape::Single;
        attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            let text = if meta.input.peek(syn::Token![=]) {
                Some(meta.value()?.parse::<syn::LitStr>()?.value())
            } else {
                None
            };
            match (key.as_str(), text) {
                ("tag", Some(tag)) => number = tag.parse().ok(),
                ("repeated", None) => shape = Shape::Repeated,
                ("btree_map" | "map", Some(types)) => {
                    shape = Shape::Map;
                    scalar = types.split(',').nth(1).map(|value| value.trim().to_string());
                }
                ("string" | "bool" | "int32" | "int64" | "double" | "message", None) => scalar = Some(key),
                ("bytes", _) => scalar = Some(key),
                // `optional`, `boxed`, `packed`: no bearing on the JSON form.
                _ => {}
            }
            Ok(())
        })
        .map_err(|e| FieldError(format!("{ident}: {e}")))?;
        let number = number.ok_or_else(|| FieldError(format!("{ident} has no tag")))?;
        let value = match scalar.as_deref() {
            Some("string") => Scalar::String,
            Some("bytes") => Scalar::Bytes,
            Some("bool") => Scalar::Bool,
            Some("int32" | "int64") => Scalar::Int,
            Some("double") => Scalar::Double,
            Some("message") => Scalar::Message(
                message_type(module, &field.ty).ok_or_else(|| FieldError(format!("{ident}: no message type")))?,
            ),
            other => return Err(FieldError(format!("{ident}: unknown protobuf type {other:?}"))),
        };
        let markers = patch_markers(&field.attrs).map_err(|e| FieldError(format!("{ident}: {e}")))?;
        out.push(Field { ident, number, value, shape, markers });
    }
    Ok(out)
}

/// The `+patchStrategy=` and `+patchMergeKey=` lines of a field's doc comment (`#[doc = "…"]`).
fn patch_markers(attrs: &[Attribute]) -> Result<PatchMarkers, String> {
    let mut markers = PatchMarkers::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        let Meta::NameValue(MetaNameValue { value: Expr::Lit(ExprLit { lit: Lit::Str(line), .. }), .. }) = &attr.meta
        else {
            continue;
        };
        let line = line.value();
        let Some((marker, value)) = line.trim().split_once('=') else { continue };
        let slot = match marker {
            "+patchStrategy" => &mut markers.strategy,
            "+patchMergeKey" => &mut markers.merge_key,
            _ => continue,
        };
        // Go allows one tag of each; two lines would mean the doc is not what it seems.
        if slot.replace(value.to_string()).is_some() {
            return Err(format!("two {marker} markers"));
        }
    }
    Ok(markers)
}

/// The message a field holds: the innermost type of `Option<…>`, `Vec<…>`, `Box<…>` or
/// `BTreeMap<String, …>`, with `super::` resolved against `module`.
fn message_type(module: &str, ty: &Type) -> Option<MessageName> {
    let Type::Path(ty) = ty else { return None };
    let last = ty.path.segments.last()?;
    if matches!(last.ident.to_string().as_str(), "Option" | "Vec" | "Box" | "BTreeMap") {
        let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
        let inner = args.args.iter().rev().find_map(|arg| match arg {
            GenericArgument::Type(ty) => Some(ty),
            _ => None,
        })?;
        return message_type(module, inner);
    }
    let mut path: Vec<String> = module.split("::").map(str::to_string).collect();
    let segments: Vec<String> = ty.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (name, prefix) = segments.split_last()?;
    for segment in prefix {
        match segment.as_str() {
            "super" => {
                path.pop();
            }
            "crate" => path.clear(),
            other => path.push(other.to_string()),
        }
    }
    Some(MessageName { module: path.join("::"), name: name.clone() })
}
