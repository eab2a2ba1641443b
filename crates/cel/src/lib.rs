//! CEL as Kubernetes uses it (ValidatingAdmissionPolicy, CRD `x-kubernetes-validations`):
//! compiled expressions and JSON objects as CEL values. A library that needs a server (the
//! `authorizer`, which asks RBAC) comes with the variable that binds it: see
//! [`Variables::set_library`].

mod ast;
pub mod cost;
mod value;

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

pub use value::{from_json, to_json};

/// Registers the functions of a library in an evaluation's context.
pub type Library = fn(&mut cel::Context<'_, '_>) -> Result<(), cel::DeclarationError>;

/// Why an expression could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("compilation failed: {0}")]
pub struct CompileError(String);

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EvalError(String);

/// The environment every expression runs in: the CEL standard library with macros and
/// the string, list and math extensions Kubernetes enables.
fn env() -> &'static Arc<cel::Env> {
    static ENV: OnceLock<Arc<cel::Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = cel::Env::stdlib();
        for extension in [
            cel::extensions::strings as fn(&mut cel::Env) -> Result<(), cel::DeclarationError>,
            cel::extensions::lists,
            cel::extensions::math,
        ] {
            // The extensions declare disjoint functions; a clash would be a bug of the
            // library, and the environment still serves the standard library without them.
            if let Err(e) = env.add_extension(extension) {
                tracing::warn!(error = %e, "a CEL extension could not be registered");
            }
        }
        Arc::new(env)
    })
}

/// A compiled expression.
#[derive(Debug)]
pub struct Expression {
    program: cel::Program,
}

impl Expression {
    /// Compiles `source`.
    pub fn compile(source: &str) -> Result<Self, CompileError> {
        let program = env().compile(source).map_err(|e| CompileError(e.to_string()))?;
        Ok(Self { program })
    }

    /// Compiles `source` for an environment that declares the variables `declared` and no
    /// other: a reference to anything else fails here, as cel-go's checker fails it.
    pub fn compile_declaring(source: &str, declared: &[&str]) -> Result<Self, CompileError> {
        let compiled = Self::compile(source)?;
        match ast::undeclared(compiled.ast(), declared) {
            Some(name) => Err(CompileError(format!("undeclared reference to '{name}'"))),
            None => Ok(compiled),
        }
    }

    /// The parsed expression.
    pub fn ast(&self) -> &cel::IdedExpr {
        self.program.expression()
    }

    /// The string literals the expression passes to the member function `function`
    /// (`x.function('literal')`): what a library can look up before evaluation.
    pub fn literal_arguments(&self, function: &str) -> BTreeSet<String> {
        ast::literal_arguments(self.ast(), function)
    }

    /// Evaluates the expression with `variables` bound (and the libraries they bring).
    pub fn eval(&self, variables: &Variables) -> Result<cel::Value, EvalError> {
        let mut context = cel::Context::with_env(env().clone());
        for (name, value) in &variables.values {
            context.add_variable_from_value(name.as_str(), value.clone());
        }
        for library in &variables.libraries {
            library(&mut context).map_err(|e| EvalError(e.to_string()))?;
        }
        self.program.execute(&context).map_err(|e| EvalError(e.to_string()))
    }

    /// Evaluates an expression that must answer true or false.
    pub fn eval_bool(&self, variables: &Variables) -> Result<bool, EvalError> {
        match self.eval(variables)? {
            cel::Value::Bool(b) => Ok(b),
            other => Err(EvalError(format!("expected a bool, got {}", other.type_of()))),
        }
    }

    /// Evaluates an expression that must answer a string.
    pub fn eval_string(&self, variables: &Variables) -> Result<String, EvalError> {
        match self.eval(variables)? {
            cel::Value::String(s) => Ok(s.to_string()),
            other => Err(EvalError(format!("expected a string, got {}", other.type_of()))),
        }
    }
}

/// The variables an evaluation sees.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    values: Vec<(String, cel::Value)>,
    libraries: Vec<Library>,
}

impl Variables {
    /// Binds `name` (a later binding of the same name wins).
    pub fn set(&mut self, name: &str, value: cel::Value) {
        self.values.retain(|(n, _)| n != name);
        self.values.push((name.to_string(), value));
    }

    /// Binds `name` to `value`, whose methods `library` registers (the server's
    /// `authorizer`).
    pub fn set_library(&mut self, name: &str, value: cel::Value, library: Library) {
        self.set(name, value);
        self.libraries.push(library);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn vars(object: serde_json::Value) -> Variables {
        let mut v = Variables::default();
        v.set("object", from_json(&object));
        v
    }

    #[test]
    fn expressions_read_json_objects_with_has_and_macros() {
        let v = vars(json!({"spec": {"replicas": 3, "names": ["a", "b"]}, "metadata": {"name": "x"}}));
        let check = |src: &str| Expression::compile(src).expect(src).eval_bool(&v).expect(src);
        assert!(check("object.spec.replicas <= 5"));
        assert!(check("!has(object.spec.flag)"));
        assert!(check("object.spec.names.all(n, n.size() == 1)"));
        assert!(check("'b' in object.spec.names"));
        assert!(check("object.metadata.name.startsWith('x')"));
        assert!(check("object.spec == {'replicas': 3, 'names': ['a', 'b']}"));
    }

    #[test]
    fn a_missing_field_is_an_evaluation_error_and_bad_syntax_a_compile_error() {
        let v = vars(json!({"spec": {}}));
        let missing = Expression::compile("object.spec.flag == true").expect("compiles");
        assert!(missing.eval_bool(&v).is_err());
        assert!(Expression::compile("object.spec.(").is_err());
        let not_bool = Expression::compile("object.spec").expect("compiles");
        assert!(not_bool.eval_bool(&v).is_err());
    }
}
