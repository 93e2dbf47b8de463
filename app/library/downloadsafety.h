// What the downloader refuses: any URL that is not HTTPS (plain HTTP only to this computer, for a
// local mirror or a test server), and any local path that could leave the models folder or hide
// a file there. Plain functions, any thread.
#pragma once

#include <QString>
#include <QUrl>

// HTTPS anywhere, HTTP only to a loopback address (127.0.0.0/8, ::1, localhost); false with
// `why` (one line for people) otherwise.
bool isAllowedDownloadUrl(const QUrl& url, QString* why = nullptr);

// Scheme, host and port are the same: a token given to one is not sent to the other.
bool sameOrigin(const QUrl& a, const QUrl& b);

// A path relative to the models folder: one or two '/'-separated segments, each a safe file name
// (see isSafeFileName: no "..", no leading '.', no '\\', ':' or control characters).
bool isSafeLocalPath(const QString& path, QString* why = nullptr);
