#include "downloadtask.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>
#include <utility>

#include "downloadhash.h"
#include "downloadstore.h"
#include "downloadtext.h"
#include "downloadtransfer.h"
#include "filesink.h"
#include "hfendpoint.h"
#include "shardindex.h"

namespace {

constexpr int kSampleMs = 500;
constexpr qint64 kSaveEveryMs = 2000;

QString hex(const QByteArray& bytes)
{
    return QString::fromLatin1(bytes.toHex());
}

} // namespace

DownloadTask::DownloadTask(DownloadRecord record, const DownloadContext* context, QObject* parent)
    : QObject(parent)
    , m_record(std::move(record))
    , m_context(context)
{
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &DownloadTask::runItem);
    m_sampler.setInterval(kSampleMs);
    connect(&m_sampler, &QTimer::timeout, this, &DownloadTask::sampleSpeed);
    m_clock.start();
}

DownloadTask::~DownloadTask()
{
    if (m_rehashCancel)
        m_rehashCancel->store(true);
    dropTransfer();
}

bool DownloadTask::isActive() const
{
    return m_record.state == DownloadState::Running || m_record.state == DownloadState::Verifying;
}

QString DownloadTask::partPath(int i) const
{
    return finalPath(i) + QStringLiteral(".part");
}

QString DownloadTask::finalPath(int i) const
{
    return QDir(m_record.folder).filePath(m_record.items[i].item.localPath);
}

int DownloadTask::currentItem() const
{
    for (int i = 0; i < m_record.items.size(); ++i)
        if (!m_record.items[i].complete)
            return i;
    return -1;
}

DownloadProgress DownloadTask::progress() const
{
    DownloadProgress p;
    p.id = m_record.id;
    p.key = m_record.request.key;
    p.name = m_record.request.name;
    p.license = m_record.request.license;
    p.licenseUrl = m_record.request.licenseUrl;
    p.state = m_record.state;
    p.error = m_record.error;
    p.totalBytes = 0;
    for (int i = 0; i < m_record.items.size(); ++i) {
        const DownloadItemRecord& r = m_record.items[i];
        const bool live = m_part && m_hashedItem == i;
        p.receivedBytes += live ? m_part->size() : r.received;
        p.totalBytes = (p.totalBytes < 0 || r.item.expectedBytes < 0) ? -1 : p.totalBytes + r.item.expectedBytes;
    }
    // A safetensors index's total stands in until every shard's size is known (an estimate).
    if (p.totalBytes < 0 && m_record.estimatedBytes > 0)
        p.totalBytes = std::max(m_record.estimatedBytes, p.receivedBytes);
    if (m_record.state == DownloadState::Running && m_transfer) {
        p.bytesPerSecond = m_rate;
        if (p.totalBytes >= 0 && m_rate >= 1) {
            const double left = double(p.totalBytes - p.receivedBytes) / m_rate;
            p.secondsLeft = left < 100.0 * 86400 ? qint64(std::ceil(std::max(0.0, left))) : -1;
        }
    }
    if (m_retryTimer.isActive())
        p.retryInSeconds = int(std::ceil(std::max<qint64>(0, m_retryDelayMs - m_retryClock.elapsed()) / 1000.0));
    if (m_record.state == DownloadState::Done)
        p.path = QDir(m_record.folder).filePath(m_record.request.localName);
    return p;
}

void DownloadTask::enqueue()
{
    if (m_record.state != DownloadState::Done && !isActive())
        setState(DownloadState::Queued);
}

void DownloadTask::start()
{
    if (isActive() || m_record.state == DownloadState::Done)
        return;
    m_attempts = 0;
    setState(DownloadState::Running);
    if (!lockPart()) {
        failWith(tr("another Hearth is downloading this model"));
        return;
    }
    runItem();
}

void DownloadTask::runItem()
{
    m_retryTimer.stop();
    const int i = currentItem();
    if (i < 0) {
        finishAll();
        return;
    }
    if (m_part && m_hashedItem == i) { // a retry or a resume within this run: the hash is current
        startTransfer(i);
        return;
    }
    m_part.reset();
    m_hash.reset();
    m_hashedItem = -1;
    const QString part = partPath(i);
    QDir().mkpath(QFileInfo(part).absolutePath()); // a Hugging Face folder's own folder
    const QFileInfo info(part);
    if (info.exists() || info.isSymLink()) {
        verifyPartThenRun(i);
        return;
    }
    auto created = m_context->files->create(part);
    if (!created.isOk()) {
        failWith(created.status());
        return;
    }
    m_part = std::move(created).value();
    m_hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
    m_hashedItem = i;
    startTransfer(i);
}

void DownloadTask::startTransfer(int i)
{
    DownloadItemRecord& r = m_record.items[i];
    QString error;
    if (!checkDiskSpace(i, &error)) {
        failWith(error);
        return;
    }
    if (r.item.expectedBytes >= 0 && m_part->size() > r.item.expectedBytes) {
        // Longer than the file can be: not resumable. Start it again.
        if (hearth::Status s = m_part->truncate(0); !s.isOk()) {
            failWith(s);
            return;
        }
        m_hash->reset();
    }
    // All there already (killed between the last byte and the check): no request needed.
    if (r.item.expectedBytes >= 0 && m_part->size() == r.item.expectedBytes && !r.item.sha256.isEmpty()) {
        itemComplete(i);
        return;
    }
    TransferSetup setup;
    setup.url = itemUrl(m_context->endpoint, r.item);
    setup.tokenOrigin = QUrl(m_context->endpoint);
    setup.token = m_context->token;
    setup.part = m_part.get();
    setup.hash = m_hash.get();
    setup.stallTimeoutMs = m_context->options.stallTimeoutMs;
    m_transfer = new DownloadTransfer(m_context->network, setup, this);
    connect(m_transfer, &DownloadTransfer::headersKnown, this, [this, i] { onHeaders(i); });
    connect(m_transfer, &DownloadTransfer::received, this, [this, i](qint64 bytes) {
        m_record.items[i].received = bytes;
        const qint64 now = m_clock.elapsed();
        if (now - m_lastSaveMs >= kSaveEveryMs)
            saveItem(i);
        if (m_lastEmitMs < 0 || now - m_lastEmitMs >= m_context->options.progressIntervalMs) {
            m_lastEmitMs = now;
            emit changed();
        }
    });
    connect(m_transfer, &DownloadTransfer::finished, this,
            [this, i](const TransferResult& result) { onTransferFinished(i, result); });
    m_attemptStartBytes = m_part->size();
    m_sampleBytes = progress().receivedBytes;
    m_sampleMs = m_clock.elapsed();
    m_rate = 0;
    m_sampler.start();
    m_transfer->start();
    emit changed();
}

void DownloadTask::onHeaders(int i)
{
    DownloadItemRecord& r = m_record.items[i];
    const qint64 remote = m_transfer->remoteSize();
    const qint64 promised = m_record.request.items[i].expectedBytes; // the catalog's
    if (remote >= 0) {
        if (promised >= 0 && remote != promised) {
            m_transfer->fail(tr("the file on the server has %1 bytes, the catalog says %2").arg(remote).arg(promised));
            return;
        }
        r.item.expectedBytes = remote;
    }
    if (r.item.listsShards && remote > kMaxShardIndexBytes) {
        m_transfer->fail(tr("%1 has %2 bytes on the server: too large for a safetensors index")
                             .arg(r.item.localPath, QString::number(remote)));
        return;
    }
    // The server's name for the file's bytes: its SHA-256, else (no SHA-256 from the catalog
    // either) its Git blob id. One column keeps either: 64 or 40 hex digits tell them apart.
    QString etag = isSha256(m_transfer->linkedEtag()) ? m_transfer->linkedEtag() : QString();
    if (etag.isEmpty() && r.item.sha256.isEmpty() && isGitBlobId(m_transfer->etag()))
        etag = m_transfer->etag();
    if (!etag.isEmpty()) {
        if (isSha256(etag) && !r.item.sha256.isEmpty() && etag != r.item.sha256.toLower()) {
            m_transfer->fail(tr("the file on the server is not the one the catalog lists (its SHA-256 differs)"));
            return;
        }
        if (!r.linkedEtag.isEmpty() && r.linkedEtag != etag && !m_transfer->restartedFromZero() && m_part->size() > 0) {
            // The file changed on the server since the .part was started: its bytes are stale.
            r.linkedEtag = etag;
            r.item.expectedBytes = remote;
            m_startOver = true;
            m_transfer->fail(tr("the file changed on the server; starting it again"));
            return;
        }
        r.linkedEtag = etag;
    }
    QString error;
    if (!checkDiskSpace(i, &error)) {
        m_transfer->fail(error);
        return;
    }
    saveItem(i);
}

void DownloadTask::onTransferFinished(int i, const TransferResult& result)
{
    m_sampler.stop();
    m_rate = 0;
    DownloadItemRecord& r = m_record.items[i];
    // What the server says now ("Content-Range: bytes */N" on a 416) is the latest word on the
    // size, unless the catalog gave one.
    if (result.kind == TransferResult::RangeNotSatisfiable && m_transfer->remoteSize() >= 0 &&
        m_record.request.items[i].expectedBytes < 0)
        r.item.expectedBytes = m_transfer->remoteSize();
    m_transfer->deleteLater();
    m_transfer = nullptr;
    const bool startOver = std::exchange(m_startOver, false);
    if (startOver) {
        if (hearth::Status s = m_part->truncate(0); !s.isOk()) {
            failWith(s);
            return;
        }
        m_hash->reset();
    }
    r.received = m_part->size();
    saveItem(i);
    if (m_part->size() > m_attemptStartBytes)
        m_attempts = 0; // progress: the count of failures in a row starts again
    switch (result.kind) {
    case TransferResult::Complete:
        itemComplete(i);
        return;
    case TransferResult::RangeNotSatisfiable:
        if (r.item.expectedBytes >= 0 && m_part->size() == r.item.expectedBytes) {
            itemComplete(i);
            return;
        }
        // The .part is longer than the file: it cannot be resumed.
        if (hearth::Status s = m_part->truncate(0); !s.isOk()) {
            failWith(s);
            return;
        }
        m_hash->reset();
        scheduleRetry(i, result.error, 0);
        return;
    case TransferResult::Retry:
        scheduleRetry(i, result.error, result.retryAfterMs);
        return;
    case TransferResult::Fail:
        if (startOver) {
            scheduleRetry(i, result.error, 0);
            return;
        }
        if (result.httpStatus == 404 && r.item.optional) {
            dropOptional(i);
            return;
        }
        failWith(result.error);
        return;
    }
}

void DownloadTask::scheduleRetry(int i, const QString& error, int retryAfterMs)
{
    Q_UNUSED(i);
    const DownloadOptions& o = m_context->options;
    if (++m_attempts > o.maxAttempts) {
        failWith(tr("gave up after %1 tries: %2").arg(o.maxAttempts).arg(error));
        return;
    }
    const int shift = std::min(m_attempts - 1, 20);
    const qint64 backoff = std::min<qint64>(qint64(o.retryBaseMs) << shift, o.retryMaxMs);
    m_retryDelayMs = retryAfterMs >= 0 ? std::min(retryAfterMs, std::max(o.retryMaxMs, retryAfterMs)) : int(backoff);
    m_record.error = error;
    qInfo("download %lld: %s; try %d in %d ms", m_record.id, qPrintable(error), m_attempts + 1, m_retryDelayMs);
    m_retryClock.start();
    m_retryTimer.start(m_retryDelayMs);
    emit changed();
}

void DownloadTask::setState(DownloadState state, const QString& error)
{
    const bool wasActive = isActive();
    m_record.state = state;
    m_record.error = error;
    if (m_context->store && m_context->store->isOpen())
        if (hearth::Status s = m_context->store->setState(m_record.id, state, error); !s.isOk())
            qWarning("download %lld: %s", m_record.id, s.message().c_str());
    emit changed();
    if (wasActive && !isActive() && state != DownloadState::Queued)
        emit finished();
}

void DownloadTask::failWith(const QString& error)
{
    qWarning("download %lld (%s): %s", m_record.id, qPrintable(m_record.request.key), qPrintable(error));
    dropTransfer();
    m_retryTimer.stop();
    // The part's bytes may not be what the hash saw (a write that failed halfway): a retry reads
    // the file again.
    m_part.reset();
    m_hash.reset();
    m_hashedItem = -1;
    // An empty .part (a 404, a refused redirect) is no help to a retry: the folder stays tidy.
    if (const int i = currentItem(); i >= 0) {
        const QFileInfo part(partPath(i));
        if (part.exists() && !part.isSymLink() && part.size() == 0)
            m_context->files->remove(partPath(i));
    }
    m_lock.reset();
    setState(DownloadState::Failed, error);
}

void DownloadTask::saveItem(int i)
{
    m_lastSaveMs = m_clock.elapsed();
    if (!m_context->store || !m_context->store->isOpen())
        return;
    if (hearth::Status s = m_context->store->saveItem(m_record.id, i, m_record.items[i]); !s.isOk())
        qWarning("download %lld: %s", m_record.id, s.message().c_str());
}

void DownloadTask::sampleSpeed()
{
    const qint64 bytes = progress().receivedBytes, now = m_clock.elapsed();
    const qint64 dt = now - m_sampleMs;
    if (dt <= 0)
        return;
    const double rate = double(std::max<qint64>(0, bytes - m_sampleBytes)) * 1000.0 / double(dt);
    m_rate = m_rate <= 0 ? rate : 0.7 * m_rate + 0.3 * rate;
    m_sampleBytes = bytes;
    m_sampleMs = now;
    m_lastEmitMs = now;
    emit changed();
}

bool DownloadTask::checkDiskSpace(int fromItem, QString* error) const
{
    qint64 needed = 0;
    for (int i = fromItem; i < m_record.items.size(); ++i) {
        const DownloadItemRecord& r = m_record.items[i];
        if (r.complete || r.item.expectedBytes < 0)
            continue;
        const qint64 have = (m_part && m_hashedItem == i) ? m_part->size() : QFileInfo(partPath(i)).size();
        needed += std::max<qint64>(0, r.item.expectedBytes - have);
    }
    // Sizes not all known yet: a safetensors index's total says what is still coming.
    const bool sizesKnown = std::all_of(m_record.items.begin(), m_record.items.end(),
                                        [](const DownloadItemRecord& r) { return r.item.expectedBytes >= 0; });
    if (!sizesKnown && m_record.estimatedBytes > 0)
        needed = std::max(needed, m_record.estimatedBytes - progress().receivedBytes);
    const qint64 available = m_context->files->availableBytes(m_record.folder);
    if (needed == 0 || available < 0 || needed + m_context->options.reserveBytes <= available)
        return true;
    *error = tr("not enough free disk space in %1: %2 needed, %3 free")
                 .arg(m_record.folder, downloadtext::bytes(needed + m_context->options.reserveBytes),
                      downloadtext::bytes(available));
    return false;
}

void DownloadTask::dropTransfer()
{
    m_sampler.stop();
    m_rate = 0;
    if (m_transfer) {
        m_transfer->abortQuietly();
        m_transfer->deleteLater();
        m_transfer = nullptr;
    }
}

bool DownloadTask::lockPart()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty() || !QDir().mkpath(dir))
        return true; // no runtime folder: no check between processes
    const QByteArray key = QCryptographicHash::hash(
        QDir(m_record.folder).filePath(m_record.request.localName).toUtf8(), QCryptographicHash::Sha1);
    m_lock = std::make_unique<QLockFile>(
        QDir(dir).filePath(QStringLiteral("hearth-download-%1.lock").arg(hex(key.left(8)))));
    m_lock->setStaleLockTime(0); // only a dead holder makes it stale
    if (m_lock->tryLock(0))
        return true;
    m_lock.reset();
    return false;
}

void DownloadTask::pause()
{
    if (m_record.state != DownloadState::Queued && !isActive())
        return;
    stop();
    setState(DownloadState::Paused);
}

void DownloadTask::stop()
{
    dropTransfer();
    m_retryTimer.stop();
    if (m_rehashCancel)
        m_rehashCancel->store(true);
    if (m_part && m_hashedItem >= 0) {
        m_record.items[m_hashedItem].received = m_part->size();
        saveItem(m_hashedItem);
    }
    m_lock.reset();
}

void DownloadTask::cancel()
{
    stop();
    m_part.reset();
    m_hash.reset();
    m_hashedItem = -1;
    if (m_record.state == DownloadState::Done)
        return; // the model stays; only the record goes
    for (int i = 0; i < m_record.items.size(); ++i)
        m_context->files->remove(partPath(i));
    // A Hugging Face folder the download made: removed when nothing else is in it.
    if (m_record.request.entryPath.contains(QLatin1Char('/')))
        QDir(m_record.folder).rmdir(m_record.request.localName);
}
