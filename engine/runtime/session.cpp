// Session: one conversation's state on a backend. A request reuses the longest common prefix of
// what the cache holds, prefills the rest, then decodes until a stop id or string, the limit or
// cancellation.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "backend/backend.h"
#include "hearth/engine.h"
#include "model/model_loader.h"
#include "runtime/stop_strings.h"
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

// Test hook: HEARTH_TEST_DECODE_DELAY_MS slows each decode step so that tests can cancel from
// another thread mid-reply. Read once.
int testDecodeDelayMs() {
    static const int delay = [] {
        const char* v = std::getenv("HEARTH_TEST_DECODE_DELAY_MS");
        return v ? std::max(0, std::atoi(v)) : 0;
    }();
    return delay;
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

void Session::markTurnBoundary() { m_backend->checkpoint(int32_t(m_cached.size())); }

int32_t Session::contextLength() const { return m_backend->contextLength(); }
std::string Session::deviceName() const { return m_backend->deviceName(); }

// Runs one token at the next position and records it as cached.
Status Session::feed(int32_t token, bool wantLogits, std::vector<float>& logits, const GenerateParams& params) {
    const int32_t pos = int32_t(m_cached.size());
    Status s = m_backend->forward(token, pos, wantLogits ? std::span<float>(logits) : std::span<float>());
    if (!s.isOk()) {
        m_cached.clear(); // the cache may be half-written: start over next time
        return s;
    }
    m_cached.push_back(token);
    if (wantLogits && params.allLogits) params.allLogits->insert(params.allLogits->end(), logits.begin(), logits.end());
    return Status::ok();
}

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

    // Reuse the longest common prefix, but always run the last prompt token: its logits are
    // needed and the cache does not keep logits. (Attention KV past the prefix is simply
    // overwritten; recurrent state will need the backend's snapshots here.)
    const auto mismatch = std::mismatch(m_cached.begin(), m_cached.end(), promptIds.begin(), promptIds.end());
    size_t common = std::min<size_t>(mismatch.first - m_cached.begin(), promptIds.size() - 1);
    common = size_t(m_backend->rewindTo(int32_t(common)));
    m_cached.resize(common);
    result.reusedTokens = int32_t(common);
    for (int32_t id : promptIds) sampler.accept(id);

    const auto prefillStart = Clock::now();
    for (size_t i = common; i < promptIds.size(); ++i) {
        if (cancelled()) {
            result.stop = StopReason::Cancel;
            return result;
        }
        const bool wantLogits = params.allLogits || i + 1 == promptIds.size();
        HEARTH_TRY(feed(promptIds[i], wantLogits, logits, params));
    }
    result.prefillMs = msSince(prefillStart);
    const size_t prefilled = promptIds.size() - common;
    result.prefillTokPerS = result.prefillMs > 0 ? prefilled * 1000.0 / result.prefillMs : -1;

    // Decode: sample from the last logits, stop, or feed the token back.
    StreamingDetokenizer detok(*model.tokenizer, promptIds.back());
    StopStringFilter stops(params.stopStrings);
    auto emit = [&](const std::string& text) {
        if (params.onText && !text.empty()) params.onText(text);
    };
    const auto decodeStart = Clock::now();
    int32_t decodedForwards = 0;
    result.stop = StopReason::Length;
    while (int32_t(result.outputIds.size()) < params.maxTokens) {
        if (cancelled()) {
            result.stop = StopReason::Cancel;
            break;
        }
        const int32_t token = sampler.sample(logits);
        if (isStop(token)) {
            result.stop = StopReason::Eos;
            result.stopTokenId = token;
            break;
        }
        result.outputIds.push_back(token);
        sampler.accept(token);
        emit(stops.push(detok.push(token)));
        if (stops.stopped()) {
            result.stop = StopReason::StopString;
            break;
        }
        if (int32_t(result.outputIds.size()) == params.maxTokens) break; // no forward pass needed
        if (int32_t(m_cached.size()) >= contextLength()) break;           // the context is full
        if (const int delay = testDecodeDelayMs()) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        HEARTH_TRY(feed(token, true, logits, params));
        ++decodedForwards;
    }
    if (!stops.stopped()) emit(stops.push(detok.flush()) + stops.flush());
    result.text = stops.text();
    result.decodeMs = msSince(decodeStart);
    result.decodeTokPerS = decodedForwards > 0 && result.decodeMs > 0 ? decodedForwards * 1000.0 / result.decodeMs : -1;
    return result;
}

} // namespace hearth
