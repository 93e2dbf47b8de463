#include "downloadqueue.h"

#include <QDir>
#include <QFileInfo>

#include "downloadsafety.h"
#include "downloadtext.h"
#include "filesink.h"
#include "hfendpoint.h"

namespace {

std::string text(const QString& s)
{
    return s.toStdString();
}

} // namespace

DownloadQueue::DownloadQueue(QObject* parent)
    : QObject(parent)
{
    m_context.network = &m_network;
    m_context.store = &m_store;
    m_context.files = &FileLayer::system();
    m_context.endpoint = chooseHfEndpoint({});
    // A child too, so that moveToThread() takes it along (destroyed as a member first).
    m_network.setParent(this);
    // Nothing is cached: a download is written once, to its own file.
    m_network.setCache(nullptr);
}

DownloadQueue::~DownloadQueue()
{
    shutdown();
}

void DownloadQueue::setOptions(const DownloadOptions& options)
{
    m_context.options = options;
    m_context.options.parallel = std::max(1, options.parallel);
    schedule();
}

hearth::Status DownloadQueue::open(const QString& databasePath)
{
    if (hearth::Status s = m_store.open(databasePath); !s.isOk())
        return s;
    HEARTH_ASSIGN(QList<DownloadRecord> records, m_store.list());
    for (DownloadRecord& r : records) {
        if (find(r.id))
            continue;
        // What was under way when the app stopped (or was killed) goes on by itself.
        if (r.state == DownloadState::Running || r.state == DownloadState::Verifying)
            r.state = DownloadState::Queued;
        QString why;
        bool safe = isSafeLocalPath(r.request.localName, &why) && !r.request.localName.contains(QLatin1Char('/'));
        for (const DownloadItemRecord& item : std::as_const(r.items))
            safe = safe && isSafeLocalPath(item.item.localPath, &why);
        if (!safe) {
            qWarning("downloads: skipping download %lld: %s", r.id, qPrintable(why));
            continue;
        }
        DownloadTask* task = adopt(r);
        emit changed(task->progress());
    }
    schedule();
    return hearth::Status::ok();
}

hearth::Status DownloadQueue::checkRequest(const DownloadRequest& request, const QString& folder) const
{
    QString why;
    if (request.items.isEmpty())
        return hearth::invalidArgument(text(request.key + QStringLiteral(": nothing to download")));
    if (request.localName.contains(QLatin1Char('/')) || !isSafeLocalPath(request.localName, &why))
        return hearth::invalidArgument(text(why));
    for (const DownloadItem& item : request.items)
        if (!isSafeLocalPath(item.localPath, &why))
            return hearth::invalidArgument(text(why));
    if (!isAllowedDownloadUrl(QUrl(m_context.endpoint), &why))
        return hearth::invalidArgument(text(why));
    if (folder.isEmpty() || QFileInfo(folder).isRelative())
        return hearth::invalidArgument("no models folder");
    const QDir dir(folder);
    QStringList taken;
    if (QFileInfo(dir.filePath(request.localName)).exists())
        taken << request.localName;
    for (const DownloadItem& item : request.items) {
        for (const QString& path : {item.localPath, item.localPath + QStringLiteral(".part")}) {
            const QFileInfo info(dir.filePath(path));
            if ((info.exists() || info.isSymLink()) && !taken.contains(path))
                taken << path;
        }
    }
    if (!taken.isEmpty())
        return hearth::failedPrecondition(
            text(tr("already in the models folder, and not replaced: %1").arg(taken.join(QStringLiteral(", ")))));
    qint64 needed = 0;
    for (const DownloadItem& item : request.items)
        needed += std::max<qint64>(0, item.expectedBytes);
    QDir().mkpath(folder);
    const qint64 available = m_context.files->availableBytes(folder);
    if (available >= 0 && needed > 0 && needed + m_context.options.reserveBytes > available)
        return hearth::failedPrecondition(text(tr("not enough free disk space in %1: %2 needed, %3 free")
                                                   .arg(folder, downloadtext::bytes(needed + m_context.options.reserveBytes),
                                                        downloadtext::bytes(available))));
    return hearth::Status::ok();
}

hearth::Result<qint64> DownloadQueue::add(const DownloadRequest& request, const QString& folder)
{
    if (DownloadTask* existing = findKey(request.key)) {
        const DownloadProgress p = existing->progress();
        if (existing->state() != DownloadState::Done || QFileInfo::exists(p.path) ||
            QFileInfo::exists(existing->finalPath(0))) {
            if (existing->state() == DownloadState::Paused || existing->state() == DownloadState::Failed)
                resume(existing->id());
            return existing->id();
        }
        forget(existing); // done once, but the model has been deleted since: download it again
    }
    const QString dir = QDir::cleanPath(folder);
    HEARTH_TRY_CTX(checkRequest(request, dir), text(request.key));
    DownloadRecord record;
    record.request = request;
    record.folder = dir;
    record.state = DownloadState::Queued;
    for (const DownloadItem& item : request.items)
        record.items << DownloadItemRecord{item};
    if (m_store.isOpen()) {
        HEARTH_ASSIGN(record.id, m_store.insert(request, dir));
    } else {
        record.id = --m_unsavedId;
    }
    DownloadTask* task = adopt(record);
    qInfo("downloads: %s queued as %lld into %s", qPrintable(request.key), record.id, qPrintable(dir));
    emit changed(task->progress());
    schedule();
    return record.id;
}

DownloadTask* DownloadQueue::adopt(DownloadRecord record)
{
    auto* task = new DownloadTask(std::move(record), &m_context, this);
    connect(task, &DownloadTask::changed, this, [this, task] { emit changed(task->progress()); });
    connect(task, &DownloadTask::finished, this, &DownloadQueue::schedule);
    connect(task, &DownloadTask::registered, this,
            [this, task](const QString& key, const QString& path) { emit registered(task->id(), key, path); });
    m_tasks << task;
    return task;
}

void DownloadQueue::pause(qint64 id)
{
    if (DownloadTask* task = find(id))
        task->pause();
    schedule();
}

void DownloadQueue::resume(qint64 id)
{
    if (DownloadTask* task = find(id))
        task->enqueue();
    schedule();
}

void DownloadQueue::cancel(qint64 id)
{
    if (DownloadTask* task = find(id)) {
        task->cancel();
        forget(task);
    }
    schedule();
}

void DownloadQueue::forget(DownloadTask* task)
{
    const qint64 id = task->id();
    if (m_store.isOpen() && id > 0)
        if (hearth::Status s = m_store.remove(id); !s.isOk())
            qWarning("downloads: %s", s.message().c_str());
    m_tasks.removeOne(task);
    task->disconnect(this);
    task->deleteLater();
    emit removed(id);
}

void DownloadQueue::shutdown()
{
    for (DownloadTask* task : std::as_const(m_tasks))
        task->stop();
    m_store.close();
}

void DownloadQueue::schedule()
{
    // A task may finish inside start() (a lock held elsewhere, nothing left to fetch), which
    // calls schedule() again: that call only asks this loop for another round.
    if (m_scheduling) {
        m_scheduleAgain = true;
        return;
    }
    m_scheduling = true;
    do {
        m_scheduleAgain = false;
        for (DownloadTask* task : QList<DownloadTask*>(m_tasks)) {
            int active = 0;
            for (const DownloadTask* t : std::as_const(m_tasks))
                active += t->isActive() ? 1 : 0;
            if (active >= m_context.options.parallel)
                break;
            if (m_tasks.contains(task) && task->state() == DownloadState::Queued)
                task->start();
        }
    } while (m_scheduleAgain);
    m_scheduling = false;
}

QList<DownloadProgress> DownloadQueue::snapshot() const
{
    QList<DownloadProgress> out;
    for (const DownloadTask* task : m_tasks)
        out << task->progress();
    return out;
}

const DownloadTask* DownloadQueue::task(qint64 id) const
{
    return find(id);
}

DownloadTask* DownloadQueue::find(qint64 id) const
{
    for (DownloadTask* task : m_tasks)
        if (task->id() == id)
            return task;
    return nullptr;
}

DownloadTask* DownloadQueue::findKey(const QString& key) const
{
    for (DownloadTask* task : m_tasks)
        if (task->record().request.key == key)
            return task;
    return nullptr;
}
