//! What a compiled expression reads, found by walking its syntax tree: the checks cel-go's
//! type checker makes before a program runs, which cel-rust (an interpreter without a
//! checker) leaves to evaluation.

use std::collections::BTreeSet;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

/// CEL's type names, which every environment declares (`type(x) == int`).
const TYPE_NAMES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// The first identifier `expr` reads that is none of `declared`, a comprehension's own
/// variable or a type name: what cel-go's checker refuses as an undeclared reference.
pub fn undeclared(expr: &IdedExpr, declared: &[&str]) -> Option<String> {
    let mut scope: Vec<&str> = declared.iter().chain(TYPE_NAMES).copied().collect();
    let mut found = None;
    visit(expr, &mut scope, &mut |e, scope| {
        if let Expr::Ident(name) = &e.expr
            && found.is_none()
            && !scope.contains(&name.as_str())
        {
            found = Some(name.clone());
        }
    });
    found
}

/// The string literals passed as the one argument of the member function `function`
/// (`x.function('literal')`).
pub fn literal_arguments(expr: &IdedExpr, function: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    visit(expr, &mut Vec::new(), &mut |e, _| {
        if let Expr::Call(call) = &e.expr
            && call.func_name == function
            && call.target.is_some()
            && let [argument] = call.args.as_slice()
            && let Expr::Literal(LiteralValue::String(literal)) = &argument.expr
        {
            found.insert(literal.inner().to_string());
        }
    });
    found
}

/// Calls `each` on every node of `expr`, parents first, with the names bound there.
fn visit<'e>(expr: &'e IdedExpr, scope: &mut Vec<&'e str>, each: &mut impl FnMut(&'e IdedExpr, &[&'e str])) {
    each(expr, scope);
    match &expr.expr {
        Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => {}
        Expr::Select(select) => visit(&select.operand, scope, each),
        Expr::List(list) => list.elements.iter().for_each(|e| visit(e, scope, each)),
        Expr::Map(map) => map.entries.iter().for_each(|e| visit_entry(&e.expr, scope, each)),
        Expr::Struct(object) => object.entries.iter().for_each(|e| visit_entry(&e.expr, scope, each)),
        Expr::Call(call) => {
            call.target.iter().map(|t| t.as_ref()).chain(&call.args).for_each(|e| visit(e, scope, each));
        }
        Expr::Comprehension(c) => {
            visit(&c.iter_range, scope, each);
            visit(&c.accu_init, scope, each);
            let outer = scope.len();
            scope.extend(
                [Some(c.iter_var.as_str()), c.iter_var2.as_deref(), Some(c.accu_var.as_str())].into_iter().flatten(),
            );
            for part in [&c.loop_cond, &c.loop_step, &c.result] {
                visit(part, scope, each);
            }
            scope.truncate(outer);
        }
    }
}

fn visit_entry<'e>(entry: &'e EntryExpr, scope: &mut Vec<&'e str>, each: &mut impl FnMut(&'e IdedExpr, &[&'e str])) {
    match entry {
        EntryExpr::MapEntry(e) => {
            visit(&e.key, scope, each);
            visit(&e.value, scope, each);
        }
        EntryExpr::StructField(f) => visit(&f.value, scope, each),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Expression;

    fn ast(source: &str) -> Expression {
        Expression::compile(source).expect(source)
    }

    #[test]
    fn an_identifier_neither_declared_nor_bound_by_a_macro_is_undeclared_as_cel_gos_checker_says() {
        let declared = ["managedCluster"];
        assert_eq!(undeclared(ast("xxxx.expression").ast(), &declared), Some("xxxx".to_string()));
        assert_eq!(undeclared(ast("managedCluster.metadata.name == 'a'").ast(), &declared), None);
        let macros = "managedCluster.status.clusterClaims.exists(c, c.name == 'x') && [1].map(i, i + 1).size() == 1";
        assert_eq!(undeclared(ast(macros).ast(), &declared), None);
        assert_eq!(undeclared(ast("type(managedCluster) == map").ast(), &declared), None);
        // A comprehension's variable is bound only inside it.
        let escaped = "managedCluster.metadata.labels.all(k, k != '') && k == ''";
        assert_eq!(undeclared(ast(escaped).ast(), &declared), Some("k".to_string()));
    }

    #[test]
    fn the_literal_arguments_of_a_member_function_are_found_wherever_it_is_called() {
        let e = ast(
            "x.scores('a').size() > 0 || [1].exists(i, x.scores(\"b\")[0].value > i) || scores('c') || x.scores(y)",
        );
        assert_eq!(literal_arguments(e.ast(), "scores"), BTreeSet::from(["a".to_string(), "b".to_string()]));
    }
}
