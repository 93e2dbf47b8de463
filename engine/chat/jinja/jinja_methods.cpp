// Methods of values (what `x.strip()`, `d.items()`, `s.split(',')` call in a template), the global
// functions (range, namespace, dict, raise_exception, strftime_now) and Python's % and
// str.format string formatting.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <unordered_set>

#include "chat/jinja/jinja_builtins.h"
#include "chat/jinja/jinja_eval.h"

namespace hearth::chat::jinja {

namespace {

using Fn = std::function<Value(Evaluator&, CallArgs&, int)>;

class BuiltinCallable : public Callable {
public:
    BuiltinCallable(std::string name, Fn fn) : m_name(std::move(name)), m_fn(std::move(fn)) {}
    std::string name() const override { return m_name; }
    Value call(Evaluator& evaluator, CallArgs& args, int line) const override { return m_fn(evaluator, args, line); }

private:
    std::string m_name;
    Fn m_fn;
};

Value builtin(std::string name, Fn fn) { return Value::callable(std::make_shared<BuiltinCallable>(std::move(name), std::move(fn))); }

Value stringList(const std::vector<std::string>& parts) {
    Json out = Json::array();
    for (const auto& p : parts) out.push_back(p);
    return Value::fromJson(std::move(out));
}

// startswith/endswith take a string or a tuple of strings.
bool matchesAffix(const std::string& s, const Value& affix, bool prefix, int line) {
    auto test = [&](const std::string& a) {
        if (a.size() > s.size()) return false;
        return prefix ? s.compare(0, a.size(), a) == 0 : s.compare(s.size() - a.size(), a.size(), a) == 0;
    };
    if (affix.isString()) return test(affix.str());
    if (affix.isList()) {
        for (const auto& item : iterate(affix, line)) {
            if (item.isString() && test(item.str())) return true;
        }
        return false;
    }
    throw TemplateError(line, std::string(prefix ? "startswith" : "endswith") +
                                  " first arg must be str or a tuple of str, not " + typeName(affix));
}

// Byte offset -> code point index (find/index return code point positions, as Python does).
int64_t codePointIndex(const std::string& s, size_t byteOffset) {
    return static_cast<int64_t>(codePointCount(std::string_view(s).substr(0, byteOffset)));
}

bool allCodePoints(const std::string& s, bool (*pred)(char32_t)) {
    if (s.empty()) return false;
    size_t pos = 0;
    while (pos < s.size()) {
        if (!pred(decodeAt(s, pos))) return false;
    }
    return true;
}

std::string pyStrFormat(const std::string& format, const CallArgs& args, int line);

Value stringMethod(const Value& self, const std::string& name) {
    const std::string s = self.str();
    auto optChars = [](const ArgReader& r, size_t i, std::string& storage) -> const std::string* {
        const Value* v = r.get(i);
        if (!v || v->isNone()) return nullptr;
        storage = toStr(*v, r.line());
        return &storage;
    };
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        return builtin("str." + name, [s, name, optChars](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, name, line, {"chars"});
            std::string storage;
            return Value::string(pyStrip(s, optChars(r, 0, storage), name != "rstrip", name != "lstrip"));
        });
    }
    if (name == "split" || name == "rsplit") {
        return builtin("str." + name, [s, name, optChars](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, name, line, {"sep", "maxsplit"});
            std::string storage;
            const std::string* sep = optChars(r, 0, storage);
            if (sep && sep->empty()) throw TemplateError(line, "empty separator");
            const int64_t maxSplit = r.intArg(1, -1);
            return stringList(name == "split" ? pySplit(s, sep, maxSplit) : pyRSplit(s, sep, maxSplit));
        });
    }
    if (name == "splitlines") {
        return builtin("str.splitlines", [s](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, "splitlines", line, {"keepends"});
            return stringList(pySplitLines(s, r.boolArg(0, false)));
        });
    }
    if (name == "startswith" || name == "endswith") {
        return builtin("str." + name, [s, name](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, name, line, {"prefix"});
            const Value* affix = r.get(0);
            if (!affix) throw TemplateError(line, name + "() takes at least 1 argument");
            return Value::boolean(matchesAffix(s, *affix, name == "startswith", line));
        });
    }
    if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
        return builtin("str." + name, [s, name](Evaluator&, CallArgs& a, int line) {
            ArgReader(a, name, line, {});
            if (name == "upper") return Value::string(pyUpper(s));
            if (name == "lower") return Value::string(pyLower(s));
            if (name == "title") return Value::string(pyTitle(s));
            return Value::string(pyCapitalize(s));
        });
    }
    if (name == "replace") {
        return builtin("str.replace", [s](Evaluator& e, CallArgs& a, int line) {
            ArgReader r(a, "replace", line, {"old", "new", "count"});
            const std::string from = r.strArg(0, "");
            const std::string to = r.strArg(1, "");
            e.checkSize(s.size() + (from.empty() ? s.size() + 1 : s.size() / from.size()) * to.size(), line);
            return Value::string(pyReplace(s, from, to, r.intArg(2, -1)));
        });
    }
    if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
        return builtin("str." + name, [s, name](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, name, line, {"sub"});
            const std::string sub = r.strArg(0, "");
            if (name == "count") {
                if (sub.empty()) return Value::integer(static_cast<int64_t>(codePointCount(s)) + 1);
                int64_t n = 0;
                for (size_t pos = s.find(sub); pos != std::string::npos; pos = s.find(sub, pos + sub.size())) ++n;
                return Value::integer(n);
            }
            const size_t pos = (name[0] == 'r') ? s.rfind(sub) : s.find(sub);
            if (pos == std::string::npos) {
                if (name == "index" || name == "rindex") throw TemplateError(line, "substring not found");
                return Value::integer(-1);
            }
            return Value::integer(codePointIndex(s, pos));
        });
    }
    if (name == "join") {
        return builtin("str.join", [s](Evaluator& e, CallArgs& a, int line) {
            ArgReader r(a, "join", line, {"iterable"});
            std::string out;
            bool first = true;
            for (const auto& item : iterate(r.value(0, Value()), line)) {
                if (!item.isString()) throw TemplateError(line, "sequence item: expected str instance, " + typeName(item) + " found");
                if (!first) out += s;
                first = false;
                out += item.str();
                e.checkSize(out.size(), line);
            }
            return Value::string(std::move(out));
        });
    }
    if (name == "format") {
        return builtin("str.format", [s](Evaluator&, CallArgs& a, int line) { return Value::string(pyStrFormat(s, a, line)); });
    }
    if (name == "removeprefix" || name == "removesuffix") {
        return builtin("str." + name, [s, name](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, name, line, {"affix"});
            const std::string affix = r.strArg(0, "");
            if (name == "removeprefix" && s.compare(0, affix.size(), affix) == 0) return Value::string(s.substr(affix.size()));
            if (name == "removesuffix" && affix.size() <= s.size() && s.compare(s.size() - affix.size(), affix.size(), affix) == 0) {
                return Value::string(s.substr(0, s.size() - affix.size()));
            }
            return Value::string(s);
        });
    }
    static const std::unordered_set<std::string> kPredicates = {"isdigit", "isnumeric", "isdecimal", "isalpha",
                                                                "isalnum", "isspace", "isupper", "islower"};
    if (kPredicates.count(name)) {
        return builtin("str." + name, [s, name](Evaluator&, CallArgs& a, int line) {
            ArgReader(a, name, line, {});
            if (name == "isspace") return Value::boolean(allCodePoints(s, isPySpace));
            if (name == "isdigit" || name == "isnumeric" || name == "isdecimal") {
                return Value::boolean(allCodePoints(s, [](char32_t c) { return c >= '0' && c <= '9'; }));
            }
            auto isAlpha = [](char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || toUpperCp(c) != toLowerCp(c) || c > 0x2E7F; };
            if (name == "isalpha") return Value::boolean(!s.empty() && allCodePoints(s, +isAlpha));
            if (name == "isalnum") {
                return Value::boolean(allCodePoints(s, [](char32_t c) {
                    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || toUpperCp(c) != toLowerCp(c) || c > 0x2E7F;
                }));
            }
            const bool upper = name == "isupper";
            const std::string mapped = upper ? pyUpper(s) : pyLower(s);
            return Value::boolean(mapped == s && (upper ? pyLower(s) : pyUpper(s)) != s);
        });
    }
    return Value();
}

Value dictMethod(const Value& self, const std::string& name) {
    if (name == "items" || name == "keys" || name == "values") {
        return builtin("dict." + name, [self, name](Evaluator&, CallArgs& a, int line) {
            ArgReader(a, name, line, {});
            Json out = Json::array();
            for (auto it = self.json().begin(); it != self.json().end(); ++it) {
                if (name == "items") out.push_back(Json::array({it.key(), it.value()}));
                else if (name == "keys") out.push_back(it.key());
                else out.push_back(it.value());
            }
            return Value::fromJson(std::move(out));
        });
    }
    if (name == "get") {
        return builtin("dict.get", [self](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, "get", line, {"key", "default"});
            const Value* key = r.get(0);
            if (!key) throw TemplateError(line, "get expected at least 1 argument, got 0");
            if (key->isString()) {
                auto it = self.json().find(key->str());
                if (it != self.json().end()) return self.child(*it);
            }
            return r.value(1, Value::none());
        });
    }
    return Value();
}

Value listMethod(const Value& self, const std::string& name) {
    if (name == "index" || name == "count") {
        return builtin("list." + name, [self, name](Evaluator&, CallArgs& a, int line) {
            ArgReader r(a, name, line, {"value"});
            const Value needle = r.value(0, Value());
            int64_t count = 0;
            int64_t i = 0;
            for (const auto& item : iterate(self, line)) {
                if (valuesEqual(item, needle)) {
                    if (name == "index") return Value::integer(i);
                    ++count;
                }
                ++i;
            }
            if (name == "index") throw TemplateError(line, toStr(needle, line) + " is not in list");
            return Value::integer(count);
        });
    }
    return Value();
}

int64_t rangeArg(const Value& v, int line) {
    if (!v.isInt() && !v.isBool()) throw TemplateError(line, "range() arguments must be integers, not " + typeName(v));
    return v.asInt();
}

} // namespace

Value boundMethod(const Value& object, const std::string& name, int line) {
    (void)line;
    static const std::unordered_set<std::string> kUnsafe = {"append", "extend", "insert", "pop", "remove", "clear",
                                                            "sort", "reverse", "update", "popitem", "setdefault",
                                                            "add", "discard"};
    if (object.isString()) return stringMethod(object, name);
    if (object.isDict()) {
        if (kUnsafe.count(name)) return Value::undefined("access to attribute '" + name + "' of 'dict' object is unsafe");
        return dictMethod(object, name);
    }
    if (object.isList() && object.isData()) {
        if (kUnsafe.count(name)) return Value::undefined("access to attribute '" + name + "' of 'list' object is unsafe");
        return listMethod(object, name);
    }
    return Value();
}

void installGlobals(Evaluator& evaluator) {
    evaluator.setGlobal("range", builtin("range", [](Evaluator& e, CallArgs& a, int line) {
        if (!a.keyword.empty()) throw TemplateError(line, "range() takes no keyword arguments");
        const auto& p = a.positional;
        if (p.empty() || p.size() > 3) throw TemplateError(line, "range expected 1 to 3 arguments, got " + std::to_string(p.size()));
        int64_t start = 0, stop = 0, step = 1;
        if (p.size() == 1) {
            stop = rangeArg(p[0], line);
        } else {
            start = rangeArg(p[0], line);
            stop = rangeArg(p[1], line);
            if (p.size() == 3) step = rangeArg(p[2], line);
        }
        if (step == 0) throw TemplateError(line, "range() arg 3 must not be zero");
        const Value r = Value::range(start, stop, step);
        if (r.rangeLength() > e.limits().maxRange) {
            throw TemplateError(line, "Range too big: range() of " + std::to_string(r.rangeLength()) +
                                          " items; ranges larger than " + std::to_string(e.limits().maxRange) +
                                          " are refused (as in Jinja's sandbox)");
        }
        return r;
    }));
    evaluator.setGlobal("namespace", builtin("namespace", [](Evaluator&, CallArgs& a, int line) {
        auto ns = std::make_shared<NamespaceData>();
        for (const auto& p : a.positional) {
            if (!p.isDict()) throw TemplateError(line, "namespace() takes keyword arguments or a dict");
            for (auto it = p.json().begin(); it != p.json().end(); ++it) ns->set(it.key(), p.child(it.value()));
        }
        for (auto& [key, value] : a.keyword) ns->set(key, value);
        return Value::makeNamespace(ns);
    }));
    evaluator.setGlobal("dict", builtin("dict", [](Evaluator&, CallArgs& a, int line) {
        Json out = Json::object();
        for (const auto& p : a.positional) {
            if (!p.isDict()) throw TemplateError(line, "dict() takes keyword arguments or a dict");
            for (auto it = p.json().begin(); it != p.json().end(); ++it) out[it.key()] = it.value();
        }
        for (auto& [key, value] : a.keyword) out[key] = toJson(value, line);
        return Value::fromJson(std::move(out));
    }));
    evaluator.setGlobal("raise_exception", builtin("raise_exception", [](Evaluator&, CallArgs& a, int line) -> Value {
        const std::string message = a.positional.empty() ? std::string() : toStr(a.positional[0], line);
        throw RaisedError(line, message);
    }));
    evaluator.setGlobal("strftime_now", builtin("strftime_now", [](Evaluator& e, CallArgs& a, int line) {
        ArgReader r(a, "strftime_now", line, {"format"});
        const std::string format = r.strArg(0, "");
        const std::tm now = e.now();
        if (format.empty()) return Value::string("");
        // strftime signals "did not fit" and "empty result" alike: grow until generous, then accept.
        for (size_t size = 128; size <= 65536; size *= 4) {
            std::string buf(size, '\0');
            const size_t n = std::strftime(buf.data(), buf.size(), format.c_str(), &now);
            if (n > 0) return Value::string(buf.substr(0, n));
        }
        return Value::string("");
    }));
}

// ---- string formatting ----

std::string percentFormat(const std::string& format, const Value& args, int line) {
    std::vector<Value> values = args.isList() ? iterate(args, line) : std::vector<Value>{args};
    size_t next = 0;
    std::string out;
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%') {
            out += format[i];
            continue;
        }
        size_t j = i + 1;
        std::string spec = "%";
        while (j < format.size() && std::string("-+ #0123456789.").find(format[j]) != std::string::npos) spec += format[j++];
        if (j >= format.size()) throw TemplateError(line, "incomplete format");
        const char conv = format[j];
        i = j;
        if (conv == '%') {
            out += '%';
            continue;
        }
        if (next >= values.size()) throw TemplateError(line, "not enough arguments for format string");
        const Value& v = values[next++];
        char buf[512];
        if (conv == 's' || conv == 'r') {
            // Widths and flags on %s are ignored: chat templates do not use them.
            out += conv == 's' ? toStr(v, line) : (v.isData() ? pyRepr(v.json()) : toStr(v, line));
        } else if (conv == 'd' || conv == 'i') {
            if (!v.isNumber() && !v.isBool()) throw TemplateError(line, "%d format: a number is required, not " + typeName(v));
            std::snprintf(buf, sizeof(buf), (spec + "lld").c_str(), static_cast<long long>(v.isFloat() ? static_cast<int64_t>(v.asDouble()) : v.asInt()));
            out += buf;
        } else if (conv == 'f' || conv == 'F' || conv == 'e' || conv == 'g') {
            if (!v.isNumber() && !v.isBool()) throw TemplateError(line, std::string("%") + conv + " format: a number is required");
            std::snprintf(buf, sizeof(buf), (spec + conv).c_str(), v.asDouble());
            out += buf;
        } else {
            throw TemplateError(line, std::string("unsupported format character '") + conv + "'");
        }
    }
    if (next < values.size() && args.isList()) throw TemplateError(line, "not all arguments converted during string formatting");
    return out;
}

namespace {

std::string pyStrFormat(const std::string& format, const CallArgs& args, int line) {
    std::string out;
    size_t autoIndex = 0;
    for (size_t i = 0; i < format.size(); ++i) {
        const char c = format[i];
        if (c == '{' && i + 1 < format.size() && format[i + 1] == '{') {
            out += '{';
            ++i;
        } else if (c == '}' && i + 1 < format.size() && format[i + 1] == '}') {
            out += '}';
            ++i;
        } else if (c == '{') {
            const size_t end = format.find('}', i);
            if (end == std::string::npos) throw TemplateError(line, "Single '{' encountered in format string");
            const std::string field = format.substr(i + 1, end - i - 1);
            if (field.find(':') != std::string::npos || field.find('!') != std::string::npos) {
                throw TemplateError(line, "str.format: format specs are not supported ('{" + field + "}')");
            }
            const Value* v = nullptr;
            if (field.empty() || std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; })) {
                const size_t index = field.empty() ? autoIndex++ : std::stoul(field);
                if (index >= args.positional.size()) throw TemplateError(line, "Replacement index " + std::to_string(index) + " out of range");
                v = &args.positional[index];
            } else {
                for (const auto& [key, value] : args.keyword) {
                    if (key == field) v = &value;
                }
                if (!v) throw TemplateError(line, "str.format: no argument named '" + field + "'");
            }
            out += toStr(*v, line);
            i = end;
        } else if (c == '}') {
            throw TemplateError(line, "Single '}' encountered in format string");
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

} // namespace hearth::chat::jinja
