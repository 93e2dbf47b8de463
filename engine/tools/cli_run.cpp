// hearth-cli run: load a model, encode the prompt, generate, report text, ids and speed.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "hearth/engine.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

namespace fs = std::filesystem;

// Checked before the model loads, so that a bad output path costs no load and no run.
Status checkOutputFolder(const std::string& path) {
    const fs::path folder = fs::path(path).parent_path();
    std::error_code ec;
    if (folder.empty() || fs::is_directory(folder, ec)) return Status::ok();
    if (fs::exists(folder, ec)) return invalidArgument(path + ": cannot create: " + folder.string() + " is not a folder");
    return invalidArgument(path + ": cannot create: the folder " + folder.string() + " does not exist");
}

// NumPy .npy v1.0, float32 little-endian, C order. Written to FILE.part and renamed when whole,
// so that a failed write never leaves a truncated FILE to be read as logits.
Status writeNpy(const std::string& path, const std::vector<float>& data, size_t rows, size_t cols) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                         std::to_string(cols) + "), }";
    const size_t unpadded = 10 + header.size() + 1; // magic+version+len, dict, newline
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    const uint16_t headerLen = uint16_t(header.size());
    const std::string part = path + ".part";
    {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        out.write("\x93NUMPY\x01\x00", 8);
        out.write(reinterpret_cast<const char*>(&headerLen), 2);
        out << header;
        out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size() * sizeof(float)));
        if (out.close(), !out) {
            fs::remove(part);
            return invalidArgument(path + ": cannot write the logits");
        }
    }
    std::error_code ec;
    fs::rename(part, path, ec);
    if (ec) {
        fs::remove(part);
        return invalidArgument(path + ": cannot write the logits: " + ec.message());
    }
    return Status::ok();
}

nlohmann::json rateOrNull(double rate) { return rate < 0 ? nlohmann::json(nullptr) : nlohmann::json(rate); }

// Every option that needs no model, checked before the model is loaded.
Status readRunOptions(const Args& args, ModelParams& model, SessionParams& session, GenerateParams& gen) {
    HEARTH_ASSIGN(const int64_t n, args.integer("-n", 128, 0, 1 << 30));
    gen.maxTokens = int32_t(n);
    HEARTH_TRY(readSamplingOptions(args, gen));
    HEARTH_ASSIGN(const int64_t threads, args.integer("--threads", 0, 0, 1024, "0 = all hardware threads"));
    HEARTH_ASSIGN(const int64_t ctx, args.integer("--ctx", 0, 0, 1 << 24, "0 = the model's, capped by what fits"));
    model.threads = int32_t(threads);
    session.contextLength = int32_t(ctx);
    HEARTH_TRY(readDeviceOptions(args, model, &session));
    if (auto stop = args.value("--stop-ids")) {
        HEARTH_ASSIGN(gen.stopIds, Args::parseIds(*stop, "option --stop-ids"));
    }
    model.path = *args.value("-m");
    HEARTH_ASSIGN(model.quant, readQuantOption(args));
    model.allowRequantize = args.has("--allow-requantize");
    return Status::ok();
}

// The prompt's ids, each checked against the vocabulary (a usage error naming the option).
Status checkIds(const std::vector<int32_t>& ids, int32_t vocab, const std::string& option) {
    for (int32_t id : ids)
        if (id >= vocab)
            return invalidArgument("option " + option + ": token id " + std::to_string(id) +
                                   " is outside the vocabulary; expected ids from 0 to " + std::to_string(vocab - 1));
    return Status::ok();
}

void printResult(const GenerateResult& r, const std::vector<int32_t>& prompt, const std::string& device,
                 const Session& session, bool json) {
    if (json) {
        nlohmann::json out = {
            {"prompt_ids", prompt},       {"output_ids", r.outputIds},
            {"text", r.text},             {"stop", stopReasonName(r.stop)},
            {"n_prompt", r.promptTokens}, {"device", device},
            {"prefill_tok_s", rateOrNull(r.prefillTokPerS)}, {"decode_tok_s", rateOrNull(r.decodeTokPerS)},
            {"context", session.contextLength()}, {"memory", memoryJson(session.memoryReport())},
        };
        std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return;
    }
    std::printf("\n");
    std::fprintf(stderr, "[%s] prompt %d tokens, %s; generated %zu tokens, %s; stop: %s\n", device.c_str(),
                 r.promptTokens, rateText(r.prefillTokPerS).c_str(), r.outputIds.size(),
                 rateText(r.decodeTokPerS).c_str(), stopReasonName(r.stop));
}

} // namespace

int runCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv,
                              {"-m", "-p", "--prompt-ids", "-n", "--temp", "--top-k", "--top-p", "--min-p",
                               "--repeat-penalty", "--seed", "--threads", "--device", "--gpu", "--cpu-kernels", "--kv-type", "--vram-budget", "--stop-ids", "--logits-out",
                               "--ctx", "--quant"},
                              {"--json", "--allow-requantize", "--allow-long-context"},
                              {{"--model", "-m"}, {"--prompt", "-p"}, {"--n-predict", "-n"}, {"--temperature", "--temp"},
                               {"--type", "--quant"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("run needs -m MODEL");
    if (args.has("-p") == args.has("--prompt-ids")) return usageError("run needs exactly one of -p PROMPT or --prompt-ids IDS");

    GenerateParams gen;
    ModelParams modelParams;
    SessionParams sessionParams;
    if (Status s = readRunOptions(args, modelParams, sessionParams, gen); !s.isOk()) return usageError(s.message());
    std::vector<int32_t> prompt;
    if (auto ids = args.value("--prompt-ids")) {
        auto parsedIds = Args::parseIds(*ids, "option --prompt-ids");
        if (!parsedIds.isOk()) return usageError(parsedIds.status().message());
        prompt = parsedIds.value();
    }
    const std::optional<std::string> logitsPath = args.value("--logits-out");
    if (logitsPath)
        if (Status s = checkOutputFolder(*logitsPath); !s.isOk()) return fail(s);
    if (modelParams.allowRequantize)
        warn("--allow-requantize: re-quantizing an already-quantized model loses quality");

    auto model = Model::load(modelParams);
    if (!model.isOk()) return fail(model.status());
    const Model& m = *model.value();
    if (Status s = checkIds(gen.stopIds, m.info().vocabSize, "--stop-ids"); !s.isOk()) return usageError(s.message());
    if (Status s = checkIds(prompt, m.info().vocabSize, "--prompt-ids"); !s.isOk()) return usageError(s.message());
    if (Status s = checkContextLength(m.info(), sessionParams.contextLength, args.has("--allow-long-context"));
        !s.isOk())
        return usageError(s.message());
    if (args.has("-p")) prompt = m.encode(*args.value("-p"), /*addBos=*/true);
    if (prompt.empty()) return fail(invalidArgument("the prompt encodes to no tokens (the model adds no BOS)"));

    auto session = Session::create(m, sessionParams);
    if (!session.isOk()) return fail(session.status());
    if (int64_t(prompt.size()) > session.value()->contextLength())
        return usageError("option --ctx: the prompt has " + std::to_string(prompt.size()) +
                          " tokens, more than the context of " + std::to_string(session.value()->contextLength()) +
                          "; expected a larger --ctx");
    const bool json = args.has("--json");
    if (!json) {
        gen.onText = [](std::string_view piece, const GenerateStats&) {
            std::fwrite(piece.data(), 1, piece.size(), stdout);
            std::fflush(stdout);
        };
    }
    auto result = session.value()->generate(prompt, gen);
    if (!result.isOk()) return fail(result.status());
    if (logitsPath) {
        // Every token the generation ran (the prompt, then each reply token fed back), again,
        // teacher-forced: the logits it sampled from, one row per token.
        const std::vector<int32_t> ran = session.value()->cachedTokens();
        auto logits = session.value()->evaluate(ran);
        if (!logits.isOk()) return fail(logits.status());
        const size_t vocab = size_t(m.info().vocabSize);
        if (Status s = writeNpy(*logitsPath, logits.value(), ran.size(), vocab); !s.isOk()) return fail(s);
    }
    // Text: the device and, when chosen automatically, why ("[cpu: ...; auto: no NVIDIA driver ...]").
    std::string device = session.value()->deviceName();
    if (!json && modelParams.device == DeviceKind::Auto) device += "; " + m.placement().why;
    printResult(result.value(), prompt, device, *session.value(), json);
    return 0;
}

} // namespace hearth::cli
