// `hearth --pull` (the real executable, headless) against a loopback HTTP server that trickles
// the file: killed with SIGKILL mid-download, started again, it resumes from the .part with a
// Range request where the file ended, verifies the SHA-256 and exits 0 with the model in the
// models folder and nothing else there. The same for a 16-bit source whose shards come from its
// index: killed in the middle of a shard, the next run resumes that shard from the list the index
// made, without asking for the index again. Also: a spec the catalog does not have exits 2.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "apprunner.h"
#include "apptestdata.h"
#include "downloadstore.h"
#include "httptestserver.h"

namespace {

constexpr int kRunMs = 60000;

QByteArray pattern(qint64 size)
{
    QByteArray out(size, Qt::Uninitialized);
    quint32 x = 88172645u;
    for (qint64 i = 0; i < size; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = char(x);
    }
    return out;
}

} // namespace

class TestDownloadKill : public QObject
{
    Q_OBJECT

private slots:
    void killedMidDownloadResumesFromThePart()
    {
        AppRunner runner;
        QVERIFY(runner.isValid());
        HttpTestServer server;
        QVERIFY(server.listen());
        const QString name = QStringLiteral("tiny-Q8_0.gguf");
        const QByteArray body = pattern(2 << 20);
        HttpRoute route{body};
        route.trickleBytes = 16384;
        route.trickleMs = 10; // ~1.6 MB/s: about 1.3 s for the whole file
        server.setRoute("/test/repo/resolve/main/" + name.toUtf8(), route);
        const QString catalog = runner.home() + QStringLiteral("/catalog.json");
        QFile out(catalog);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(testCatalog({{QStringLiteral("Q8_0"), name}}, {body}));
        out.close();
        QProcessEnvironment env;
        env.insert(QStringLiteral("HEARTH_CATALOG"), catalog);
        env.insert(QStringLiteral("HEARTH_HF_ENDPOINT"), QString::fromLatin1(server.baseUrl()));
        env.insert(QStringLiteral("HF_TOKEN"), QStringLiteral("hf_test")); // no keyring asked
        const QString db = runner.home() + QStringLiteral("/history.sqlite");
        const QStringList args{QStringLiteral("--pull"), QStringLiteral("tiny:q8_0"), QStringLiteral("--database"), db};
        const QDir models(runner.home() + QStringLiteral("/data/hearth/models"));
        const QString part = models.filePath(name + QStringLiteral(".part"));

        auto app = runner.start(args, env);
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 400000, kRunMs);
        app->kill(); // SIGKILL: no handler, no destructor, no last save
        QVERIFY(app->waitForFinished(10000));
        QCOMPARE(app->exitStatus(), QProcess::CrashExit);
        const qint64 kept = QFileInfo(part).size();
        QVERIFY2(kept >= 400000 && kept < body.size(), qPrintable(QString::number(kept)));
        QVERIFY(!QFileInfo::exists(models.filePath(name)));
        QCOMPARE(server.hits().size(), 1);
        QCOMPARE(server.hits()[0].authorization, QByteArray("Bearer hf_test"));

        // The server answers on this thread: wait with the event loop running.
        app = runner.start(args, env);
        QTRY_VERIFY_WITH_TIMEOUT(app->state() == QProcess::NotRunning, kRunMs);
        QCOMPARE(app->exitStatus(), QProcess::NormalExit);
        QCOMPARE(app->exitCode(), 0);
        QCOMPARE(server.hits().size(), 2);
        QCOMPARE(server.hits()[1].range, "bytes=" + QByteArray::number(kept) + '-');
        QFile model(models.filePath(name));
        QVERIFY(model.open(QIODevice::ReadOnly));
        QVERIFY(model.readAll() == body);
        QCOMPARE(models.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList{name});
        DownloadStore store;
        QVERIFY(store.open(db).isOk());
        const auto records = store.list();
        QVERIFY(records.isOk());
        QCOMPARE(records->size(), 1);
        QCOMPARE(records->first().state, DownloadState::Done);

        // Pulled again: already there, nothing downloaded, exit 0.
        app = runner.start(args, env);
        QTRY_VERIFY_WITH_TIMEOUT(app->state() == QProcess::NotRunning, kRunMs);
        QCOMPARE(app->exitCode(), 0);
        QCOMPARE(server.hits().size(), 2);
    }

    void killedMidShardResumesTheIndexedList()
    {
        AppRunner runner;
        QVERIFY(runner.isValid());
        HttpTestServer server;
        QVERIFY(server.listen());
        const auto serve = [&server](const QString& name, const QByteArray& body, int trickle = 0) {
            HttpRoute route{body};
            route.headers = {{"X-Linked-Etag", '"' + QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex() + '"'}};
            route.trickleBytes = trickle;
            route.trickleMs = 10;
            server.setRoute("/test/repo/resolve/main/" + name.toUtf8(), route);
        };
        const QStringList names{QStringLiteral("model-00001-of-00002.safetensors"), QStringLiteral("model-00002-of-00002.safetensors")};
        const QList<QByteArray> shards{pattern(600000), pattern(700000).right(600000)};
        QJsonObject map;
        for (const QString& name : names)
            map[name + QStringLiteral(".weight")] = name;
        serve(QStringLiteral("config.json"), "{}");
        serve(QStringLiteral("model.safetensors.index.json"), QJsonDocument(QJsonObject{{"weight_map", map}}).toJson());
        for (int i = 0; i < 2; ++i)
            serve(names[i], shards[i], 16384); // ~1.6 MB/s: about 0.4 s a shard
        const auto file = [](const char* path) { return QJsonObject{{"repo", "test/repo"}, {"path", path}}; };
        const QJsonObject variant{{"quant", "BF16"}, {"format", "safetensors"}, {"shardsFromIndex", true},
                                  {"files", QJsonArray{file("config.json"), file("model.safetensors.index.json")}}};
        const QJsonObject family{{"id", "src"}, {"name", "Source"}, {"license", "apache-2.0"},
                                 {"shape", QJsonObject{{"architecture", "qwen35"}}}, {"variants", QJsonArray{variant}}};
        const QString catalog = runner.home() + QStringLiteral("/catalog.json");
        QFile out(catalog);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(QJsonObject{{"schemaVersion", 1}, {"families", QJsonArray{family}}}).toJson());
        out.close();
        QProcessEnvironment env;
        env.insert(QStringLiteral("HEARTH_CATALOG"), catalog);
        env.insert(QStringLiteral("HEARTH_HF_ENDPOINT"), QString::fromLatin1(server.baseUrl()));
        env.insert(QStringLiteral("HF_TOKEN"), QStringLiteral("hf_test"));
        const QStringList args{QStringLiteral("--pull"), QStringLiteral("src:bf16"), QStringLiteral("--database"),
                               runner.home() + QStringLiteral("/history.sqlite")};
        const QDir folder(runner.home() + QStringLiteral("/data/hearth/models/repo"));
        const QString part = folder.filePath(names[1] + QStringLiteral(".part"));

        auto app = runner.start(args, env);
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 100000, kRunMs);
        app->kill();
        QVERIFY(app->waitForFinished(10000));
        const qint64 kept = QFileInfo(part).size();
        QVERIFY2(kept >= 100000 && kept < shards[1].size(), qPrintable(QString::number(kept)));

        app = runner.start(args, env);
        QTRY_VERIFY_WITH_TIMEOUT(app->state() == QProcess::NotRunning, kRunMs);
        QCOMPARE(app->exitCode(), 0);
        QCOMPARE(server.hitsFor("/test/repo/resolve/main/model.safetensors.index.json").size(), 1);
        QCOMPARE(server.hitsFor("/test/repo/resolve/main/" + names[0].toUtf8()).size(), 1);
        const QList<HttpHit> resumed = server.hitsFor("/test/repo/resolve/main/" + names[1].toUtf8());
        QCOMPARE(resumed.size(), 2);
        QCOMPARE(resumed[1].range, "bytes=" + QByteArray::number(kept) + '-');
        for (int i = 0; i < 2; ++i) {
            QFile shard(folder.filePath(names[i]));
            QVERIFY(shard.open(QIODevice::ReadOnly));
            QVERIFY(shard.readAll() == shards[i]);
        }
        QCOMPARE(folder.entryList(QDir::Files | QDir::Hidden, QDir::Name),
                 (QStringList{"config.json", names[0], names[1], "model.safetensors.index.json"}));
    }

    void unknownSpecExitsTwo()
    {
        AppRunner runner;
        QVERIFY(runner.isValid());
        auto app = runner.start({QStringLiteral("--pull"), QStringLiteral("no-such-model:Q4_K_M")});
        QVERIFY(app->waitForFinished(kRunMs));
        QCOMPARE(app->exitCode(), 2);
    }
};

APPTEST_MAIN(TestDownloadKill)
#include "tst_downloadkill.moc"
