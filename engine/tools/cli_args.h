// A small command-line parser for hearth-cli: options with values, flags, strict number parsing.
// Every problem is reported as one line naming the option and what it accepts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hearth/engine.h"
#include "hearth/status.h"

namespace hearth::cli {

class Args {
public:
    // `valueOptions`: options that take a value (e.g. "-m", "--model"); `flags`: options without.
    // `aliases` maps alternative spellings to the canonical one.
    static Result<Args> parse(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
                              const std::set<std::string>& flags, const std::map<std::string, std::string>& aliases);

    bool has(const std::string& option) const;
    std::optional<std::string> value(const std::string& option) const;
    // A value outside [min, max] or not a number is an error that names the option and says what
    // it accepts; `note` tells what special values mean ("0 = off").
    Result<int64_t> integer(const std::string& option, int64_t fallback, int64_t min, int64_t max,
                            const std::string& note = "") const;
    Result<uint64_t> unsignedInteger(const std::string& option, uint64_t fallback) const;
    // `minExclusive`: min itself is refused too ((0, 1] rather than [0, 1]).
    Result<double> number(const std::string& option, double fallback, double min, double max, bool minExclusive,
                          const std::string& note) const;
    // "1,410,22" or "1 410 22" → ids.
    static Result<std::vector<int32_t>> parseIds(const std::string& text, const std::string& what);
    // Args takes no positional arguments: splits `argv` into `options` (each with its value, for
    // parse) and `positionals` (words that are neither an option nor an option's value: paths).
    static void splitPositionals(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
                                 const std::map<std::string, std::string>& aliases, std::vector<std::string>& options,
                                 std::vector<std::string>& positionals);

private:
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_flags;
};

// The sampling options --temp, --top-k, --top-p, --min-p, --repeat-penalty and --seed into
// `gen`, whose current values are the defaults. Errors name the option and its allowed values.
Status readSamplingOptions(const Args& args, GenerateParams& gen);

// Every quant preset's name, "F32, F16, ...", for messages.
std::string presetNames();

// --quant PRESET (if given) checked against the presets' names: "" when absent.
Result<std::string> readQuantOption(const Args& args);
// --device auto|cpu|cuda (default auto), --gpu N, --cpu-kernels fast|reference (default fast) and
// --kv-type f16|bf16|f32 (default f16).
Status readDeviceOptions(const Args& args, ModelParams& model, SessionParams* session);

// --ctx beyond the context the model was trained for, or that its RoPE scaling extends to, is
// refused unless `allowLong` (--allow-long-context), which warns on stderr instead.
Status checkContextLength(const ModelInfo& info, int32_t requested, bool allowLong);

// The model of a command that keeps one loaded (chat, serve): -m, --threads, --quant and the device
// options into ModelParams, loaded, and --ctx (`context`, --allow-long-context) checked against it;
// `session` gets the device options' session part. On failure: null, and `exitCode` is what the
// command returns (a usage error, or the load's failure).
std::unique_ptr<Model> loadCommandModel(const Args& args, int32_t threads, const std::string& quant, int32_t context,
                                        SessionParams& session, int& exitCode);

// A session's memory report as --json prints it (bench, run): bytes by category and the device's.
nlohmann::json memoryJson(const MemoryReport& m);

// "12.3 tok/s", or "rate n/a" for a rate that is undefined (negative: no token was timed).
std::string rateText(double tokensPerSecond);

// Output helpers: JSON-only stdout, one-line errors on stderr. Usage errors (exit code 2) point
// to the current command's --help.
void setCommandName(const std::string& command);
int fail(const Status& status);
int usageError(const std::string& message);
void warn(const std::string& message);

int runCommand(const std::vector<std::string>& args);
int inspectCommand(const std::vector<std::string>& args);
int benchCommand(const std::vector<std::string>& args);
int benchMatVecCommand(const Args& args); // bench --matvec
int benchPoolCommand(const Args& args);   // bench --pool
int tokenizeCommand(const std::vector<std::string>& args);
int quantizeCommand(const std::vector<std::string>& args);
int synthCommand(const std::vector<std::string>& args);
int chatCommand(const std::vector<std::string>& args);
int templateCommand(const std::vector<std::string>& args);
int serveCommand(const std::vector<std::string>& args);

} // namespace hearth::cli
