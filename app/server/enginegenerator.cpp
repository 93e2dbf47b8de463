#include "enginegenerator.h"

#include <QMetaObject>

#include <ctime>

#include "engineworker.h"

// Waiting: posted, not started; Running: the engine thread runs the work; Done: it returned;
// Dropped: it never will (interrupted, or the engine thread went away without running it).
struct EngineGenerator::Call {
    enum class State { Waiting, Running, Done, Dropped };
    std::mutex mutex;
    std::condition_variable changed;
    State state = State::Waiting;
    hearth::Status status;

    void drop()
    {
        std::lock_guard lock(mutex);
        if (state == State::Waiting)
            state = State::Dropped;
        changed.notify_all();
    }
};

EngineGenerator::EngineGenerator(EngineWorker* worker)
    : m_worker(worker)
{
}

void EngineGenerator::setModel(const QString& path)
{
    std::lock_guard lock(m_mutex);
    if (path.isEmpty())
        m_served.reset();
    else
        m_served = hearth::server::ServedModel{hearth::server::modelIdFromPath(path.toStdString()),
                                               int64_t(std::time(nullptr))};
}

void EngineGenerator::setChatTemplate(const QString& chatTemplate)
{
    std::lock_guard lock(m_mutex);
    m_chatTemplate = chatTemplate.toStdString();
}

std::optional<hearth::server::ServedModel> EngineGenerator::servedModel() const
{
    std::lock_guard lock(m_mutex);
    return m_served;
}

hearth::Status EngineGenerator::withModel(const std::function<void(const hearth::Model&, hearth::server::ModelSlot&)>& work)
{
    auto call = std::make_shared<Call>();
    std::string chatTemplate;
    {
        std::lock_guard lock(m_mutex);
        m_pending = call;
        chatTemplate = m_chatTemplate;
    }
    // Destroyed with the posted function, run or not: a call the engine thread never runs is
    // dropped rather than waited for.
    std::shared_ptr<void> unrun(nullptr, [call](void*) { call->drop(); });
    EngineWorker* worker = m_worker;
    const bool posted = worker && QMetaObject::invokeMethod(
        worker,
        [call, unrun, worker, &work, chatTemplate] {
            {
                std::lock_guard lock(call->mutex);
                if (call->state != Call::State::Waiting)
                    return; // dropped: `work` is gone with its caller
                call->state = Call::State::Running;
            }
            const hearth::Status status = worker->serve(work, chatTemplate);
            std::lock_guard lock(call->mutex);
            call->status = status;
            call->state = Call::State::Done;
            call->changed.notify_all();
        },
        Qt::QueuedConnection);
    unrun.reset();
    if (!posted)
        call->drop();
    std::unique_lock lock(call->mutex);
    call->changed.wait(lock, [&] { return call->state == Call::State::Done || call->state == Call::State::Dropped; });
    {
        std::lock_guard pending(m_mutex);
        if (m_pending == call)
            m_pending.reset();
    }
    if (call->state == Call::State::Dropped)
        return hearth::cancelled("Hearth's engine is shutting down or the server is stopping");
    return call->status;
}

std::shared_ptr<EngineGenerator::Call> EngineGenerator::pendingCall() const
{
    std::lock_guard lock(m_mutex);
    return m_pending;
}

void EngineGenerator::stopRunning(const std::function<void()>& cancel)
{
    const std::shared_ptr<Call> call = pendingCall();
    if (!call)
        return;
    // Held while `cancel` runs: the engine thread cannot mark the call Done meanwhile, so the
    // server has not moved on to its next request.
    std::lock_guard lock(call->mutex);
    if (call->state == Call::State::Running)
        cancel();
}

void EngineGenerator::interrupt()
{
    if (const std::shared_ptr<Call> call = pendingCall())
        call->drop(); // a running call finishes: its job is cancelled by then
}
