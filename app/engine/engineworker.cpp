#include "engineworker.h"

#include <QElapsedTimer>

#include <algorithm>

#include "hearth/devices.h"
#include "replycoalescer.h"
#include "server/model_slot.h"

namespace {

bool hasCuda(const hearth::DeviceReport& devices)
{
    return std::any_of(devices.devices.begin(), devices.devices.end(),
                       [](const hearth::DeviceInfo& d) { return d.kind == hearth::DeviceKind::Cuda; });
}

hearth::DeviceKind resolveDevice(DeviceChoice choice, const hearth::DeviceReport& devices)
{
    switch (choice) {
    case DeviceChoice::Cpu: return hearth::DeviceKind::Cpu;
    case DeviceChoice::Cuda: return hearth::DeviceKind::Cuda; // without one, the load says why
    case DeviceChoice::Auto: break;
    }
    return hasCuda(devices) ? hearth::DeviceKind::Cuda : hearth::DeviceKind::Cpu;
}

std::vector<hearth::StoredMessage> storedHistory(const QList<TurnMessage>& history)
{
    std::vector<hearth::StoredMessage> out;
    out.reserve(size_t(history.size()));
    for (const TurnMessage& m : history)
        out.push_back({{m.role.toStdString(), m.content.toStdString(), m.reasoning.toStdString()},
                       std::vector<int32_t>(m.replyIds.begin(), m.replyIds.end())});
    return out;
}

hearth::ChatOptions chatOptions(const TurnRequest& request)
{
    hearth::ChatOptions options;
    options.systemPrompt = request.systemPrompt.toStdString();
    options.enableThinking = request.thinking;
    options.chatTemplate = request.chatTemplate.toStdString();
    options.overflow = request.dropOldest ? hearth::OverflowPolicy::DropOldest : hearth::OverflowPolicy::Refuse;
    return options;
}

LoadPhase appLoadPhase(hearth::LoadPhase phase)
{
    switch (phase) {
    case hearth::LoadPhase::Reading: return LoadPhase::Reading;
    case hearth::LoadPhase::Converting: return LoadPhase::Converting;
    case hearth::LoadPhase::Uploading: return LoadPhase::Uploading;
    case hearth::LoadPhase::QuantizingOnGpu: return LoadPhase::QuantizingOnGpu;
    }
    return LoadPhase::Reading;
}

} // namespace

EngineWorker::EngineWorker(std::shared_ptr<EngineFlags> flags, QObject* parent)
    : QObject(parent)
    , m_flags(std::move(flags))
{
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::release()
{
    const bool had = bool(m_model);
    m_served.reset();
    m_chat.reset(); // the session refers to the model: it goes first
    m_model.reset();
    if (had)
        emit modelUnloaded();
}

void EngineWorker::unload()
{
    release();
    sendMemoryReport();
}

void EngineWorker::load(quint64 id, const LoadRequest& request)
{
    const std::atomic<bool>* cancel = m_flags->beginLoad(id);
    release();
    const hearth::DeviceReport& devices = hearth::probeDevices();
    hearth::ModelParams params;
    params.path = request.path.toStdString();
    params.device = resolveDevice(request.device, devices);
    params.gpu = request.gpu;
    params.threads = request.threads;
    params.quant = request.quant.toStdString();
    params.allowRequantize = request.allowRequantize;
    params.cancel = cancel;
    double sent = -1;
    hearth::LoadPhase sentPhase = hearth::LoadPhase::Reading;
    params.onProgress = [&](double fraction, hearth::LoadPhase phase) {
        // Progress comes per tensor and per upload chunk: hundreds of steps are not worth a
        // signal each, but a new phase always is.
        if (fraction > 0 && fraction < 1 && fraction - sent < 0.01 && phase == sentPhase)
            return;
        sent = fraction;
        sentPhase = phase;
        emit loadProgress(id, fraction, appLoadPhase(phase));
    };
    m_deviceChoice = request.device;
    m_cpuChosen = params.device == hearth::DeviceKind::Cpu && hasCuda(devices);

    auto loaded = hearth::Model::load(params);
    if (!loaded.isOk()) {
        emit loadFailed(id, toEngineError(loaded.status()));
        sendMemoryReport();
        return;
    }
    m_model = std::move(loaded).value();
    emit loadProgress(id, 1.0, LoadPhase::PreparingContext);
    // The settings' context is the most wanted: a model trained for less gets its own (past it,
    // a model produces noise; hearth-cli refuses without --allow-long-context).
    const hearth::ModelInfo& info = m_model->info();
    const int trained = std::max(info.contextLength, info.ropeScaledContextLength);
    m_sessionParams.contextLength = trained > 0 ? std::min(request.contextLength, trained) : request.contextLength;
    m_sessionParams.kvType = request.kvType;
    hearth::Status status = cancel->load() ? hearth::cancelled(params.path + ": loading was cancelled")
                                           : m_chat.ensure(*m_model, m_sessionParams, chatOptions(TurnRequest{}));
    if (!status.isOk()) {
        m_chat.reset();
        m_model.reset();
        emit loadFailed(id, toEngineError(status));
        sendMemoryReport();
        return;
    }
    emit modelLoaded(id, summarize(request));
    sendMemoryReport();
}

ModelSummary EngineWorker::summarize(const LoadRequest& request) const
{
    ModelSummary s;
    auto facts = describeModelFacts(request.path);
    s.facts = facts.isOk() ? facts.value() : modelFacts(request.path, m_model->info());
    s.request = request;
    s.preset = QString::fromStdString(m_model->params().quant).toUpper();
    s.quant = s.preset.isEmpty() ? s.facts.quant : s.preset;
    const hearth::ChatSession& chat = *m_chat.session();
    s.contextSize = chat.session().contextLength();
    const hearth::MemoryReport memory = chat.session().memoryReport();
    s.device = memory.device.kind;
    s.deviceName = QString::fromStdString(chat.session().deviceName());
    s.hasTemplate = chat.hasTemplate();
    s.modeNote = QString::fromStdString(chat.modeNote());
    return s;
}

hearth::Status EngineWorker::serve(const std::function<void(const hearth::Model&, hearth::server::ModelSlot&)>& work,
                                   const std::string& chatTemplate)
{
    if (!m_model)
        return hearth::failedPrecondition("no model is loaded in Hearth");
    m_chat.reset();
    if (!m_served || m_served->chatTemplate() != chatTemplate)
        m_served = std::make_unique<hearth::server::ModelSlot>(m_sessionParams, chatTemplate);
    work(*m_model, *m_served);
    sendMemoryReport();
    return hearth::Status::ok();
}

void EngineWorker::reportMemoryIfWanted()
{
    if (m_flags->takeMemoryRequest())
        sendMemoryReport();
}

void EngineWorker::sendMemoryReport()
{
    MemorySnapshot s;
    const hearth::DeviceReport& devices = hearth::probeDevices();
    s.cudaBuilt = devices.cudaBuilt;
    s.cudaUnavailable = devices.cudaUnavailable;
    s.cpuChosen = m_cpuChosen;
    const hearth::Session* session = m_chat.session() ? &m_chat.session()->session()
                                                      : (m_served ? m_served->session() : nullptr);
    if (m_model && session) {
        s.loaded = true;
        s.report = session->memoryReport();
    } else if (resolveDevice(m_deviceChoice, devices) == hearth::DeviceKind::Cuda && hasCuda(devices)) {
        s.report.device = *std::find_if(devices.devices.begin(), devices.devices.end(),
                                        [](const hearth::DeviceInfo& d) { return d.kind == hearth::DeviceKind::Cuda; });
    } else {
        s.report.device = hearth::probeCpuNow();
    }
    emit memoryReport(s);
}

ReplyStats EngineWorker::liveStats(const hearth::GenerateStats& g, double elapsedMs) const
{
    ReplyStats s;
    s.tokens = g.tokens;
    s.elapsedMs = elapsedMs;
    s.ttftMs = g.ttftMs;
    s.prefillTokPerS = g.prefillTokPerS;
    s.decodeTokPerS = g.decodeTokPerS;
    // Called from inside the reply: the session's prompt is already set for this request.
    const hearth::ChatSession* chat = m_chat.session();
    s.promptTokens = chat ? int(chat->lastPromptIds().size()) : 0;
    s.contextSize = chat ? chat->session().contextLength() : 0;
    // The newest token enters the context with the next step, as ChatReply::contextUsed counts.
    s.contextUsed = std::min(s.promptTokens + std::max(s.tokens - 1, 0), s.contextSize);
    return s;
}

void EngineWorker::runTurn(quint64 id, const TurnRequest& request)
{
    const std::atomic<bool>* stop = m_flags->beginTurn(id);
    QElapsedTimer clock;
    clock.start();
    ReplyCoalescer out([this, id](const QString& content, const QString& reasoning, const ReplyStats& stats) {
        emit replyPieces(id, content, reasoning, stats);
    });
    if (!m_model) {
        emit replyFailed(id, {{}, {}, {}, {hearth::StatusCode::FailedPrecondition, tr("No model is loaded.")}});
        return;
    }
    hearth::GenerateParams generate;
    generate.maxTokens = std::max(0, request.maxTokens);
    generate.sampling = request.sampling;
    generate.cancel = stop;
    for (const QString& text : request.stop)
        generate.stopStrings.push_back(text.toStdString());
    auto piece = [&](bool thinking) {
        return [&, thinking](std::string_view text, const hearth::GenerateStats& stats) {
            const ReplyStats live = liveStats(stats, double(clock.nsecsElapsed()) / 1e6);
            thinking ? out.addReasoning(text, live) : out.addContent(text, live);
            if (m_flags->takeMemoryRequest()) // the meter keeps moving during a long reply
                sendMemoryReport();
        };
    };
    const hearth::ChatStream stream{piece(false), piece(true)};
    bool restored = false;
    m_served.reset(); // the API server's session gives way: one KV cache at a time
    auto reply = m_chat.reply(*m_model, m_sessionParams, chatOptions(request), storedHistory(request.history),
                              request.userText.toStdString(), generate, stream, restored);
    out.flush();
    if (!reply.isOk()) {
        ReplyStats stats = out.lastStats();
        stats.elapsedMs = double(clock.nsecsElapsed()) / 1e6;
        emit replyFailed(id, {QString::fromStdString(out.content()), QString::fromStdString(out.reasoning()), stats,
                              toEngineError(reply.status())});
        return;
    }
    const hearth::GenerateResult& g = reply->result;
    ReplyResult r;
    r.content = QString::fromStdString(reply->message.content);
    r.reasoning = QString::fromStdString(reply->message.reasoning);
    r.stopReason = QString::fromLatin1(hearth::stopReasonName(g.stop));
    r.stats.tokens = int(g.outputIds.size());
    r.stats.elapsedMs = double(clock.nsecsElapsed()) / 1e6;
    r.stats.ttftMs = r.stats.tokens > 0 ? g.ttftMs : -1;
    r.stats.prefillTokPerS = g.prefillTokPerS;
    r.stats.decodeTokPerS = g.decodeTokPerS;
    r.stats.promptTokens = g.promptTokens;
    r.stats.contextUsed = reply->contextUsed;
    r.stats.contextSize = m_chat.session()->session().contextLength();
    r.reusedTokens = g.reusedTokens;
    r.droppedMessages = reply->droppedMessages;
    r.restored = restored;
    r.replyIds = QList<qint32>(g.outputIds.begin(), g.outputIds.end());
    emit replyFinished(id, r);
}
