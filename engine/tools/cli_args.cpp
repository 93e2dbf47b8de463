#include "tools/cli_args.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hearth::cli {

Result<Args> Args::parse(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
                         const std::set<std::string>& flags, const std::map<std::string, std::string>& aliases) {
    Args args;
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string option = argv[i];
        std::optional<std::string> inlineValue;
        if (option.rfind("--", 0) == 0) {
            if (auto eq = option.find('='); eq != std::string::npos) {
                inlineValue = option.substr(eq + 1);
                option = option.substr(0, eq);
            }
        }
        if (auto alias = aliases.find(option); alias != aliases.end()) option = alias->second;
        if (flags.count(option)) {
            if (inlineValue) return invalidArgument("option " + option + " takes no value");
            args.m_flags.insert(option);
        } else if (valueOptions.count(option)) {
            if (inlineValue) {
                args.m_values[option] = *inlineValue;
            } else {
                if (i + 1 >= argv.size()) return invalidArgument("option " + option + " needs a value");
                args.m_values[option] = argv[++i];
            }
        } else {
            return invalidArgument("unknown option '" + argv[i] + "'");
        }
    }
    return args;
}

bool Args::has(const std::string& option) const { return m_flags.count(option) || m_values.count(option); }

std::optional<std::string> Args::value(const std::string& option) const {
    auto it = m_values.find(option);
    if (it == m_values.end()) return std::nullopt;
    return it->second;
}

Result<int64_t> Args::integer(const std::string& option, int64_t fallback, int64_t min, int64_t max) const {
    auto text = value(option);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || errno == ERANGE)
        return invalidArgument("option " + option + ": '" + *text + "' is not an integer");
    if (v < min || v > max)
        return invalidArgument("option " + option + ": " + *text + " is out of range [" + std::to_string(min) +
                               ", " + std::to_string(max) + "]");
    return int64_t(v);
}

Result<uint64_t> Args::unsignedInteger(const std::string& option, uint64_t fallback) const {
    auto text = value(option);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
    if (text->empty() || (*text)[0] == '-' || *end != '\0' || errno == ERANGE)
        return invalidArgument("option " + option + ": '" + *text + "' is not a non-negative integer");
    return uint64_t(v);
}

Result<double> Args::number(const std::string& option, double fallback) const {
    auto text = value(option);
    if (!text) return fallback;
    char* end = nullptr;
    const double v = std::strtod(text->c_str(), &end);
    if (text->empty() || *end != '\0' || !std::isfinite(v))
        return invalidArgument("option " + option + ": '" + *text + "' is not a number");
    return v;
}

Result<std::vector<int32_t>> Args::parseIds(const std::string& text, const std::string& what) {
    std::vector<int32_t> ids;
    std::string current;
    auto flush = [&]() -> Status {
        if (current.empty()) return Status::ok();
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(current.c_str(), &end, 10);
        if (*end != '\0' || errno == ERANGE || v < 0 || v > INT32_MAX)
            return invalidArgument(what + ": '" + current + "' is not a token id");
        ids.push_back(int32_t(v));
        current.clear();
        return Status::ok();
    };
    for (char ch : text) {
        if (ch == ',' || ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r') {
            HEARTH_TRY(flush());
        } else {
            current += ch;
        }
    }
    HEARTH_TRY(flush());
    return ids;
}

Status readSamplingOptions(const Args& args, GenerateParams& gen) {
    HEARTH_ASSIGN(const double temp, args.number("--temp", gen.temperature));
    HEARTH_ASSIGN(const int64_t topK, args.integer("--top-k", gen.topK, 0, 1 << 30));
    HEARTH_ASSIGN(const double topP, args.number("--top-p", gen.topP));
    HEARTH_ASSIGN(const double minP, args.number("--min-p", gen.minP));
    HEARTH_ASSIGN(const double penalty, args.number("--repeat-penalty", gen.repetitionPenalty));
    HEARTH_ASSIGN(const uint64_t seed, args.unsignedInteger("--seed", gen.seed));
    gen.temperature = float(temp);
    gen.topK = int32_t(topK);
    gen.topP = float(topP);
    gen.minP = float(minP);
    gen.repetitionPenalty = float(penalty);
    gen.seed = seed;
    return Status::ok();
}

int fail(const Status& status) {
    std::string message = status.message();
    for (char& ch : message)
        if (ch == '\n') ch = ' ';
    std::fprintf(stderr, "hearth-cli: error: %s\n", message.c_str());
    return 1;
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "hearth-cli: error: %s (see hearth-cli --help)\n", message.c_str());
    return 2;
}

} // namespace hearth::cli
