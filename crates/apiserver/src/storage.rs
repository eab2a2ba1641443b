//! The storage of one resource and its API verbs — get, create, update, patch, delete
//! (list and delete-collection in `list`, the `/scale` subresource in `scale`) — with the
//! semantics clients rely on: resourceVersions and conflicts, generation, status
//! subresources, finalizers and deletion, dry runs and field ownership, as
//! kube-apiserver's generic registry `Store` serves each resource with its strategy.
//!
//! The HTTP layer and the built-in controllers both go through these verbs.

use bytes::Bytes;
use serde_json::{Value, json};

use super::admission::{Admitted, Operation, Request};
use super::conversion::{self, Conversion};
use super::key::ObjectKey;
use super::kinds;
use super::object;
use super::options::{DeleteOptions, Patch, PatchType, Propagation, WriteOptions, Written};
use super::patch::{self, PatchError};
use super::patch_body::{apply_conflict, parse_patch, patch_error, patched, strategies};
use super::registry::ResourceType;
use super::schema;
use super::state::ApiState;
use super::status::{ApiError, Cause, deleted_status};
use super::store::{CommitError, Expect, Stored};

const FOREGROUND: &str = "foregroundDeletion";
const ORPHAN: &str = "orphan";

/// One resource of one server, with the verbs on its objects: what
/// [`ApiState::resource`] hands out.
pub struct Storage<'a> {
    pub(super) state: &'a ApiState,
    pub(super) rt: &'a ResourceType,
}

impl<'a> Storage<'a> {
    /// The storage of `rt` in `state` (callers ask [`ApiState::resource`]).
    pub(super) fn new(state: &'a ApiState, rt: &'a ResourceType) -> Self {
        Self { state, rt }
    }

    /// Reads one object as the client's version sees it.
    pub fn get(&self, key: ObjectKey<'_>) -> Result<Bytes, ApiError> {
        let stored = self.load(key)?;
        self.presented(&stored.packed.to_bytes())
    }

    /// Stored JSON as a client of `rt`'s version sees it: relabelled, or converted by the
    /// CRD's conversion webhook.
    pub fn presented(&self, json: &Bytes) -> Result<Bytes, ApiError> {
        let rt = self.rt;
        let api_version = rt.api_version();
        match rt.conversion() {
            Some(conversion @ Conversion { strategy: conversion::Strategy::Webhook { .. }, .. })
                if !json.starts_with(format!("{{\"apiVersion\":\"{api_version}\"").as_bytes()) =>
            {
                let object =
                    conversion.convert_one(&self.state.reader(), super::encoding::parse_own(json), &api_version)?;
                Ok(super::encoding::to_bytes(&object))
            }
            _ => Ok(present(json, &api_version)),
        }
    }

    /// An object in `rt`'s version as it is stored (in the storage version).
    fn to_storage(&self, object: Value) -> Result<Value, ApiError> {
        match self.rt.conversion() {
            Some(conversion) => conversion.convert_one(&self.state.reader(), object, &conversion.storage.clone()),
            None => Ok(object),
        }
    }

    /// A stored object in `rt`'s version.
    fn to_served(&self, object: Value) -> Result<Value, ApiError> {
        match self.rt.conversion() {
            Some(conversion) => conversion.convert_one(&self.state.reader(), object, &self.rt.api_version()),
            None => Ok(object),
        }
    }

    pub(super) fn load(&self, key: ObjectKey<'_>) -> Result<Stored, ApiError> {
        let rt = self.rt;
        self.state
            .store
            .get(&rt.group_resource(), &key.stored())
            .ok_or_else(|| ApiError::not_found(&rt.plural, &rt.group, key.name))
    }

    /// Creates an object from a request body.
    pub fn create(&self, namespace: Option<&str>, body: Value, opts: &WriteOptions) -> Result<Written, ApiError> {
        let rt = self.rt;
        let mut admitted = Admitted::default();
        let mut object = self.prepare_create(namespace, body, opts, &mut admitted)?;
        if let Some(manager) = &opts.field_manager {
            patch::record_update(None, &mut object, manager, &strategies(rt), &rt.api_version(), &object::now());
        }
        let name = object::name(&object).unwrap_or_default().to_string();
        let key = ObjectKey::new(namespace, &name);
        let request = Request { object: Some(&object), ..Request::new(Operation::Create, rt, key, &opts.caller) };
        self.admit(&request, &mut admitted)?;
        if opts.caller.dry_run {
            return Ok(self.dry_run_create(key, object)?.warned(admitted));
        }
        let object = self.to_storage(object)?;
        let stored =
            self.state.store.put(&rt.group_resource(), &key.stored(), Expect::Absent, object).map_err(|e| match e {
                CommitError::Storage(why) => ApiError::internal(why),
                _ => ApiError::already_exists(&rt.plural, &rt.group, &name),
            })?;
        self.after_commit(&stored);
        Ok(Written::new(201, self.to_served(stored.value())?).warned(admitted))
    }

    fn dry_run_create(&self, key: ObjectKey<'_>, object: Value) -> Result<Written, ApiError> {
        let rt = self.rt;
        if self.state.store.get(&rt.group_resource(), &key.stored()).is_some() {
            return Err(ApiError::already_exists(&rt.plural, &rt.group, key.name));
        }
        Ok(Written::new(201, object))
    }

    /// What a write passes once its object is complete: what the kind's storage checks
    /// beyond admission (RBAC's escalation prevention, as upstream's storage of the kind
    /// does before storing), then the validating admission plugins, whose warnings join
    /// `admitted`'s.
    fn admit(&self, request: &Request<'_>, admitted: &mut Admitted) -> Result<(), ApiError> {
        let context = self.state.context();
        if let Some(confirm) = request.rt.confirm() {
            confirm(&context, request)?;
        }
        let validated = self.state.admission.validate(&context, request)?;
        admitted.warnings.extend(validated.warnings);
        Ok(())
    }

    /// Validates and fills in a new object (mutating webhooks included), changing nothing.
    fn prepare_create(
        &self,
        namespace: Option<&str>,
        mut object: Value,
        opts: &WriteOptions,
        admitted: &mut Admitted,
    ) -> Result<Value, ApiError> {
        let rt = self.rt;
        check_type(rt, &mut object)?;
        if self.crd_terminating() {
            // The cleanup of a CRD being deleted must not chase new instances (upstream's
            // crdHandler answers 405 for a create).
            return Err(ApiError::with_code(405, "create not allowed while custom resource definition is terminating"));
        }
        if rt.namespaced {
            let namespace = namespace.ok_or_else(|| {
                ApiError::bad_request(format!("{} is namespaced: create it under /namespaces/<namespace>/", rt.plural))
            })?;
            match object::namespace(&object) {
                Some(ns) if ns != namespace => {
                    return Err(ApiError::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ));
                }
                _ => {}
            }
            object::metadata_mut(&mut object).insert("namespace".into(), json!(namespace));
        } else {
            object::metadata_mut(&mut object).remove("namespace");
        }
        let meta = object::metadata_mut(&mut object);
        if meta.get("name").and_then(Value::as_str).is_none_or(str::is_empty) {
            let base = meta.get("generateName").and_then(Value::as_str).unwrap_or_default().to_string();
            if base.is_empty() {
                return Err(ApiError::invalid(
                    &rt.kind,
                    &rt.group,
                    "",
                    vec![Cause::new(
                        "FieldValueRequired",
                        "metadata.name",
                        "Required value: name or generateName is required",
                    )],
                ));
            }
            meta.insert("name".into(), json!(format!("{base}{}", object::random_suffix())));
        }
        for field in ["uid", "resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"] {
            meta.remove(field);
        }
        meta.insert("uid".into(), json!(object::new_uid()));
        meta.insert("creationTimestamp".into(), json!(object::now()));
        if rt.generation {
            meta.insert("generation".into(), json!(1));
        } else {
            meta.remove("generation");
        }
        let name = object::name(&object).unwrap_or_default().to_string();
        let strategy = rt.strategy();
        reset_status_on_create(rt, &mut object);
        check_builtin_fields(rt, &object, opts)?;
        strategy.prepare_create(&mut object);
        let request = Request::new(Operation::Create, rt, ObjectKey::new(namespace, &name), &opts.caller);
        // A patched object is defaulted again, as upstream decodes it; and its status is
        // reset after admission, as upstream's `PrepareForCreate` runs after the mutating
        // webhooks (a webhook's patch of `.status` is not validated, nor kept).
        if self.state.admission.mutating.mutate(&self.state.context(), &request, &mut object, admitted)? {
            reset_status_on_create(rt, &mut object);
            check_builtin_fields(rt, &object, opts)?;
            strategy.prepare_create(&mut object);
        }
        let mut causes: Vec<Cause> = strategy.check_name(&name).into_iter().collect();
        causes.extend(self.custom_schema(&mut object, None, opts)?);
        causes.extend(strategy.validate_create(&object));
        if !causes.is_empty() {
            return Err(ApiError::invalid(&rt.kind, &rt.group, &name, causes));
        }
        strategy.finish_create(&mut object, opts.caller.user.as_ref())?;
        if let Some(allocate) = rt.allocate() {
            allocate(&self.state.context(), &mut object)?;
        }
        object::drop_empty_metadata(&mut object);
        Ok(object)
    }

    /// Whether this is a custom resource whose CRD is being deleted.
    fn crd_terminating(&self) -> bool {
        let rt = self.rt;
        rt.schema().is_some()
            && self
                .state
                .store
                .get(&kinds::custom_resource_definitions(), &format!("{}.{}", rt.plural, rt.group))
                .is_some_and(|crd| object::deletion_timestamp(&crd.value()).is_some())
    }

    /// Defaults, prunes and validates a custom resource against its schema (`old`: the stored
    /// object of an update, for transition rules).
    fn custom_schema(
        &self,
        object: &mut Value,
        old: Option<&Value>,
        opts: &WriteOptions,
    ) -> Result<Vec<Cause>, ApiError> {
        let rt = self.rt;
        let Some(schema) = rt.schema() else {
            return Ok(Vec::new());
        };
        schema::apply_defaults(object, schema);
        if opts.strict {
            let mut pruned = object.clone();
            schema::prune(&mut pruned, schema);
            if let Some(field) = first_difference(object, &pruned, "") {
                return Err(ApiError::bad_request(format!(
                    "{} in version \"{}\" cannot be handled as a {}: strict decoding error: unknown field \"{field}\"",
                    rt.kind, rt.version, rt.kind
                )));
            }
        }
        schema::prune(object, schema);
        Ok(schema::validate(object, old, schema)
            .into_iter()
            .map(|e| Cause { reason: e.reason, field: e.field, message: e.message })
            .collect())
    }

    /// Replaces an object (PUT), or one of its subresources.
    pub fn update(
        &self,
        key: ObjectKey<'_>,
        subresource: Option<&str>,
        mut body: Value,
        opts: &WriteOptions,
    ) -> Result<Written, ApiError> {
        let (rt, name) = (self.rt, key.name);
        check_type(rt, &mut body)?;
        if let Some(body_name) = object::name(&body)
            && body_name != name
        {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        let wanted = object::resource_version(&body).map_err(|rv| {
            ApiError::bad_request(format!("invalid resourceVersion {rv:?}: it must be one this server returned"))
        })?;
        if wanted.is_none() && !rt.is_builtin() {
            return Err(ApiError::invalid(
                &rt.kind,
                &rt.group,
                name,
                vec![Cause::new(
                    "FieldValueInvalid",
                    "metadata.resourceVersion",
                    "Invalid value: 0x0: must be specified for an update",
                )],
            ));
        }
        self.write(key, subresource, opts, wanted, &mut |_| Ok(body.clone()))
    }

    /// Applies a patch to an object or subresource; server-side apply creates absent objects.
    pub fn patch(
        &self,
        key: ObjectKey<'_>,
        subresource: Option<&str>,
        patch: Patch<'_>,
        opts: &WriteOptions,
    ) -> Result<Written, ApiError> {
        let (rt, Patch { kind, body }) = (self.rt, patch);
        if kind == PatchType::Strategic && !rt.is_builtin() {
            return Err(ApiError::unsupported_media_type(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
            ));
        }
        let document = parse_patch(kind, body)?;
        if kind == PatchType::Apply {
            return self.apply(key, subresource, &document, opts);
        }
        let wanted = object::resource_version(&document).ok().flatten();
        let strategies = strategies(rt);
        self.write(key, subresource, opts, wanted, &mut |current| patched(current, kind, &document, &strategies))
    }

    fn apply(
        &self,
        key: ObjectKey<'_>,
        subresource: Option<&str>,
        document: &Value,
        opts: &WriteOptions,
    ) -> Result<Written, ApiError> {
        let (rt, name) = (self.rt, key.name);
        let manager = opts
            .field_manager
            .clone()
            .ok_or_else(|| ApiError::bad_request("PATCH requests of type apply require a fieldManager parameter"))?;
        let mut applied = document.clone();
        check_type(rt, &mut applied)?;
        if object::name(&applied).is_some_and(|n| n != name) {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                object::name(&applied).unwrap_or_default()
            )));
        }
        object::metadata_mut(&mut applied).insert("name".into(), json!(name));
        let strategies = strategies(rt);
        let api_version = rt.api_version();
        if self.state.store.get(&rt.group_resource(), &key.stored()).is_none() && subresource.is_none() {
            let object = patch::server_side_apply(
                None,
                &applied,
                &manager,
                opts.force,
                &strategies,
                &api_version,
                &object::now(),
            )
            .map_err(patch_error)?;
            let create_opts = WriteOptions { field_manager: None, ..opts.clone() };
            match self.create(key.namespace, object.clone(), &create_opts) {
                Err(e) if e.reason == "AlreadyExists" => {}
                other => return other,
            }
        }
        // Apply records its own ownership; the plain-write bookkeeping must not run too.
        let write_opts = WriteOptions { field_manager: None, ..opts.clone() };
        self.write(key, subresource, &write_opts, None, &mut |current| {
            patch::server_side_apply(
                Some(current),
                &applied,
                &manager,
                opts.force,
                &strategies,
                &api_version,
                &object::now(),
            )
            .map_err(|e| match e {
                PatchError::Conflicts(conflicts) => apply_conflict(rt, name, &conflicts),
                other => patch_error(other),
            })
        })
    }

    /// Read-modify-write of one object: `change` turns the current object into the
    /// requested one; retried on a concurrent write unless the client named a
    /// resourceVersion.
    pub fn write(
        &self,
        key: ObjectKey<'_>,
        subresource: Option<&str>,
        opts: &WriteOptions,
        wanted: Option<u64>,
        change: &mut dyn FnMut(&Value) -> Result<Value, ApiError>,
    ) -> Result<Written, ApiError> {
        let (rt, name) = (self.rt, key.name);
        loop {
            let current = self.load(key)?;
            if wanted.is_some_and(|rv| rv != current.rv) {
                return Err(ApiError::modified(&rt.plural, &rt.group, name));
            }
            let old = self.to_served(current.value())?;
            let requested = change(&old)?;
            let mut admitted = Admitted::default();
            let mut next = self.prepare_update(&old, requested, subresource, opts, &mut admitted)?;
            if let Some(manager) = &opts.field_manager {
                patch::record_update(
                    Some(&old),
                    &mut next,
                    manager,
                    &strategies(rt),
                    &rt.api_version(),
                    &object::now(),
                );
            }
            let request = Request {
                subresource,
                object: Some(&next),
                old_object: Some(&old),
                ..Request::new(Operation::Update, rt, key, &opts.caller)
            };
            self.admit(&request, &mut admitted)?;
            if next == old {
                return Ok(Written::new(200, old).warned(admitted));
            }
            if opts.caller.dry_run {
                return Ok(Written::new(200, next).warned(admitted));
            }
            let (gr, k) = (rt.group_resource(), key.stored());
            let store = &self.state.store;
            let result = if deletion_complete(rt, &next) {
                store.remove(&gr, &k, current.rv).map(|_| None)
            } else {
                let stored_form = self.to_storage(next.clone())?;
                store.put(&gr, &k, Expect::Rv(current.rv), stored_form).map(|stored| Some(stored.value()))
            };
            match result {
                Ok(stored) => {
                    if let Some(stored) = store.get(&gr, &k) {
                        self.after_commit(&stored);
                    }
                    let shown = match stored {
                        Some(stored) => self.to_served(stored)?,
                        None => next,
                    };
                    return Ok(Written::new(200, shown).warned(admitted));
                }
                Err(CommitError::Conflict) if wanted.is_none() => continue,
                Err(CommitError::Conflict) => {
                    return Err(ApiError::modified(&rt.plural, &rt.group, name));
                }
                Err(CommitError::Storage(why)) => return Err(ApiError::internal(why)),
                Err(_) => return Err(ApiError::not_found(&rt.plural, &rt.group, name)),
            }
        }
    }

    /// Merges a requested object with the current one as the subresource rules say, and
    /// lets mutating webhooks change a write of the main resource.
    fn prepare_update(
        &self,
        old: &Value,
        mut new: Value,
        subresource: Option<&str>,
        opts: &WriteOptions,
        admitted: &mut Admitted,
    ) -> Result<Value, ApiError> {
        let rt = self.rt;
        check_type(rt, &mut new)?;
        let name = object::name(old).unwrap_or_default().to_string();
        let mut next = match subresource {
            Some("status") if rt.subresources.status => with_field(old, "status", new.get("status")),
            Some(other) => match rt.strategy().update_subresource(other, old, &new) {
                Some(next) => next?,
                None => return Err(ApiError::method_not_allowed("update", &format!("{}/{other}", rt.plural))),
            },
            None => {
                let mut next = new;
                if rt.subresources.status {
                    next = with_field(&next, "status", old.get("status"));
                }
                next
            }
        };
        keep_server_metadata(old, &mut next);
        if subresource.is_none() {
            let key = ObjectKey::new(object::namespace(old), &name);
            let request = Request { old_object: Some(old), ..Request::new(Operation::Update, rt, key, &opts.caller) };
            // Upstream's `PrepareForUpdate` keeps the stored status after the mutating
            // webhooks: an update of the main resource never changes it.
            let context = self.state.context();
            if self.state.admission.mutating.mutate(&context, &request, &mut next, admitted)? && rt.subresources.status
            {
                next = with_field(&next, "status", old.get("status"));
            }
        }
        if let Some(cause) = new_finalizers_while_deleting(old, &next) {
            return Err(ApiError::invalid(&rt.kind, &rt.group, &name, vec![cause]));
        }
        if rt.generation {
            let generation = old["metadata"]["generation"].as_i64().unwrap_or(1);
            let bumped = if spec_changed(old, &next) { generation + 1 } else { generation };
            object::metadata_mut(&mut next).insert("generation".into(), json!(bumped));
        }
        let strategy = rt.strategy();
        if subresource.is_none() {
            check_builtin_fields(rt, &next, opts)?;
            strategy.prepare_update(old, &mut next);
        }
        // A custom resource's status is decoded and validated by its schema too: nulls
        // pruned, defaults filled (upstream's status strategy).
        let mut causes = match subresource {
            None | Some("status") => self.custom_schema(&mut next, Some(old), opts)?,
            Some(_) => Vec::new(),
        };
        if subresource.is_none() {
            causes.extend(strategy.validate_update(old, &next));
        }
        if !causes.is_empty() {
            return Err(ApiError::invalid(&rt.kind, &rt.group, &name, causes));
        }
        rt.strategy().finish_update(old, &mut next)?;
        if let Some(allocate) = rt.allocate().filter(|_| subresource.is_none()) {
            allocate(&self.state.context(), &mut next)?;
        }
        object::drop_empty_metadata(&mut next);
        Ok(next)
    }

    /// Deletes an object: at once, or by marking it and letting finalizers and the
    /// garbage collector finish.
    pub fn delete(&self, key: ObjectKey<'_>, opts: &DeleteOptions) -> Result<Written, ApiError> {
        let (rt, name) = (self.rt, key.name);
        loop {
            let current = self.load(key)?;
            let mut object = current.value();
            check_preconditions(rt, name, &object, current.rv, opts)?;
            let request =
                Request { old_object: Some(&object), ..Request::new(Operation::Delete, rt, key, &opts.caller) };
            self.state.admission.validate(&self.state.context(), &request)?;
            let strategy = rt.strategy();
            let grace = strategy.deletion_grace(&object, opts.grace_period);
            let mut finalizers = object::finalizers(&object);
            if object::deletion_timestamp(&object).is_some() {
                // A deletion under way changes only to a shorter grace period (upstream's
                // `BeforeDelete`); with 0 and no finalizer the object goes.
                if grace >= object::deletion_grace_period(&object) {
                    return Ok(Written::new(200, object));
                }
            } else {
                match opts.propagation.unwrap_or(Propagation::Background) {
                    Propagation::Foreground => finalizers.push(FOREGROUND.to_string()),
                    Propagation::Orphan => finalizers.push(ORPHAN.to_string()),
                    Propagation::Background => {}
                }
                if let Some(own) = strategy.deletion_finalizer().filter(|f| !finalizers.iter().any(|have| have == f)) {
                    finalizers.push(own.to_string());
                }
            }
            let (gr, k) = (rt.group_resource(), key.stored());
            if finalizers.is_empty() && grace == 0 && !strategy.deletes_gracefully() {
                let uid = object::uid(&object).unwrap_or_default().to_string();
                if !opts.caller.dry_run {
                    match self.state.store.remove(&gr, &k, current.rv) {
                        Err(CommitError::Conflict) => continue,
                        Err(CommitError::Storage(why)) => return Err(ApiError::internal(why)),
                        Err(_) => return Err(ApiError::not_found(&rt.plural, &rt.group, name)),
                        Ok(_) => {}
                    }
                }
                return Ok(Written::new(200, deleted_status(&rt.plural, &rt.group, name, &uid)));
            }
            object::set_finalizers(&mut object, &finalizers);
            let meta = object::metadata_mut(&mut object);
            let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(grace);
            meta.insert("deletionTimestamp".into(), json!(object::time(at)));
            meta.insert("deletionGracePeriodSeconds".into(), json!(grace));
            strategy.on_delete(&mut object);
            if opts.caller.dry_run {
                return Ok(Written::new(200, object));
            }
            match self.state.store.put(&gr, &k, Expect::Rv(current.rv), object) {
                Ok(stored) => {
                    return Ok(Written::new(200, stored.value()));
                }
                Err(CommitError::Conflict) => continue,
                Err(CommitError::Storage(why)) => return Err(ApiError::internal(why)),
                Err(_) => return Err(ApiError::not_found(&rt.plural, &rt.group, name)),
            }
        }
    }

    /// Work that follows a committed write of special kinds (CRDs register their types).
    fn after_commit(&self, stored: &Stored) {
        let rt = self.rt;
        if rt.group == "apiextensions.k8s.io" && rt.plural == "customresourcedefinitions" {
            super::crd::register(&self.state.registry, &stored.value());
        }
    }
}

fn check_preconditions(
    rt: &ResourceType,
    name: &str,
    object: &Value,
    rv: u64,
    opts: &DeleteOptions,
) -> Result<(), ApiError> {
    let uid = object::uid(object).unwrap_or_default();
    if let Some(want) = opts.uid.as_deref().filter(|u| *u != uid) {
        return Err(ApiError::conflict(
            &rt.plural,
            &rt.group,
            name,
            &format!("Precondition failed: UID in precondition: {want}, UID in object meta: {uid}"),
        ));
    }
    if let Some(want) = opts.resource_version.as_deref().filter(|r| *r != rv.to_string()) {
        return Err(ApiError::conflict(
            &rt.plural,
            &rt.group,
            name,
            &format!(
                "Precondition failed: ResourceVersion in precondition: {want}, ResourceVersion in object meta: {rv}"
            ),
        ));
    }
    Ok(())
}

/// Strict field validation of a built-in kind: the body must decode as its type with
/// nothing left over (custom resources are checked against their schema instead).
fn check_builtin_fields(rt: &ResourceType, object: &Value, opts: &WriteOptions) -> Result<(), ApiError> {
    if !opts.strict || !rt.is_builtin() {
        return Ok(());
    }
    let cannot = |why: String| {
        ApiError::bad_request(format!(
            "{} in version \"{}\" cannot be handled as a {}: {why}",
            rt.kind, rt.version, rt.kind
        ))
    };
    match kinds::unknown_field(rt, object) {
        Ok(None) => Ok(()),
        Ok(Some(field)) => Err(cannot(format!("strict decoding error: unknown field \"{field}\""))),
        Err(why) => Err(cannot(why)),
    }
}

/// Checks `apiVersion` and `kind` of a body against the resource and fills them in.
pub fn check_type(rt: &ResourceType, object: &mut Value) -> Result<(), ApiError> {
    let Some(map) = object.as_object_mut() else {
        return Err(ApiError::bad_request("the request body must be a JSON object"));
    };
    let api_version = rt.api_version();
    match map.get("apiVersion").and_then(Value::as_str) {
        Some(v) if v != api_version => {
            let same_group = v.rsplit_once('/').map(|(g, _)| g) == Some(rt.group.as_str());
            if !same_group {
                return Err(ApiError::bad_request(format!(
                    "the API version in the data ({v}) does not match the expected API version ({api_version})"
                )));
            }
        }
        _ => {}
    }
    match map.get("kind").and_then(Value::as_str) {
        Some(k) if k != rt.kind => {
            return Err(ApiError::bad_request(format!(
                "the kind in the body ({k}) does not match the kind of {} ({})",
                rt.plural, rt.kind
            )));
        }
        _ => {}
    }
    map.insert("apiVersion".into(), json!(api_version));
    map.insert("kind".into(), json!(rt.kind));
    Ok(())
}

/// Server-set metadata survives any write.
fn keep_server_metadata(old: &Value, next: &mut Value) {
    let old_meta = old.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    let meta = object::metadata_mut(next);
    for field in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "namespace",
        "name",
        "generation",
    ] {
        match old_meta.get(field) {
            Some(v) => meta.insert(field.to_string(), v.clone()),
            None => meta.remove(field),
        };
    }
    if !meta.contains_key("managedFields")
        && let Some(v) = old_meta.get("managedFields")
    {
        meta.insert("managedFields".into(), v.clone());
    }
    if let Some(rv) = old_meta.get("resourceVersion") {
        meta.insert("resourceVersion".into(), rv.clone());
    }
}

fn new_finalizers_while_deleting(old: &Value, next: &Value) -> Option<Cause> {
    object::deletion_timestamp(old)?;
    let before = object::finalizers(old);
    let added: Vec<String> = object::finalizers(next).into_iter().filter(|f| !before.contains(f)).collect();
    (!added.is_empty()).then(|| {
        Cause::new(
            "FieldValueForbidden",
            "metadata.finalizers",
            format!("Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers {added:?}"),
        )
    })
}

/// A copy of `object` with top-level `field` set to `value` (or removed).
fn with_field(object: &Value, field: &str, value: Option<&Value>) -> Value {
    let mut out = object.clone();
    if let Some(map) = out.as_object_mut() {
        match value {
            Some(v) => map.insert(field.to_string(), v.clone()),
            None => map.remove(field),
        };
    }
    out
}

/// Whether anything outside metadata and status differs.
fn spec_changed(old: &Value, new: &Value) -> bool {
    let strip = |v: &Value| -> Vec<(String, Value)> {
        v.as_object()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "metadata" | "status" | "apiVersion" | "kind"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    strip(old) != strip(new)
}

/// The first field present in `a` but not in `b`, as a dotted path.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(k, v)| {
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            match y.get(k) {
                None => Some(p),
                Some(w) => first_difference(v, w, &p),
            }
        }),
        (Value::Array(x), Value::Array(y)) => {
            x.iter().zip(y).enumerate().find_map(|(i, (v, w))| first_difference(v, w, &format!("{path}[{i}]")))
        }
        _ => None,
    }
}

/// The stored JSON as a client of `api_version` sees it (custom resources may be
/// stored through another served version).
pub fn present(json: &Bytes, api_version: &str) -> Bytes {
    let expected = format!("{{\"apiVersion\":\"{api_version}\"");
    if json.starts_with(expected.as_bytes()) {
        return json.clone();
    }
    let mut value: Value = super::encoding::parse_own(json);
    if let Some(map) = value.as_object_mut() {
        map.insert("apiVersion".into(), json!(api_version));
    }
    super::encoding::to_bytes(&value)
}

/// A create never sets the status of a kind with a `/status` subresource (upstream's
/// `PrepareForCreate`), unless the kind says otherwise (a kubelet registers its Node with
/// its status).
fn reset_status_on_create(rt: &ResourceType, object: &mut Value) {
    if rt.subresources.status
        && !rt.strategy().keeps_status_on_create()
        && let Some(map) = object.as_object_mut()
    {
        map.remove("status");
    }
}

/// Whether an object marked for deletion has nothing left holding it: no finalizer, no
/// grace period still running (a Pod's ends when its kubelet deletes it with 0), and
/// nothing of its kind's own (a Namespace's `spec.finalizers`).
fn deletion_complete(rt: &ResourceType, object: &Value) -> bool {
    object::deletion_timestamp(object).is_some()
        && object::finalizers(object).is_empty()
        && object::deletion_grace_period(object) <= 0
        && rt.strategy().nothing_else_holds(object)
}
