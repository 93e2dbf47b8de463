// Jinja filters and tests, as Jinja 3 defines them, with transformers' own `tojson`
// (json.dumps(x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <unordered_map>

#include "chat/jinja/jinja_builtins.h"
#include "chat/jinja/jinja_eval.h"

namespace hearth::chat::jinja {

// ---- ArgReader ----

ArgReader::ArgReader(const CallArgs& args, std::string function, int line, std::vector<std::string> names,
                     bool allowExtraPositional)
    : m_args(args), m_function(std::move(function)), m_line(line), m_names(std::move(names)) {
    if (!allowExtraPositional && args.positional.size() > m_names.size()) {
        throw TemplateError(line, m_function + "() takes at most " + std::to_string(m_names.size()) +
                                      " argument(s) (" + std::to_string(args.positional.size()) + " given)");
    }
    for (const auto& [key, value] : args.keyword) {
        if (std::find(m_names.begin(), m_names.end(), key) == m_names.end()) {
            throw TemplateError(line, m_function + "() got an unexpected keyword argument '" + key + "'");
        }
    }
}

const Value* ArgReader::get(size_t i) const {
    if (i < m_args.positional.size()) return &m_args.positional[i];
    if (i < m_names.size()) {
        for (const auto& [key, value] : m_args.keyword) {
            if (key == m_names[i]) return &value;
        }
    }
    return nullptr;
}

Value ArgReader::value(size_t i, Value fallback) const {
    const Value* v = get(i);
    return v ? *v : std::move(fallback);
}

int64_t ArgReader::intArg(size_t i, int64_t fallback) const {
    const Value* v = get(i);
    if (!v || v->isNone()) return fallback;
    if (!v->isInt() && !v->isBool()) {
        throw TemplateError(m_line, m_function + "(): argument '" + (i < m_names.size() ? m_names[i] : "?") +
                                        "' must be an integer, not " + typeName(*v));
    }
    return v->asInt();
}

std::string ArgReader::strArg(size_t i, const std::string& fallback) const {
    const Value* v = get(i);
    if (!v || v->isNone()) return fallback;
    return toStr(*v, m_line);
}

bool ArgReader::boolArg(size_t i, bool fallback) const {
    const Value* v = get(i);
    return v ? truthy(*v) : fallback;
}

std::vector<Value> ArgReader::rest() const {
    if (m_args.positional.size() <= m_names.size()) return {};
    return std::vector<Value>(m_args.positional.begin() + static_cast<std::ptrdiff_t>(m_names.size()),
                              m_args.positional.end());
}

namespace {

using FilterFn = std::function<Value(Evaluator&, const Value&, const CallArgs&, int)>;
using TestFn = std::function<bool(Evaluator&, const Value&, const CallArgs&, int)>;

std::string htmlEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

// Jinja's make_attrgetter: "a.b.0" walks getitem step by step (digits become list indices).
Value getAttributePath(Evaluator& e, const Value& item, const std::string& path, int line) {
    Value current = item;
    size_t start = 0;
    while (true) {
        const size_t dot = path.find('.', start);
        const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        const bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        current = e.getItem(current, numeric ? Value::integer(std::stoll(part)) : Value::string(part), line);
        if (dot == std::string::npos) return current;
        start = dot + 1;
    }
}

// Key for case-insensitive sorting/comparing (Jinja lowercases strings unless case_sensitive).
Value sortKey(const Value& v, bool caseSensitive) {
    if (!caseSensitive && v.isString()) return Value::string(pyLower(v.str()));
    return v;
}

std::vector<Value> sortedItems(Evaluator& e, const Value& value, bool reverse, bool caseSensitive,
                               const Value* attribute, int line) {
    std::vector<Value> items = iterate(value, line);
    std::vector<std::pair<Value, Value>> keyed;
    for (auto& item : items) {
        Value key = attribute ? getAttributePath(e, item, toStr(*attribute, line), line) : item;
        keyed.emplace_back(sortKey(key, caseSensitive), std::move(item));
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
        return reverse ? valueLess(b.first, a.first, line) : valueLess(a.first, b.first, line);
    });
    std::vector<Value> out;
    for (auto& [key, item] : keyed) out.push_back(std::move(item));
    return out;
}

Value listValue(const std::vector<Value>& items, int line) {
    Json out = Json::array();
    for (const auto& item : items) out.push_back(toJson(item, line));
    return Value::fromJson(std::move(out));
}

// select/reject/selectattr/rejectattr share this: keep items whose (attribute) value passes.
Value selectItems(Evaluator& e, const Value& seq, const CallArgs& args, int line, bool byAttribute, bool keep,
                  const char* name) {
    ArgReader reader(args, name, line, byAttribute ? std::vector<std::string>{"attribute", "test"}
                                                   : std::vector<std::string>{"test"},
                     true);
    std::string attribute;
    size_t testIndex = 0;
    if (byAttribute) {
        const Value* a = reader.get(0);
        if (!a) throw TemplateError(line, std::string(name) + "() needs an attribute name");
        attribute = toStr(*a, line);
        testIndex = 1;
    }
    const Value* test = reader.get(testIndex);
    CallArgs testArgs;
    testArgs.positional = reader.rest();
    if (test && !isKnownTest(toStr(*test, line))) throw TemplateError(line, "no test named '" + toStr(*test, line) + "'");
    std::vector<Value> kept;
    for (const auto& item : iterate(seq, line)) {
        const Value subject = byAttribute ? getAttributePath(e, item, attribute, line) : item;
        const bool pass = test ? applyTest(e, toStr(*test, line), subject, testArgs, line) : truthy(subject);
        if (pass == keep) kept.push_back(item);
    }
    return listValue(kept, line);
}

Value tojsonFilter(Evaluator&, const Value& value, const CallArgs& args, int line) {
    ArgReader reader(args, "tojson", line, {"ensure_ascii", "indent", "separators", "sort_keys"});
    JsonDumpOptions options;
    options.ensureAscii = reader.boolArg(0, false);
    options.sortKeys = reader.boolArg(3, false);
    if (const Value* indent = reader.get(1); indent && !indent->isNone()) {
        options.hasIndent = true;
        if (indent->isString()) options.indent = indent->str();
        else options.indent = std::string(static_cast<size_t>(std::max<int64_t>(0, reader.intArg(1, 0))), ' ');
    }
    if (const Value* separators = reader.get(2); separators && !separators->isNone()) {
        const auto parts = iterate(*separators, line);
        if (parts.size() != 2) throw TemplateError(line, "tojson(): separators must be a pair of strings");
        options.itemSeparator = toStr(parts[0], line);
        options.keySeparator = toStr(parts[1], line);
    }
    return Value::string(pyJsonDumps(toJson(value, line), options));
}

Value intFilter(const Value& value, const CallArgs& args, int line) {
    ArgReader reader(args, "int", line, {"default", "base"});
    const Value fallback = reader.value(0, Value::integer(0));
    if (value.isInt() || value.isBool()) return Value::integer(value.asInt());
    if (value.isFloat()) {
        const double d = value.asDouble();
        if (!std::isfinite(d)) return fallback;
        return Value::integer(static_cast<int64_t>(std::trunc(d)));
    }
    if (value.isString()) {
        const std::string s = pyStrip(value.str(), nullptr, true, true);
        const int base = static_cast<int>(reader.intArg(1, 10));
        char* end = nullptr;
        errno = 0;
        const long long i = std::strtoll(s.c_str(), &end, base);
        if (!s.empty() && end && *end == '\0' && errno == 0) return Value::integer(i);
        const double d = std::strtod(s.c_str(), &end);
        if (!s.empty() && end && *end == '\0' && std::isfinite(d)) return Value::integer(static_cast<int64_t>(std::trunc(d)));
    }
    return fallback;
}

Value floatFilter(const Value& value, const CallArgs& args, int line) {
    ArgReader reader(args, "float", line, {"default"});
    if (value.isNumber() || value.isBool()) return Value::number(value.asDouble());
    if (value.isString()) {
        const std::string s = pyStrip(value.str(), nullptr, true, true);
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (!s.empty() && end && *end == '\0') return Value::number(d);
    }
    return reader.value(0, Value::number(0.0));
}

Value roundFilter(const Value& value, const CallArgs& args, int line) {
    ArgReader reader(args, "round", line, {"precision", "method"});
    const int64_t precision = reader.intArg(0, 0);
    const std::string method = reader.strArg(1, "common");
    if (!value.isNumber() && !value.isBool()) throw TemplateError(line, "round(): expected a number, got " + typeName(value));
    const double v = value.asDouble();
    const double scale = std::pow(10.0, static_cast<double>(precision));
    if (method == "ceil") return Value::number(std::ceil(v * scale) / scale);
    if (method == "floor") return Value::number(std::floor(v * scale) / scale);
    if (method != "common") throw TemplateError(line, "round(): method must be 'common', 'ceil' or 'floor'");
    // Python's round(): exact decimal rounding, ties to even; printf rounds the same way.
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", static_cast<int>(std::clamp<int64_t>(precision, 0, 300)), v);
    return Value::number(precision >= 0 ? std::strtod(buf, nullptr) : std::nearbyint(v * scale) / scale);
}

Value minMax(Evaluator& e, const Value& value, const CallArgs& args, int line, bool wantMax) {
    ArgReader reader(args, wantMax ? "max" : "min", line, {"case_sensitive", "attribute"});
    const auto items = sortedItems(e, value, false, reader.boolArg(0, false), reader.get(1), line);
    if (items.empty()) return Value::undefined(std::string("No aggregated item, sequence was empty."));
    return wantMax ? items.back() : items.front();
}

const std::unordered_map<std::string, FilterFn>& filterTable() {
    static const std::unordered_map<std::string, FilterFn> table = [] {
        std::unordered_map<std::string, FilterFn> t;
        t["tojson"] = tojsonFilter;
        t["length"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) {
            ArgReader(a, "length", line, {});
            return Value::integer(lengthOf(v, line));
        };
        t["count"] = t["length"];
        t["trim"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "trim", line, {"chars"});
            const Value* chars = r.get(0);
            const std::string set = chars && !chars->isNone() ? toStr(*chars, line) : std::string();
            return Value::string(pyStrip(toStr(v, line), chars && !chars->isNone() ? &set : nullptr, true, true));
        };
        t["upper"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return Value::string(pyUpper(toStr(v, line))); };
        t["lower"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return Value::string(pyLower(toStr(v, line))); };
        t["title"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return Value::string(pyTitle(toStr(v, line))); };
        t["capitalize"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            return Value::string(pyCapitalize(toStr(v, line)));
        };
        t["replace"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "replace", line, {"old", "new", "count"});
            const std::string s = toStr(v, line);
            const std::string from = r.strArg(0, "");
            const std::string to = r.strArg(1, "");
            const size_t hits = from.empty() ? codePointCount(s) + 1 : 0;
            e.checkSize(s.size() + hits * to.size() + (from.empty() ? 0 : (s.size() / from.size()) * to.size()), line);
            return Value::string(pyReplace(s, from, to, r.intArg(2, -1)));
        };
        t["join"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "join", line, {"d", "attribute"});
            const std::string sep = r.strArg(0, "");
            const Value* attribute = r.get(1);
            std::string out;
            bool first = true;
            for (const auto& item : iterate(v, line)) {
                if (!first) out += sep;
                first = false;
                out += toStr(attribute ? getAttributePath(e, item, toStr(*attribute, line), line) : item, line);
                e.checkSize(out.size(), line);
            }
            return Value::string(std::move(out));
        };
        t["first"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            auto items = iterate(v, line);
            return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
        };
        t["last"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            auto items = iterate(v, line);
            return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
        };
        t["list"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return listValue(iterate(v, line), line); };
        t["string"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return Value::string(toStr(v, line)); };
        t["safe"] = t["string"];
        t["escape"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return Value::string(htmlEscape(toStr(v, line))); };
        t["e"] = t["escape"];
        t["forceescape"] = t["escape"];
        t["int"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) { return intFilter(v, a, line); };
        t["float"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) { return floatFilter(v, a, line); };
        t["abs"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            if (v.isFloat()) return Value::number(std::fabs(v.asDouble()));
            if (v.isInt() || v.isBool()) return Value::integer(std::llabs(v.asInt()));
            throw TemplateError(line, "bad operand type for abs(): '" + typeName(v) + "'");
        };
        t["round"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) { return roundFilter(v, a, line); };
        t["default"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "default", line, {"default_value", "boolean"});
            const bool useDefault = v.isUndefined() || (r.boolArg(1, false) && !truthy(v));
            return useDefault ? r.value(0, Value::string("")) : v;
        };
        t["d"] = t["default"];
        t["items"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            if (v.isUndefined()) return Value::fromJson(Json::array());
            if (!v.isDict()) throw TemplateError(line, "items filter: expected a mapping, got " + typeName(v));
            Json out = Json::array();
            for (auto it = v.json().begin(); it != v.json().end(); ++it) out.push_back(Json::array({it.key(), it.value()}));
            return Value::fromJson(std::move(out));
        };
        t["dictsort"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "dictsort", line, {"case_sensitive", "by", "reverse"});
            if (!v.isDict()) throw TemplateError(line, "dictsort filter: expected a mapping, got " + typeName(v));
            const bool byValue = r.strArg(1, "key") == "value";
            const bool caseSensitive = r.boolArg(0, false);
            std::vector<std::pair<Value, Json>> entries;
            for (auto it = v.json().begin(); it != v.json().end(); ++it) {
                const Value key = byValue ? v.child(it.value()) : Value::string(it.key());
                entries.emplace_back(sortKey(key, caseSensitive), Json::array({it.key(), it.value()}));
            }
            const bool reverse = r.boolArg(2, false);
            std::stable_sort(entries.begin(), entries.end(), [&](const auto& x, const auto& y) {
                return reverse ? valueLess(y.first, x.first, line) : valueLess(x.first, y.first, line);
            });
            Json out = Json::array();
            for (auto& [key, pair] : entries) out.push_back(std::move(pair));
            return Value::fromJson(std::move(out));
        };
        t["selectattr"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) { return selectItems(e, v, a, line, true, true, "selectattr"); };
        t["rejectattr"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) { return selectItems(e, v, a, line, true, false, "rejectattr"); };
        t["select"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) { return selectItems(e, v, a, line, false, true, "select"); };
        t["reject"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) { return selectItems(e, v, a, line, false, false, "reject"); };
        t["map"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            std::vector<Value> out;
            bool byAttribute = false;
            std::string attribute;
            Value fallback;
            for (const auto& [key, value] : a.keyword) {
                if (key == "attribute") {
                    byAttribute = true;
                    attribute = toStr(value, line);
                } else if (key == "default") {
                    fallback = value;
                } else {
                    throw TemplateError(line, "map() got an unexpected keyword argument '" + key + "'");
                }
            }
            if (byAttribute) {
                for (const auto& item : iterate(v, line)) {
                    Value mapped = getAttributePath(e, item, attribute, line);
                    out.push_back(mapped.isUndefined() && !fallback.isUndefined() ? fallback : mapped);
                }
                return listValue(out, line);
            }
            if (a.positional.empty()) throw TemplateError(line, "map() needs a filter name or attribute=");
            const std::string filter = toStr(a.positional[0], line);
            if (!isKnownFilter(filter)) throw TemplateError(line, "no filter named '" + filter + "'");
            CallArgs rest;
            rest.positional.assign(a.positional.begin() + 1, a.positional.end());
            for (const auto& item : iterate(v, line)) out.push_back(applyFilter(e, filter, item, rest, line));
            return listValue(out, line);
        };
        t["attr"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "attr", line, {"name"});
            // Python getattr only: a dict's keys are not attributes (unlike `d.key` in a template).
            if (v.isDict()) {
                Value method = boundMethod(v, r.strArg(0, ""), line);
                return method.isUndefined() ? Value::undefined("'dict object' has no attribute '" + r.strArg(0, "") + "'") : method;
            }
            return e.getAttr(v, r.strArg(0, ""), line);
        };
        t["sort"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "sort", line, {"reverse", "case_sensitive", "attribute"});
            return listValue(sortedItems(e, v, r.boolArg(0, false), r.boolArg(1, false), r.get(2), line), line);
        };
        t["reverse"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            if (v.isString()) {
                auto items = iterate(v, line);
                std::string out;
                for (auto it = items.rbegin(); it != items.rend(); ++it) out += it->str();
                return Value::string(std::move(out));
            }
            auto items = iterate(v, line);
            std::reverse(items.begin(), items.end());
            return listValue(items, line);
        };
        t["unique"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "unique", line, {"case_sensitive", "attribute"});
            std::vector<Value> out;
            std::vector<Value> seen;
            for (const auto& item : iterate(v, line)) {
                Value key = r.get(1) ? getAttributePath(e, item, toStr(*r.get(1), line), line) : item;
                key = sortKey(key, r.boolArg(0, false));
                if (std::none_of(seen.begin(), seen.end(), [&](const Value& s) { return valuesEqual(s, key); })) {
                    seen.push_back(key);
                    out.push_back(item);
                }
            }
            return listValue(out, line);
        };
        t["min"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) { return minMax(e, v, a, line, false); };
        t["max"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) { return minMax(e, v, a, line, true); };
        t["sum"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "sum", line, {"attribute", "start"});
            Value total = r.value(1, Value::integer(0));
            for (const auto& item : iterate(v, line)) {
                const Value x = r.get(0) ? getAttributePath(e, item, toStr(*r.get(0), line), line) : item;
                total = arithmetic(e, "+", total, x, line);
            }
            return total;
        };
        t["indent"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "indent", line, {"width", "first", "blank"});
            const Value* w = r.get(0);
            const std::string pad = w && w->isString() ? w->str() : std::string(static_cast<size_t>(std::max<int64_t>(0, r.intArg(0, 4))), ' ');
            const std::string s = toStr(v, line);
            e.checkSize(s.size() + (std::count(s.begin(), s.end(), '\n') + 1) * pad.size(), line);
            const auto lines = pySplitLines(s, true);
            std::string out;
            for (size_t i = 0; i < lines.size(); ++i) {
                const bool blank = pyStrip(lines[i], nullptr, true, true).empty();
                if ((i > 0 || r.boolArg(1, false)) && (!blank || r.boolArg(2, false))) out += pad;
                out += lines[i];
            }
            return Value::string(std::move(out));
        };
        t["center"] = [](Evaluator& e, const Value& v, const CallArgs& a, int line) {
            ArgReader r(a, "center", line, {"width"});
            const std::string s = toStr(v, line);
            const int64_t width = r.intArg(0, 80);
            const int64_t n = static_cast<int64_t>(codePointCount(s));
            if (width <= n) return Value::string(s);
            e.checkSize(static_cast<size_t>(width), line);
            const int64_t total = width - n;
            const int64_t left = total / 2 + (total & width & 1); // CPython's str.center split
            return Value::string(std::string(static_cast<size_t>(left), ' ') + s + std::string(static_cast<size_t>(total - left), ' '));
        };
        t["wordcount"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            return Value::integer(static_cast<int64_t>(pySplit(toStr(v, line), nullptr, -1).size()));
        };
        t["format"] = [](Evaluator&, const Value& v, const CallArgs& a, int line) {
            return Value::string(percentFormat(toStr(v, line), listValue(a.positional, line), line));
        };
        return t;
    }();
    return table;
}

bool isSequenceLike(const Value& v) { return v.isUndefined() || v.isString() || v.isList() || v.isDict(); }

const std::unordered_map<std::string, TestFn>& testTable() {
    static const std::unordered_map<std::string, TestFn> table = [] {
        std::unordered_map<std::string, TestFn> t;
        auto arg = [](const CallArgs& a, const char* name, int line) -> const Value& {
            if (a.positional.empty()) throw TemplateError(line, std::string("test '") + name + "' needs an argument");
            return a.positional[0];
        };
        t["defined"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return !v.isUndefined(); };
        t["undefined"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isUndefined(); };
        t["none"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isNone(); };
        t["string"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isString(); };
        t["mapping"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isDict() || v.isNamespace(); };
        // Jinja's Undefined is iterable (empty), has a length and is callable (it raises when called).
        t["iterable"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return isSequenceLike(v); };
        t["sequence"] = t["iterable"];
        t["number"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isNumber() || v.isBool(); };
        t["integer"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isInt(); };
        t["float"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isFloat(); };
        t["boolean"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isBool(); };
        t["true"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isBool() && v.json().get<bool>(); };
        t["false"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isBool() && !v.json().get<bool>(); };
        t["callable"] = [](Evaluator&, const Value& v, const CallArgs&, int) { return v.isCallable() || v.isUndefined(); };
        t["escaped"] = [](Evaluator&, const Value&, const CallArgs&, int) { return false; };
        t["lower"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            const std::string s = toStr(v, line);
            return pyLower(s) == s && pyUpper(s) != s;
        };
        t["upper"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            const std::string s = toStr(v, line);
            return pyUpper(s) == s && pyLower(s) != s;
        };
        t["odd"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            if (!v.isInt() && !v.isBool()) throw TemplateError(line, "odd test needs an integer");
            return (v.asInt() % 2) != 0;
        };
        t["even"] = [](Evaluator&, const Value& v, const CallArgs&, int line) {
            if (!v.isInt() && !v.isBool()) throw TemplateError(line, "even test needs an integer");
            return (v.asInt() % 2) == 0;
        };
        t["divisibleby"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) {
            const Value& d = arg(a, "divisibleby", line);
            if (!(v.isInt() || v.isBool()) || !(d.isInt() || d.isBool())) throw TemplateError(line, "divisibleby needs integers");
            if (d.asInt() == 0) throw TemplateError(line, "integer division or modulo by zero");
            return v.asInt() % d.asInt() == 0;
        };
        t["equalto"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) { return valuesEqual(v, arg(a, "==", line)); };
        t["eq"] = t["equalto"];
        t["=="] = t["equalto"];
        t["ne"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) { return !valuesEqual(v, arg(a, "!=", line)); };
        t["!="] = t["ne"];
        t["lt"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) { return valueLess(v, arg(a, "<", line), line); };
        t["lessthan"] = t["lt"];
        t["<"] = t["lt"];
        t["gt"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) { return valueLess(arg(a, ">", line), v, line); };
        t["greaterthan"] = t["gt"];
        t[">"] = t["gt"];
        t["le"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) {
            const Value& o = arg(a, "<=", line);
            return valueLess(v, o, line) || valuesEqual(v, o);
        };
        t["<="] = t["le"];
        t["ge"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) {
            const Value& o = arg(a, ">=", line);
            return valueLess(o, v, line) || valuesEqual(v, o);
        };
        t[">="] = t["ge"];
        t["in"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) { return contains(arg(a, "in", line), v, line); };
        t["sameas"] = [arg](Evaluator&, const Value& v, const CallArgs& a, int line) {
            const Value& o = arg(a, "sameas", line);
            // Python `is`: None/True/False are singletons; other values only by identity.
            if ((v.isNone() || v.isBool()) && (o.isNone() || o.isBool())) return valuesEqual(v, o) && v.isBool() == o.isBool();
            if (v.isData() && o.isData()) return &v.json() == &o.json();
            return false;
        };
        t["filter"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return isKnownFilter(toStr(v, line)); };
        t["test"] = [](Evaluator&, const Value& v, const CallArgs&, int line) { return isKnownTest(toStr(v, line)); };
        return t;
    }();
    return table;
}

} // namespace

bool isKnownFilter(const std::string& name) { return filterTable().count(name) != 0; }
bool isKnownTest(const std::string& name) { return testTable().count(name) != 0; }

Value applyFilter(Evaluator& evaluator, const std::string& name, const Value& value, CallArgs& args, int line) {
    auto it = filterTable().find(name);
    if (it == filterTable().end()) throw TemplateError(line, "no filter named '" + name + "'");
    return it->second(evaluator, value, args, line);
}

bool applyTest(Evaluator& evaluator, const std::string& name, const Value& value, CallArgs& args, int line) {
    auto it = testTable().find(name);
    if (it == testTable().end()) throw TemplateError(line, "no test named '" + name + "'");
    return it->second(evaluator, value, args, line);
}

} // namespace hearth::chat::jinja
