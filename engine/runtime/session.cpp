// Session: one conversation's state on a backend; the prefill + decode loop with statistics.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "backend/backend.h"
#include "hearth/engine.h"
#include "model/model_loader.h"
#include "sampling/sampler.h"

namespace hearth {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

SamplerParams samplerParams(const GenerateParams& p) {
    SamplerParams s;
    s.temperature = p.temperature;
    s.topK = p.topK;
    s.topP = p.topP;
    s.minP = p.minP;
    s.repetitionPenalty = p.repetitionPenalty;
    s.seed = p.seed;
    return s;
}

} // namespace

const char* stopReasonName(StopReason reason) {
    switch (reason) {
    case StopReason::Eos: return "eos";
    case StopReason::Length: return "length";
    case StopReason::Cancel: return "cancel";
    case StopReason::StopString: return "stop_string";
    }
    return "unknown";
}

Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(const Model& model, const SessionParams& params) {
    if (params.contextLength < 0) return invalidArgument("context length must be >= 0");
    CpuBackendParams cpu;
    cpu.threads = model.params().threads;
    cpu.contextLength = params.contextLength;
    HEARTH_ASSIGN(auto backend, createCpuBackend(model.loaded(), cpu));
    std::unique_ptr<Session> session(new Session());
    session->m_model = &model;
    session->m_backend = std::move(backend);
    return session;
}

int32_t Session::contextLength() const { return m_backend->contextLength(); }
std::string Session::deviceName() const { return m_backend->deviceName(); }

Result<GenerateResult> Session::generate(const std::vector<int32_t>& promptIds, const GenerateParams& params) {
    const LoadedModel& model = m_model->loaded();
    const int32_t vocab = model.config.vocabSize;
    if (promptIds.empty()) return invalidArgument("the prompt is empty (no tokens)");
    if (params.maxTokens < 0) return invalidArgument("the maximum number of tokens must be >= 0");
    if (int64_t(promptIds.size()) > contextLength())
        return invalidArgument("the prompt has " + std::to_string(promptIds.size()) +
                               " tokens, more than the context of " + std::to_string(contextLength()));
    for (int32_t id : promptIds)
        if (id < 0 || id >= vocab)
            return invalidArgument("prompt token id " + std::to_string(id) + " is outside the vocabulary of " +
                                   std::to_string(vocab));
    const SamplerParams sp = samplerParams(params);
    HEARTH_TRY(Sampler::validate(sp));
    Sampler sampler(sp);

    std::vector<int32_t> stopIds = params.stopIds;
    if (params.useModelStopIds)
        stopIds.insert(stopIds.end(), model.endOfGenerationIds.begin(), model.endOfGenerationIds.end());
    auto isStop = [&](int32_t id) { return std::find(stopIds.begin(), stopIds.end(), id) != stopIds.end(); };
    auto cancelled = [&] { return params.cancel && params.cancel->load(std::memory_order_relaxed); };

    GenerateResult result;
    result.promptTokens = int32_t(promptIds.size());
    std::vector<float> logits(vocab);
    auto keepLogits = [&] {
        if (params.allLogits) params.allLogits->insert(params.allLogits->end(), logits.begin(), logits.end());
    };

    // Prefill: the LM head runs only where its logits are used.
    const auto prefillStart = Clock::now();
    for (size_t i = 0; i < promptIds.size(); ++i) {
        if (cancelled()) {
            result.stop = StopReason::Cancel;
            return result;
        }
        const bool needLogits = params.allLogits || i + 1 == promptIds.size();
        HEARTH_TRY(m_backend->forward(promptIds[i], int32_t(i), needLogits ? std::span<float>(logits) : std::span<float>()));
        if (needLogits) keepLogits();
        sampler.accept(promptIds[i]);
    }
    result.prefillMs = msSince(prefillStart);
    result.prefillTokPerS = result.prefillMs > 0 ? promptIds.size() * 1000.0 / result.prefillMs : -1;

    // Decode: sample from the last logits, stop, or feed the token back.
    StreamingDetokenizer detok(*model.tokenizer, promptIds.back());
    const auto decodeStart = Clock::now();
    int32_t decodedForwards = 0;
    int32_t pos = int32_t(promptIds.size());
    result.stop = StopReason::Length;
    while (int32_t(result.outputIds.size()) < params.maxTokens) {
        if (cancelled()) {
            result.stop = StopReason::Cancel;
            break;
        }
        const int32_t token = sampler.sample(logits);
        if (isStop(token)) {
            result.stop = StopReason::Eos;
            break;
        }
        result.outputIds.push_back(token);
        sampler.accept(token);
        const std::string piece = detok.push(token);
        result.text += piece;
        if (params.onText && !piece.empty()) params.onText(piece);
        if (int32_t(result.outputIds.size()) == params.maxTokens) break; // no forward pass needed
        if (pos >= contextLength()) {
            result.stop = StopReason::Length; // the context is full
            break;
        }
        HEARTH_TRY(m_backend->forward(token, pos++, logits));
        keepLogits();
        ++decodedForwards;
    }
    const std::string tail = detok.flush();
    result.text += tail;
    if (params.onText && !tail.empty()) params.onText(tail);
    result.decodeMs = msSince(decodeStart);
    result.decodeTokPerS = decodedForwards > 0 && result.decodeMs > 0 ? decodedForwards * 1000.0 / result.decodeMs : -1;
    return result;
}

} // namespace hearth
