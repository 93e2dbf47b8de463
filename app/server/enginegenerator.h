// The API server's way to the app's engine: the model the engine worker has loaded is the one
// served, and each request runs on the engine thread as a queued call (EngineWorker::serve),
// after or between the chat's own replies — one at a time, as the engine runs everything.
// servedModel() follows the engine's loads (setModel, from the GUI thread). Threads: any.
#pragma once

#include <QString>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "server/generator.h"

class EngineWorker;

class EngineGenerator : public hearth::server::Generator
{
public:
    // `worker` lives on the engine thread (null: no engine, nothing is served). The server that
    // uses this generator is stopped before the worker goes (LocalServer is made after the chat
    // and destroyed before it); a call posted to a worker that never runs it returns Cancelled.
    explicit EngineGenerator(EngineWorker* worker);

    // GUI thread: the model now loaded (its file or folder; empty: none).
    void setModel(const QString& path);
    // GUI thread: the chat template the server's requests use (empty: the model's).
    void setChatTemplate(const QString& chatTemplate);

    std::optional<hearth::server::ServedModel> servedModel() const override;
    hearth::Status withModel(const std::function<void(const hearth::Model&, hearth::server::ModelSlot&)>& work) override;
    void interrupt() override;
    // GUI thread: calls `cancel` if a request runs on the engine thread now, while it still runs
    // (so what `cancel` reaches is that request's job); a request still waiting for the engine
    // is left alone. The app's Stop stops what the engine generates, not what waits for it.
    void stopRunning(const std::function<void()>& cancel);

private:
    struct Call; // one withModel call on its way to the engine thread
    std::shared_ptr<Call> pendingCall() const; // the latest withModel call, if it has not returned

    EngineWorker* const m_worker;
    mutable std::mutex m_mutex;
    std::optional<hearth::server::ServedModel> m_served;
    std::string m_chatTemplate;
    std::shared_ptr<Call> m_pending;
};
