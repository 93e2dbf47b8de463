// Session: one conversation's state on a backend. A request reuses the longest common prefix of
// what the cache holds, prefills the rest, then decodes until a stop id or string, the limit or
// cancellation.
#include <algorithm>
#include <chrono>
#include <thread>

#include "backend/backend.h"
#include "hearth/session.h"
#include "model/model_loader.h"
#include "runtime/model_info.h"
#include "runtime/model_internal.h"
#include "runtime/session_testing.h"
#include "chat/stop_strings.h"
#include "sampling/sampler.h"

namespace hearth {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Test seam (SessionTesting::setDecodeDelayMs): slows each decode step so that tests can cancel
// from another thread mid-reply.
std::atomic<int> g_testDecodeDelayMs{0};

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

struct Session::Impl {
    const Model* model = nullptr;
    std::unique_ptr<BackendSession> state;
    KvType kvType = KvType::F16;
    std::vector<int32_t> cached;

    Status validateIds(const std::vector<int32_t>& ids) const;
    Status validate(const std::vector<int32_t>& promptIds, const GenerateParams& params) const;
    size_t reusePrefix(const std::vector<int32_t>& promptIds);
    Status prefill(const std::vector<int32_t>& promptIds, size_t from, size_t until, const GenerateParams& params,
                   std::vector<float>* allLogits, bool& cancelled);
    Status prefillWithCheckpoints(const std::vector<int32_t>& promptIds, size_t from, const GenerateParams& params,
                                  std::vector<float>* allLogits, bool& cancelled);
    Result<int32_t> decode(int32_t token, Sampler& sampler, std::vector<float>* allLogits);
    Result<GenerateResult> generate(const std::vector<int32_t>& promptIds, const GenerateParams& params,
                                    std::vector<float>* allLogits);
};

Session::Session() : m_impl(std::make_unique<Impl>()) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(const Model& model, const SessionParams& params) {
    if (params.contextLength < 0) return invalidArgument("context length must be >= 0");
    SessionConfig config;
    config.contextLength =
        params.contextLength > 0 ? params.contextLength : ModelAccess::defaultContextLength(model, params.kvType);
    config.kvType = toCacheType(params.kvType);
    HEARTH_TRY(ModelAccess::checkSessionBudget(model, config.contextLength, params.kvType));
    HEARTH_ASSIGN(auto state, deviceModel(model).createSession(config));
    std::unique_ptr<Session> session(new Session());
    session->m_impl->model = &model;
    session->m_impl->state = std::move(state);
    session->m_impl->kvType = params.kvType;
    return session;
}

void Session::markTurnBoundary() { m_impl->state->checkpoint(int32_t(m_impl->cached.size())); }
const std::vector<int32_t>& Session::cachedTokens() const { return m_impl->cached; }
void Session::reset() { m_impl->cached.clear(); }

int32_t Session::contextLength() const { return m_impl->state->contextLength(); }
std::string Session::deviceName() const { return deviceModel(*m_impl->model).deviceName(); }

MemoryReport Session::memoryReport() const {
    const DeviceModel& device = deviceModel(*m_impl->model);
    const StateBytes state = m_impl->state->stateBytes();
    MemoryReport r;
    r.device = device.deviceInfo();
    r.weightsBytes = device.weightBytes();
    r.kvCacheBytes = state.kvCache;
    r.recurrentStateBytes = state.recurrentState;
    r.workspaceBytes = state.workspace;
    r.deviceContextBytes = device.deviceContextBytes();
    return r;
}

DecodeBytes Session::decodeBytes() const {
    const LoadedModel& loaded = loadedModel(*m_impl->model);
    return decodeBytesOf(loaded.config, loaded.weights, m_impl->kvType);
}

Status Session::Impl::validateIds(const std::vector<int32_t>& ids) const {
    const int32_t vocab = loadedModel(*model).config.vocabSize;
    const int32_t contextLength = state->contextLength();
    if (ids.empty()) return invalidArgument("the prompt is empty (no tokens)");
    if (int64_t(ids.size()) > contextLength)
        return invalidArgument("the prompt has " + std::to_string(ids.size()) + " tokens, more than the context of " +
                               std::to_string(contextLength));
    for (int32_t id : ids)
        if (id < 0 || id >= vocab)
            return invalidArgument("prompt token id " + std::to_string(id) + " is outside the vocabulary of " +
                                   std::to_string(vocab));
    return Status::ok();
}

Status Session::Impl::validate(const std::vector<int32_t>& promptIds, const GenerateParams& params) const {
    if (params.maxTokens < 0) return invalidArgument("the maximum number of tokens must be >= 0");
    HEARTH_TRY(validateIds(promptIds));
    return Sampler::validate(params.sampling);
}

// The longest common prefix of the cached tokens and the prompt, but never the last prompt
// token: decoding it gives the first sample. A backend with recurrent state may return to an
// earlier snapshot; the tokens after it are processed again.
size_t Session::Impl::reusePrefix(const std::vector<int32_t>& promptIds) {
    const auto mismatch = std::mismatch(cached.begin(), cached.end(), promptIds.begin(), promptIds.end());
    size_t common = std::min<size_t>(mismatch.first - cached.begin(), promptIds.size() - 1);
    common = size_t(state->rewindTo(int32_t(common)));
    cached.resize(common);
    return common;
}

// The prompt tokens [from, until).
Status Session::Impl::prefill(const std::vector<int32_t>& promptIds, size_t from, size_t until,
                              const GenerateParams& params, std::vector<float>* allLogits, bool& cancelled) {
    const std::span<const int32_t> tokens(promptIds.data() + from, until - from);
    std::vector<float> logits;
    const LogitsWanted which = allLogits ? LogitsWanted::All : LogitsWanted::None;
    auto done = state->prefill(tokens, int32_t(from), which, logits, params.cancel);
    if (!done.isOk()) {
        cached.clear(); // the state may be half-written: start over next time
        return done.status();
    }
    cached.insert(cached.end(), tokens.begin(), tokens.begin() + *done);
    if (allLogits) allLogits->insert(allLogits->end(), logits.begin(),
                                     logits.begin() + int64_t(*done) * loadedModel(*model).config.vocabSize);
    cancelled = size_t(*done) < tokens.size();
    return Status::ok();
}

// Every prompt token after the reused prefix but the last, keeping the state where a later
// prompt may resume: at params.checkpointAt and before the last token (regenerate).
Status Session::Impl::prefillWithCheckpoints(const std::vector<int32_t>& promptIds, size_t from,
                                             const GenerateParams& params, std::vector<float>* allLogits,
                                             bool& cancelled) {
    const size_t end = promptIds.size() - 1;
    const size_t mark = params.checkpointAt > 0 ? size_t(params.checkpointAt) : 0;
    if (mark > from && mark < end) {
        HEARTH_TRY(prefill(promptIds, from, mark, params, allLogits, cancelled));
        if (cancelled) return Status::ok();
        state->checkpoint(int32_t(mark));
        from = mark;
    }
    HEARTH_TRY(prefill(promptIds, from, end, params, allLogits, cancelled));
    if (!cancelled) state->checkpoint(int32_t(end));
    return Status::ok();
}

// Runs `token` at the next position and returns the sample from its logits.
Result<int32_t> Session::Impl::decode(int32_t token, Sampler& sampler, std::vector<float>* allLogits) {
    std::vector<float> logits;
    auto next = state->decode(token, int32_t(cached.size()), sampler, allLogits ? &logits : nullptr);
    if (!next.isOk()) {
        cached.clear();
        return next.status();
    }
    cached.push_back(token);
    if (allLogits) allLogits->insert(allLogits->end(), logits.begin(), logits.end());
    return next;
}

Result<GenerateResult> Session::generate(const std::vector<int32_t>& promptIds, const GenerateParams& params) {
    return m_impl->generate(promptIds, params, nullptr);
}

Result<std::vector<float>> Session::evaluate(const std::vector<int32_t>& idsIn) {
    const std::vector<int32_t> ids = idsIn; // may be cachedTokens(), which this call rewrites
    Impl& d = *m_impl;
    d.cached.clear(); // every row is wanted: nothing is reused, and on an error nothing is kept
    HEARTH_TRY(d.validateIds(ids));
    d.state->rewindTo(0);
    std::vector<float> logits;
    HEARTH_ASSIGN(const int32_t done, d.state->prefill(ids, 0, LogitsWanted::All, logits, nullptr));
    d.cached.assign(ids.begin(), ids.begin() + done);
    return logits;
}

Result<GenerateResult> SessionTesting::generateWithLogits(Session& session, const std::vector<int32_t>& promptIds,
                                                          const GenerateParams& params, std::vector<float>& allLogits) {
    return session.m_impl->generate(promptIds, params, &allLogits);
}

void SessionTesting::setDecodeDelayMs(int ms) { g_testDecodeDelayMs.store(std::max(0, ms)); }

void setTestDecodeDelayMs(int ms) { SessionTesting::setDecodeDelayMs(ms); }

Result<GenerateResult> Session::Impl::generate(const std::vector<int32_t>& promptIds, const GenerateParams& params,
                                               std::vector<float>* allLogits) {
    const auto callStart = Clock::now();
    HEARTH_TRY(validate(promptIds, params));
    const LoadedModel& loaded = loadedModel(*model);
    const int32_t contextLength = state->contextLength();
    Sampler sampler(params.sampling);
    std::vector<int32_t> stopIds = params.stopIds;
    if (params.useModelStopIds)
        stopIds.insert(stopIds.end(), loaded.endOfGenerationIds.begin(), loaded.endOfGenerationIds.end());
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
    HEARTH_TRY(prefillWithCheckpoints(promptIds, common, params, allLogits, prefillCancelled));
    if (prefillCancelled || cancelled()) {
        result.stop = StopReason::Cancel;
        return result;
    }
    HEARTH_ASSIGN(int32_t next, decode(promptIds.back(), sampler, allLogits));
    result.prefillMs = msSince(prefillStart);
    result.ttftMs = msSince(callStart);
    const size_t prefilled = promptIds.size() - common;
    result.prefillTokPerS = result.prefillMs > 0 ? prefilled * 1000.0 / result.prefillMs : -1;

    // Decode: stop, or keep the sample and feed it back.
    StreamingDetokenizer detok(*loaded.tokenizer, promptIds.back());
    StopStringFilter stops(params.stopStrings);
    const auto decodeStart = Clock::now();
    int32_t decodedForwards = 0;
    auto emit = [&](const std::string& text) {
        if (!params.onText || text.empty()) return;
        GenerateStats stats;
        stats.tokens = int32_t(result.outputIds.size());
        stats.ttftMs = result.ttftMs;
        stats.prefillTokPerS = result.prefillTokPerS;
        const double ms = msSince(decodeStart);
        stats.decodeTokPerS = decodedForwards > 0 && ms > 0 ? decodedForwards * 1000.0 / ms : -1;
        params.onText(text, stats);
    };
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
        if (int32_t(cached.size()) >= contextLength) { // no position left to feed it
            result.stop = StopReason::Context;
            break;
        }
        if (const int delay = g_testDecodeDelayMs.load(std::memory_order_relaxed))
            std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        HEARTH_ASSIGN(next, decode(token, sampler, allLogits));
        ++decodedForwards;
    }
    if (!stops.stopped()) emit(stops.push(detok.flush()) + stops.flush());
    result.text = stops.text();
    result.decodeMs = msSince(decodeStart);
    result.decodeTokPerS = decodedForwards > 0 && result.decodeMs > 0 ? decodedForwards * 1000.0 / result.decodeMs : -1;
    return result;
}

} // namespace hearth
