#include "chat/jinja/jinja_value.h"

#include <cmath>

namespace hearth::chat::jinja {

int64_t Value::rangeLength() const {
    const auto& r = m_range;
    if (r.step > 0 && r.start < r.stop) return (r.stop - r.start + r.step - 1) / r.step;
    if (r.step < 0 && r.start > r.stop) return (r.start - r.stop - r.step - 1) / (-r.step);
    return 0;
}

void throwUndefined(const Value& v, int line) {
    const std::string& hint = v.undefinedHint();
    throw TemplateError(line, hint.empty() ? std::string("value is undefined") : hint);
}

std::string typeName(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Undefined: return "undefined";
    case Value::Kind::Callable: return "function";
    case Value::Kind::Namespace: return "namespace";
    case Value::Kind::Range: return "range";
    case Value::Kind::Data: break;
    }
    const Json& j = v.json();
    switch (j.type()) {
    case Json::value_t::null: return "NoneType";
    case Json::value_t::boolean: return "bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "int";
    case Json::value_t::number_float: return "float";
    case Json::value_t::string: return "str";
    case Json::value_t::array: return "list";
    case Json::value_t::object: return "dict";
    default: return "object";
    }
}

bool truthy(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Undefined: return false;
    case Value::Kind::Callable:
    case Value::Kind::Namespace: return true;
    case Value::Kind::Range: return v.rangeLength() > 0;
    case Value::Kind::Data: break;
    }
    const Json& j = v.json();
    switch (j.type()) {
    case Json::value_t::null: return false;
    case Json::value_t::boolean: return j.get<bool>();
    case Json::value_t::number_integer: return j.get<int64_t>() != 0;
    case Json::value_t::number_unsigned: return j.get<uint64_t>() != 0;
    case Json::value_t::number_float: return j.get<double>() != 0.0;
    case Json::value_t::string: return !j.get_ref<const std::string&>().empty();
    case Json::value_t::array:
    case Json::value_t::object: return !j.empty();
    default: return false;
    }
}

std::string toStr(const Value& v, int line) {
    switch (v.kind()) {
    case Value::Kind::Undefined: return "";
    case Value::Kind::Callable: return "<function " + v.callableObject()->name() + ">";
    case Value::Kind::Namespace: return "<Namespace>";
    case Value::Kind::Range: {
        const auto& r = v.rangeData();
        if (r.step == 1) return "range(" + std::to_string(r.start) + ", " + std::to_string(r.stop) + ")";
        return "range(" + std::to_string(r.start) + ", " + std::to_string(r.stop) + ", " + std::to_string(r.step) + ")";
    }
    case Value::Kind::Data: break;
    }
    (void)line;
    return pyStr(v.json());
}

Json toJson(const Value& v, int line) {
    switch (v.kind()) {
    case Value::Kind::Data: return v.json();
    case Value::Kind::Range: {
        Json arr = Json::array();
        const auto& r = v.rangeData();
        const int64_t n = v.rangeLength();
        for (int64_t i = 0; i < n; ++i) arr.push_back(r.start + i * r.step);
        return arr;
    }
    case Value::Kind::Undefined: throwUndefined(v, line);
    case Value::Kind::Callable:
        throw TemplateError(line, "a function (" + v.callableObject()->name() + ") cannot be used as data here");
    case Value::Kind::Namespace: throw TemplateError(line, "a namespace() object cannot be used as data here");
    }
    return Json();
}

namespace {

bool jsonEqual(const Json& a, const Json& b) {
    // Python: 1 == 1.0 == True; otherwise types must match.
    if (a.is_number() || a.is_boolean()) {
        if (!(b.is_number() || b.is_boolean())) return false;
        if (a.is_number_float() || b.is_number_float()) {
            const double x = a.is_boolean() ? (a.get<bool>() ? 1.0 : 0.0) : a.get<double>();
            const double y = b.is_boolean() ? (b.get<bool>() ? 1.0 : 0.0) : b.get<double>();
            return x == y;
        }
        const int64_t x = a.is_boolean() ? (a.get<bool>() ? 1 : 0) : a.get<int64_t>();
        const int64_t y = b.is_boolean() ? (b.get<bool>() ? 1 : 0) : b.get<int64_t>();
        return x == y;
    }
    if (a.type() != b.type()) return false;
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i) {
            if (!jsonEqual(a[i], b[i])) return false;
        }
        return true;
    }
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto it = a.begin(); it != a.end(); ++it) {
            auto other = b.find(it.key());
            if (other == b.end() || !jsonEqual(it.value(), *other)) return false;
        }
        return true;
    }
    return a == b;
}

} // namespace

bool valuesEqual(const Value& a, const Value& b) {
    if (a.isUndefined() || b.isUndefined()) return a.isUndefined() && b.isUndefined();
    if (a.isRange() || b.isRange()) {
        if (a.isRange() && b.isRange()) return toJson(a, 0) == toJson(b, 0);
        return false; // Python: range != list
    }
    if (a.isData() && b.isData()) return jsonEqual(a.json(), b.json());
    if (a.isNamespace() && b.isNamespace()) return a.namespaceData() == b.namespaceData();
    if (a.isCallable() && b.isCallable()) return a.callableObject() == b.callableObject();
    return false;
}

bool valueLess(const Value& a, const Value& b, int line) {
    auto fail = [&]() -> bool {
        if (a.isUndefined()) throwUndefined(a, line);
        if (b.isUndefined()) throwUndefined(b, line);
        throw TemplateError(line, "'<' not supported between instances of '" + typeName(a) + "' and '" +
                                      typeName(b) + "'");
    };
    if (!a.isData() || !b.isData()) return fail();
    const Json& x = a.json();
    const Json& y = b.json();
    const bool xNum = x.is_number() || x.is_boolean();
    const bool yNum = y.is_number() || y.is_boolean();
    if (xNum && yNum) {
        if (x.is_number_float() || y.is_number_float()) return a.asDouble() < b.asDouble();
        return a.asInt() < b.asInt();
    }
    if (x.is_string() && y.is_string()) return x.get_ref<const std::string&>() < y.get_ref<const std::string&>();
    if (x.is_array() && y.is_array()) {
        const size_t n = std::min(x.size(), y.size());
        for (size_t i = 0; i < n; ++i) {
            const Value xi = a.child(x[i]);
            const Value yi = b.child(y[i]);
            if (!valuesEqual(xi, yi)) return valueLess(xi, yi, line);
        }
        return x.size() < y.size();
    }
    return fail();
}

std::vector<Value> iterate(const Value& v, int line) {
    std::vector<Value> items;
    switch (v.kind()) {
    case Value::Kind::Undefined: return items;
    case Value::Kind::Range: {
        const auto& r = v.rangeData();
        const int64_t n = v.rangeLength();
        items.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) items.push_back(Value::integer(r.start + i * r.step));
        return items;
    }
    case Value::Kind::Callable:
    case Value::Kind::Namespace:
        throw TemplateError(line, "'" + typeName(v) + "' object is not iterable");
    case Value::Kind::Data: break;
    }
    const Json& j = v.json();
    if (j.is_array()) {
        items.reserve(j.size());
        for (const auto& item : j) items.push_back(v.child(item));
    } else if (j.is_object()) {
        items.reserve(j.size());
        for (auto it = j.begin(); it != j.end(); ++it) items.push_back(Value::string(it.key()));
    } else if (j.is_string()) {
        const std::string& s = j.get_ref<const std::string&>();
        const auto offsets = codePointOffsets(s);
        for (size_t i = 0; i + 1 < offsets.size(); ++i) {
            items.push_back(Value::string(s.substr(offsets[i], offsets[i + 1] - offsets[i])));
        }
    } else {
        throw TemplateError(line, "'" + typeName(v) + "' object is not iterable");
    }
    return items;
}

int64_t lengthOf(const Value& v, int line) {
    if (v.isUndefined()) return 0; // Jinja's Undefined has len() == 0
    if (v.isRange()) return v.rangeLength();
    if (v.isData()) {
        const Json& j = v.json();
        if (j.is_string()) return static_cast<int64_t>(codePointCount(j.get_ref<const std::string&>()));
        if (j.is_array() || j.is_object()) return static_cast<int64_t>(j.size());
    }
    throw TemplateError(line, "object of type '" + typeName(v) + "' has no len()");
}

bool contains(const Value& haystack, const Value& needle, int line) {
    if (haystack.isUndefined()) return false; // iterates as empty
    if (haystack.isRange()) {
        if (!needle.isNumber()) return false;
        for (const auto& item : iterate(haystack, line)) {
            if (valuesEqual(item, needle)) return true;
        }
        return false;
    }
    if (haystack.isData()) {
        const Json& h = haystack.json();
        if (h.is_string()) {
            if (!needle.isString()) {
                throw TemplateError(line, "'in <string>' requires string as left operand, not " + typeName(needle));
            }
            return h.get_ref<const std::string&>().find(needle.str()) != std::string::npos;
        }
        if (h.is_object()) {
            if (!needle.isString()) return false;
            return h.contains(needle.str());
        }
        if (h.is_array()) {
            for (const auto& item : h) {
                if (valuesEqual(haystack.child(item), needle)) return true;
            }
            return false;
        }
    }
    throw TemplateError(line, "argument of type '" + typeName(haystack) + "' is not iterable");
}

} // namespace hearth::chat::jinja
