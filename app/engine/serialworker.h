#pragma once

#include <QObject>
#include <QThreadPool>

#include <functional>

// Background work for a QObject, one job at a time: `work` on a worker thread, then `done` on the
// owner's thread, with a count of what is in flight so the owner can say it is busy. Make it the
// owner's last member: it is destroyed first, dropping queued jobs and waiting for the running one
// before anything a job touches goes away. (LocalModels' header reads, ModelLibrary's estimates.)
class SerialWorker
{
public:
    // `onBusyChanged` runs on the owner's thread whenever busy() flips.
    SerialWorker(QObject* owner, std::function<void()> onBusyChanged);
    ~SerialWorker();
    SerialWorker(const SerialWorker&) = delete;
    SerialWorker& operator=(const SerialWorker&) = delete;

    void submit(std::function<void()> work, std::function<void()> done);
    bool busy() const { return m_pending > 0; }

private:
    QObject* m_owner;
    std::function<void()> m_onBusyChanged;
    int m_pending = 0;
    QThreadPool m_pool;
};
