#include "server/job_runner.h"

#include <algorithm>
#include <exception>
#include <random>

namespace hearth::server {
namespace {

JobEvent failure(ApiError error) {
    JobEvent e;
    e.kind = JobEvent::Kind::Failed;
    e.error = std::move(error);
    return e;
}

JobEvent textEvent(JobEvent::Kind kind, std::string_view text) {
    JobEvent e;
    e.kind = kind;
    e.text = std::string(text);
    return e;
}

JobEvent finished(const GenerateResult& result) {
    JobEvent e;
    e.kind = JobEvent::Kind::Finished;
    e.finish = finishReason(result.stop);
    e.usage = {result.promptTokens, int32_t(result.outputIds.size())};
    return e;
}

// The prompt's size as ChatSession will build it (the same rendering, before anything runs).
Result<int32_t> chatPromptTokens(const Model& model, const ApiRequest& request, const std::string& chatTemplate) {
    Json messages = Json::array();
    for (const ChatMessage& m : request.messages) {
        Json message = {{"role", m.role}, {"content", m.content}};
        if (!m.reasoning.empty()) message["reasoning_content"] = m.reasoning;
        messages.push_back(std::move(message));
    }
    PromptRenderParams params;
    params.messagesJson = jsonText(messages);
    params.enableThinking = request.enableThinking;
    params.chatTemplate = chatTemplate;
    HEARTH_ASSIGN(const RenderedPrompt prompt, renderChatPrompt(model, params));
    return int32_t(prompt.ids.size());
}

// Posts Started, or Failed when the prompt leaves no room for a reply.
bool admit(Job& job, int32_t promptTokens, int32_t contextLength) {
    if (promptTokens >= contextLength) {
        const bool chat = job.request().kind == ApiRequest::Kind::Chat;
        job.post(failure(invalidRequest("the " + std::string(chat ? "messages take " : "prompt takes ") +
                                            std::to_string(promptTokens) + " tokens, but the model's context holds " +
                                            std::to_string(contextLength) + " (the reply needs at least one more)",
                                        chat ? "messages" : "prompt", "context_length_exceeded")));
        return false;
    }
    JobEvent started;
    started.kind = JobEvent::Kind::Started;
    started.usage.promptTokens = promptTokens;
    job.post(std::move(started));
    return true;
}

void runChat(const Model& model, ModelSlot& slot, Job& job) {
    const ApiRequest& request = job.request();
    if (Status s = slot.useChat(model, request.enableThinking); !s.isOk()) return job.post(failure(fromStatus(s)));
    auto tokens = chatPromptTokens(model, request, slot.chatTemplate());
    if (!tokens.isOk()) return job.post(failure(invalidRequest(tokens.status().message(), "messages")));
    if (!admit(job, tokens.value(), slot.contextLength())) return;
    GenerateParams params = generateParams(model, request, tokens.value(), slot.contextLength());
    params.cancel = &job.cancelFlag();
    ChatStream stream;
    stream.onReasoning = [&](std::string_view text, const GenerateStats&) { job.post(textEvent(JobEvent::Kind::Reasoning, text)); };
    stream.onContent = [&](std::string_view text, const GenerateStats&) { job.post(textEvent(JobEvent::Kind::Content, text)); };
    std::vector<StoredMessage> history;
    for (size_t i = 0; i + 1 < request.messages.size(); ++i) history.push_back({request.messages[i], {}});
    auto reply = slot.chat(history, request.messages.back().content, params, stream);
    job.post(reply.isOk() ? finished(reply.value().result) : failure(fromStatus(reply.status())));
}

void runCompletion(const Model& model, ModelSlot& slot, Job& job) {
    const ApiRequest& request = job.request();
    if (Status s = slot.useRaw(model); !s.isOk()) return job.post(failure(fromStatus(s)));
    const std::vector<int32_t> ids = model.encode(request.prompt, true);
    if (ids.empty()) return job.post(failure(invalidRequest("prompt: empty, and this model adds no BOS token", "prompt")));
    if (!admit(job, int32_t(ids.size()), slot.contextLength())) return;
    GenerateParams params = generateParams(model, request, int32_t(ids.size()), slot.contextLength());
    params.cancel = &job.cancelFlag();
    params.onText = [&](std::string_view text, const GenerateStats&) { job.post(textEvent(JobEvent::Kind::Content, text)); };
    auto result = slot.complete(ids, params);
    job.post(result.isOk() ? finished(result.value()) : failure(fromStatus(result.status())));
}

} // namespace

GenerateParams generateParams(const Model& model, const ApiRequest& request, int32_t promptTokens,
                              int32_t contextLength) {
    GenerateParams params;
    SamplingParams& s = params.sampling;
    s = model.info().sampling.over(SamplingParams::chatDefaults());
    const SamplingRequest& r = request.sampling;
    if (r.temperature) s.temperature = *r.temperature;
    if (r.topP) s.topP = *r.topP;
    if (r.minP) s.minP = *r.minP;
    if (r.repetitionPenalty) s.repetitionPenalty = *r.repetitionPenalty;
    if (r.topK) s.topK = *r.topK;
    if (r.seed) {
        s.seed = *r.seed;
    } else { // OpenAI's default: a different sample each time
        std::random_device device;
        s.seed = (uint64_t(device()) << 32) | device();
    }
    params.maxTokens = request.maxTokens.value_or(std::max(contextLength - promptTokens, 1));
    params.stopStrings = request.stop;
    return params;
}

void runJob(const Model& model, ModelSlot& slot, Job& job) {
    try {
        if (job.cancelled()) return job.post(failure({499, "server_error", "the request was cancelled", {}, {}}));
        if (job.request().kind == ApiRequest::Kind::Chat) runChat(model, slot, job);
        else runCompletion(model, slot, job);
    } catch (const std::exception& e) { // nothing a client sends may take the server down
        job.post(failure({500, "server_error", std::string("internal error: ") + e.what(), {}, {}}));
    }
}

} // namespace hearth::server
