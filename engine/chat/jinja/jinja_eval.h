// The evaluator: runs a TemplateAst against variables and produces text. Scoping follows Jinja:
// `set` inside a for loop is local to that iteration, `if` blocks share the enclosing scope,
// macros see the template's top level, namespace() objects are shared by reference.
// Every render is bounded (output size, operations, macro recursion depth, range size) so a
// template that loops forever or recurses without end stops with a clear error.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <unordered_map>

#include "chat/jinja/jinja_ast.h"

namespace hearth::chat::jinja {

struct Limits {
    size_t maxOutputBytes = 16u << 20;   // the rendered text, and any single string built on the way
    int64_t maxOperations = 2'000'000;   // statements + loop iterations + macro calls + data built
    int maxCallDepth = 200;              // nested macro calls (Python would stop near 1000 frames)
    int64_t maxRange = 100'000;          // Jinja's sandbox refuses larger range() calls too
};

class Evaluator {
public:
    Evaluator(const TemplateAst& ast, Limits limits, std::function<std::tm()> clock);

    // A variable of the outermost scope (the context the template is rendered with).
    void setGlobal(const std::string& name, Value value);
    // Renders the whole template. Throws TemplateError / RaisedError.
    std::string render();

    // ---- used by the built-ins ----
    Value eval(const Expr& expr);
    Value callValue(const Value& callee, CallArgs& args, int line);
    std::tm now() const { return m_clock(); }
    const Limits& limits() const { return m_limits; }
    // Counts one unit of work against maxOperations.
    void tick(int line);
    // Counts the size of a value just built against maxOperations (see chargeBuilt).
    void chargeData(const Json& built);
    // Throws if a string of `bytes` would exceed the size limit.
    void checkSize(size_t bytes, int line) const;
    // Jinja's getattr (`x.name`) and getitem (`x[key]`), as filters such as map/selectattr use them.
    Value getAttr(const Value& object, const std::string& name, int line) { return evalAttr(object, name, line); }
    Value getItem(const Value& object, const Value& key, int line) { return evalItem(object, key, line); }
    // Runs a macro: binds arguments, renders the body, returns the text.
    Value callMacro(const Stmt& macro, CallArgs& args, const Value* caller, int line);

private:
    struct Scope {
        std::unordered_map<std::string, Value> vars;
        Scope* parent = nullptr;
    };
    class ScopeGuard;
    class OutputGuard;
    enum class Flow { Normal, Break, Continue };

    Flow execBody(const StmtList& body);
    Flow exec(const Stmt& stmt);
    Flow execFor(const Stmt& stmt);
    void execSet(const Stmt& stmt);
    void assignTargets(const std::vector<std::string>& targets, const Value& value, int line);
    void write(const std::string& text, int line);

    Value lookup(const std::string& name) const;
    Value evalAttr(const Value& object, const std::string& name, int line);
    Value evalItem(const Value& object, const Value& index, int line);
    Value evalSlice(const Value& object, const Expr& expr);
    Value evalBinary(const Expr& expr);
    Value evalCompare(const Expr& expr);
    CallArgs evalArgs(const Arguments& args);

    const TemplateAst& m_ast;
    Limits m_limits;
    std::function<std::tm()> m_clock;
    Scope m_root;
    Scope* m_scope = &m_root;
    std::string* m_out = nullptr;
    int64_t m_operations = 0;
    int m_callDepth = 0;
};

// Python arithmetic on values (+ - * / // % **), shared with filters such as sum.
Value arithmetic(Evaluator& evaluator, const std::string& op, const Value& a, const Value& b, int line);
// Python's `%` string formatting ("%s: %d" % (a, b)).
std::string percentFormat(const std::string& format, const Value& args, int line);

} // namespace hearth::chat::jinja
