#include "tools/cli_args.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <strings.h>

#include "hearth/quant.h"

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
        } else if (argv[i].size() > 1 && argv[i][0] == '-') {
            return invalidArgument("unknown option '" + argv[i] + "'");
        } else {
            return invalidArgument("unexpected argument '" + argv[i] + "' (a value with spaces needs quotes)");
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

namespace {

// "an integer from 0 to 1024 (0 = all hardware threads)", "a number in (0, 1] (1 = off)".
std::string describeRange(const char* kind, double min, double max, bool minExclusive, const std::string& note,
                          bool integer) {
    auto show = [&](double v) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, integer ? "%.0f" : "%g", v);
        return std::string(buffer);
    };
    std::string text = kind;
    if (max >= double(1 << 30)) text += (minExclusive ? " > " : " >= ") + show(min);
    else if (integer) text += " from " + show(min) + " to " + show(max);
    else text += " in " + std::string(minExclusive ? "(" : "[") + show(min) + ", " + show(max) + "]";
    return note.empty() ? text : text + " (" + note + ")";
}

} // namespace

Result<int64_t> Args::integer(const std::string& option, int64_t fallback, int64_t min, int64_t max,
                              const std::string& note) const {
    auto text = value(option);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    const bool integer = !text->empty() && *end == '\0' && errno != ERANGE;
    if (!integer || v < min || v > max)
        return invalidArgument("option " + option + ": '" + *text + (integer ? "' is out of range" : "' is not an integer") +
                               "; expected " + describeRange("an integer", double(min), double(max), false, note, true));
    return int64_t(v);
}

Result<uint64_t> Args::unsignedInteger(const std::string& option, uint64_t fallback) const {
    auto text = value(option);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
    if (text->empty() || (*text)[0] == '-' || *end != '\0' || errno == ERANGE)
        return invalidArgument("option " + option + ": '" + *text + "' is not an integer >= 0; expected one from 0 to " +
                               std::to_string(UINT64_MAX));
    return uint64_t(v);
}

Result<double> Args::number(const std::string& option, double fallback, double min, double max, bool minExclusive,
                            const std::string& note) const {
    auto text = value(option);
    if (!text) return fallback;
    char* end = nullptr;
    const double v = std::strtod(text->c_str(), &end);
    const bool number = !text->empty() && *end == '\0' && std::isfinite(v);
    if (!number || !(minExclusive ? v > min : v >= min) || v > max)
        return invalidArgument("option " + option + ": '" + *text + (number ? "' is out of range" : "' is not a number") +
                               "; expected " + describeRange("a number", min, max, minExclusive, note, false));
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
            return invalidArgument(what + ": '" + current + "' is not a token id; expected integers >= 0 separated "
                                          "by commas or spaces");
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
    constexpr double kNoLimit = 1e300;
    HEARTH_ASSIGN(const double temp, args.number("--temp", gen.sampling.temperature, 0, kNoLimit, false, "0 = greedy"));
    HEARTH_ASSIGN(const int64_t topK, args.integer("--top-k", gen.sampling.topK, 0, 1 << 30, "0 = off"));
    HEARTH_ASSIGN(const double topP, args.number("--top-p", gen.sampling.topP, 0, 1, true, "1 = off"));
    HEARTH_ASSIGN(const double minP, args.number("--min-p", gen.sampling.minP, 0, 1, false, "0 = off"));
    HEARTH_ASSIGN(const double penalty, args.number("--repeat-penalty", gen.sampling.repetitionPenalty, 0, kNoLimit, true, "1 = off"));
    HEARTH_ASSIGN(const uint64_t seed, args.unsignedInteger("--seed", gen.sampling.seed));
    gen.sampling.temperature = float(temp);
    gen.sampling.topK = int32_t(topK);
    gen.sampling.topP = float(topP);
    gen.sampling.minP = float(minP);
    gen.sampling.repetitionPenalty = float(penalty);
    gen.sampling.seed = seed;
    return Status::ok();
}

void Args::splitPositionals(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
                            const std::map<std::string, std::string>& aliases, std::vector<std::string>& options,
                            std::vector<std::string>& positionals) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() < 2 || a[0] != '-') {
            positionals.push_back(a);
            continue;
        }
        options.push_back(a);
        std::string name = a.substr(0, a.find('='));
        if (auto alias = aliases.find(name); alias != aliases.end()) name = alias->second;
        if (valueOptions.count(name) && a.find('=') == std::string::npos && i + 1 < argv.size())
            options.push_back(argv[++i]);
    }
}

std::string presetNames() {
    std::string names;
    for (const QuantPresetInfo& p : quantPresets()) names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

Result<std::string> readQuantOption(const Args& args) {
    const auto name = args.value("--quant");
    if (!name) return std::string();
    for (const QuantPresetInfo& p : quantPresets())
        if (strcasecmp(p.name.c_str(), name->c_str()) == 0) return *name;
    return invalidArgument("option --quant: unknown preset '" + *name + "' (presets: " + presetNames() + ")");
}

std::unique_ptr<Model> loadCommandModel(const Args& args, int32_t threads, const std::string& quant, int32_t context,
                                        SessionParams& session, int& exitCode) {
    ModelParams mp;
    mp.path = *args.value("-m");
    mp.threads = threads;
    mp.quant = quant;
    session.contextLength = context;
    if (Status s = readDeviceOptions(args, mp, &session); !s.isOk()) {
        exitCode = usageError(s.message());
        return nullptr;
    }
    auto model = Model::load(mp);
    if (!model.isOk()) {
        exitCode = fail(model.status());
        return nullptr;
    }
    if (Status s = checkContextLength(model.value()->info(), context, args.has("--allow-long-context")); !s.isOk()) {
        exitCode = usageError(s.message());
        return nullptr;
    }
    return std::move(model).value();
}

Status checkContextLength(const ModelInfo& info, int32_t requested, bool allowLong) {
    int64_t limit = info.contextLength;
    std::string reach = "the " + std::to_string(limit) + " tokens the model was trained for";
    if (info.ropeScaledContextLength > limit) {
        limit = info.ropeScaledContextLength;
        reach = "the " + std::to_string(limit) + " tokens the model's RoPE scaling (" + info.ropeScaling + ") reaches";
    }
    if (requested <= limit) return Status::ok();
    const std::string what = std::to_string(requested) + " is more than " + reach;
    if (!allowLong)
        return invalidArgument("option --ctx: " + what + "; expected at most " + std::to_string(limit) +
                               " (or add --allow-long-context)");
    warn("--ctx " + what + "; expect the output to degrade past that");
    return Status::ok();
}

std::string rateText(double tokensPerSecond) {
    if (tokensPerSecond < 0) return "rate n/a";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.1f tok/s", tokensPerSecond);
    return buffer;
}

namespace {
std::string g_command; // the subcommand being run, for "see hearth-cli COMMAND --help"
}

void setCommandName(const std::string& command) { g_command = command; }

int fail(const Status& status) {
    std::string message = status.message();
    for (char& ch : message)
        if (ch == '\n') ch = ' ';
    std::fprintf(stderr, "hearth-cli: error: %s\n", message.c_str());
    return 1;
}

int usageError(const std::string& message) {
    const std::string help = g_command.empty() ? "hearth-cli --help" : "hearth-cli " + g_command + " --help";
    std::fprintf(stderr, "hearth-cli: error: %s (see %s)\n", message.c_str(), help.c_str());
    return 2;
}

void warn(const std::string& message) { std::fprintf(stderr, "hearth-cli: warning: %s\n", message.c_str()); }

Status readDeviceOptions(const Args& args, ModelParams& model, SessionParams* session) {
    const std::string device = args.value("--device").value_or("auto");
    if (device == "auto") model.device = DeviceKind::Auto;
    else if (device == "cuda") model.device = DeviceKind::Cuda;
    else if (device == "cpu") model.device = DeviceKind::Cpu;
    else return invalidArgument("option --device: unknown device '" + device + "'; expected auto, cpu or cuda");
    HEARTH_ASSIGN(const int64_t gpu, args.integer("--gpu", 0, 0, 255, "a CUDA device number"));
    model.gpu = int32_t(gpu);
    const std::string kernels = args.value("--cpu-kernels").value_or("fast");
    if (kernels == "fast") model.cpuKernels = CpuKernels::Fast;
    else if (kernels == "reference") model.cpuKernels = CpuKernels::Reference;
    else return invalidArgument("option --cpu-kernels: unknown kernels '" + kernels + "'; expected fast or reference");
    if (!session) return Status::ok();
    const std::string kv = args.value("--kv-type").value_or("f16");
    if (kv == "f16") session->kvType = KvType::F16;
    else if (kv == "bf16") session->kvType = KvType::BF16;
    else if (kv == "f32") session->kvType = KvType::F32;
    else return invalidArgument("option --kv-type: unknown type '" + kv + "'; expected f16, bf16 or f32");
    if (auto budget = args.value("--vram-budget")) {
        char* end = nullptr;
        const double gib = std::strtod(budget->c_str(), &end);
        if (end == budget->c_str() || *end != '\0' || !(gib > 0.0) || gib > 1e6)
            return invalidArgument("option --vram-budget: '" + *budget + "' is not a size; expected GiB > 0, e.g. 22.5");
        model.vramBudgetBytes = uint64_t(gib * double(1ull << 30));
        model.budgetContextLength = session->contextLength;
        model.budgetKvType = session->kvType;
    }
    return Status::ok();
}

} // namespace hearth::cli
