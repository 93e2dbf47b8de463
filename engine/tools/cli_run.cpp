// hearth-cli run: load a model, encode the prompt, generate, report text, ids and speed.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "hearth/engine.h"
#include "io/atomic_file.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

// NumPy .npy v1.0, float32 little-endian, C order; written atomically (FILE.part, renamed).
Status writeNpy(const std::string& path, const std::vector<float>& data, size_t rows, size_t cols) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                         std::to_string(cols) + "), }";
    const size_t unpadded = 10 + header.size() + 1; // magic+version+len, dict, newline
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    const uint16_t headerLen = uint16_t(header.size());
    HEARTH_ASSIGN(io::AtomicFile file, io::AtomicFile::create(path));
    HEARTH_TRY(file.append("\x93NUMPY\x01\x00", 8));
    HEARTH_TRY(file.append(&headerLen, 2));
    HEARTH_TRY(file.append(header.data(), header.size()));
    HEARTH_TRY(file.append(data.data(), data.size() * sizeof(float)));
    return file.commit();
}

nlohmann::json rateOrNull(double rate) { return rate < 0 ? nlohmann::json(nullptr) : nlohmann::json(rate); }

} // namespace

int runCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv,
                              {"-m", "-p", "--prompt-ids", "-n", "--temp", "--top-k", "--top-p", "--min-p",
                               "--repeat-penalty", "--seed", "--threads", "--device", "--stop-ids", "--logits-out",
                               "--ctx", "--quant"},
                              {"--json", "--allow-requantize"},
                              {{"--model", "-m"}, {"--prompt", "-p"}, {"--n-predict", "-n"}, {"--temperature", "--temp"},
                               {"--type", "--quant"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("run needs -m MODEL");
    if (args.has("-p") == args.has("--prompt-ids")) return usageError("run needs exactly one of -p PROMPT or --prompt-ids IDS");

    GenerateParams gen;
    ModelParams modelParams;
    SessionParams sessionParams;
    {
        auto n = args.integer("-n", 128, 0, 1 << 30);
        if (!n.isOk()) return usageError(n.status().message() + " (-n must be >= 0)");
        gen.maxTokens = int32_t(n.value());
        if (Status s = readSamplingOptions(args, gen); !s.isOk()) return usageError(s.message());
        auto threads = args.integer("--threads", 0, 0, 1024);
        auto ctx = args.integer("--ctx", 0, 0, 1 << 24);
        for (const Status* s : {&threads.status(), &ctx.status()})
            if (!s->isOk()) return usageError(s->message());
        modelParams.threads = int32_t(threads.value());
        sessionParams.contextLength = int32_t(ctx.value());
    }
    const std::string device = args.value("--device").value_or("cpu");
    if (device == "cuda") modelParams.device = DeviceKind::Cuda;
    else if (device != "cpu") return usageError("option --device: unknown device '" + device + "' (cpu or cuda)");
    if (auto stop = args.value("--stop-ids")) {
        auto ids = Args::parseIds(*stop, "--stop-ids");
        if (!ids.isOk()) return usageError(ids.status().message());
        gen.stopIds = ids.value();
    }

    modelParams.path = *args.value("-m");
    modelParams.quant = args.value("--quant").value_or("");
    modelParams.allowRequantize = args.has("--allow-requantize");
    if (modelParams.allowRequantize)
        std::fprintf(stderr, "hearth-cli: warning: --allow-requantize: re-quantizing an already-quantized model "
                             "loses quality\n");
    auto model = Model::load(modelParams);
    if (!model.isOk()) return fail(model.status());
    std::vector<int32_t> prompt;
    if (auto ids = args.value("--prompt-ids")) {
        auto parsedIds = Args::parseIds(*ids, "--prompt-ids");
        if (!parsedIds.isOk()) return usageError(parsedIds.status().message());
        prompt = parsedIds.value();
    } else {
        prompt = model.value()->encode(*args.value("-p"), /*addBos=*/true);
    }
    if (prompt.empty()) return fail(invalidArgument("the prompt encodes to no tokens (the model adds no BOS)"));

    auto session = Session::create(*model.value(), sessionParams);
    if (!session.isOk()) return fail(session.status());
    std::vector<float> logits;
    if (args.has("--logits-out")) gen.allLogits = &logits;
    const bool json = args.has("--json");
    if (!json) {
        gen.onText = [](std::string_view piece) {
            std::fwrite(piece.data(), 1, piece.size(), stdout);
            std::fflush(stdout);
        };
    }
    auto result = session.value()->generate(prompt, gen);
    if (!result.isOk()) return fail(result.status());
    const GenerateResult& r = result.value();

    if (auto path = args.value("--logits-out")) {
        const size_t vocab = size_t(model.value()->info().vocabSize);
        if (Status s = writeNpy(*path, logits, logits.size() / vocab, vocab); !s.isOk()) return fail(s);
    }
    if (json) {
        nlohmann::json out = {
            {"prompt_ids", prompt},       {"output_ids", r.outputIds},
            {"text", r.text},             {"stop", stopReasonName(r.stop)},
            {"n_prompt", r.promptTokens}, {"device", session.value()->deviceName()},
            {"prefill_tok_s", rateOrNull(r.prefillTokPerS)}, {"decode_tok_s", rateOrNull(r.decodeTokPerS)},
        };
        std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
        std::printf("\n");
        std::fprintf(stderr, "[%s] prompt %d tokens, %.1f tok/s; generated %zu tokens, %.1f tok/s; stop: %s\n",
                     session.value()->deviceName().c_str(), r.promptTokens, r.prefillTokPerS, r.outputIds.size(),
                     r.decodeTokPerS, stopReasonName(r.stop));
    }
    return 0;
}

} // namespace hearth::cli
