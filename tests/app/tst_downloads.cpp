// The downloader against a real HTTP server on 127.0.0.1 (httptestserver.h) that injects faults:
// a connection dropped mid-body, a server that ignores Range, 404, 416, 500 then success, a slow
// trickle, a stall, a wrong SHA-256, a redirect chain carrying X-Linked-Etag, small files kept in
// plain git (only a Git blob id in ETag: right, wrong, unusable, resumed), a full disk (a file
// layer failing with ENOSPC), pause/resume and a restart of the queue; a 16-bit source whose
// shards come from its index (the shards it names, an optional file missing, hostile indexes, a
// restart mid-shard). In every case: nothing is in the models folder unless verified, partial
// data is resumed where the server allows it, and the state says what happened.
// Long (over 600 lines) because every case shares the one server-and-queue fixture below.
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cerrno>

#include "appsettings.h"
#include "catalog.h"
#include "downloadlistmodel.h"
#include "downloadhash.h"
#include "downloadqueue.h"
#include "downloadsafety.h"
#include "filesink.h"
#include "hfendpoint.h"
#include "httptestserver.h"
#include "modelscan.h"
#include "shardindex.h"
#include "store/conversation_store.h"
#include "store/store_schema.h"

namespace {

constexpr int kWaitMs = 20000;

// Bytes that differ at every offset, so that a misplaced range shows in the hash.
QByteArray pattern(qint64 size, int seed)
{
    QByteArray out(size, Qt::Uninitialized);
    quint32 x = 2463534242u ^ quint32(seed);
    for (qint64 i = 0; i < size; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = char(x);
    }
    return out;
}

QString sha256(const QByteArray& bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// Git's blob object id of `bytes`: SHA-1 over "blob <size>", a NUL and the bytes.
QString gitBlobId(const QByteArray& bytes)
{
    QByteArray object = "blob " + QByteArray::number(bytes.size());
    object.append('\0');
    object.append(bytes);
    return QString::fromLatin1(QCryptographicHash::hash(object, QCryptographicHash::Sha1).toHex());
}

QByteArray quoted(const QString& value)
{
    return '"' + value.toLatin1() + '"';
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The route path of file `name` in repo test/repo: {endpoint}/{repo}/resolve/main/{file}.
QByteArray routeOf(const QString& name)
{
    return "/test/repo/resolve/main/" + name.toUtf8();
}

DownloadRequest requestFor(const QString& name, const QByteArray& body, bool knownSha = true, bool knownSize = true)
{
    DownloadRequest r;
    r.key = QStringLiteral("test:") + name;
    r.name = name;
    r.localName = name;
    r.entryPath = name;
    r.license = QStringLiteral("apache-2.0");
    r.items << DownloadItem{QStringLiteral("test/repo"), name, QStringLiteral("main"), name,
                            knownSize ? qint64(body.size()) : -1, knownSha ? sha256(body) : QString()};
    return r;
}

// The catalog's request for a 16-bit source whose shards come from its index, in repo test/repo
// (so it lands in models/repo): config.json, an optional generation_config.json, tokenizer.json,
// an optional chat_template.jinja and the index. No sizes or hashes, as in the real catalog.
DownloadRequest indexedRequest()
{
    const auto file = [](const char* path, bool optional = false) {
        return QJsonObject{{"repo", "test/repo"}, {"path", path}, {"optional", optional}};
    };
    const QJsonArray files{file("config.json"), file("generation_config.json", true), file("tokenizer.json"),
                           file("chat_template.jinja", true), file("model.safetensors.index.json")};
    const QJsonObject variant{{"quant", "BF16"}, {"format", "safetensors"}, {"shardsFromIndex", true}, {"files", files}};
    const QJsonObject family{{"id", "src"}, {"name", "Source"}, {"license", "apache-2.0"},
                             {"shape", QJsonObject{{"architecture", "qwen35"}}}, {"variants", QJsonArray{variant}}};
    Catalog catalog;
    QString error;
    if (!catalog.parse(QJsonDocument(QJsonObject{{"schemaVersion", 1}, {"families", QJsonArray{family}}}).toJson(), &error))
        qWarning("catalog: %s", qPrintable(error));
    const CatalogFamily* f = catalog.family(QStringLiteral("src"));
    return f ? requestFromCatalog(*f, f->variants.first()) : DownloadRequest();
}

// model.safetensors.index.json naming `shards` (two tensors in each), with metadata.total_size.
QByteArray shardIndexJson(const QStringList& shards, qint64 totalSize)
{
    QJsonObject map;
    for (int i = 0; i < shards.size(); ++i) {
        map[QStringLiteral("layers.%1.a").arg(i)] = shards[i];
        map[QStringLiteral("layers.%1.b").arg(i)] = shards[i];
    }
    return QJsonDocument(QJsonObject{{"metadata", QJsonObject{{"total_size", double(totalSize)}}}, {"weight_map", map}})
        .toJson();
}

// The real file layer, except that writes fail with ENOSPC once `capacity` bytes were written
// (through this layer, since the last reset), and the free space it reports.
class FullDiskLayer final : public FileLayer
{
public:
    qint64 capacity = -1;  // -1: no limit
    qint64 available = -1; // -1: the real disk's
    qint64 written = 0;

    hearth::Result<std::unique_ptr<PartFile>> create(const QString& path) override
    {
        return wrap(FileLayer::system().create(path), path);
    }
    hearth::Result<std::unique_ptr<PartFile>> openExisting(const QString& path) override
    {
        return wrap(FileLayer::system().openExisting(path), path);
    }
    qint64 availableBytes(const QString& folder) const override
    {
        return available >= 0 ? available : FileLayer::system().availableBytes(folder);
    }
    hearth::Status moveNoReplace(const QString& from, const QString& to) override
    {
        return FileLayer::system().moveNoReplace(from, to);
    }
    bool remove(const QString& path) override { return FileLayer::system().remove(path); }

private:
    class Part final : public PartFile
    {
    public:
        Part(std::unique_ptr<PartFile> inner, FullDiskLayer* layer, QString path)
            : m_inner(std::move(inner)), m_layer(layer), m_path(std::move(path)) {}
        hearth::Status write(const char* data, qint64 size) override
        {
            qint64 room = m_layer->capacity < 0 ? size : std::max<qint64>(0, m_layer->capacity - m_layer->written);
            const qint64 n = std::min(size, room);
            if (n > 0)
                HEARTH_TRY(m_inner->write(data, n));
            m_layer->written += n;
            return n < size ? writeError(m_path, ENOSPC) : hearth::Status::ok();
        }
        hearth::Status truncate(qint64 size) override { return m_inner->truncate(size); }
        qint64 size() const override { return m_inner->size(); }

    private:
        std::unique_ptr<PartFile> m_inner;
        FullDiskLayer* m_layer;
        QString m_path;
    };

    hearth::Result<std::unique_ptr<PartFile>> wrap(hearth::Result<std::unique_ptr<PartFile>> inner, const QString& path)
    {
        if (!inner.isOk())
            return inner.status();
        return std::unique_ptr<PartFile>(std::make_unique<Part>(std::move(inner).value(), this, path));
    }
};

} // namespace

class TestDownloads : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<HttpTestServer> m_server;

    QString models() const { return m_dir->filePath(QStringLiteral("models")); }
    QString database() const { return m_dir->filePath(QStringLiteral("history.sqlite")); }

    static DownloadOptions fastOptions()
    {
        DownloadOptions o;
        o.retryBaseMs = 20;
        o.retryMaxMs = 100;
        o.stallTimeoutMs = 3000;
        o.reserveBytes = 0;
        o.progressIntervalMs = 20;
        return o;
    }

    std::unique_ptr<DownloadQueue> makeQueue(FileLayer* files = nullptr, const DownloadOptions& options = fastOptions())
    {
        auto q = std::make_unique<DownloadQueue>();
        if (files)
            q->setFileLayer(files);
        q->setOptions(options);
        q->setEndpoint(QString::fromLatin1(m_server->baseUrl()));
        const hearth::Status opened = q->open(database());
        if (!opened.isOk())
            qWarning("open: %s", opened.message().c_str());
        return q;
    }

    // Runs the event loop until download `id` is Done or Failed; returns its state.
    static DownloadState settle(DownloadQueue& q, qint64 id, int timeoutMs = kWaitMs)
    {
        auto finished = [&] {
            const DownloadTask* t = q.task(id);
            return !t || t->state() == DownloadState::Done || t->state() == DownloadState::Failed;
        };
        if (!QTest::qWaitFor(finished, timeoutMs))
            qWarning("download %lld did not finish in %d ms", id, timeoutMs);
        return q.task(id) ? q.task(id)->state() : DownloadState::Paused;
    }

    static qint64 added(hearth::Result<qint64> r)
    {
        if (!r.isOk())
            qWarning("add: %s", r.status().message().c_str());
        return r.isOk() ? *r : 0;
    }

    // `body` as test/repo's `name`, with its SHA-256 in X-Linked-Etag as Hugging Face sends it.
    void serve(const QString& name, const QByteArray& body, HttpRoute route = {})
    {
        route.body = body;
        route.headers << qMakePair(QByteArray("X-Linked-Etag"), '"' + sha256(body).toLatin1() + '"');
        m_server->setRoute(routeOf(name), route);
    }
    // `body` as a file Hugging Face keeps in plain git: `etag` in ETag, no X-Linked-Etag.
    void serveFromGit(const QString& name, const QByteArray& body, const QByteArray& etag, HttpRoute route = {})
    {
        route.body = body;
        route.headers << qMakePair(QByteArray("ETag"), etag);
        m_server->setRoute(routeOf(name), route);
    }
    // indexedRequest()'s small files, except generation_config.json (a 404).
    qint64 serveSourceFiles()
    {
        const QByteArray config = "{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"]}", tokenizer = pattern(3000, 60),
                         jinja = "{{ messages }}";
        serve(QStringLiteral("config.json"), config);
        serve(QStringLiteral("tokenizer.json"), tokenizer);
        serve(QStringLiteral("chat_template.jinja"), jinja);
        return config.size() + tokenizer.size() + jinja.size();
    }
    QString source(const QString& name = {}) const { return QDir(models()).filePath(QStringLiteral("repo/") + name); }

    // Nothing but `allowed` in the models folder (no stray .part, nothing unverified).
    QStringList modelFiles() const
    {
        return QDir(models()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
    }

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_server = std::make_unique<HttpTestServer>();
        QVERIFY(m_server->listen());
    }

    void cleanup()
    {
        m_server.reset();
        m_dir.reset();
    }

    void plainDownloadIsVerifiedAndRegistered()
    {
        const QByteArray body = pattern(1 << 20, 1);
        m_server->setRoute(routeOf(QStringLiteral("a.gguf")), {body});
        auto q = makeQueue();
        QSignalSpy registered(q.get(), &DownloadQueue::registered);
        const qint64 id = added(q->add(requestFor(QStringLiteral("a.gguf"), body), models()));
        QVERIFY(id > 0);
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(registered.size(), 1);
        QCOMPARE(registered[0][2].toString(), QDir(models()).filePath(QStringLiteral("a.gguf")));
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("a.gguf"))), body);
        QCOMPARE(modelFiles(), QStringList{QStringLiteral("a.gguf")});
        QCOMPARE(q->task(id)->progress().receivedBytes, qint64(body.size()));
        QCOMPARE(q->task(id)->progress().totalBytes, qint64(body.size()));
        // The same key again: the download there is, no second file.
        QCOMPARE(added(q->add(requestFor(QStringLiteral("a.gguf"), body), models())), id);
        QCOMPARE(m_server->hits().size(), 1);
    }

    void droppedConnectionResumesWithRange()
    {
        const QByteArray body = pattern(900000, 2);
        HttpRoute route{body};
        route.dropAfter = 300000;
        route.dropTimes = 2;
        m_server->setRoute(routeOf(QStringLiteral("b.gguf")), route);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("b.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        const QList<HttpHit> hits = m_server->hits();
        QCOMPARE(hits.size(), 3);
        QCOMPARE(hits[0].range, QByteArray());
        QCOMPARE(hits[1].range, QByteArray("bytes=300000-"));
        QCOMPARE(hits[1].status, 206);
        QCOMPARE(hits[2].range, QByteArray("bytes=600000-"));
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("b.gguf"))), body);
    }

    void serverIgnoringRangeRestartsCleanly()
    {
        const QByteArray body = pattern(500000, 3);
        HttpRoute route{body};
        route.dropAfter = 200000;
        route.dropTimes = 1;
        route.ignoreRange = true;
        m_server->setRoute(routeOf(QStringLiteral("c.gguf")), route);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("c.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        const QList<HttpHit> hits = m_server->hits();
        QCOMPARE(hits.size(), 2);
        QCOMPARE(hits[1].range, QByteArray("bytes=200000-"));
        QCOMPARE(hits[1].status, 200); // the whole file again: written from the start, not appended
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("c.gguf"))), body);
    }

    void notFoundFailsWithoutAModel()
    {
        auto q = makeQueue();
        const QByteArray body = pattern(1000, 4);
        const qint64 id = added(q->add(requestFor(QStringLiteral("missing.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QVERIFY2(q->task(id)->progress().error.contains(QStringLiteral("404")), qPrintable(q->task(id)->progress().error));
        QCOMPARE(m_server->hits().size(), 1); // a 404 is not retried
        QCOMPARE(modelFiles(), QStringList());
    }

    void rangeNotSatisfiable()
    {
        // The first answer claims more bytes than the file has. When the .part then holds exactly
        // the file, the next Range request gets 416 with the real size and the .part is checked
        // as it is; when it holds more (junk after the file), the download starts over.
        for (const qint64 junk : {0, 100}) {
            const QString name = QStringLiteral("d%1.gguf").arg(junk);
            const QByteArray body = pattern(300000, 5);
            HttpRoute route{body};
            route.extraLength = 200;
            route.extraSent = junk;
            route.extraLengthTimes = 1;
            m_server->setRoute(routeOf(name), route);
            auto q = makeQueue();
            const qint64 id = added(q->add(requestFor(name, body, true, false), models()));
            QCOMPARE(settle(*q, id), DownloadState::Done);
            const QList<HttpHit> hits = m_server->hitsFor(routeOf(name));
            QCOMPARE(hits.size(), junk ? 3 : 2);
            QCOMPARE(hits[1].range, "bytes=" + QByteArray::number(body.size() + junk) + '-');
            QCOMPARE(hits[1].status, 416);
            if (junk)
                QCOMPARE(hits[2].range, QByteArray());
            QCOMPARE(fileBytes(QDir(models()).filePath(name)), body);
        }
    }

    void serverErrorsAreRetriedUntilSuccess()
    {
        const QByteArray body = pattern(200000, 6);
        HttpRoute route{body};
        route.firstStatuses = {500, 503};
        m_server->setRoute(routeOf(QStringLiteral("e.gguf")), route);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("e.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(m_server->hits().size(), 3);
        QCOMPARE(m_server->hits()[0].status, 500);
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("e.gguf"))), body);
    }

    void persistentServerErrorGivesUp()
    {
        HttpRoute route{pattern(1000, 7)};
        route.status = 500;
        m_server->setRoute(routeOf(QStringLiteral("f.gguf")), route);
        DownloadOptions o = fastOptions();
        o.maxAttempts = 3;
        auto q = makeQueue(nullptr, o);
        const qint64 id = added(q->add(requestFor(QStringLiteral("f.gguf"), route.body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QCOMPARE(m_server->hits().size(), 4); // the first try and three retries
        QVERIFY(q->task(id)->progress().error.contains(QStringLiteral("500")));
        QVERIFY(!QFileInfo::exists(QDir(models()).filePath(QStringLiteral("f.gguf"))));
    }

    void slowTrickleReportsSaneProgress()
    {
        const QByteArray body = pattern(240000, 8);
        HttpRoute route{body};
        route.trickleBytes = 8000;
        route.trickleMs = 25; // ~320 kB/s: about 0.75 s in all
        m_server->setRoute(routeOf(QStringLiteral("g.gguf")), route);
        auto q = makeQueue();
        QList<DownloadProgress> seen;
        connect(q.get(), &DownloadQueue::changed, this, [&seen](const DownloadProgress& p) { seen << p; });
        const qint64 id = added(q->add(requestFor(QStringLiteral("g.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        qint64 last = 0;
        int withRate = 0;
        for (const DownloadProgress& p : std::as_const(seen)) {
            QVERIFY(p.receivedBytes >= last);
            QVERIFY(p.receivedBytes <= body.size());
            last = p.receivedBytes;
            if (p.state == DownloadState::Running && p.bytesPerSecond > 0) {
                ++withRate;
                QVERIFY2(p.bytesPerSecond < 5e6, qPrintable(QString::number(p.bytesPerSecond)));
                QVERIFY(p.secondsLeft >= 0 && p.secondsLeft <= 30);
            }
        }
        QVERIFY2(withRate > 0, "no progress report carried a rate");
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("g.gguf"))), body);
    }

    void stallIsDetectedAndRetried()
    {
        const QByteArray body = pattern(300000, 9);
        HttpRoute route{body};
        route.stallAfter = 100000;
        route.stallTimes = 1;
        m_server->setRoute(routeOf(QStringLiteral("h.gguf")), route);
        DownloadOptions o = fastOptions();
        o.stallTimeoutMs = 500;
        auto q = makeQueue(nullptr, o);
        QStringList errors;
        connect(q.get(), &DownloadQueue::changed, this, [&errors](const DownloadProgress& p) {
            if (!p.error.isEmpty())
                errors << p.error;
        });
        const qint64 id = added(q->add(requestFor(QStringLiteral("h.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QVERIFY(m_server->hits().size() >= 2); // a loaded machine may stall once more
        QCOMPARE(m_server->hits()[1].range, QByteArray("bytes=100000-"));
        QVERIFY2(!errors.isEmpty() && errors.first().contains(QStringLiteral("no data")), qPrintable(errors.join('|')));
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("h.gguf"))), body);
    }

    void wrongSha256IsNeverRegistered()
    {
        const QByteArray body = pattern(100000, 10);
        m_server->setRoute(routeOf(QStringLiteral("i.gguf")), {body});
        auto q = makeQueue();
        DownloadRequest r = requestFor(QStringLiteral("i.gguf"), body);
        r.items[0].sha256 = sha256("something else");
        QSignalSpy registered(q.get(), &DownloadQueue::registered);
        const qint64 id = added(q->add(r, models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QVERIFY(q->task(id)->progress().error.contains(QStringLiteral("SHA-256")));
        QCOMPARE(registered.size(), 0);
        QCOMPARE(modelFiles(), QStringList()); // the damaged .part is gone too
    }

    void redirectChainCarriesLinkedEtag()
    {
        // Hugging Face's way: the endpoint answers 302 with X-Linked-Etag (the SHA-256) and
        // X-Linked-Size, the CDN (another origin here: another port) redirects once more and serves.
        const QByteArray body = pattern(400000, 11);
        HttpTestServer cdn;
        QVERIFY(cdn.listen());
        HttpRoute hop{};
        hop.redirectTo = cdn.baseUrl() + "/cdn/one";
        hop.headers = {{"X-Linked-Etag", '"' + sha256(body).toLatin1() + '"'},
                       {"X-Linked-Size", QByteArray::number(body.size())}};
        m_server->setRoute(routeOf(QStringLiteral("j.gguf")), hop);
        HttpRoute second{};
        second.redirectTo = "/cdn/two";
        cdn.setRoute("/cdn/one", second);
        cdn.setRoute("/cdn/two", {body});
        auto q = makeQueue();
        q->setToken("hf_secret");
        const qint64 id = added(q->add(requestFor(QStringLiteral("j.gguf"), body, false, false), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("j.gguf"))), body);
        QCOMPARE(q->task(id)->progress().totalBytes, qint64(body.size()));
        // The token went to the endpoint only, never to the CDN.
        QCOMPARE(m_server->hits()[0].authorization, QByteArray("Bearer hf_secret"));
        QCOMPARE(cdn.hits().size(), 2);
        for (const HttpHit& h : cdn.hits())
            QCOMPARE(h.authorization, QByteArray());
    }

    void wrongLinkedEtagFailsVerification()
    {
        const QByteArray body = pattern(50000, 12);
        HttpRoute hop{};
        hop.redirectTo = "/cdn/k";
        hop.headers = {{"X-Linked-Etag", '"' + sha256("other").toLatin1() + '"'}};
        m_server->setRoute(routeOf(QStringLiteral("k.gguf")), hop);
        m_server->setRoute("/cdn/k", {body});
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("k.gguf"), body, false, false), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QCOMPARE(modelFiles(), QStringList());
    }

    void noChecksumAnywhereIsNotRegistered()
    {
        const QByteArray body = pattern(50000, 13);
        m_server->setRoute(routeOf(QStringLiteral("l.gguf")), {body});
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("l.gguf"), body, false, true), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QVERIFY(q->task(id)->progress().error.contains(QStringLiteral("cannot be verified")));
        QVERIFY(!QFileInfo::exists(QDir(models()).filePath(QStringLiteral("l.gguf"))));
    }

    void plainGitFilesAreVerifiedByTheirGitId()
    {
        // Hugging Face's way for a 16-bit source: the small files are kept in plain git (ETag: the
        // Git blob id, no X-Linked-Etag), the shards in LFS (X-Linked-Etag: the SHA-256).
        const QStringList names{QStringLiteral("model-00001-of-00002.safetensors"), QStringLiteral("model-00002-of-00002.safetensors")};
        const QByteArray config = "{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"]}", tokenizer = pattern(3000, 70),
                         jinja = "{{ messages }}", index = shardIndexJson(names, 90000);
        serveFromGit(QStringLiteral("config.json"), config, quoted(gitBlobId(config)));
        serveFromGit(QStringLiteral("tokenizer.json"), tokenizer, quoted(gitBlobId(tokenizer)));
        serveFromGit(QStringLiteral("chat_template.jinja"), jinja, quoted(gitBlobId(jinja)));
        serveFromGit(QString::fromLatin1(kShardIndexName), index, quoted(gitBlobId(index)));
        const QList<QByteArray> shards{pattern(40000, 71), pattern(50000, 72)};
        for (int i = 0; i < 2; ++i)
            serve(names[i], shards[i]);
        auto q = makeQueue();
        const qint64 id = added(q->add(indexedRequest(), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(fileBytes(source(QStringLiteral("config.json"))), config);
        QCOMPARE(fileBytes(source(QStringLiteral("tokenizer.json"))), tokenizer);
        QCOMPARE(fileBytes(source(QString::fromLatin1(kShardIndexName))), index);
        for (int i = 0; i < 2; ++i)
            QCOMPARE(fileBytes(source(names[i])), shards[i]);
        const DownloadRecord& record = q->task(id)->record();
        QCOMPARE(record.items[0].linkedEtag, gitBlobId(config));
        QCOMPARE(record.items.last().linkedEtag, sha256(shards[1]));
    }

    void gitIdOfTheFinalResponseAfterARedirect()
    {
        const QByteArray body = pattern(20000, 73);
        HttpRoute hop{};
        hop.redirectTo = "/elsewhere/t.json";
        m_server->setRoute(routeOf(QStringLiteral("t.json")), hop);
        HttpRoute target{body};
        target.headers = {{"ETag", quoted(gitBlobId(body))}}; // the redirect itself has none
        m_server->setRoute("/elsewhere/t.json", target);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("t.json"), body, false, false), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("t.json"))), body);
    }

    void wrongGitIdDeletesTheFile()
    {
        const QByteArray body = pattern(30000, 74);
        serveFromGit(QStringLiteral("u.json"), body, quoted(gitBlobId(body.left(29999) + 'x')));
        auto q = makeQueue();
        QSignalSpy registered(q.get(), &DownloadQueue::registered);
        const qint64 id = added(q->add(requestFor(QStringLiteral("u.json"), body, false, false), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        const QString error = q->task(id)->progress().error;
        QVERIFY2(error.contains(QStringLiteral("u.json is damaged (its Git object id does not match) and was deleted")),
                 qPrintable(error));
        QCOMPARE(registered.size(), 0);
        QCOMPARE(modelFiles(), QStringList());
        QCOMPARE(q->task(id)->record().items[0].received, 0);
        QVERIFY(q->task(id)->record().items[0].linkedEtag.isEmpty());
        // The server fixed: Retry downloads it again, from its first byte.
        serveFromGit(QStringLiteral("u.json"), body, quoted(gitBlobId(body)));
        q->resume(id);
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(m_server->hits().last().range, QByteArray());
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("u.json"))), body);
    }

    void unusableEtagCannotBeVerified_data()
    {
        const QByteArray body = pattern(10000, 75);
        QTest::addColumn<QByteArray>("etag");
        QTest::newRow("weak") << "W/" + quoted(gitBlobId(body));
        QTest::newRow("39 digits") << quoted(gitBlobId(body).left(39));
        QTest::newRow("not hex") << quoted(QString(40, QLatin1Char('g')));
        QTest::newRow("md5") << quoted(QString::fromLatin1(QCryptographicHash::hash(body, QCryptographicHash::Md5).toHex()));
        QTest::newRow("sha-256 in ETag") << quoted(sha256(body)); // only X-Linked-Etag says SHA-256
    }

    void unusableEtagCannotBeVerified()
    {
        QFETCH(QByteArray, etag);
        const QByteArray body = pattern(10000, 75);
        serveFromGit(QStringLiteral("v.json"), body, etag);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("v.json"), body, false, true), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        const QString error = q->task(id)->progress().error;
        QCOMPARE(error, QStringLiteral("v.json cannot be verified: neither the catalog nor the server gives its SHA-256"));
        QVERIFY(!QFileInfo::exists(QDir(models()).filePath(QStringLiteral("v.json"))));
    }

    void sha256WinsOverTheGitId_data()
    {
        // Where the SHA-256 comes from (the catalog, X-Linked-Etag), whether it and the ETag's Git
        // id are right, and whether the download succeeds: as the SHA-256 says, whatever the Git id.
        QTest::addColumn<bool>("fromCatalog");
        QTest::addColumn<bool>("shaRight");
        QTest::addColumn<bool>("gitRight");
        QTest::newRow("catalog right, git wrong") << true << true << false;
        QTest::newRow("catalog wrong, git right") << true << false << true;
        QTest::newRow("linked right, git wrong") << false << true << false;
        QTest::newRow("linked wrong, git right") << false << false << true;
    }

    void sha256WinsOverTheGitId()
    {
        QFETCH(bool, fromCatalog);
        QFETCH(bool, shaRight);
        QFETCH(bool, gitRight);
        const QByteArray body = pattern(10000, 76), other = pattern(10000, 77);
        const QString sha = sha256(shaRight ? body : other);
        HttpRoute route{body};
        route.headers << qMakePair(QByteArray("ETag"), quoted(gitBlobId(gitRight ? body : other)));
        if (!fromCatalog)
            route.headers << qMakePair(QByteArray("X-Linked-Etag"), quoted(sha));
        m_server->setRoute(routeOf(QStringLiteral("w.json")), route);
        DownloadRequest r = requestFor(QStringLiteral("w.json"), body, fromCatalog, false);
        if (fromCatalog)
            r.items[0].sha256 = sha;
        auto q = makeQueue();
        const qint64 id = added(q->add(r, models()));
        QCOMPARE(settle(*q, id), shaRight ? DownloadState::Done : DownloadState::Failed);
        const QString error = q->task(id)->progress().error;
        QCOMPARE(QFileInfo::exists(QDir(models()).filePath(QStringLiteral("w.json"))), shaRight);
        if (!shaRight)
            QVERIFY2(error.contains(QStringLiteral("SHA-256")) && !error.contains(QStringLiteral("Git")), qPrintable(error));
        // The Git id is not even kept as the server's name for the file.
        if (shaRight)
            QCOMPARE(q->task(id)->record().items[0].linkedEtag, fromCatalog ? QString() : sha);
    }

    void resumedGitFileIsCheckedWhole()
    {
        // A .part left by a run that quit, completed by the next run: its Git id covers the bytes
        // of both runs (a byte changed in the first run's part is found).
        for (const bool damage : {false, true}) {
            const QString name = damage ? QStringLiteral("x2.json") : QStringLiteral("x1.json");
            const QString path = QDir(models()).filePath(name), part = path + QStringLiteral(".part");
            const QByteArray body = pattern(300000, 78);
            HttpRoute route;
            route.trickleBytes = 10000;
            route.trickleMs = 10;
            serveFromGit(name, body, quoted(gitBlobId(body)), route);
            qint64 id = 0;
            {
                auto q = makeQueue();
                id = added(q->add(requestFor(name, body, false, false), models()));
                QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 50000, kWaitMs);
            } // the app quits mid-file
            const qint64 kept = QFileInfo(part).size();
            QVERIFY(kept >= 50000 && kept < body.size());
            {
                DownloadStore store; // the Git id outlives the run
                QVERIFY(store.open(database()).isOk());
                QCOMPARE(store.record(id)->items[0].linkedEtag, gitBlobId(body));
            }
            if (damage) {
                QFile f(part);
                QVERIFY(f.open(QIODevice::ReadWrite));
                QVERIFY(f.seek(1000));
                QVERIFY(f.putChar(char(body[1000] ^ 1)));
            }
            auto q = makeQueue();
            QCOMPARE(settle(*q, id), damage ? DownloadState::Failed : DownloadState::Done);
            QCOMPARE(m_server->hitsFor(routeOf(name)).last().range, "bytes=" + QByteArray::number(kept) + '-');
            QCOMPARE(fileBytes(path), damage ? QByteArray() : body);
            QVERIFY(!QFileInfo::exists(part));
            if (damage)
                QVERIFY2(q->task(id)->progress().error.contains(QStringLiteral("Git object id does not match")),
                         qPrintable(q->task(id)->progress().error));
        }
    }

    void gitIdsAreNeverTakenForSha256s()
    {
        const QString git = gitBlobId("x"), sha = sha256("x");
        QVERIFY(isGitBlobId(git) && !isSha256(git));
        QVERIFY(isSha256(sha) && !isGitBlobId(sha));
        QVERIFY(!isGitBlobId(git.left(39)) && !isGitBlobId(git + QLatin1Char('0')) && !isGitBlobId(QString(40, QLatin1Char('g'))));
    }

    void fullDiskFailsThenResumes()
    {
        const QByteArray body = pattern(600000, 14);
        m_server->setRoute(routeOf(QStringLiteral("m.gguf")), {body});
        FullDiskLayer disk;
        disk.capacity = 250000;
        auto q = makeQueue(&disk);
        const qint64 id = added(q->add(requestFor(QStringLiteral("m.gguf"), body), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QVERIFY2(q->task(id)->progress().error.contains(QStringLiteral("disk is full")),
                 qPrintable(q->task(id)->progress().error));
        QCOMPARE(m_server->hits().size(), 1); // not retried: the user must make room
        QVERIFY(!QFileInfo::exists(QDir(models()).filePath(QStringLiteral("m.gguf"))));
        QCOMPARE(QFileInfo(QDir(models()).filePath(QStringLiteral("m.gguf.part"))).size(), 250000);
        // Room again: Retry resumes from the .part (read and hashed again first).
        disk.capacity = -1;
        q->resume(id);
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(m_server->hits().last().range, QByteArray("bytes=250000-"));
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("m.gguf"))), body);
    }

    void notEnoughSpaceIsRefusedBeforeStarting()
    {
        const QByteArray body = pattern(100000, 15);
        m_server->setRoute(routeOf(QStringLiteral("n.gguf")), {body});
        FullDiskLayer disk;
        disk.available = 50000;
        auto q = makeQueue(&disk);
        auto r = q->add(requestFor(QStringLiteral("n.gguf"), body), models());
        QVERIFY(!r.isOk());
        QVERIFY(QString::fromStdString(r.status().message()).contains(QStringLiteral("disk space")));
        QCOMPARE(m_server->hits().size(), 0);
        // Size unknown until the server says: refused then.
        auto r2 = q->add(requestFor(QStringLiteral("n.gguf"), body, true, false), models());
        QVERIFY(r2.isOk());
        QCOMPARE(settle(*q, *r2), DownloadState::Failed);
        QVERIFY(q->task(*r2)->progress().error.contains(QStringLiteral("disk space")));
    }

    void pauseAndResumeWithinARun()
    {
        const QByteArray body = pattern(400000, 16);
        HttpRoute route{body};
        route.trickleBytes = 10000;
        route.trickleMs = 10;
        m_server->setRoute(routeOf(QStringLiteral("o.gguf")), route);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("o.gguf"), body), models()));
        QTRY_VERIFY_WITH_TIMEOUT(q->task(id)->progress().receivedBytes >= 100000, kWaitMs);
        q->pause(id);
        QCOMPARE(q->task(id)->state(), DownloadState::Paused);
        const qint64 kept = QFileInfo(QDir(models()).filePath(QStringLiteral("o.gguf.part"))).size();
        QVERIFY(kept >= 100000 && kept < body.size());
        QTest::qWait(100);
        QCOMPARE(QFileInfo(QDir(models()).filePath(QStringLiteral("o.gguf.part"))).size(), kept);
        q->resume(id);
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(m_server->hits().last().range, "bytes=" + QByteArray::number(kept) + '-');
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("o.gguf"))), body);
    }

    void resumesAfterRestartFromThePart()
    {
        const QByteArray body = pattern(400000, 17);
        HttpRoute route{body};
        route.trickleBytes = 10000;
        route.trickleMs = 10;
        m_server->setRoute(routeOf(QStringLiteral("p.gguf")), route);
        qint64 id = 0, kept = 0;
        {
            auto q = makeQueue();
            id = added(q->add(requestFor(QStringLiteral("p.gguf"), body), models()));
            QTRY_VERIFY_WITH_TIMEOUT(q->task(id)->progress().receivedBytes >= 100000, kWaitMs);
        } // the app quits mid-download
        kept = QFileInfo(QDir(models()).filePath(QStringLiteral("p.gguf.part"))).size();
        QVERIFY(kept >= 100000 && kept < body.size());
        auto q = makeQueue();
        QVERIFY(q->task(id));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(m_server->hits().last().range, "bytes=" + QByteArray::number(kept) + '-');
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("p.gguf"))), body);
    }

    void cancelDeletesThePart()
    {
        const QByteArray body = pattern(400000, 18);
        HttpRoute route{body};
        route.trickleBytes = 10000;
        route.trickleMs = 10;
        m_server->setRoute(routeOf(QStringLiteral("q.gguf")), route);
        auto q = makeQueue();
        QSignalSpy removed(q.get(), &DownloadQueue::removed);
        const qint64 id = added(q->add(requestFor(QStringLiteral("q.gguf"), body), models()));
        QTRY_VERIFY_WITH_TIMEOUT(q->task(id)->progress().receivedBytes >= 50000, kWaitMs);
        q->cancel(id);
        QCOMPARE(removed.size(), 1);
        QVERIFY(!q->task(id));
        QCOMPARE(modelFiles(), QStringList());
        auto again = makeQueue(); // forgotten in the store too
        QVERIFY(again->snapshot().isEmpty());
    }

    void neverReplacesAFileItDidNotCreate()
    {
        const QByteArray body = pattern(1000, 19);
        m_server->setRoute(routeOf(QStringLiteral("r.gguf")), {body});
        QVERIFY(QDir().mkpath(models()));
        for (const QString& name : {QStringLiteral("r.gguf"), QStringLiteral("r.gguf.part")}) {
            const QString path = QDir(models()).filePath(name);
            QFile mine(path);
            QVERIFY(mine.open(QIODevice::WriteOnly));
            mine.write("the user's own bytes");
            mine.close();
            auto q = makeQueue();
            auto r = q->add(requestFor(QStringLiteral("r.gguf"), body), models());
            QVERIFY(!r.isOk());
            QVERIFY(QString::fromStdString(r.status().message()).contains(name));
            QCOMPARE(fileBytes(path), QByteArray("the user's own bytes"));
            QFile::remove(path);
        }
        QCOMPARE(m_server->hits().size(), 0);
    }

    void unsafeNamesAndAddressesAreRefused()
    {
        auto q = makeQueue();
        const QByteArray body = pattern(10, 20);
        for (const QString& bad : {QStringLiteral("../evil.gguf"), QStringLiteral("/etc/passwd"), QStringLiteral(".hidden.gguf"),
                                   QStringLiteral("a/b/c.gguf"), QStringLiteral("x\\y.gguf")}) {
            DownloadRequest r = requestFor(QStringLiteral("ok.gguf"), body);
            r.items[0].localPath = bad;
            QVERIFY2(!q->add(r, models()).isOk(), qPrintable(bad));
            r = requestFor(QStringLiteral("ok.gguf"), body);
            r.localName = bad;
            QVERIFY2(!q->add(r, models()).isOk(), qPrintable(bad));
        }
        QVERIFY(isAllowedDownloadUrl(QUrl(QStringLiteral("https://huggingface.co/x"))));
        QVERIFY(isAllowedDownloadUrl(QUrl(QStringLiteral("http://127.0.0.1:8080/x"))));
        QVERIFY(isAllowedDownloadUrl(QUrl(QStringLiteral("http://[::1]:8080/x"))));
        QVERIFY(isAllowedDownloadUrl(QUrl(QStringLiteral("http://localhost/x"))));
        QVERIFY(!isAllowedDownloadUrl(QUrl(QStringLiteral("http://huggingface.co/x"))));
        QVERIFY(!isAllowedDownloadUrl(QUrl(QStringLiteral("ftp://127.0.0.1/x"))));
        QVERIFY(!isAllowedDownloadUrl(QUrl(QStringLiteral("https://user:pw@huggingface.co/x"))));
        q->setEndpoint(QStringLiteral("http://example.invalid"));
        QVERIFY(!q->add(requestFor(QStringLiteral("ok.gguf"), body), models()).isOk());
        QCOMPARE(m_server->hits().size(), 0);
    }

    void redirectToPlainHttpElsewhereIsRefused()
    {
        HttpRoute hop{};
        hop.redirectTo = "http://example.invalid/file";
        m_server->setRoute(routeOf(QStringLiteral("s.gguf")), hop);
        auto q = makeQueue();
        const qint64 id = added(q->add(requestFor(QStringLiteral("s.gguf"), pattern(10, 21)), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QVERIFY(q->task(id)->progress().error.contains(QStringLiteral("HTTPS")));
        QCOMPARE(modelFiles(), QStringList()); // not even an empty .part
    }

    void multiPartGgufIsOneModel()
    {
        const QByteArray one = pattern(200000, 22), two = pattern(150000, 23);
        const QString n1 = QStringLiteral("big-00001-of-00002.gguf"), n2 = QStringLiteral("big-00002-of-00002.gguf");
        HttpRoute r1{one};
        r1.dropAfter = 50000;
        r1.dropTimes = 1;
        m_server->setRoute(routeOf(n1), r1);
        m_server->setRoute(routeOf(n2), {two});
        DownloadRequest r = requestFor(n1, one);
        r.key = QStringLiteral("test:big");
        r.items << requestFor(n2, two).items.first();
        auto q = makeQueue();
        QSignalSpy registered(q.get(), &DownloadQueue::registered);
        const qint64 id = added(q->add(r, models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(registered.size(), 1);
        QCOMPARE(registered[0][2].toString(), QDir(models()).filePath(n1));
        QCOMPARE(q->task(id)->progress().totalBytes, qint64(one.size() + two.size()));
        QCOMPARE(fileBytes(QDir(models()).filePath(n1)), one);
        QCOMPARE(fileBytes(QDir(models()).filePath(n2)), two);
        QCOMPARE(modelFiles(), (QStringList{n1, n2}));
    }

    void indexedVariantFetchesTheShardsItNames()
    {
        const QStringList names{QStringLiteral("model-00001-of-00003.safetensors"), QStringLiteral("model-00002-of-00003.safetensors"),
                                QStringLiteral("model-00003-of-00003.safetensors")};
        const QList<QByteArray> shards{pattern(50000, 40), pattern(60000, 41), pattern(70000, 42)};
        const qint64 small = serveSourceFiles();
        const qint64 tensorBytes = 180000 - 3000; // the index counts the tensors, not the shards' headers
        const QByteArray index = shardIndexJson(names, tensorBytes);
        serve(QString::fromLatin1(kShardIndexName), index);
        for (int i = 0; i < 3; ++i)
            serve(names[i], shards[i]);
        serve(QStringLiteral("model-00004-of-00004.safetensors"), "not in the index");
        auto q = makeQueue();
        QList<DownloadProgress> seen;
        connect(q.get(), &DownloadQueue::changed, this, [&seen](const DownloadProgress& p) { seen << p; });
        const qint64 id = added(q->add(indexedRequest(), models()));
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(q->task(id)->progress().path, source().chopped(1));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(fileBytes(source(names[i])), shards[i]);
        QCOMPARE(fileBytes(source(QString::fromLatin1(kShardIndexName))), index);
        QCOMPARE(QDir(source()).entryList(QDir::Files | QDir::Hidden, QDir::Name),
                 (QStringList{"chat_template.jinja", "config.json", names[0], names[1], names[2],
                              "model.safetensors.index.json", "tokenizer.json"}));
        QCOMPARE(modelFiles(), QStringList{QStringLiteral("repo")});
        QCOMPARE(findModelPaths(models()), QStringList{source().chopped(1)});
        // Each file asked for once; the optional file the server lacks once (404, skipped); the
        // shard the index does not name never.
        for (const HttpHit& hit : m_server->hits())
            QCOMPARE(m_server->hitsFor(hit.path).size(), 1);
        QCOMPARE(m_server->hits().size(), 8);
        QCOMPARE(m_server->hitsFor(routeOf(QStringLiteral("generation_config.json"))).first().status, 404);
        QVERIFY(m_server->hitsFor(routeOf(QStringLiteral("model-00004-of-00004.safetensors"))).isEmpty());
        // The index's total (and the files known then) stood in until the shards' sizes were known.
        const qint64 others = small + index.size(), exact = others + 180000;
        QVERIFY(std::any_of(seen.begin(), seen.end(), [&](const DownloadProgress& p) {
            return p.state == DownloadState::Running && p.totalBytes == others + tensorBytes;
        }));
        QCOMPARE(q->task(id)->progress().totalBytes, exact);
        const DownloadRecord& record = q->task(id)->record();
        QCOMPARE(record.items.size(), 7);
        QCOMPARE(record.estimatedBytes, others + tensorBytes);
        QCOMPARE(record.items.last().item.localPath, QStringLiteral("repo/") + names[2]);
        QCOMPARE(record.items.last().item.remotePath, names[2]);
    }

    void hostileIndexFailsAndKeepsNothing_data()
    {
        QTest::addColumn<QByteArray>("index");
        QTest::addColumn<QString>("reason");
        QTest::newRow("parent") << shardIndexJson({"model-00001-of-00002.safetensors", "../x.safetensors"}, 1000)
                                << QStringLiteral("cannot be used: the index names the shard '../x.safetensors'");
        QTest::newRow("suffix") << shardIndexJson({"model.bin"}, 1000)
                                << QStringLiteral("cannot be used: the index names the shard 'model.bin', which is not a .safetensors file");
        QStringList many;
        for (int i = 0; i <= kMaxShards; ++i)
            many << QStringLiteral("s%1.safetensors").arg(i, 4, 10, QLatin1Char('0'));
        QTest::newRow("too many") << shardIndexJson(many, 1000) << QStringLiteral("cannot be used: the index names more than 1000 shards");
        QByteArray huge = shardIndexJson({"m.safetensors"}, 1000);
        huge.insert(1, QByteArray(kMaxShardIndexBytes, ' '));
        QTest::newRow("huge") << huge << QStringLiteral("too large for a safetensors index");
    }

    void hostileIndexFailsAndKeepsNothing()
    {
        QFETCH(QByteArray, index);
        QFETCH(QString, reason);
        serveSourceFiles();
        serve(QString::fromLatin1(kShardIndexName), index);
        auto q = makeQueue();
        const qint64 id = added(q->add(indexedRequest(), models()));
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        const QString error = q->task(id)->progress().error;
        QVERIFY2(error.startsWith(QStringLiteral("repo/model.safetensors.index.json ")) && error.contains(reason),
                 qPrintable(error.left(300)));
        // No shard asked for, nothing of the index kept, nothing outside the model's folder, and
        // nothing a scan takes for a model: only the verified files' .part, for a Retry.
        for (const HttpHit& hit : m_server->hits())
            QVERIFY2(!hit.path.endsWith(".safetensors"), hit.path.constData());
        QCOMPARE(modelFiles(), QStringList{QStringLiteral("repo")});
        QCOMPARE(QDir(source()).entryList(QDir::Files | QDir::Hidden, QDir::Name),
                 (QStringList{"chat_template.jinja.part", "config.json.part", "tokenizer.json.part"}));
        QDirIterator all(m_dir->path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (all.hasNext()) {
            const QString path = all.next();
            QVERIFY2(path.startsWith(source()) || QFileInfo(path).fileName().startsWith(QStringLiteral("history.sqlite")),
                     qPrintable(path));
        }
        QVERIFY(findModelPaths(models()).isEmpty());
        QCOMPARE(q->task(id)->record().items.size(), 4); // no shard joined the list
        // Retry asks for the index again (and refuses it again).
        q->resume(id);
        QCOMPARE(settle(*q, id), DownloadState::Failed);
        QCOMPARE(m_server->hitsFor(routeOf(QString::fromLatin1(kShardIndexName))).size(), 2);
        QVERIFY(findModelPaths(models()).isEmpty());
    }

    void indexedVariantResumesAfterRestart()
    {
        const QStringList names{QStringLiteral("model-00001-of-00003.safetensors"), QStringLiteral("model-00002-of-00003.safetensors"),
                                QStringLiteral("model-00003-of-00003.safetensors")};
        QList<QByteArray> shards;
        const qint64 small = serveSourceFiles();
        const QByteArray index = shardIndexJson(names, 600000);
        serve(QString::fromLatin1(kShardIndexName), index);
        for (int i = 0; i < 3; ++i) {
            shards << pattern(200000, 50 + i);
            HttpRoute route;
            route.trickleBytes = 10000;
            route.trickleMs = 10;
            serve(names[i], shards[i], route);
        }
        const QString part = source(names[1] + QStringLiteral(".part"));
        qint64 id = 0;
        {
            auto q = makeQueue();
            id = added(q->add(indexedRequest(), models()));
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 50000, kWaitMs);
        } // the app quits in the middle of the second shard
        const qint64 kept = QFileInfo(part).size();
        QVERIFY(kept >= 50000 && kept < 200000);
        {
            // The store holds the list the index made: the first shard done, the second under way.
            DownloadStore store;
            QVERIFY(store.open(database()).isOk());
            const auto record = store.record(id);
            QVERIFY(record.isOk());
            QCOMPARE(record->items.size(), 7);
            QCOMPARE(record->items[4].item.localPath, QStringLiteral("repo/") + names[0]);
            QVERIFY(record->items[3].item.listsShards && record->items[3].complete && record->items[4].complete);
            QVERIFY(!record->items[5].complete);
            QCOMPARE(record->estimatedBytes, 600000 + small + index.size());
        }
        auto q = makeQueue();
        QCOMPARE(settle(*q, id), DownloadState::Done);
        QCOMPARE(m_server->hitsFor(routeOf(QString::fromLatin1(kShardIndexName))).size(), 1); // not asked again
        QCOMPARE(m_server->hitsFor(routeOf(names[0])).size(), 1);
        QCOMPARE(m_server->hitsFor(routeOf(names[1])).size(), 2);
        QCOMPARE(m_server->hitsFor(routeOf(names[1])).last().range, "bytes=" + QByteArray::number(kept) + '-');
        QCOMPARE(m_server->hitsFor(routeOf(names[2])).size(), 1);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(fileBytes(source(names[i])), shards[i]);
        QCOMPARE(findModelPaths(models()), QStringList{source().chopped(1)});
    }

    void listModelRunsDownloadsOnItsThread()
    {
        // What the library page uses: Downloads, with the catalog and the settings, the queue on
        // a thread of its own, rows following it.
        const QByteArray body = pattern(300000, 30);
        HttpRoute route{body};
        route.trickleBytes = 20000;
        route.trickleMs = 10;
        m_server->setRoute(routeOf(QStringLiteral("tiny-Q8_0.gguf")), route);
        const QString catalog = m_dir->filePath(QStringLiteral("catalog.json"));
        QFile file(catalog);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(testCatalog({{QStringLiteral("Q8_0"), QStringLiteral("tiny-Q8_0.gguf")},
                                {QStringLiteral("Q6_K"), QStringLiteral("tiny-Q6_K.gguf")}},
                               {body, "x"}, {QStringLiteral("Q6_K")}));
        file.close();
        qputenv("HEARTH_CATALOG", catalog.toUtf8());
        qunsetenv("HEARTH_HF_ENDPOINT");
        AppSettings settings(m_dir->filePath(QStringLiteral("settings.ini")));
        settings.setModelsFolder(models());
        settings.setHfEndpoint(QString::fromLatin1(m_server->baseUrl()));
        DownloadListModel downloads(nullptr);
        downloads.start(database(), &settings, nullptr);

        const QVariantMap about = downloads.describe(QStringLiteral("tiny:q8_0"));
        QCOMPARE(about.value(QStringLiteral("license")).toString(), QStringLiteral("apache-2.0"));
        QCOMPARE(about.value(QStringLiteral("licenseUrl")).toString(), QStringLiteral("https://example.com/license"));
        QCOMPARE(about.value(QStringLiteral("sizeBytes")).toDouble(), double(body.size()));
        QVERIFY(!downloads.describe(QStringLiteral("nothing:Q4_K_M")).value(QStringLiteral("error")).toString().isEmpty());
        QSignalSpy refused(&downloads, &DownloadListModel::errorOccurred);
        QVERIFY(!downloads.download(QStringLiteral("tiny:Q6_K"))); // coming: not offered
        QCOMPARE(refused.size(), 1);

        QSignalSpy registered(&downloads, &DownloadListModel::registered);
        QStringList summaries;
        connect(&downloads, &DownloadListModel::summaryChanged, this, [&] { summaries << downloads.summary(); });
        QVERIFY(downloads.download(QStringLiteral("tiny:q8_0")));
        QTRY_COMPARE_WITH_TIMEOUT(downloads.rowCount(), 1, kWaitMs);
        const QModelIndex row = downloads.index(0);
        QTRY_COMPARE_WITH_TIMEOUT(row.data(DownloadListModel::StateRole).toString(), QStringLiteral("done"), kWaitMs);
        QCOMPARE(registered.size(), 1);
        QCOMPARE(row.data(DownloadListModel::FractionRole).toDouble(), 1.0);
        QCOMPARE(row.data(DownloadListModel::PathRole).toString(), QDir(models()).filePath(QStringLiteral("tiny-Q8_0.gguf")));
        QCOMPARE(row.data(DownloadListModel::LicenseRole).toString(), QStringLiteral("apache-2.0"));
        QVERIFY(!row.data(DownloadListModel::CanPauseRole).toBool());
        QCOMPARE(downloads.activeCount(), 0);
        QVERIFY(downloads.summary().isEmpty());
        QVERIFY2(std::any_of(summaries.begin(), summaries.end(), [](const QString& s) { return s.contains('%'); }),
                 qPrintable(summaries.join('|')));
        QCOMPARE(fileBytes(QDir(models()).filePath(QStringLiteral("tiny-Q8_0.gguf"))), body);

        // Cancel on a finished download forgets the row, not the model.
        downloads.cancel(row.data(DownloadListModel::IdRole).toLongLong());
        QTRY_COMPARE_WITH_TIMEOUT(downloads.rowCount(), 0, kWaitMs);
        QVERIFY(QFileInfo::exists(QDir(models()).filePath(QStringLiteral("tiny-Q8_0.gguf"))));
        qunsetenv("HEARTH_CATALOG");
    }

    void storeUpgradesAnOlderHistoryAndRoundTrips()
    {
        const QString path = m_dir->filePath(QStringLiteral("v2.sqlite"));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v2"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QVERIFY(store::migrate(db, 2).isOk()); // what the Hearth before downloads wrote
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("INSERT INTO conversations (id, title, created, updated) VALUES (7, 'kept', 1, 2)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v2"));
        DownloadStore downloads;
        QVERIFY(downloads.open(path).isOk());
        DownloadRequest r = requestFor(QStringLiteral("x.gguf"), "abc", false, false);
        r.items << requestFor(QStringLiteral("y.gguf"), "defg").items.first();
        const auto id = downloads.insert(r, QStringLiteral("/models"));
        QVERIFY(id.isOk());
        DownloadItemRecord item{r.items[0], 2, QStringLiteral("etag"), false};
        item.item.expectedBytes = 3; // the server told
        QVERIFY(downloads.saveItem(*id, 0, item).isOk());
        QVERIFY(downloads.setState(*id, DownloadState::Paused, QStringLiteral("why")).isOk());
        const auto back = downloads.record(*id);
        QVERIFY(back.isOk());
        QCOMPARE(back->state, DownloadState::Paused);
        QCOMPARE(back->error, QStringLiteral("why"));
        QCOMPARE(back->folder, QStringLiteral("/models"));
        QCOMPARE(back->items.size(), 2);
        QCOMPARE(back->items[0].item.expectedBytes, 3);
        QCOMPARE(back->request.items[0].expectedBytes, -1); // the catalog's promise stays unknown
        QCOMPARE(back->items[0].received, 2);
        QCOMPARE(back->items[0].linkedEtag, QStringLiteral("etag"));
        QCOMPARE(back->items[1].item.sha256, sha256("defg"));
        QCOMPARE(back->items[1].item.expectedBytes, 4);
        downloads.close();
        store::ConversationStore history; // the chat history is still there, at the new version
        QVERIFY(history.open(path).isOk());
        const auto kept = history.conversation(7);
        QVERIFY(kept.isOk());
        QCOMPARE(kept->title, QStringLiteral("kept"));
        QVERIFY(history.checkIntegrity().isOk());
        QVERIFY(downloads.open(path).isOk());
        QVERIFY(downloads.remove(*id).isOk());
        QVERIFY(downloads.list()->isEmpty());
    }

    void storeUpgradesVersion3DownloadsAndSavesChangedLists()
    {
        const QString path = m_dir->filePath(QStringLiteral("v3.sqlite"));
        {
            // A download as the Hearth before optional files and shard indexes kept it.
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v3"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QVERIFY(store::migrate(db, 3).isOk());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("INSERT INTO downloads (id, key, name, local_name, entry_path, folder, state, "
                                          "created, updated) VALUES (5, 'k:Q8_0', 'K', 'k.gguf', 'k.gguf', '/models', "
                                          "'paused', 1, 2)")));
            QVERIFY(q.exec(QStringLiteral("INSERT INTO download_files (download_id, position, repo, remote_path, revision, "
                                          "local_path, size, received) VALUES (5, 0, 'o/r', 'k.gguf', 'main', 'k.gguf', "
                                          "900, 300)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v3"));
        DownloadStore downloads;
        QVERIFY(downloads.open(path).isOk());
        auto old = downloads.record(5);
        QVERIFY(old.isOk());
        QCOMPARE(old->state, DownloadState::Paused);
        QCOMPARE(old->items.size(), 1);
        QCOMPARE(old->items[0].received, 300);
        QCOMPARE(old->items[0].item.expectedBytes, 900);
        QVERIFY(!old->items[0].item.optional && !old->items[0].item.listsShards);
        QCOMPARE(old->estimatedBytes, -1);
        // A list that changed (an index added a shard, an optional file stays optional) is kept whole.
        DownloadRequest r = requestFor(QStringLiteral("x.json"), "index", false, false);
        r.items[0].listsShards = true;
        r.items << requestFor(QStringLiteral("extra.jinja"), "t").items.first();
        r.items[1].optional = true;
        const auto id = downloads.insert(r, QStringLiteral("/models"));
        QVERIFY(id.isOk());
        auto inserted = downloads.record(*id);
        QVERIFY(inserted.isOk());
        DownloadRecord record = *inserted;
        QVERIFY(record.items[0].item.listsShards && !record.items[0].item.optional);
        QVERIFY(record.items[1].item.optional && !record.items[1].item.listsShards);
        record.items[0].complete = true;
        record.items[0].item.expectedBytes = 5;
        record.items.removeAt(1); // the optional file was not on the server
        record.request.items.removeAt(1);
        const DownloadItem shard{QStringLiteral("test/repo"), QStringLiteral("m.safetensors"), QStringLiteral("main"),
                                 QStringLiteral("m.safetensors")};
        record.items << DownloadItemRecord{shard};
        record.request.items << shard;
        record.estimatedBytes = 12345;
        QVERIFY(downloads.saveItems(record).isOk());
        const auto back = downloads.record(*id);
        QVERIFY(back.isOk());
        QCOMPARE(back->items.size(), 2);
        QVERIFY(back->items[0].complete && back->items[0].item.listsShards);
        QCOMPARE(back->items[0].item.expectedBytes, 5);
        QCOMPARE(back->request.items[0].expectedBytes, -1); // what the catalog promised stays
        QCOMPARE(back->items[1].item.localPath, QStringLiteral("m.safetensors"));
        QVERIFY(!back->items[1].complete && !back->items[1].item.optional);
        QCOMPARE(back->estimatedBytes, 12345);
        // Progress by position reaches the new list, and only it.
        DownloadItemRecord progress = back->items[1];
        progress.received = 7;
        QVERIFY(downloads.saveItem(*id, 1, progress).isOk());
        QCOMPARE(downloads.record(*id)->items[1].received, 7);
        QCOMPARE(downloads.saveItem(*id, 2, progress).code(), hearth::StatusCode::NotFound);
        record.id = 999; // not a download: refused, nothing written
        QVERIFY(!downloads.saveItems(record).isOk());
        QCOMPARE(downloads.list()->size(), 2);
    }

    void endpointAndUrls()
    {
        DownloadItem item{QStringLiteral("Qwen/Qwen3-8B-GGUF"), QStringLiteral("Q8_0/a b#1.gguf"), QStringLiteral("main"),
                          QStringLiteral("a.gguf")};
        QCOMPARE(itemUrl(QStringLiteral("https://huggingface.co"), item).toString(QUrl::FullyEncoded),
                 QStringLiteral("https://huggingface.co/Qwen/Qwen3-8B-GGUF/resolve/main/Q8_0/a%20b%231.gguf"));
        QCOMPARE(itemUrl(QStringLiteral("http://127.0.0.1:9/mirror"), item).toString(QUrl::FullyEncoded),
                 QStringLiteral("http://127.0.0.1:9/mirror/Qwen/Qwen3-8B-GGUF/resolve/main/Q8_0/a%20b%231.gguf"));
        qunsetenv("HEARTH_HF_ENDPOINT");
        QCOMPARE(chooseHfEndpoint({}), QStringLiteral("https://huggingface.co"));
        QCOMPARE(chooseHfEndpoint(QStringLiteral("https://mirror.example/")), QStringLiteral("https://mirror.example"));
        qputenv("HEARTH_HF_ENDPOINT", "http://127.0.0.1:1234");
        QCOMPARE(chooseHfEndpoint(QStringLiteral("https://mirror.example")), QStringLiteral("http://127.0.0.1:1234"));
        qunsetenv("HEARTH_HF_ENDPOINT");
    }
};

QTEST_GUILESS_MAIN(TestDownloads)
#include "tst_downloads.moc"
