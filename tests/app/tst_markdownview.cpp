// MessageBody (ui/) showing untrusted model output: rendering never loads a URL (counted both at the
// QML engine's network access manager and at a local server the URLs point to), and a reply with
// 10,000 lines of code is laid out quickly and only where it can be seen.
#include <QElapsedTimer>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QQmlNetworkAccessManagerFactory>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>

#include <atomic>

#include "quickitems.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)
Q_IMPORT_QML_PLUGIN(HearthAppPlugin)

namespace {

// The engine's network access managers are made on the pixmap reader thread: count atomically.
std::atomic<int> g_requests{0};

class CountingAccessManager : public QNetworkAccessManager
{
protected:
    QNetworkReply* createRequest(Operation op, const QNetworkRequest& request, QIODevice* data) override
    {
        ++g_requests;
        return QNetworkAccessManager::createRequest(op, request, data);
    }
};

class CountingFactory : public QQmlNetworkAccessManagerFactory
{
public:
    QNetworkAccessManager* create(QObject* parent) override
    {
        auto* manager = new CountingAccessManager;
        manager->setParent(parent);
        return manager;
    }
};

using apptest::findAll;

} // namespace

class TestMarkdownView : public QObject
{
    Q_OBJECT

public:
    TestMarkdownView() { m_engine.setNetworkAccessManagerFactory(&m_factory); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_server.listen(QHostAddress::LocalHost));
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++m_connections;
                socket->close();
                socket->deleteLater();
            }
        });
        m_engine.addImportPath(QStringLiteral("qrc:/")); // where the static QML modules live (Qt 6.4)
        m_window.resize(800, 600);
        m_window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&m_window));
    }

    void init()
    {
        g_requests = 0;
        m_connections = 0;
    }

    void cleanup()
    {
        delete m_host;
        m_host = nullptr;
    }

    // The probe itself: a plain rich-text <img> does reach both counters.
    void probeSeesAnImageLoad()
    {
        m_host = create(QByteArrayLiteral("import QtQuick\nText { textFormat: Text.RichText }"));
        QVERIFY(m_host);
        m_host->setProperty("text", QStringLiteral("<img src=\"%1/control.png\">").arg(base()));
        QTRY_VERIFY_WITH_TIMEOUT(g_requests > 0 && m_connections > 0, 10000);
    }

    void renderingLoadsNoUrl()
    {
        const QString b = base();
        const QString markdown = QStringLiteral(
            "An image ![x](%1/img.png) and a raw tag <img src=\"%1/raw.png\"> and [a link](%1/link) and %1/auto\n\n"
            "<img src=\"%1/block.png\">\n\n"
            "> quoted ![q](%1/quote.png) <img src='%1/quote-raw.png'>\n\n"
            "| cell |\n|--|\n| ![t](%1/table.png) <img src=%1/table-raw.png> |\n\n"
            "- item ![l](%1/list.png)\n\n"
            "```<img/src='%1/lang.png'>\n<img src=\"%1/code.png\">\n```\n\n"
            "<style>p { background-image: url(%1/css.png) }</style> <div style=\"background-image:url(%1/div.png)\">x</div>")
            .arg(b);
        m_host = create(QByteArrayLiteral(
            "import QtQuick\nimport Hearth\n"
            "Flickable { width: 800; height: 600; contentHeight: body.height\n"
            "  property alias text: body.text\n"
            "  MessageBody { id: body; objectName: \"body\"; width: 780 } }"));
        QVERIFY(m_host);
        m_host->setProperty("text", markdown);
        QVERIFY(!m_window.grabWindow().isNull()); // polished, laid out and rendered
        QTest::qWait(1500);                       // time for any fetch to show up

        // It did render: the image became its alt text and a link, the raw tag text.
        QStringList shown;
        for (QQuickItem* text : findAll(m_host, QStringLiteral("blockText")))
            shown << text->property("text").toString();
        QVERIFY2(shown.size() >= 5, qPrintable(shown.join(u'\n')));
        QVERIFY(shown[0].contains(QStringLiteral("[image: x] <a href=\"%1/img.png\" style=").arg(b)));
        QVERIFY(shown[0].contains(QStringLiteral("&lt;img src=&quot;%1/raw.png&quot;&gt;").arg(b)));
        QCOMPARE(findAll(m_host, QStringLiteral("codeText")).size(), 1);

        QCOMPARE(g_requests.load(), 0);
        QCOMPARE(m_connections, 0);
    }

    void tenThousandLinesOfCode()
    {
        QString markdown = QStringLiteral("Here:\n\n```python\n");
        for (int i = 0; i < 10000; ++i)
            markdown += QStringLiteral("value_%1 = compute(%1)  # a comment that makes the line longer\n").arg(i);
        markdown += QStringLiteral("```\n\nThat was long.");
        m_host = create(QByteArrayLiteral(
            "import QtQuick\nimport Hearth\n"
            "Flickable { width: 800; height: 600; contentHeight: body.height\n"
            "  property alias text: body.text\n"
            "  MessageBody { id: body; objectName: \"body\"; width: 780 } }"));
        QVERIFY(m_host);
        QElapsedTimer timer;
        timer.start();
        m_host->setProperty("text", markdown);
        QVERIFY(!m_window.grabWindow().isNull());
        QTRY_VERIFY(!findAll(m_host, QStringLiteral("codeText")).isEmpty()); // the visible lines
        QVERIFY(!m_window.grabWindow().isNull());
        const qint64 ms = timer.elapsed();
        qInfo("10,000 lines: model, delegates, layout and first frame in %lld ms", ms);
        QVERIFY2(ms < 5000, qPrintable(QString::number(ms))); // generous for a loaded 2-core machine

        const QList<QQuickItem*> rows = findAll(m_host, QStringLiteral("codeBlock"));
        QCOMPARE(rows.size(), 50); // 200 lines a row
        QVERIFY2(findAll(m_host, QStringLiteral("codeText")).size() <= 3,
                 qPrintable(QString::number(findAll(m_host, QStringLiteral("codeText")).size())));
        // The layout knows the full height without laying the text out.
        auto* body = m_host->findChild<QQuickItem*>(QStringLiteral("body"));
        QVERIFY(body);
        QVERIFY2(body->height() > 10000 * 10, qPrintable(QString::number(body->height())));

        // Scrolled to the end, the last rows are laid out and the first ones let go.
        m_host->setProperty("contentY", body->height() - 600);
        QTRY_VERIFY([&] {
            const QList<QQuickItem*> texts = findAll(m_host, QStringLiteral("codeText"));
            return !texts.isEmpty() && texts.size() <= 3
                && texts.last()->property("text").toString().contains(QStringLiteral("value_9999 = compute(9999)"));
        }());
        QVERIFY(!m_window.grabWindow().isNull());
    }

private:
    QString base() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }

    QQuickItem* create(const QByteArray& qml)
    {
        QQmlComponent component(&m_engine);
        component.setData(qml, QUrl(QStringLiteral("file:///markdownview/Host.qml")));
        auto* item = qobject_cast<QQuickItem*>(component.create());
        if (!item) {
            qWarning() << component.errorString();
            return nullptr;
        }
        item->setParentItem(m_window.contentItem());
        return item;
    }

    CountingFactory m_factory;
    QQmlEngine m_engine;
    QQuickWindow m_window;
    QTcpServer m_server;
    int m_connections = 0;
    QQuickItem* m_host = nullptr;
};

QTEST_MAIN(TestMarkdownView)
#include "tst_markdownview.moc"
