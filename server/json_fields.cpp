#include "server/json_fields.h"

#include <cmath>
#include <sstream>

namespace hearth::server {
namespace {

ApiError wrong(const char* name, const std::string& expected, const Json& got) {
    return invalidRequest(std::string(name) + ": expected " + expected + ", got " + jsonExcerpt(got), name);
}

std::string numberText(double value) {
    std::ostringstream os;
    os << value;
    return os.str();
}

} // namespace

const Json* findField(const Json& object, const char* name) {
    const auto it = object.find(name);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string jsonExcerpt(const Json& value) {
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    constexpr size_t kLongest = 40;
    if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
    return text;
}

FieldError readBool(const Json& object, const char* name, bool& out) {
    const Json* v = findField(object, name);
    if (!v) return {};
    if (!v->is_boolean()) return wrong(name, "true or false", *v);
    out = v->get<bool>();
    return {};
}

FieldError readString(const Json& object, const char* name, std::string& out) {
    const Json* v = findField(object, name);
    if (!v) return {};
    if (!v->is_string()) return wrong(name, "a string", *v);
    out = v->get<std::string>();
    return {};
}

FieldError readNumber(const Json& object, const char* name, double min, double max, bool minExclusive,
                      std::optional<float>& out) {
    const Json* v = findField(object, name);
    if (!v) return {};
    const std::string range = (minExclusive ? "(" : "[") + numberText(min) + ", " + numberText(max) + "]";
    if (!v->is_number()) return wrong(name, "a number in " + range, *v);
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < min || (minExclusive && x == min) || x > max)
        return wrong(name, "a number in " + range, *v);
    out = float(x);
    return {};
}

FieldError readInteger(const Json& object, const char* name, int64_t min, int64_t max, std::optional<int64_t>& out) {
    const Json* v = findField(object, name);
    if (!v) return {};
    const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    if (!v->is_number_integer()) return wrong(name, range, *v);
    if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX)) return wrong(name, range, *v);
    const int64_t x = v->get<int64_t>();
    if (x < min || x > max) return wrong(name, range, *v);
    out = x;
    return {};
}

} // namespace hearth::server
