// Built-in filters, tests, global functions and methods of values (str.strip, dict.items, ...):
// the subset that real chat templates use, each with Python's semantics.
#pragma once

#include <string>
#include <vector>

#include "chat/jinja/jinja_value.h"

namespace hearth::chat::jinja {

// Reads the arguments of a built-in the way Python binds them: position i or keyword names[i].
// Unknown keywords and surplus positional arguments are errors naming the function.
class ArgReader {
public:
    ArgReader(const CallArgs& args, std::string function, int line, std::vector<std::string> names,
              bool allowExtraPositional = false);
    const Value* get(size_t i) const;
    Value value(size_t i, Value fallback) const;
    int64_t intArg(size_t i, int64_t fallback) const;
    std::string strArg(size_t i, const std::string& fallback) const;
    bool boolArg(size_t i, bool fallback) const;
    // Positional arguments past the named ones (e.g. the arguments of selectattr's test).
    std::vector<Value> rest() const;
    int line() const { return m_line; }

private:
    const CallArgs& m_args;
    std::string m_function;
    int m_line;
    std::vector<std::string> m_names;
};

bool isKnownFilter(const std::string& name);
bool isKnownTest(const std::string& name);

// `value | name(args)`.
Value applyFilter(Evaluator& evaluator, const std::string& name, const Value& value, CallArgs& args, int line);
// `value is name(args)`.
bool applyTest(Evaluator& evaluator, const std::string& name, const Value& value, CallArgs& args, int line);
// `object.name` when it names a method of the value's Python type (str, dict, list): a bound
// callable; Undefined value when the type has no such method.
Value boundMethod(const Value& object, const std::string& name, int line);
// Functions every template sees: range, namespace, dict, raise_exception, strftime_now, ...
void installGlobals(Evaluator& evaluator);

} // namespace hearth::chat::jinja
