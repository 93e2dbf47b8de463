// The remote backend against Hearth's own OpenAI-compatible server: `hearth-cli serve` on
// 127.0.0.1 with a scripted Qwen3-shaped model (the real Qwen3 tokenizer and template) whose
// greedy reply is known: the app lists the served model, and a chat turn streams the thinking
// into reasoning and the answer into content with the server's usage, then the key check: a
// server started with --api-key refuses a wrong key with 401, and the app says so. Exits 77
// (skipped) when this hearth-cli has no `serve` command, or without the tokenizer test data.
#include <QProcess>
#include <QTcpServer>
#include <QTest>

#include <cstdio>
#include <filesystem>

#include "apptestdata.h"
#include "baseurl.h"
#include "openaiclient.h"
#include "remotebackend.h"
#include "scripted_model.h"

namespace {

constexpr int kWaitMs = 60000;

bool serveExists()
{
    QProcess help;
    help.start(QStringLiteral(HEARTH_CLI), {QStringLiteral("serve"), QStringLiteral("--help")});
    return help.waitForFinished(30000) && help.exitStatus() == QProcess::NormalExit && help.exitCode() == 0;
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort(); // given back when probe goes; the server takes it next
}

} // namespace

class TestHearthServe : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void chatWithHearthsServer();
    void wrongKeyIsRefused();

private:
    // Starts the server on a free port (with `apiKey` when set); false when it does not answer.
    bool startServer(const QString& apiKey = {});
    RemoteConnection connection(const QString& model) const;

    QString m_model;
    quint16 m_port = 0;
    std::unique_ptr<QProcess> m_server;
};

void TestHearthServe::initTestCase()
{
    APPTEST_DATA(tokenizer, "models/qwen3-tokenizer/tokenizer.json");
    const QString dir = apptest::scratchDir(QStringLiteral("hearthserve"));
    m_model = QString::fromStdString(
        hearth::test::writeThinkingQwen3(dir.toStdString(), tokenizer.toStdString(), hearth::test::ThinkingReply{}).string());
    QVERIFY(!m_model.isEmpty());
}

void TestHearthServe::cleanup()
{
    if (m_server) {
        m_server->terminate();
        if (!m_server->waitForFinished(10000))
            m_server->kill();
        m_server.reset();
    }
}

bool TestHearthServe::startServer(const QString& apiKey)
{
    m_port = freePort();
    m_server = std::make_unique<QProcess>();
    m_server->setProcessChannelMode(QProcess::ForwardedChannels);
    QStringList args{QStringLiteral("serve"), QStringLiteral("-m"), m_model, QStringLiteral("--host"),
                     QStringLiteral("127.0.0.1"), QStringLiteral("--port"), QString::number(m_port)};
    if (!apiKey.isEmpty())
        args << QStringLiteral("--api-key") << apiKey;
    m_server->start(QStringLiteral(HEARTH_CLI), args);
    if (!m_server->waitForStarted(10000))
        return false;
    // Ready when its model list answers (GET /health would do as well).
    OpenAiClient probe;
    probe.setServer(remote::parseBaseUrl(QStringLiteral("127.0.0.1:%1").arg(m_port)).url, apiKey.toUtf8());
    bool up = false;
    connect(&probe, &OpenAiClient::modelsListed, this, [&] { up = true; });
    for (int tries = 0; tries < 120 && !up && m_server->state() == QProcess::Running; ++tries) {
        probe.listModels(2000);
        QTest::qWait(500);
    }
    return up;
}

RemoteConnection TestHearthServe::connection(const QString& model) const
{
    RemoteConnection c;
    c.id = QStringLiteral("hearth");
    c.name = QStringLiteral("Hearth");
    c.baseUrl = remote::parseBaseUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port)).url;
    c.model = model;
    return c;
}

void TestHearthServe::chatWithHearthsServer()
{
    QVERIFY2(startServer(), "hearth-cli serve did not answer");
    OpenAiClient client;
    client.setServer(connection({}).baseUrl, {});
    QList<openai::RemoteModel> models;
    connect(&client, &OpenAiClient::modelsListed, this, [&](quint64, const QList<openai::RemoteModel>& list) { models = list; });
    client.listModels();
    QTRY_VERIFY_WITH_TIMEOUT(!models.isEmpty(), kWaitMs);

    RemoteBackend backend;
    backend.connectTo(connection(models.constFirst().id), {});
    QTRY_COMPARE_WITH_TIMEOUT(backend.state(), RemoteBackend::State::Ready, kWaitMs);
    TurnRequest request;
    request.userText = QStringLiteral("What is 2 + 2?");
    request.sampling = hearth::SamplingParams{}; // greedy: the scripted reply
    request.maxTokens = 64;
    QString content, reasoning;
    bool done = false;
    ReplyResult result;
    const quint64 id = backend.startTurn(request);
    connect(&backend, &ReplyBackend::replyPieces, this, [&](quint64 at, const QString& c, const QString& r) {
        if (at == id) {
            content += c;
            reasoning += r;
        }
    });
    connect(&backend, &ReplyBackend::replyFinished, this, [&](quint64 at, const ReplyResult& r) {
        if (at == id) {
            result = r;
            done = true;
        }
    });
    connect(&backend, &ReplyBackend::replyFailed, this, [&](quint64 at, const ReplyFailure& f) {
        if (at == id) {
            qWarning("failed: %s", qPrintable(f.error.message));
            done = true;
        }
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, kWaitMs);
    const hearth::test::ThinkingReply scripted;
    QCOMPARE(result.reasoning.trimmed(), QString::fromStdString(scripted.reasoning));
    QCOMPARE(result.content.trimmed(), QString::fromStdString(scripted.answer));
    QCOMPARE(content, result.content);
    QCOMPARE(reasoning, result.reasoning);
    QCOMPARE(result.stopReason, QStringLiteral("eos"));
    QVERIFY(result.stats.promptTokens > 0);
    QVERIFY(result.stats.tokens > 0);
    QVERIFY(result.stats.ttftMs >= 0);
}

void TestHearthServe::wrongKeyIsRefused()
{
    QVERIFY2(startServer(QStringLiteral("right-key")), "hearth-cli serve --api-key did not answer");
    OpenAiClient client;
    client.setServer(connection({}).baseUrl, "wrong-key");
    QString message;
    connect(&client, &OpenAiClient::modelsFailed, this, [&](quint64, const QString& m) { message = m; });
    client.listModels();
    QTRY_VERIFY_WITH_TIMEOUT(!message.isEmpty(), kWaitMs);
    QVERIFY2(message.contains(QStringLiteral("HTTP 401")), qPrintable(message));
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (!serveExists()) {
        std::puts("skipped: this hearth-cli has no `serve` command");
        return 77;
    }
    TestHearthServe test;
    const int rc = QTest::qExec(&test, argc, argv);
    return rc == 0 && apptest::skippedForData() > 0 ? 77 : rc;
}

#include "tst_hearthserve.moc"
