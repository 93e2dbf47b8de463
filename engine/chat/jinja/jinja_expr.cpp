// Expression evaluation: names, attribute and item access (Jinja's getattr/getitem rules),
// slicing, operators with Python's semantics, calls, filters and tests.
#include <cmath>
#include <cstdint>
#include <limits>

#include "chat/jinja/jinja_builtins.h"
#include "chat/jinja/jinja_eval.h"

namespace hearth::chat::jinja {

namespace {

// Jinja's object_type_repr: "None", "dict object", "str object", ...
std::string objectTypeRepr(const Value& v) {
    if (v.isNone()) return "None";
    return typeName(v) + " object";
}

std::string missingAttribute(const Value& object, const std::string& name) {
    return "'" + objectTypeRepr(object) + "' has no attribute '" + name + "'";
}

bool isNumeric(const Value& v) { return v.isNumber() || v.isBool(); }

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b, int line) {
    if (a.isUndefined()) throwUndefined(a, line);
    if (b.isUndefined()) throwUndefined(b, line);
    if (op == "+" && a.isString()) {
        throw TemplateError(line, "can only concatenate str (not \"" + typeName(b) + "\") to str");
    }
    throw TemplateError(line, "unsupported operand type(s) for " + op + ": '" + typeName(a) + "' and '" + typeName(b) + "'");
}

// Python's slice index normalisation (PySlice_AdjustIndices).
struct SliceRange {
    int64_t start, stop, step;
};

SliceRange adjustSlice(int64_t n, const Value* start, const Value* stop, const Value* step, int line) {
    auto toIndex = [&](const Value* v) -> const Value* {
        if (!v || v->isNone()) return nullptr;
        if (!v->isInt() && !v->isBool()) throw TemplateError(line, "slice indices must be integers or None");
        return v;
    };
    start = toIndex(start);
    stop = toIndex(stop);
    step = toIndex(step);
    SliceRange r{0, 0, step ? step->asInt() : 1};
    if (r.step == 0) throw TemplateError(line, "slice step cannot be zero");
    const int64_t lower = r.step > 0 ? 0 : -1;
    const int64_t upper = r.step > 0 ? n : n - 1;
    auto clamp = [&](const Value* v, int64_t dflt) {
        if (!v) return dflt;
        int64_t i = v->asInt();
        if (i < 0) {
            i += n;
            if (i < lower) i = lower;
        } else if (i > upper) {
            i = upper;
        }
        return i;
    };
    r.start = clamp(start, r.step > 0 ? lower : upper);
    r.stop = clamp(stop, r.step > 0 ? upper : lower);
    return r;
}

template <typename F>
void forEachSliceIndex(const SliceRange& r, F&& f) {
    if (r.step > 0) {
        for (int64_t i = r.start; i < r.stop; i += r.step) f(i);
    } else {
        for (int64_t i = r.start; i > r.stop; i += r.step) f(i);
    }
}

int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t floorMod(int64_t a, int64_t b) {
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

} // namespace

Value arithmetic(Evaluator& evaluator, const std::string& op, const Value& a, const Value& b, int line) {
    if (isNumeric(a) && isNumeric(b)) {
        const bool useFloat = a.isFloat() || b.isFloat() || op == "/";
        if (op == "/" || (useFloat && (op == "//" || op == "%"))) {
            if (b.asDouble() == 0) throw TemplateError(line, "division by zero");
        } else if ((op == "//" || op == "%") && b.asInt() == 0) {
            throw TemplateError(line, "integer division or modulo by zero");
        }
        if (useFloat) {
            const double x = a.asDouble();
            const double y = b.asDouble();
            if (op == "+") return Value::number(x + y);
            if (op == "-") return Value::number(x - y);
            if (op == "*") return Value::number(x * y);
            if (op == "/") return Value::number(x / y);
            if (op == "//") return Value::number(std::floor(x / y));
            if (op == "%") {
                double m = std::fmod(x, y);
                if (m != 0 && ((m < 0) != (y < 0))) m += y;
                return Value::number(m);
            }
            if (op == "**") return Value::number(std::pow(x, y));
        } else {
            const int64_t x = a.asInt();
            const int64_t y = b.asInt();
            int64_t r = 0;
            if (op == "+" && !__builtin_add_overflow(x, y, &r)) return Value::integer(r);
            if (op == "-" && !__builtin_sub_overflow(x, y, &r)) return Value::integer(r);
            if (op == "*" && !__builtin_mul_overflow(x, y, &r)) return Value::integer(r);
            if (op == "//") return Value::integer(floorDiv(x, y));
            if (op == "%") return Value::integer(floorMod(x, y));
            if (op == "**") {
                if (y < 0) return Value::number(std::pow(static_cast<double>(x), static_cast<double>(y)));
                int64_t result = 1;
                for (int64_t i = 0; i < y; ++i) {
                    if (__builtin_mul_overflow(result, x, &result)) throw TemplateError(line, "integer overflow in '**'");
                    if (result == 0 || result == 1) break;
                }
                return Value::integer(result);
            }
            throw TemplateError(line, "integer overflow in '" + op + "'");
        }
    }
    if (op == "+") {
        if (a.isString() && b.isString()) {
            evaluator.checkSize(a.str().size() + b.str().size(), line);
            return Value::string(a.str() + b.str());
        }
        if (a.isList() && b.isList()) {
            Json out = toJson(a, line);
            for (const auto& item : toJson(b, line)) out.push_back(item);
            return Value::fromJson(std::move(out));
        }
    }
    if (op == "*") {
        const Value* text = a.isString() || a.isList() ? &a : (b.isString() || b.isList() ? &b : nullptr);
        const Value* count = text == &a ? &b : &a;
        if (text && (count->isInt() || count->isBool())) {
            const int64_t n = std::max<int64_t>(0, count->asInt());
            if (text->isString()) {
                size_t total = 0;
                if (__builtin_mul_overflow(text->str().size(), static_cast<size_t>(n), &total)) total = SIZE_MAX;
                evaluator.checkSize(total, line);
                std::string out;
                out.reserve(text->str().size() * static_cast<size_t>(n));
                for (int64_t i = 0; i < n; ++i) out += text->str();
                return Value::string(std::move(out));
            }
            const Json items = toJson(*text, line);
            size_t total = 0;
            if (__builtin_mul_overflow(items.size(), static_cast<size_t>(n), &total)) total = SIZE_MAX;
            evaluator.checkSize(total, line); // one byte per element at least
            Json out = Json::array();
            for (int64_t i = 0; i < n; ++i) {
                for (const auto& item : items) out.push_back(item);
            }
            return Value::fromJson(std::move(out));
        }
    }
    if (op == "%" && a.isString()) return Value::string(percentFormat(a.str(), b, line));
    unsupported(op, a, b, line);
}

// ---- names and access ----

Value Evaluator::lookup(const std::string& name) const {
    for (const Scope* s = m_scope; s; s = s->parent) {
        auto it = s->vars.find(name);
        if (it != s->vars.end()) return it->second;
    }
    return Value::undefined("'" + name + "' is undefined");
}

Value Evaluator::evalAttr(const Value& object, const std::string& name, int line) {
    if (object.isUndefined()) throwUndefined(object, line);
    if (object.isNamespace()) {
        if (Value* v = object.namespaceData()->find(name)) return *v;
        return Value::undefined("'namespace' object has no attribute '" + name + "'");
    }
    if (object.isDict()) {
        // Python getattr first: d.items is the method even when the dict has an "items" key.
        Value method = boundMethod(object, name, line);
        if (!method.isUndefined() || !method.undefinedHint().empty()) return method;
        auto it = object.json().find(name);
        if (it != object.json().end()) return object.child(*it);
        return Value::undefined(missingAttribute(object, name));
    }
    Value method = boundMethod(object, name, line);
    if (!method.isUndefined() || !method.undefinedHint().empty()) return method;
    return Value::undefined(missingAttribute(object, name));
}

Value Evaluator::evalItem(const Value& object, const Value& index, int line) {
    if (object.isUndefined()) throwUndefined(object, line);
    if (index.isString()) {
        if (object.isDict()) {
            auto it = object.json().find(index.str());
            if (it != object.json().end()) return object.child(*it);
        }
        // Jinja's getitem falls back to getattr for string keys.
        return evalAttr(object, index.str(), line);
    }
    const bool intIndex = index.isInt() || index.isBool();
    if (intIndex && (object.isList() || object.isString())) {
        int64_t i = index.asInt();
        if (object.isRange()) {
            const int64_t n = object.rangeLength();
            if (i < 0) i += n;
            if (i < 0 || i >= n) return Value::undefined("'range object' has no attribute " + std::to_string(index.asInt()));
            return Value::integer(object.rangeData().start + i * object.rangeData().step);
        }
        if (object.isString()) {
            const auto offsets = codePointOffsets(object.str());
            const int64_t n = static_cast<int64_t>(offsets.size()) - 1;
            if (i < 0) i += n;
            if (i < 0 || i >= n) return Value::undefined("'str object' has no attribute " + std::to_string(index.asInt()));
            return Value::string(object.str().substr(offsets[i], offsets[i + 1] - offsets[i]));
        }
        const Json& arr = object.json();
        const int64_t n = static_cast<int64_t>(arr.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::undefined("'list object' has no attribute " + std::to_string(index.asInt()));
        return object.child(arr[static_cast<size_t>(i)]);
    }
    return Value::undefined("'" + objectTypeRepr(object) + "' has no attribute " + toStr(index, line));
}

Value Evaluator::evalSlice(const Value& object, const Expr& expr) {
    const int line = expr.line;
    Value parts[3];
    const Value* ptrs[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3; ++i) {
        if (expr.items[i]) {
            parts[i] = eval(*expr.items[i]);
            ptrs[i] = &parts[i];
        }
    }
    if (object.isUndefined()) throwUndefined(object, line);
    if (object.isString()) {
        const std::string& s = object.str();
        const auto offsets = codePointOffsets(s);
        const SliceRange r = adjustSlice(static_cast<int64_t>(offsets.size()) - 1, ptrs[0], ptrs[1], ptrs[2], line);
        std::string out;
        forEachSliceIndex(r, [&](int64_t i) { out.append(s, offsets[i], offsets[i + 1] - offsets[i]); });
        return Value::string(std::move(out));
    }
    if (object.isList()) {
        const Json arr = object.isRange() ? toJson(object, line) : Json();
        const Json& items = object.isRange() ? arr : object.json();
        const SliceRange r = adjustSlice(static_cast<int64_t>(items.size()), ptrs[0], ptrs[1], ptrs[2], line);
        Json out = Json::array();
        forEachSliceIndex(r, [&](int64_t i) { out.push_back(items[static_cast<size_t>(i)]); });
        return Value::fromJson(std::move(out));
    }
    throw TemplateError(line, "'" + typeName(object) + "' object is not subscriptable");
}

// ---- operators ----

Value Evaluator::evalBinary(const Expr& expr) {
    const std::string& op = expr.name;
    const int line = expr.line;
    if (op == "and") {
        Value left = eval(*expr.object);
        return truthy(left) ? eval(*expr.index) : left;
    }
    if (op == "or") {
        Value left = eval(*expr.object);
        return truthy(left) ? left : eval(*expr.index);
    }
    const Value left = eval(*expr.object);
    const Value right = eval(*expr.index);
    if (op == "~") {
        std::string a = toStr(left, line);
        const std::string b = toStr(right, line);
        checkSize(a.size() + b.size(), line);
        return Value::string(a + b);
    }
    return arithmetic(*this, op, left, right, line);
}

Value Evaluator::evalCompare(const Expr& expr) {
    Value left = eval(*expr.object);
    for (size_t i = 0; i < expr.ops.size(); ++i) {
        Value right = eval(*expr.items[i]);
        const std::string& op = expr.ops[i];
        const int line = expr.line;
        bool result = false;
        if (op == "==") result = valuesEqual(left, right);
        else if (op == "!=") result = !valuesEqual(left, right);
        else if (op == "<") result = valueLess(left, right, line);
        else if (op == ">") result = valueLess(right, left, line);
        else if (op == "<=") result = valueLess(left, right, line) || valuesEqual(left, right);
        else if (op == ">=") result = valueLess(right, left, line) || valuesEqual(left, right);
        else if (op == "in") result = contains(right, left, line);
        else if (op == "not in") result = !contains(right, left, line);
        if (!result) return Value::boolean(false);
        left = std::move(right);
    }
    return Value::boolean(true);
}

CallArgs Evaluator::evalArgs(const Arguments& args) {
    CallArgs out;
    for (const auto& e : args.positional) out.positional.push_back(eval(*e));
    for (const auto& [key, e] : args.keyword) out.keyword.emplace_back(key, eval(*e));
    return out;
}

Value Evaluator::callValue(const Value& callee, CallArgs& args, int line) {
    if (callee.isUndefined()) throwUndefined(callee, line);
    if (!callee.isCallable()) throw TemplateError(line, "'" + typeName(callee) + "' object is not callable");
    return callee.callableObject()->call(*this, args, line);
}

Value Evaluator::eval(const Expr& expr) {
    const int line = expr.line;
    switch (expr.kind) {
    case Expr::Kind::Literal: return expr.value;
    case Expr::Kind::Name: return lookup(expr.name);
    case Expr::Kind::List: {
        Json out = Json::array();
        for (const auto& item : expr.items) out.push_back(toJson(eval(*item), line));
        return Value::fromJson(std::move(out));
    }
    case Expr::Kind::Dict: {
        Json out = Json::object();
        for (size_t i = 0; i + 1 < expr.items.size(); i += 2) {
            const Value key = eval(*expr.items[i]);
            if (!key.isString()) throw TemplateError(line, "dict keys must be strings in chat templates");
            out[key.str()] = toJson(eval(*expr.items[i + 1]), line);
        }
        return Value::fromJson(std::move(out));
    }
    case Expr::Kind::Attr: return evalAttr(eval(*expr.object), expr.name, line);
    case Expr::Kind::Item: {
        const Value object = eval(*expr.object);
        return evalItem(object, eval(*expr.index), line);
    }
    case Expr::Kind::Slice: return evalSlice(eval(*expr.object), expr);
    case Expr::Kind::Call: {
        const Value callee = eval(*expr.object);
        CallArgs args = evalArgs(expr.args);
        return callValue(callee, args, line);
    }
    case Expr::Kind::Filter: {
        const Value value = eval(*expr.object);
        CallArgs args = evalArgs(expr.args);
        Value result = applyFilter(*this, expr.name, value, args, line);
        if (result.isString()) checkSize(result.str().size(), line);
        return result;
    }
    case Expr::Kind::Test: {
        const Value value = eval(*expr.object);
        CallArgs args = evalArgs(expr.args);
        const bool result = applyTest(*this, expr.name, value, args, line);
        return Value::boolean(expr.negated ? !result : result);
    }
    case Expr::Kind::Unary: {
        const Value v = eval(*expr.object);
        if (expr.name == "not") return Value::boolean(!truthy(v));
        if (v.isUndefined()) throwUndefined(v, line);
        if (!isNumeric(v)) throw TemplateError(line, "bad operand type for unary " + expr.name + ": '" + typeName(v) + "'");
        if (expr.name == "+") return v.isFloat() ? v : Value::integer(v.asInt());
        if (v.isFloat()) return Value::number(-v.asDouble());
        if (v.asInt() == std::numeric_limits<int64_t>::min()) throw TemplateError(line, "integer overflow in unary -");
        return Value::integer(-v.asInt());
    }
    case Expr::Kind::Binary: return evalBinary(expr);
    case Expr::Kind::Compare: return evalCompare(expr);
    case Expr::Kind::Ternary:
        if (truthy(eval(*expr.index))) return eval(*expr.object);
        if (expr.items[0]) return eval(*expr.items[0]);
        return Value::undefined("the inline if-expression on line " + std::to_string(line) +
                                " evaluated to false and no else section was defined");
    }
    return Value();
}

} // namespace hearth::chat::jinja
