// The base URL of an OpenAI-compatible server as the user types it, made into the one the API
// paths hang off: "gpu-box:8000" → "http://gpu-box:8000/v1"; a pasted ".../v1/chat/completions"
// or ".../v1/models" loses its endpoint; a path of its own ("https://example.com/api/v1") is kept.
// Only http and https; no credentials, query or fragment in the address.
#pragma once

#include <QString>
#include <QUrl>

namespace remote {

struct BaseUrl {
    QUrl url;      // valid when error is empty; never ends in '/'
    QString error; // why the text is not a usable base URL, for the user
};
BaseUrl parseBaseUrl(const QString& typed);

// `base` + "/" + `path` ("models", "chat/completions").
QUrl endpointUrl(const QUrl& base, const QString& path);

// The host is this computer (localhost, 127.0.0.0/8, ::1): plain HTTP never leaves it.
bool isLoopback(const QUrl& url);

// "host:port" (the port only when it is not the scheme's own), for messages.
QString hostLabel(const QUrl& url);

} // namespace remote
