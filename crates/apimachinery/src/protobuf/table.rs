//! The shape of the field tables: how one protobuf field maps onto the JSON form of its object,
//! and how a strategic merge patch treats it (its Go tags, which k8s-pb keeps as doc markers).

/// How a field's value is read and written as JSON. The special types of apimachinery, whose JSON
/// form is not their message form, are handled here once for every kind.
#[derive(Clone, Copy)]
pub enum Type {
    Str,
    /// Bytes, written as standard base64 as Go's encoding/json does for `[]byte`.
    Bytes,
    Bool,
    /// Any varint integer (int32 or int64): negative int32s are sign-extended to ten bytes on the wire.
    Int,
    /// A `double` (fixed64 on the wire): JSONSchemaProps' `maximum`, `minimum`, `multipleOf`.
    Double,
    /// meta/v1 Time {1 seconds int64, 2 nanos int32}, written as RFC 3339 in whole seconds.
    Time,
    /// meta/v1 MicroTime, the same message as Time, written with six fractional digits.
    MicroTime,
    /// resource.Quantity {1 string}, written as that string.
    Quantity,
    /// intstr.IntOrString {1 type, 2 intVal, 3 strVal}, written as a number or a string.
    IntOrString,
    /// runtime.RawExtension, meta/v1 FieldsV1 and apiextensions' JSON {1 raw bytes}: JSON text,
    /// embedded as is.
    RawJson,
    /// A named `[]string` as a map value (ExtraValue): a message of `repeated string items = 1`,
    /// written as a bare array.
    Items,
    /// apiextensions' JSONSchemaPropsOrArray {1 schema, 2 jSONSchemas}: the array when it has
    /// items, else the schema (`items`). The table is JSONSchemaProps'.
    SchemaOrArray(&'static [Field]),
    /// JSONSchemaPropsOrBool {1 allows, 2 schema}: the schema when set, else the boolean
    /// (`additionalProperties`, `additionalItems`).
    SchemaOrBool(&'static [Field]),
    /// JSONSchemaPropsOrStringArray {1 schema, 2 property}: the strings when there are some, else
    /// the schema (`dependencies`' values).
    SchemaOrStringArray(&'static [Field]),
    Message(&'static [Field]),
}

/// How a field maps onto JSON, mirroring the Go struct field's shape and `omitempty`.
#[derive(Clone, Copy)]
pub enum Rule {
    /// A value field with `omitempty`: left out when zero. The Go encoder writes these even when empty.
    OmitEmpty,
    /// A pointer, a struct, or a field without `omitempty`: written whenever it is on the wire.
    Present,
    /// A repeated field: a JSON array, left out when empty.
    List,
    /// A `map<string, T>` (repeated entries {1 key, 2 value}): a JSON object, left out when empty.
    Map,
    /// An embedded struct inlined in JSON (`json:",inline"`) but a nested message on the wire: its
    /// fields land in the enclosing object.
    Inline,
}

/// How a strategic merge patch treats a field: the Go field's `patchStrategy` and
/// `patchMergeKey` tags (`+patchStrategy=`, `+patchMergeKey=` markers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Patch {
    /// No `patchStrategy`: a list is replaced whole, a struct merged field by field.
    Plain,
    /// `merge` without a key: a list of scalars merged as a set (`finalizers`).
    Merge,
    /// `merge` with `patchMergeKey`: a list of objects merged element by element, matched by
    /// this field.
    MergeKey(&'static str),
    /// `merge,retainKeys` with `patchMergeKey` (PodSpec `volumes`): merged as [`Patch::MergeKey`];
    /// kubectl also sends a `$retainKeys` with each element, so that a volume changing its source
    /// drops the old one.
    MergeKeyRetainKeys(&'static str),
    /// `retainKeys` on a struct (Deployment `strategy`): kubectl sends `$retainKeys`, so that
    /// switching to `Recreate` drops `rollingUpdate`.
    RetainKeys,
    /// `replace`: the value replaced whole (PodDisruptionBudget `selector`).
    Replace,
}

/// One entry of a message table.
pub struct Field {
    pub number: u32,
    pub name: &'static str,
    pub ty: Type,
    pub rule: Rule,
    pub patch: Patch,
}

impl Field {
    /// The field with its strategic-merge-patch tags.
    pub const fn patch(self, patch: Patch) -> Field {
        Field { patch, ..self }
    }
}

pub const fn omit(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::OmitEmpty, patch: Patch::Plain }
}

pub const fn keep(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::Present, patch: Patch::Plain }
}

pub const fn list(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::List, patch: Patch::Plain }
}

pub const fn map(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::Map, patch: Patch::Plain }
}

pub const fn merge(number: u32, ty: Type) -> Field {
    Field { number, name: "", ty, rule: Rule::Inline, patch: Patch::Plain }
}

/// The field at a dotted JSON path below a message (`spec.template.spec.containers.env`, list
/// positions left out, as the patch code names lists): each name is looked up among the
/// message's fields and those of the structs it inlines; a list is walked into its element, and
/// the segment after a map's name is one of its keys, walked into its value.
pub fn field_at(message: &'static [Field], path: &str) -> Option<&'static Field> {
    let mut segments = path.split('.');
    let mut field = named(message, segments.next()?)?;
    while let Some(segment) = segments.next() {
        let segment = if matches!(field.rule, Rule::Map) { segments.next()? } else { segment };
        field = named(field.ty.fields()?, segment)?;
    }
    Some(field)
}

fn named(message: &'static [Field], name: &str) -> Option<&'static Field> {
    message.iter().find_map(|field| match (field.rule, field.ty) {
        (Rule::Inline, Type::Message(inlined)) => named(inlined, name),
        _ => (field.name == name).then_some(field),
    })
}

impl Type {
    /// The fields of the message a value of this type holds; `None` for a scalar.
    fn fields(self) -> Option<&'static [Field]> {
        match self {
            Type::Message(fields)
            | Type::SchemaOrArray(fields)
            | Type::SchemaOrBool(fields)
            | Type::SchemaOrStringArray(fields) => Some(fields),
            Type::Str
            | Type::Bytes
            | Type::Bool
            | Type::Int
            | Type::Double
            | Type::Time
            | Type::MicroTime
            | Type::Quantity
            | Type::IntOrString
            | Type::RawJson
            | Type::Items => None,
        }
    }
}
