//! The Kubernetes CEL authorizer library: `authorizer.group(g).resource(r)
//! .subresource(s).namespace(n).name(x).check(verb).allowed()`, `authorizer.path(p)
//! .check(verb)`, `authorizer.serviceAccount(ns, name)` and
//! `authorizer.requestResource`, each answered by the server's own authorizer for
//! the request's user (or the named ServiceAccount).

use std::sync::Arc;

use cel::extractors::This;
use cel::objects::{Key, Opaque};
use cel::{Context, DeclarationError, ExecutionError, Value};
use fleetctl_apimachinery::cel::Variables;

use super::auth::User;
use super::rbac::{Attributes, Target};

/// Answers one authorization question for one user.
pub type Check = Arc<dyn Fn(&User, &Attributes) -> bool + Send + Sync>;

/// The key under which the `authorizer` map keeps the authorizer itself (no
/// expression can spell it).
const SELF: &str = "\u{0}authorizer";

/// An authorizer for one principal, or a partly built question (a group, a resource…),
/// or the decision of a question.
#[derive(Clone)]
pub struct Authorizer {
    check: Check,
    principal: User,
    question: Question,
}

/// What has been asked so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Question {
    path: Option<String>,
    group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
    /// The decision once `check` ran.
    allowed: Option<bool>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer").field("principal", &self.principal.name).field("question", &self.question).finish()
    }
}

impl PartialEq for Authorizer {
    fn eq(&self, other: &Self) -> bool {
        self.principal == other.principal && self.question == other.question
    }
}

impl Eq for Authorizer {}

impl Opaque for Authorizer {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.Authorizer"
    }
}

/// The resource a request acts on, for `authorizer.requestResource`.
#[derive(Debug, Clone, Default)]
pub struct RequestResource {
    /// API group.
    pub group: String,
    /// Plural resource.
    pub resource: String,
    /// Subresource, empty for the main resource.
    pub subresource: String,
    /// Namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// Object name, empty for collections.
    pub name: String,
}

impl Authorizer {
    /// An authorizer answering for `principal` through `check`; `request` is what
    /// `authorizer.requestResource` names.
    pub fn new(check: Check, principal: User, request: &RequestResource) -> (Self, Self) {
        let base = Self { check, principal, question: Question::default() };
        let mut requested = base.clone();
        requested.question = Question {
            group: request.group.clone(),
            resource: request.resource.clone(),
            subresource: request.subresource.clone(),
            namespace: request.namespace.clone(),
            name: request.name.clone(),
            ..Question::default()
        };
        (base, requested)
    }

    /// Binds the `authorizer` variable in `variables`: this authorizer with its
    /// `requestResource` field, and the library's functions.
    pub fn bind(self, request_resource: Self, variables: &mut Variables) {
        let mut map = std::collections::HashMap::new();
        map.insert(Key::String(Arc::new(SELF.to_string())), Value::Opaque(Arc::new(self)));
        map.insert(Key::String(Arc::new("requestResource".to_string())), Value::Opaque(Arc::new(request_resource)));
        variables.set_library("authorizer", Value::from(map), register);
    }

    fn attributes(&self, verb: &str) -> Attributes {
        let q = &self.question;
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        let target = match &q.path {
            Some(path) => Target::NonResource { path: path.clone() },
            None => Target::Resource {
                group: q.group.clone(),
                resource: q.resource.clone(),
                subresource: some(&q.subresource),
                namespace: some(&q.namespace),
                name: some(&q.name),
            },
        };
        Attributes { verb: verb.to_string(), target }
    }
}

/// The authorizer behind a receiver: the opaque value itself, or the `authorizer` map.
fn receiver(value: &Value) -> Result<&Authorizer, ExecutionError> {
    let opaque = match value {
        Value::Opaque(o) => o,
        Value::Map(map) => match map.map.get(&Key::String(Arc::new(SELF.to_string()))) {
            Some(Value::Opaque(o)) => o,
            _ => return Err(ExecutionError::function_error("authorizer", "not an authorizer")),
        },
        _ => return Err(ExecutionError::function_error("authorizer", "not an authorizer")),
    };
    opaque.downcast_ref::<Authorizer>().ok_or_else(|| ExecutionError::function_error("authorizer", "not an authorizer"))
}

fn with(this: &Value, change: impl FnOnce(&mut Question)) -> Result<Value, ExecutionError> {
    let mut next = receiver(this)?.clone();
    change(&mut next.question);
    Ok(Value::Opaque(Arc::new(next)))
}

fn decision(this: &Value) -> Result<bool, ExecutionError> {
    receiver(this)?.question.allowed.ok_or_else(|| ExecutionError::function_error("allowed", "check() was not called"))
}

/// Declares the library's functions on `context`.
fn register(context: &mut Context<'_, '_>) -> Result<(), DeclarationError> {
    context
        .add_function("group", |This(this): This<Value>, g: Arc<String>| with(&this, |q| q.group = g.to_string()))?;
    context.add_function("resource", |This(this): This<Value>, r: Arc<String>| {
        with(&this, |q| q.resource = r.to_string())
    })?;
    context.add_function("subresource", |This(this): This<Value>, s: Arc<String>| {
        with(&this, |q| q.subresource = s.to_string())
    })?;
    context.add_function("namespace", |This(this): This<Value>, n: Arc<String>| {
        with(&this, |q| q.namespace = n.to_string())
    })?;
    context.add_function("name", |This(this): This<Value>, n: Arc<String>| with(&this, |q| q.name = n.to_string()))?;
    context.add_function("path", |This(this): This<Value>, p: Arc<String>| {
        with(&this, |q| q.path = Some(p.to_string()))
    })?;
    context.add_function("serviceAccount", |This(this): This<Value>, ns: Arc<String>, name: Arc<String>| {
        let mut next = receiver(&this)?.clone();
        next.principal = User {
            name: format!("system:serviceaccount:{ns}:{name}"),
            uid: String::new(),
            groups: vec![
                "system:serviceaccounts".to_string(),
                format!("system:serviceaccounts:{ns}"),
                super::auth::AUTHENTICATED.to_string(),
            ],
        };
        next.question = Question::default();
        Ok::<Value, ExecutionError>(Value::Opaque(Arc::new(next)))
    })?;
    context.add_function("check", |This(this): This<Value>, verb: Arc<String>| {
        let authorizer = receiver(&this)?;
        let allowed = (authorizer.check)(&authorizer.principal, &authorizer.attributes(&verb));
        with(&this, |q| q.allowed = Some(allowed))
    })?;
    context.add_function("allowed", |This(this): This<Value>| decision(&this))?;
    context.add_function("denied", |This(this): This<Value>| decision(&this).map(|allowed| !allowed))?;
    context.add_function("errored", |This(this): This<Value>| decision(&this).map(|_| false))?;
    context.add_function("reason", |This(this): This<Value>| {
        decision(&this).map(|allowed| Value::from(if allowed { "allowed by RBAC" } else { "" }))
    })?;
    context.add_function("error", |This(this): This<Value>| decision(&this).map(|_| Value::from("")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use fleetctl_apimachinery::cel::Expression;

    use super::*;

    fn user(name: &str) -> User {
        User { name: name.to_string(), uid: String::new(), groups: vec!["devs".to_string()] }
    }

    /// Allows only `update` of `widgets/approve` named `w1` in group `example.test` to
    /// alice, and `get /healthz` to anyone.
    fn check() -> Check {
        Arc::new(|user: &User, attributes: &Attributes| match &attributes.target {
            Target::NonResource { path } => path == "/healthz" && attributes.verb == "get",
            Target::Resource { group, resource, subresource, name, .. } => {
                user.name == "alice"
                    && attributes.verb == "update"
                    && group == "example.test"
                    && resource == "widgets"
                    && subresource.as_deref() == Some("approve")
                    && name.as_deref() == Some("w1")
            }
        })
    }

    fn eval(principal: &str, source: &str) -> bool {
        let request = RequestResource {
            group: "example.test".into(),
            resource: "widgets".into(),
            subresource: "approve".into(),
            name: "w1".into(),
            ..RequestResource::default()
        };
        let (base, requested) = Authorizer::new(check(), user(principal), &request);
        let mut variables = Variables::default();
        base.bind(requested, &mut variables);
        Expression::compile(source).expect(source).eval_bool(&variables).expect(source)
    }

    #[test]
    fn checks_ask_the_server_authorizer_about_the_built_question() {
        let question =
            "authorizer.group('example.test').resource('widgets').subresource('approve').name('w1').check('update')";
        assert!(eval("alice", &format!("{question}.allowed()")));
        assert!(!eval("bob", &format!("{question}.allowed()")));
        assert!(eval("bob", &format!("{question}.denied()")));
        assert!(!eval(
            "alice",
            "authorizer.group('example.test').resource('widgets').name('w1').check('update').allowed()"
        ));
        assert!(eval("bob", "authorizer.path('/healthz').check('get').allowed()"));
    }

    #[test]
    fn the_request_resource_and_service_accounts_can_be_checked() {
        assert!(eval("alice", "authorizer.requestResource.check('update').allowed()"));
        assert!(!eval("bob", "authorizer.requestResource.check('update').allowed()"));
        let as_service_account = "authorizer.serviceAccount('ns', 'sa').group('example.test').resource('widgets')\
            .subresource('approve').name('w1').check('update').allowed()";
        assert!(!eval("alice", as_service_account), "the ServiceAccount, not alice, is asked about");
    }
}
