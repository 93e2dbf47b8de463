#include "httptestserver.h"

#include <QCryptographicHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTimer>

#include <memory>

namespace {

QByteArray statusText(int status)
{
    switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 302: return "Found";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 416: return "Range Not Satisfiable";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

QByteArray head(int status, const QList<QPair<QByteArray, QByteArray>>& headers)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + statusText(status) + "\r\n";
    for (const auto& [name, value] : headers)
        out += name + ": " + value + "\r\n";
    out += "Connection: close\r\n\r\n";
    return out;
}

} // namespace

QByteArray testCatalog(const QList<QPair<QString, QString>>& files, const QList<QByteArray>& bodies,
                       const QStringList& coming)
{
    QJsonArray variants;
    for (int i = 0; i < files.size(); ++i) {
        const QByteArray& body = bodies.value(i);
        const QJsonObject file{{"repo", "test/repo"},
                               {"path", files[i].second},
                               {"size", double(body.size())},
                               {"sha256", QString::fromLatin1(QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex())}};
        QJsonObject variant{{"quant", files[i].first}, {"format", "gguf"}, {"files", QJsonArray{file}}};
        if (coming.contains(files[i].first))
            variant.insert("requires", "mamba2"); // an architecture Hearth does not run
        variants << variant;
    }
    const QJsonObject shape{{"architecture", "llama"}, {"layers", 2},   {"hidden", 64}, {"heads", 4}, {"kvHeads", 4},
                            {"headDim", 16},           {"vocab", 256}, {"ffn", 128},   {"context", 512}};
    const QJsonObject family{{"id", "tiny"},   {"name", "Tiny"},  {"license", "apache-2.0"},
                             {"licenseUrl", "https://example.com/license"}, {"shape", shape}, {"variants", variants}};
    return QJsonDocument(QJsonObject{{"schemaVersion", 1}, {"families", QJsonArray{family}}}).toJson();
}

HttpTestServer::HttpTestServer(QObject* parent) : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, &HttpTestServer::onConnection);
}

bool HttpTestServer::listen()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QByteArray HttpTestServer::baseUrl() const
{
    return "http://127.0.0.1:" + QByteArray::number(m_server.serverPort());
}

QList<HttpHit> HttpTestServer::hitsFor(const QByteArray& path) const
{
    QList<HttpHit> out;
    for (const HttpHit& h : m_hits)
        if (h.path == path)
            out << h;
    return out;
}

void HttpTestServer::onConnection()
{
    while (QTcpSocket* socket = m_server.nextPendingConnection()) {
        ++m_open;
        connect(socket, &QTcpSocket::disconnected, this, [this] { --m_open; });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onRequest(socket); });
    }
}

void HttpTestServer::onRequest(QTcpSocket* socket)
{
    if (socket->property("answered").toBool()) {
        socket->readAll();
        return;
    }
    QByteArray buffer = socket->property("buffer").toByteArray() + socket->readAll();
    socket->setProperty("buffer", buffer);
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return;
    const QList<QByteArray> lines = buffer.left(end).split('\n');
    const QList<QByteArray> request = lines.value(0).trimmed().split(' ');
    QByteArray range, authorization;
    qint64 length = 0;
    for (const QByteArray& line : lines.mid(1)) {
        const qsizetype colon = line.indexOf(':');
        const QByteArray name = line.left(colon).trimmed().toLower(), value = line.mid(colon + 1).trimmed();
        if (name == "range")
            range = value;
        else if (name == "authorization")
            authorization = value;
        else if (name == "content-length")
            length = value.toLongLong();
    }
    if (buffer.size() < end + 4 + length)
        return; // the body is still coming
    socket->setProperty("answered", true);
    m_hits << HttpHit{request.value(1), range, authorization, 0, request.value(0), buffer.mid(end + 4, length)};
    respond(socket, request.value(1), range);
}

void HttpTestServer::respond(QTcpSocket* socket, const QByteArray& path, const QByteArray& range)
{
    HttpHit& hit = m_hits.last();
    if (!m_routes.contains(path)) {
        hit.status = 404;
        socket->write(head(404, {{"Content-Length", "9"}}) + "not found");
        socket->disconnectFromHost();
        return;
    }
    const HttpRoute& route = m_routes[path];
    const int n = m_served[path]++;
    int status = route.status ? route.status : route.firstStatuses.value(n, 0);
    QList<QPair<QByteArray, QByteArray>> headers = route.headers;
    if (!route.redirectTo.isEmpty() && !status) {
        hit.status = 302;
        headers << qMakePair(QByteArray("Location"), route.redirectTo) << qMakePair(QByteArray("Content-Length"), QByteArray("0"));
        socket->write(head(302, headers));
        socket->disconnectFromHost();
        return;
    }
    if (status) {
        hit.status = status;
        const QByteArray text = route.statusBody.isEmpty() ? statusText(status) : route.statusBody;
        headers << qMakePair(QByteArray("Content-Length"), QByteArray::number(text.size()));
        socket->write(head(status, headers) + text);
        socket->disconnectFromHost();
        return;
    }
    const qint64 size = route.body.size();
    qint64 from = 0;
    static const QRegularExpression bytes(QStringLiteral("^bytes=(\\d+)-$"));
    const QRegularExpressionMatch m = bytes.match(QString::fromLatin1(range));
    if (m.hasMatch() && !route.ignoreRange) {
        from = m.captured(1).toLongLong();
        if (from >= size) {
            hit.status = 416;
            headers << qMakePair(QByteArray("Content-Range"), "bytes */" + QByteArray::number(size))
                    << qMakePair(QByteArray("Content-Length"), QByteArray("0"));
            socket->write(head(416, headers));
            socket->disconnectFromHost();
            return;
        }
        status = 206;
        headers << qMakePair(QByteArray("Content-Range"), "bytes " + QByteArray::number(from) + '-' +
                                                              QByteArray::number(size - 1) + '/' + QByteArray::number(size));
    } else {
        status = 200;
    }
    hit.status = status;
    const qint64 extra = n < route.extraLengthTimes ? route.extraLength : 0;
    headers << qMakePair(QByteArray("Content-Length"), QByteArray::number(size - from + extra));
    socket->write(head(status, headers));
    const bool drop = route.dropAfter >= 0 && n < route.dropTimes;
    const bool stall = route.stallAfter >= 0 && n < route.stallTimes;
    const qint64 limit = drop ? route.dropAfter : stall ? route.stallAfter : -1;
    const QByteArray junk(n < route.extraLengthTimes ? route.extraSent : 0, 'J');
    sendBody(socket, route.body.mid(from) + junk, limit, stall, route);
}

// Sends `bytes` (at most `limit` of them when >= 0), then closes, or with `stall` leaves the
// connection open and silent.
void HttpTestServer::sendBody(QTcpSocket* socket, const QByteArray& bytes, qint64 limit, bool stall,
                              const HttpRoute& route)
{
    const QByteArray body = limit >= 0 ? bytes.left(limit) : bytes;
    if (stall)
        connect(socket, &QTcpSocket::disconnected, this, [this] { ++m_stalledClosed; });
    auto finish = [socket, stall] {
        if (!stall)
            socket->disconnectFromHost();
    };
    if (route.trickleBytes <= 0) {
        socket->write(body);
        finish();
        return;
    }
    auto* timer = new QTimer(socket);
    auto sent = std::make_shared<qint64>(0);
    const int piece = route.trickleBytes;
    connect(timer, &QTimer::timeout, socket, [socket, timer, sent, body, piece, finish] {
        if (socket->state() != QAbstractSocket::ConnectedState) {
            timer->stop();
            return;
        }
        socket->write(body.mid(*sent, piece));
        *sent += piece;
        if (*sent >= body.size()) {
            timer->stop();
            finish();
        }
    });
    timer->start(route.trickleMs);
}
