#include "chat/jinja/jinja_eval.h"

#include <vector>

#include "chat/jinja/jinja_builtins.h"

namespace hearth::chat::jinja {

namespace {

// A macro defined in the template; calling it renders its body.
class MacroCallable : public Callable {
public:
    explicit MacroCallable(const Stmt& stmt) : m_stmt(stmt) {}
    std::string name() const override { return m_stmt.text; }
    Value call(Evaluator& evaluator, CallArgs& args, int line) const override {
        return evaluator.callMacro(m_stmt, args, nullptr, line);
    }
    const Stmt& stmt() const { return m_stmt; }

private:
    const Stmt& m_stmt;
};

// `caller()` inside a macro invoked by {% call %}: renders the call block's body, which takes the
// block's own parameters like an anonymous macro. (It sees the template's top level, not the
// scope around the call block: chat templates do not need more.)
class CallerCallable : public Callable {
public:
    explicit CallerCallable(const Stmt& stmt) : m_stmt(stmt) {}
    std::string name() const override { return "caller"; }
    Value call(Evaluator& evaluator, CallArgs& args, int line) const override {
        return evaluator.callMacro(m_stmt, args, nullptr, line);
    }

private:
    const Stmt& m_stmt;
};

// loop.cycle('odd', 'even'): the argument at index0 modulo their count.
class CycleCallable : public Callable {
public:
    explicit CycleCallable(int64_t index) : m_index(index) {}
    std::string name() const override { return "loop.cycle"; }
    Value call(Evaluator&, CallArgs& args, int line) const override {
        if (args.positional.empty()) throw TemplateError(line, "loop.cycle() needs at least one argument");
        return args.positional[static_cast<size_t>(m_index % static_cast<int64_t>(args.positional.size()))];
    }

private:
    int64_t m_index;
};

// The evaluator rendering on this thread, which chargeBuilt() bills.
thread_local Evaluator* t_rendering = nullptr;

// A string costs one operation per this many bytes: a template may copy the conversation a few
// times, but not a 16 MB string two million times.
constexpr size_t kBytesPerOperation = 64;

} // namespace

void chargeBuilt(const Json& built) {
    if (!t_rendering) return;
    // Scalars and short strings cost nothing (tick() counts the operation that made them).
    if (built.is_structured() || (built.is_string() && built.get_ref<const std::string&>().size() >= kBytesPerOperation))
        t_rendering->chargeData(built);
}

// ---- scope and output guards ----

class Evaluator::ScopeGuard {
public:
    ScopeGuard(Evaluator& e, Scope& scope) : m_e(e), m_saved(e.m_scope) { e.m_scope = &scope; }
    ~ScopeGuard() { m_e.m_scope = m_saved; }

private:
    Evaluator& m_e;
    Scope* m_saved;
};

class Evaluator::OutputGuard {
public:
    OutputGuard(Evaluator& e, std::string& out) : m_e(e), m_saved(e.m_out) { e.m_out = &out; }
    ~OutputGuard() { m_e.m_out = m_saved; }

private:
    Evaluator& m_e;
    std::string* m_saved;
};

Evaluator::Evaluator(const TemplateAst& ast, Limits limits, std::function<std::tm()> clock)
    : m_ast(ast), m_limits(limits), m_clock(std::move(clock)) {
    installGlobals(*this);
}

void Evaluator::setGlobal(const std::string& name, Value value) { m_root.vars[name] = std::move(value); }

std::string Evaluator::render() {
    struct Billing {
        Evaluator* outer = t_rendering;
        explicit Billing(Evaluator* e) { t_rendering = e; }
        ~Billing() { t_rendering = outer; }
    } billing(this);
    std::string out;
    OutputGuard guard(*this, out);
    execBody(m_ast.body);
    return out;
}

void Evaluator::tick(int line) {
    if (++m_operations > m_limits.maxOperations) {
        throw TemplateError(line, "template stopped: it exceeded the limit of " + std::to_string(m_limits.maxOperations) +
                                      " operations (an endless or too large loop?)");
    }
}

void Evaluator::chargeData(const Json& built) {
    int64_t cost = 0;
    std::vector<const Json*> pending{&built};
    while (!pending.empty()) {
        const Json& node = *pending.back();
        pending.pop_back();
        if (node.is_string()) cost += int64_t(node.get_ref<const std::string&>().size() / kBytesPerOperation);
        if (node.is_object())
            for (auto it = node.begin(); it != node.end(); ++it) cost += int64_t(it.key().size() / kBytesPerOperation);
        if (node.is_structured()) {
            cost += int64_t(node.size());
            for (const Json& child : node) pending.push_back(&child);
        }
    }
    m_operations += cost;
    if (m_operations > m_limits.maxOperations) {
        throw TemplateError(0, "template stopped: it exceeded the limit of " + std::to_string(m_limits.maxOperations) +
                                   " operations (the data it builds counts by its size)");
    }
}

void Evaluator::checkSize(size_t bytes, int line) const {
    if (bytes > m_limits.maxOutputBytes) {
        throw TemplateError(line, "template stopped: text of " + std::to_string(bytes) + " bytes exceeds the limit of " +
                                      std::to_string(m_limits.maxOutputBytes) + " bytes");
    }
}

void Evaluator::write(const std::string& text, int line) {
    checkSize(m_out->size() + text.size(), line);
    m_out->append(text);
}

// ---- statements ----

Evaluator::Flow Evaluator::execBody(const StmtList& body) {
    for (const auto& stmt : body) {
        const Flow flow = exec(*stmt);
        if (flow != Flow::Normal) return flow;
    }
    return Flow::Normal;
}

Evaluator::Flow Evaluator::exec(const Stmt& stmt) {
    tick(stmt.line);
    try {
        switch (stmt.kind) {
        case Stmt::Kind::Text: write(stmt.text, stmt.line); return Flow::Normal;
        case Stmt::Kind::Output: write(toStr(eval(*stmt.expr), stmt.line), stmt.line); return Flow::Normal;
        case Stmt::Kind::If:
            for (size_t i = 0; i < stmt.conditions.size(); ++i) {
                if (truthy(eval(*stmt.conditions[i]))) return execBody(stmt.bodies[i]);
            }
            return execBody(stmt.elseBody);
        case Stmt::Kind::For: return execFor(stmt);
        case Stmt::Kind::Set: execSet(stmt); return Flow::Normal;
        case Stmt::Kind::SetBlock: {
            std::string text;
            {
                OutputGuard guard(*this, text);
                execBody(stmt.body);
            }
            Value value = Value::string(std::move(text));
            if (stmt.filter) {
                Scope temp{{{"", value}}, m_scope};
                ScopeGuard guard(*this, temp);
                value = eval(*stmt.filter);
            }
            assignTargets(stmt.targets, value, stmt.line);
            return Flow::Normal;
        }
        case Stmt::Kind::Macro:
            m_scope->vars[stmt.text] = Value::callable(std::make_shared<MacroCallable>(stmt));
            return Flow::Normal;
        case Stmt::Kind::CallBlock: {
            const Expr& call = *stmt.expr;
            const Value callee = eval(*call.object);
            CallArgs args = evalArgs(call.args);
            const auto* macro = callee.isCallable() ? dynamic_cast<const MacroCallable*>(callee.callableObject().get()) : nullptr;
            if (!macro) throw TemplateError(stmt.line, "'call' block needs a macro");
            const Value caller = Value::callable(std::make_shared<CallerCallable>(stmt));
            write(toStr(callMacro(macro->stmt(), args, &caller, stmt.line), stmt.line), stmt.line);
            return Flow::Normal;
        }
        case Stmt::Kind::FilterBlock: {
            std::string text;
            {
                OutputGuard guard(*this, text);
                execBody(stmt.body);
            }
            Scope temp{{{"", Value::string(std::move(text))}}, m_scope};
            ScopeGuard guard(*this, temp);
            write(toStr(eval(*stmt.expr), stmt.line), stmt.line);
            return Flow::Normal;
        }
        case Stmt::Kind::Break: return Flow::Break;
        case Stmt::Kind::Continue: return Flow::Continue;
        case Stmt::Kind::Scope: {
            Scope scope{{}, m_scope};
            ScopeGuard guard(*this, scope);
            return execBody(stmt.body);
        }
        }
    } catch (TemplateError& e) {
        e.setLine(stmt.line);
        throw;
    }
    return Flow::Normal;
}

Evaluator::Flow Evaluator::execFor(const Stmt& stmt) {
    const int line = stmt.line;
    std::vector<Value> items = iterate(eval(*stmt.expr), line);
    if (stmt.filter) {
        // `for x in xs if cond`: the condition sees the loop variables but not `loop`.
        std::vector<Value> kept;
        for (auto& item : items) {
            tick(line);
            Scope scope{{}, m_scope};
            ScopeGuard guard(*this, scope);
            assignTargets(stmt.targets, item, line);
            if (truthy(eval(*stmt.filter))) kept.push_back(std::move(item));
        }
        items = std::move(kept);
    }
    if (items.empty()) {
        execBody(stmt.elseBody);
        return Flow::Normal;
    }
    const int64_t n = static_cast<int64_t>(items.size());
    auto loopData = std::make_shared<NamespaceData>();
    const Value loopValue = Value::makeNamespace(loopData);
    for (int64_t i = 0; i < n; ++i) {
        tick(line);
        // Filled in place, in a fixed order, without lookups: this runs once per iteration.
        auto& a = loopData->attributes;
        a.clear();
        a.emplace_back("index0", Value::integer(i));
        a.emplace_back("index", Value::integer(i + 1));
        a.emplace_back("revindex0", Value::integer(n - i - 1));
        a.emplace_back("revindex", Value::integer(n - i));
        a.emplace_back("first", Value::boolean(i == 0));
        a.emplace_back("last", Value::boolean(i == n - 1));
        a.emplace_back("length", Value::integer(n));
        a.emplace_back("depth", Value::integer(1));
        a.emplace_back("depth0", Value::integer(0));
        a.emplace_back("previtem", i > 0 ? items[i - 1] : Value::undefined("there is no previous item"));
        a.emplace_back("nextitem", i + 1 < n ? items[i + 1] : Value::undefined("there is no next item"));
        a.emplace_back("cycle", Value::callable(std::make_shared<CycleCallable>(i)));
        Scope scope{{}, m_scope};
        ScopeGuard guard(*this, scope);
        scope.vars["loop"] = loopValue;
        assignTargets(stmt.targets, items[i], line);
        const Flow flow = execBody(stmt.body);
        if (flow == Flow::Break) break;
    }
    return Flow::Normal;
}

void Evaluator::assignTargets(const std::vector<std::string>& targets, const Value& value, int line) {
    if (targets.size() == 1) {
        m_scope->vars[targets[0]] = value;
        return;
    }
    const std::vector<Value> parts = iterate(value, line);
    if (parts.size() != targets.size()) {
        throw TemplateError(line, "cannot unpack " + std::to_string(parts.size()) + " values into " +
                                      std::to_string(targets.size()) + " variables");
    }
    for (size_t i = 0; i < targets.size(); ++i) m_scope->vars[targets[i]] = parts[i];
}

void Evaluator::execSet(const Stmt& stmt) {
    Value value = eval(*stmt.expr);
    if (!stmt.namespaceName.empty()) {
        const Value target = lookup(stmt.namespaceName);
        if (!target.isNamespace()) {
            throw TemplateError(stmt.line, "cannot assign attribute '" + stmt.text + "' on '" + stmt.namespaceName +
                                               "': it is not a namespace() object");
        }
        target.namespaceData()->set(stmt.text, std::move(value));
        return;
    }
    assignTargets(stmt.targets, value, stmt.line);
}

Value Evaluator::callMacro(const Stmt& macro, CallArgs& args, const Value* caller, int line) {
    tick(line);
    if (m_callDepth >= m_limits.maxCallDepth) {
        throw TemplateError(line, "template stopped: maximum recursion depth exceeded (macro '" + macro.text +
                                      "' nested " + std::to_string(m_limits.maxCallDepth) + " calls deep)");
    }
    struct DepthGuard {
        int& depth;
        explicit DepthGuard(int& d) : depth(d) { ++depth; }
        ~DepthGuard() { --depth; }
    } depthGuard(m_callDepth);

    Scope scope{{}, &m_root};
    ScopeGuard scopeGuard(*this, scope);
    const auto& params = macro.params;
    Json varargs = Json::array();
    for (size_t i = 0; i < args.positional.size(); ++i) {
        if (i < params.size()) scope.vars[params[i].name] = args.positional[i];
        else varargs.push_back(toJson(args.positional[i], line));
    }
    Json kwargs = Json::object();
    for (auto& [key, value] : args.keyword) {
        bool isParam = false;
        for (const auto& p : params) isParam = isParam || p.name == key;
        if (isParam) scope.vars[key] = value;
        else kwargs[key] = toJson(value, line);
    }
    for (const auto& p : params) {
        if (scope.vars.count(p.name)) continue;
        scope.vars[p.name] = p.defaultValue ? eval(*p.defaultValue)
                                            : Value::undefined("parameter '" + p.name + "' of macro '" + macro.text +
                                                               "' was not given");
    }
    scope.vars["varargs"] = Value::fromJson(std::move(varargs));
    scope.vars["kwargs"] = Value::fromJson(std::move(kwargs));
    if (caller) scope.vars["caller"] = *caller;
    std::string text;
    {
        OutputGuard outGuard(*this, text);
        execBody(macro.body);
    }
    return Value::string(std::move(text));
}

} // namespace hearth::chat::jinja
