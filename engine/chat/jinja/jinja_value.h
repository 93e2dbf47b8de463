// The value type the Jinja evaluator works on. Plain data (None, booleans, numbers, strings,
// lists, dicts) lives in an ordered nlohmann::json, so that dict key order is the order the caller
// gave, as in Python. Values are immutable once made (the reference runs Jinja's immutable
// sandbox), so a value may be a view into a shared tree: `messages[3].content` costs no copy.
// Besides data there is Jinja's Undefined, callables (macros, built-in functions, bound methods),
// namespace() objects and lazy ranges.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja/jinja_text.h"

namespace hearth::chat::jinja {

// A template error with the line it happened on; caught at the ChatTemplate API and turned into
// a Status, so it never leaves the interpreter.
class TemplateError : public std::runtime_error {
public:
    TemplateError(int line, const std::string& message)
        : std::runtime_error(message), m_line(line) {}
    int line() const { return m_line; }
    void setLine(int line) { if (m_line <= 0) m_line = line; }

private:
    int m_line;
};

// raise_exception(msg) from a template: kept apart so its text reaches the caller unchanged.
class RaisedError : public TemplateError {
public:
    RaisedError(int line, const std::string& message) : TemplateError(line, message) {}
};

class Value;
class Evaluator;

// Building data is work too: a loop that doubles a list, or wraps it in a new list each time, does
// little per operation yet builds exponentially or quadratically much. While an Evaluator renders
// on this thread, every value made through Value::fromJson is charged to its operation budget by
// size (elements, and string bytes / 64); outside a render this does nothing.
void chargeBuilt(const Json& built);

struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keyword;
};

class Callable {
public:
    virtual ~Callable() = default;
    virtual std::string name() const = 0;
    virtual Value call(Evaluator& evaluator, CallArgs& args, int line) const = 0;
};

struct NamespaceData;

class Value {
public:
    enum class Kind { Undefined, Data, Callable, Namespace, Range };

    Value() = default; // Undefined with no hint
    static Value undefined(std::string hint) {
        Value v;
        v.m_text = std::move(hint);
        return v;
    }
    static Value fromJson(Json j) {
        chargeBuilt(j);
        Value v;
        v.m_kind = Kind::Data;
        v.m_owner = std::make_shared<const Json>(std::move(j));
        v.m_node = v.m_owner.get();
        return v;
    }
    // A view of `node`, which lives inside `owner` (kept alive by the view).
    static Value view(std::shared_ptr<const Json> owner, const Json* node) {
        Value v;
        v.m_kind = Kind::Data;
        v.m_owner = std::move(owner);
        v.m_node = node;
        return v;
    }
    static Value none() { return fromJson(Json()); }
    static Value boolean(bool b) { return fromJson(Json(b)); }
    static Value integer(int64_t i) { return fromJson(Json(i)); }
    static Value number(double d) { return fromJson(Json(d)); }
    static Value string(std::string s) { return fromJson(Json(std::move(s))); }
    static Value callable(std::shared_ptr<const Callable> c) {
        Value v;
        v.m_kind = Kind::Callable;
        v.m_callable = std::move(c);
        return v;
    }
    static Value makeNamespace(std::shared_ptr<NamespaceData> ns) {
        Value v;
        v.m_kind = Kind::Namespace;
        v.m_namespace = std::move(ns);
        return v;
    }
    static Value range(int64_t start, int64_t stop, int64_t step) {
        Value v;
        v.m_kind = Kind::Range;
        v.m_range = {start, stop, step};
        return v;
    }

    Kind kind() const { return m_kind; }
    bool isUndefined() const { return m_kind == Kind::Undefined; }
    bool isData() const { return m_kind == Kind::Data; }
    bool isCallable() const { return m_kind == Kind::Callable; }
    bool isNamespace() const { return m_kind == Kind::Namespace; }
    bool isRange() const { return m_kind == Kind::Range; }
    bool isNone() const { return isData() && m_node->is_null(); }
    bool isBool() const { return isData() && m_node->is_boolean(); }
    bool isInt() const { return isData() && m_node->is_number_integer(); }
    bool isFloat() const { return isData() && m_node->is_number_float(); }
    bool isNumber() const { return isData() && m_node->is_number(); }
    bool isString() const { return isData() && m_node->is_string(); }
    bool isList() const { return (isData() && m_node->is_array()) || isRange(); }
    bool isDict() const { return isData() && m_node->is_object(); }

    // Only for isData().
    const Json& json() const { return *m_node; }
    const std::string& str() const { return m_node->get_ref<const std::string&>(); }
    int64_t asInt() const { return m_node->is_boolean() ? (m_node->get<bool>() ? 1 : 0) : m_node->get<int64_t>(); }
    double asDouble() const { return m_node->is_boolean() ? (m_node->get<bool>() ? 1.0 : 0.0) : m_node->get<double>(); }
    // A view of a child of this data value (list element, dict value).
    Value child(const Json& node) const { return view(m_owner, &node); }

    const std::string& undefinedHint() const { return m_text; }
    const std::shared_ptr<const Callable>& callableObject() const { return m_callable; }
    const std::shared_ptr<NamespaceData>& namespaceData() const { return m_namespace; }
    struct RangeData { int64_t start = 0, stop = 0, step = 1; };
    const RangeData& rangeData() const { return m_range; }
    int64_t rangeLength() const;

private:
    Kind m_kind = Kind::Undefined;
    std::shared_ptr<const Json> m_owner;
    const Json* m_node = nullptr;
    std::string m_text; // Undefined: why it is undefined ("'foo' is undefined")
    std::shared_ptr<const Callable> m_callable;
    std::shared_ptr<NamespaceData> m_namespace;
    RangeData m_range;
};

// A namespace() object: the one mutable thing a template can make (`set ns.x = ...`), shared
// by reference so loops and macros can update it.
struct NamespaceData {
    std::vector<std::pair<std::string, Value>> attributes; // in creation order
    Value* find(const std::string& name) {
        for (auto& [key, value] : attributes) {
            if (key == name) return &value;
        }
        return nullptr;
    }
    void set(const std::string& name, Value value) {
        if (Value* existing = find(name)) *existing = std::move(value);
        else attributes.emplace_back(name, std::move(value));
    }
};

// ---- Python semantics shared by the evaluator and the built-ins ------------------------------

// The type name Python would print ("str", "int", "list", "dict", "NoneType", "undefined", ...).
std::string typeName(const Value& v);
// Python truthiness (Undefined is false).
bool truthy(const Value& v);
// str(v) as {{ v }} prints it: Undefined prints as "" (Jinja's default Undefined).
std::string toStr(const Value& v, int line);
// The plain data of a value; errors (naming the line) for Undefined, callables, namespaces.
Json toJson(const Value& v, int line);
// Python ==.
bool valuesEqual(const Value& a, const Value& b);
// Python <, with a TypeError-like template error for unorderable types.
bool valueLess(const Value& a, const Value& b, int line);
// The items a for loop visits: list elements, dict keys, string characters, range numbers.
// Undefined iterates as empty; other values are an error.
std::vector<Value> iterate(const Value& v, int line);
// len(v); error if it has none.
int64_t lengthOf(const Value& v, int line);
// `needle in haystack`.
bool contains(const Value& haystack, const Value& needle, int line);

// Error helpers: "'foo' is undefined" style messages.
[[noreturn]] void throwUndefined(const Value& v, int line);

} // namespace hearth::chat::jinja
