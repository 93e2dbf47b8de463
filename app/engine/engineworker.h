// The engine's only user in the app: owns the loaded Model and its ChatSession and lives on the
// engine thread (EngineHost starts it there and is the way in). Every slot runs on that thread,
// reached by queued calls; results go back by queued signals carrying the request's id. A reply
// streams its text coalesced to ~16 ms. Stop and cancel arrive through EngineFlags, which the
// engine checks between tokens and tensors, not through the queue.
#pragma once

#include <QObject>

#include <functional>
#include <memory>

#include "chatstate.h"
#include "engineflags.h"
#include "enginetypes.h"
#include "hearth/model.h"

namespace hearth::server {
class ModelSlot;
}

class EngineWorker : public QObject
{
    Q_OBJECT

public:
    explicit EngineWorker(std::shared_ptr<EngineFlags> flags, QObject* parent = nullptr);
    ~EngineWorker() override;

public slots:
    // Releases the model in place (so that both never need to fit), then loads the new one.
    void load(quint64 id, const LoadRequest& request);
    void unload();
    void runTurn(quint64 id, const TurnRequest& request);
    // Sends a MemorySnapshot when one was asked for (EngineFlags::requestMemoryReport).
    void reportMemoryIfWanted();

public:
    // Engine thread (a queued call from app/server/): runs one request of the API server with the
    // loaded model and the server's session slot, made with `chatTemplate` (empty: the model's).
    // The chat's own session is freed first, so that one KV cache is held at a time (the chat's
    // next turn rebuilds it from its history). FailedPrecondition when no model is loaded.
    hearth::Status serve(const std::function<void(const hearth::Model&, hearth::server::ModelSlot&)>& work,
                         const std::string& chatTemplate);

signals:
    void loadProgress(quint64 id, double fraction, LoadPhase phase);
    void modelLoaded(quint64 id, const ModelSummary& model);
    void loadFailed(quint64 id, const EngineError& error); // error.cancelled() after a cancel
    void modelUnloaded();
    // New text since the last piece (either may be empty) and the statistics so far.
    void replyPieces(quint64 id, const QString& content, const QString& reasoning, const ReplyStats& stats);
    void replyFinished(quint64 id, const ReplyResult& result); // stopped replies too (stopReason "cancel")
    void replyFailed(quint64 id, const ReplyFailure& failure);
    void memoryReport(const MemorySnapshot& snapshot);

private:
    void release();
    void sendMemoryReport();
    ModelSummary summarize(const LoadRequest& request) const;
    ReplyStats liveStats(const hearth::GenerateStats& stats, double elapsedMs) const;

    std::shared_ptr<EngineFlags> m_flags;
    std::unique_ptr<hearth::Model> m_model;
    hearth::SessionParams m_sessionParams;
    ChatState m_chat;
    std::unique_ptr<hearth::server::ModelSlot> m_served; // the API server's session, while it has one
    DeviceChoice m_deviceChoice = DeviceChoice::Auto; // of the last load
    bool m_cpuChosen = false;
};
