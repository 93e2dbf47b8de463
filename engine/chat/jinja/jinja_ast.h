// The syntax tree of a parsed template: expressions and statements, each with its source line so
// that errors at render time can say where they happened.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja/jinja_value.h"

namespace hearth::chat::jinja {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

struct Arguments {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> keyword;
};

struct Expr {
    enum class Kind {
        Literal,   // constant (value)
        List,      // [a, b] and tuples (items)
        Dict,      // {k: v} (items as key/value pairs)
        Name,      // name
        Attr,      // object.name
        Item,      // object[index]
        Slice,     // object[start:stop:step] (items: start, stop, step, each may be null)
        Call,      // object(args)
        Filter,    // object | name(args)
        Test,      // object is [not] name(args)
        Unary,     // op object ("-", "+", "not")
        Binary,    // lhs op rhs (arithmetic, "~", "and", "or", "in", "not in")
        Compare,   // object op1 items[0] op2 items[1] ... (chained comparisons)
        Ternary,   // items[0] if object else items[1] (else may be null)
    };

    Kind kind;
    int line = 0;
    Value value;          // Literal
    std::string name;     // Name, Attr, Filter, Test, Unary/Binary operator
    ExprPtr object;       // Attr, Item, Slice, Call, Filter, Test, Unary, Binary lhs, Compare first, Ternary value
    ExprPtr index;        // Item index, Binary rhs, Ternary condition
    std::vector<ExprPtr> items;
    std::vector<std::string> ops; // Compare operators
    Arguments args;       // Call, Filter, Test
    bool negated = false; // Test

    Expr(Kind k, int l) : kind(k), line(l) {}
};

struct MacroParam {
    std::string name;
    ExprPtr defaultValue; // may be null
};

struct Stmt {
    enum class Kind {
        Text,      // text
        Output,    // {{ expr }}
        If,        // conditions[i] -> bodies[i]; elseBody
        For,       // targets in expr [if filter]: body; elseBody
        Set,       // targets = expr, or namespaceAttr set (ns.attr = expr)
        SetBlock,  // {% set x %}body{% endset %}, optionally through filters
        Macro,     // {% macro name(params) %}body{% endmacro %}
        CallBlock, // {% call macro(args) %}body{% endcall %}: body is `caller()`
        FilterBlock, // {% filter name %}body{% endfilter %}
        Break,
        Continue,
        Scope,     // a body run as is ({% generation %}, {% with %} without assignments)
    };

    Kind kind;
    int line = 0;
    std::string text;                  // Text; Macro name; Set namespace attribute name
    ExprPtr expr;                      // Output, For iterable, Set value, CallBlock call, FilterBlock filter chain
    ExprPtr filter;                    // For inline `if`; SetBlock filter chain (applied to a placeholder)
    std::vector<std::string> targets;  // For / Set targets (several = tuple unpacking)
    std::string namespaceName;         // Set of a namespace attribute (ns.attr)
    std::vector<ExprPtr> conditions;   // If
    std::vector<StmtList> bodies;      // If branches
    StmtList body;                     // For, SetBlock, Macro, CallBlock, FilterBlock, Scope
    StmtList elseBody;                 // If, For
    std::vector<MacroParam> params;    // Macro, CallBlock (caller's params)
    bool recursive = false;            // For ... recursive

    Stmt(Kind k, int l) : kind(k), line(l) {}
};

// Owns the statements of a parsed template.
struct TemplateAst {
    StmtList body;
};

} // namespace hearth::chat::jinja
