#include "serialworker.h"

SerialWorker::SerialWorker(QObject* owner, std::function<void()> onBusyChanged)
    : m_owner(owner)
    , m_onBusyChanged(std::move(onBusyChanged))
{
    m_pool.setMaxThreadCount(1); // one at a time: the cores are the engine's
}

SerialWorker::~SerialWorker()
{
    m_pool.clear();
    m_pool.waitForDone();
}

void SerialWorker::submit(std::function<void()> work, std::function<void()> done)
{
    if (m_pending++ == 0)
        m_onBusyChanged();
    m_pool.start([this, work = std::move(work), done = std::move(done)] {
        work();
        // Back on the owner's thread; the owner outlives this worker, which waits for the pool.
        QMetaObject::invokeMethod(
            m_owner,
            [this, done] {
                done();
                if (--m_pending == 0)
                    m_onBusyChanged();
            },
            Qt::QueuedConnection);
    });
}
