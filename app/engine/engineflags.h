// What the GUI thread tells a busy engine worker directly instead of through its queue, where a
// request would wait behind the reply or load in progress: stop the reply, cancel the load, make
// a memory report. Shared by EngineHost (GUI thread) and EngineWorker (engine thread).
#pragma once

#include <QtGlobal>

#include <atomic>

class EngineFlags
{
public:
    // GUI thread: stops the reply `id` and every earlier one, including those still queued.
    void stopTurnsUpTo(quint64 id) { stopUpTo(m_turnsUpTo, m_turnStop, id); }
    // Worker: at the start of reply `id`; the flag the engine checks before every token.
    const std::atomic<bool>* beginTurn(quint64 id) { return begin(m_turnsUpTo, m_turnStop, id); }

    void cancelLoadsUpTo(quint64 id) { stopUpTo(m_loadsUpTo, m_loadStop, id); }
    const std::atomic<bool>* beginLoad(quint64 id) { return begin(m_loadsUpTo, m_loadStop, id); }

    // GUI thread: asks for a memory report; true when none was pending (then post one request).
    bool requestMemoryReport() { return !m_memoryWanted.exchange(true); }
    // Worker: whether a report is wanted now (answered by the caller, so the request is cleared).
    bool takeMemoryRequest() { return m_memoryWanted.exchange(false); }

private:
    static void stopUpTo(std::atomic<quint64>& upTo, std::atomic<bool>& flag, quint64 id)
    {
        if (id > upTo.load())
            upTo.store(id); // the GUI thread is the only writer
        flag.store(true);
    }
    // Cleared first, then set again if a stop for this id came in: a stop that races with the
    // start is never lost (it either is seen here or stores true after the clear).
    static const std::atomic<bool>* begin(std::atomic<quint64>& upTo, std::atomic<bool>& flag, quint64 id)
    {
        flag.store(false);
        if (id <= upTo.load())
            flag.store(true);
        return &flag;
    }

    std::atomic<quint64> m_turnsUpTo{0}, m_loadsUpTo{0};
    std::atomic<bool> m_turnStop{false}, m_loadStop{false};
    std::atomic<bool> m_memoryWanted{false};
};
