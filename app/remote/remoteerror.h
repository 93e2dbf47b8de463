// A failed request to a remote server in the user's words: what went wrong with which host and
// what to try (start the server, check the address, the API key), with the server's own error
// message when it sent one. HTML where JSON was expected (a proxy's or a web server's page) is
// named as such: the base URL is most likely wrong.
#pragma once

#include <QByteArray>
#include <QNetworkReply>
#include <QString>
#include <QUrl>

namespace remote {

struct HttpOutcome {
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorString;     // Qt's words for a network error
    int status = 0;          // the HTTP status; 0: no answer
    QByteArray body;         // the answer's body (an error object, a page)
    QByteArray contentType;
    QByteArray location;     // a redirect's target
    bool timedOut = false;   // nothing arrived for the whole timeout
};

// `url` is what was asked; `hadKey` whether an API key was sent; `timeoutSeconds` the limit.
QString describeFailure(const HttpOutcome& outcome, const QUrl& url, bool hadKey, int timeoutSeconds);

// The answer looks like a web page rather than an API's JSON or events.
bool isHtml(const QByteArray& contentType, const QByteArray& body);

// Fills an outcome from a finished (or failing) reply; the body is what the caller read.
HttpOutcome outcomeOf(QNetworkReply* reply, const QByteArray& body, bool timedOut);

} // namespace remote
