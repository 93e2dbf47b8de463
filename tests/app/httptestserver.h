// A small HTTP/1.1 server on 127.0.0.1 for the downloader's tests: real sockets, byte ranges
// (206, 416), redirects with extra headers, and faults injected per route: error statuses for the
// first requests, a connection dropped mid-body, a body that stops (a stall), a trickle, a Range
// header ignored, a Content-Length that lies. Every request is recorded, with its body (read by
// its Content-Length: the remote-server tests POST JSON). One connection per request
// (Connection: close). Runs on the test's thread and event loop.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QStringList>
#include <QTcpServer>

class QTcpSocket;

// A catalog (resources/catalog.json's format) of one family "tiny" with one variant per entry of
// `files` (quant -> file name in repo test/repo, served with `bodies`' bytes and their SHA-256);
// `coming` quants carry "requires": "mamba2" (an architecture Hearth does not run).
QByteArray testCatalog(const QList<QPair<QString, QString>>& files, const QList<QByteArray>& bodies,
                       const QStringList& coming = {});

struct HttpRoute {
    QByteArray body;                // served with 200, or 206 for a Range request
    int status = 0;                 // not 0: always this status (with a short text body)...
    QByteArray statusBody;          // ...or this body (an API's error object)
    QList<int> firstStatuses;       // the first requests get these statuses (0: serve normally)
    QByteArray redirectTo;          // not empty: 302 to this URL (absolute, or a path here)
    // Added to every response of the route (redirect, error, 206, 416 too): X-Linked-Etag for a
    // file Hugging Face keeps in LFS, or a plain ETag alone for one kept in git.
    QList<QPair<QByteArray, QByteArray>> headers;
    bool ignoreRange = false;       // answer 200 with the whole body even to a Range request
    qint64 dropAfter = -1;          // close the connection after this many body bytes...
    int dropTimes = 0;              // ...for this many requests
    qint64 stallAfter = -1;         // send this many body bytes, then nothing (connection open)...
    int stallTimes = 0;             // ...for this many requests
    qint64 extraLength = 0;         // Content-Length claims this many more bytes...
    qint64 extraSent = 0;           // ...of which this many are sent (junk after the body)...
    int extraLengthTimes = 0;       // ...for this many requests
    int trickleBytes = 0;           // not 0: send the body in pieces of this size...
    int trickleMs = 0;              // ...one every trickleMs
};

struct HttpHit {
    QByteArray path;
    QByteArray range;         // the Range header, empty if none
    QByteArray authorization; // the Authorization header, empty if none
    int status = 0;           // what the server answered
    QByteArray method;        // "GET", "POST"
    QByteArray body;          // the request's body
};

class HttpTestServer : public QObject
{
    Q_OBJECT

public:
    explicit HttpTestServer(QObject* parent = nullptr);
    bool listen();
    QByteArray baseUrl() const; // "http://127.0.0.1:PORT"
    void setRoute(const QByteArray& path, const HttpRoute& route) { m_routes[path] = route; m_served[path] = 0; }
    const QList<HttpHit>& hits() const { return m_hits; }
    QList<HttpHit> hitsFor(const QByteArray& path) const;
    // Connections the client has not closed yet (a stalled response stays open until it does).
    int openConnections() const { return m_open; }
    // Connections left open by a stalled response (HttpRoute::stallAfter) that the client closed:
    // a client's stop seen from the server, whatever idle connections its pool also keeps.
    int stalledConnectionsClosed() const { return m_stalledClosed; }

private:
    void onConnection();
    void onRequest(QTcpSocket* socket);
    void respond(QTcpSocket* socket, const QByteArray& path, const QByteArray& range);
    void sendBody(QTcpSocket* socket, const QByteArray& bytes, qint64 limit, bool stall, const HttpRoute& route);

    QTcpServer m_server;
    QHash<QByteArray, HttpRoute> m_routes;
    QHash<QByteArray, int> m_served;
    QList<HttpHit> m_hits;
    int m_open = 0;
    int m_stalledClosed = 0;
};
