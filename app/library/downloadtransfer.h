// DownloadTransfer: one HTTP GET of one file into its .part, from the bytes already there (a
// Range request), hashing what it writes. One attempt: DownloadTask decides about retries.
//
// - Redirects are verified one by one (UserVerifiedRedirectPolicy): each hop must pass the URL
//   policy (HTTPS, or HTTP to loopback), and the headers of the redirect itself are read, which
//   is where Hugging Face puts X-Linked-Etag (the file's SHA-256) and X-Linked-Size. ETag is read
//   by the same rules (a later response's header replaces an earlier one's).
// - The token goes only to the endpoint's own origin, never to the CDN a redirect points at.
// - A server that answers 200 to a Range request sends the whole file: the .part is cut to 0 and
//   the hash started again, so the result is still exactly the file.
// - No byte for stallTimeoutMs: the attempt ends as a retryable stall.
// - TLS is verified as Qt does by default; errors are never ignored.
// Threads: the thread of the network access manager. Not reusable: one start() per object.
#pragma once

#include <QByteArray>
#include <QCryptographicHash>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

class PartFile;
class QNetworkAccessManager;
class QNetworkReply;

struct TransferSetup {
    QUrl url;
    QUrl tokenOrigin;         // the endpoint: the token is sent to this origin only
    QByteArray token;         // Hugging Face access token; empty: none
    PartFile* part = nullptr; // the .part, its size the offset to resume from (not owned)
    QCryptographicHash* hash = nullptr; // holds the hash of the part's bytes so far (not owned)
    int stallTimeoutMs = 30000;
    int maxRedirects = 10;
};

struct TransferResult {
    enum Kind {
        Complete,            // the server sent the rest of the file
        Retry,               // dropped connection, 5xx, 429, stall: try again (after retryAfterMs if >= 0)
        Fail,                // needs the user: 404, 401/403, TLS, policy, disk full
        RangeNotSatisfiable, // 416: the .part is as long as (or longer than) the file
    };
    Kind kind = Fail;
    QString error;
    int retryAfterMs = -1;
    int httpStatus = 0;
};

class DownloadTransfer : public QObject
{
    Q_OBJECT

public:
    DownloadTransfer(QNetworkAccessManager* network, TransferSetup setup, QObject* parent = nullptr);
    ~DownloadTransfer() override;

    void start();
    // Ends the attempt now with `result` (headersKnown's handler uses it to refuse); finished follows.
    void fail(const QString& error);
    // Ends the attempt without a finished signal (pause, cancel).
    void abortQuietly();

    // What the server said; -1 / empty until known.
    qint64 remoteSize() const { return m_remoteSize; }   // the whole file's size
    QString linkedEtag() const { return m_linkedEtag; }  // X-Linked-Etag, unquoted, lower case
    // ETag, unquoted, lower case; empty when weak (W/: no promise about the exact bytes). For a
    // file Hugging Face keeps in plain git, its Git blob id.
    QString etag() const { return m_etag; }
    bool restartedFromZero() const { return m_restarted; }

signals:
    // The final response's headers are in: remoteSize(), linkedEtag() and etag() are as known as they get.
    void headersKnown();
    void received(qint64 partBytes);
    void finished(const TransferResult& result);

private:
    void get(const QUrl& url);
    void onRedirected(const QUrl& url);
    void onMetaData();
    void onReadyRead();
    void onFinished();
    void readLinkedHeaders();
    void finish(TransferResult result);

    QNetworkAccessManager* m_network;
    TransferSetup m_setup;
    QPointer<QNetworkReply> m_reply;
    QTimer m_stall;
    qint64 m_remoteSize = -1;
    QString m_linkedEtag;
    QString m_etag;
    QString m_failure;     // set by fail() or a write error: the attempt ends as Fail
    int m_redirects = 0;
    bool m_stalled = false;
    bool m_restarted = false;
    bool m_accepting = false; // the final response is a 200/206 whose body goes to the part
    bool m_done = false;
};
