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
#include "chat/stop_strings.h"
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
    case StopReason::Context: return "context";
    }
    return "unknown";
}

Session::Session() = default;
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(const Model& model, const SessionParams& params) {
    if (params.contextLength < 0) return invalidArgument("context length must be >= 0");
    SessionConfig config;
    config.contextLength = params.contextLength;
    HEARTH_ASSIGN(auto state, model.device().createSession(config));
    std::unique_ptr<Session> session(new Session());
    session->m_model = &model;
    session->m_state = std::move(state);
    return session;
}

void Session::markTurnBoundary() { m_state->checkpoint(int32_t(m_cached.size())); }

int32_t Session::contextLength() const { return m_state->contextLength(); }
std::string Session::deviceName() const { return m_model->device().deviceName(); }

MemoryReport Session::memoryReport() const {
    const DeviceModel& device = m_model->device();
    const StateBytes state = m_state->stateBytes();
    MemoryReport r;
    r.device = device.deviceInfo();
    r.weightsBytes = device.weightBytes();
    r.kvCacheBytes = state.kvCache;
    r.recurrentStateBytes = state.recurrentState;
    r.workspaceBytes = state.workspace;
    r.deviceContextBytes = device.deviceContextBytes();
    return r;
}

Status Session::validate(const std::vector<int32_t>& promptIds, const GenerateParams& params) const {
    const int32_t vocab = m_model->loaded().config.vocabSize;
    if (promptIds.empty()) return invalidArgument("the prompt is empty (no tokens)");
    if (params.maxTokens < 0) return invalidArgument("the maximum number of tokens must be >= 0");
    if (int64_t(promptIds.size()) > contextLength())
        return invalidArgument("the prompt has " + std::to_string(promptIds.size()) +
                               " tokens, more than the context of " + std::to_string(contextLength()));
    for (int32_t id : promptIds)
        if (id < 0 || id >= vocab)
            return invalidArgument("prompt token id " + std::to_string(id) + " is outside the vocabulary of " +
                                   std::to_string(vocab));
    return Sampler::validate(samplerParams(params));
}

// The longest common prefix of the cached tokens and the prompt, but never the last prompt
// token: decoding it gives the first sample. A backend with recurrent state may return to an
// earlier snapshot; the tokens after it are processed again.
size_t Session::reusePrefix(const std::vector<int32_t>& promptIds) {
    const auto mismatch = std::mismatch(m_cached.begin(), m_cached.end(), promptIds.begin(), promptIds.end());
    size_t common = std::min<size_t>(mismatch.first - m_cached.begin(), promptIds.size() - 1);
    common = size_t(m_state->rewindTo(int32_t(common)));
    m_cached.resize(common);
    return common;
}

// Every prompt token after the reused prefix but the last.
Status Session::prefill(const std::vector<int32_t>& promptIds, size_t from, const GenerateParams& params,
                        bool& cancelled) {
    const std::span<const int32_t> tokens(promptIds.data() + from, promptIds.size() - 1 - from);
    std::vector<float> logits;
    const LogitsWanted which = params.allLogits ? LogitsWanted::All : LogitsWanted::None;
    auto done = m_state->prefill(tokens, int32_t(from), which, logits, params.cancel);
    if (!done.isOk()) {
        m_cached.clear(); // the state may be half-written: start over next time
        return done.status();
    }
    m_cached.insert(m_cached.end(), tokens.begin(), tokens.begin() + *done);
    if (params.allLogits) params.allLogits->insert(params.allLogits->end(), logits.begin(),
                                                    logits.begin() + int64_t(*done) * m_model->loaded().config.vocabSize);
    cancelled = size_t(*done) < tokens.size();
    return Status::ok();
}

// Runs `token` at the next position and returns the sample from its logits.
Result<int32_t> Session::decode(int32_t token, Sampler& sampler, const GenerateParams& params) {
    std::vector<float> logits;
    auto next = m_state->decode(token, int32_t(m_cached.size()), sampler, params.allLogits ? &logits : nullptr);
    if (!next.isOk()) {
        m_cached.clear();
        return next.status();
    }
    m_cached.push_back(token);
    if (params.allLogits) params.allLogits->insert(params.allLogits->end(), logits.begin(), logits.end());
    return next;
}

Result<GenerateResult> Session::generate(const std::vector<int32_t>& promptIds, const GenerateParams& params) {
    HEARTH_TRY(validate(promptIds, params));
    const LoadedModel& model = m_model->loaded();
    Sampler sampler(samplerParams(params));
    std::vector<int32_t> stopIds = params.stopIds;
    if (params.useModelStopIds)
        stopIds.insert(stopIds.end(), model.endOfGenerationIds.begin(), model.endOfGenerationIds.end());
    auto isStop = [&](int32_t id) { return std::find(stopIds.begin(), stopIds.end(), id) != stopIds.end(); };
    auto cancelled = [&] { return params.cancel && params.cancel->load(std::memory_order_relaxed); };

    GenerateResult result;
    result.promptTokens = int32_t(promptIds.size());
    const size_t common = reusePrefix(promptIds);
    result.reusedTokens = int32_t(common);
    for (int32_t id : promptIds) sampler.accept(id);

    // Prefill, then the last prompt token through decode: its sample is the first reply token.
    const auto prefillStart = Clock::now();
    bool prefillCancelled = false;
    HEARTH_TRY(prefill(promptIds, common, params, prefillCancelled));
    if (prefillCancelled || cancelled()) {
        result.stop = StopReason::Cancel;
        return result;
    }
    HEARTH_ASSIGN(int32_t next, decode(promptIds.back(), sampler, params));
    result.prefillMs = msSince(prefillStart);
    const size_t prefilled = promptIds.size() - common;
    result.prefillTokPerS = result.prefillMs > 0 ? prefilled * 1000.0 / result.prefillMs : -1;

    // Decode: stop, or keep the sample and feed it back.
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
        const int32_t token = next;
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
        if (int32_t(m_cached.size()) >= contextLength()) { // no position left to feed it
            result.stop = StopReason::Context;
            break;
        }
        if (const int delay = testDecodeDelayMs()) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        HEARTH_ASSIGN(next, decode(token, sampler, params));
        ++decodedForwards;
    }
    if (!stops.stopped()) emit(stops.push(detok.flush()) + stops.flush());
    result.text = stops.text();
    result.decodeMs = msSince(decodeStart);
    result.decodeTokPerS = decodedForwards > 0 && result.decodeMs > 0 ? decodedForwards * 1000.0 / result.decodeMs : -1;
    return result;
}

} // namespace hearth
