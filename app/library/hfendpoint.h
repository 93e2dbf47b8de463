// Where downloads come from: the Hugging Face endpoint (https://huggingface.co, or a mirror named
// by HEARTH_HF_ENDPOINT, the variable Hugging Face's own tools read too, or by the setting), and
// each file's URL on it: {endpoint}/{repo}/resolve/{revision}/{path}. Plain functions, any thread.
#pragma once

#include <QString>
#include <QUrl>

struct DownloadItem;

inline constexpr const char* kDefaultHfEndpoint = "https://huggingface.co";

// HEARTH_HF_ENDPOINT when set, else `setting` when not empty, else the default; without a
// trailing slash.
QString chooseHfEndpoint(const QString& setting);

// The URL of one file on `endpoint`.
QUrl itemUrl(const QString& endpoint, const DownloadItem& item);
