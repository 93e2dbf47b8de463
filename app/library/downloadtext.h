// Downloads in words, for the library's rows, the sidebar and `hearth --pull`'s stderr: sizes,
// rates, time left and the state line ("1.2 GiB of 4.7 GiB · 35 MiB/s · 2 min left"). Translated
// (context "DownloadText"); any thread.
#pragma once

#include <QString>

#include "downloadtypes.h"

namespace downloadtext {

QString bytes(qint64 bytes);           // "4.7 GiB" (as the rest of the app shows sizes); "?" for < 0
QString rate(double bytesPerSecond);   // "35.2 MiB/s"
QString timeLeft(qint64 seconds);      // "2 min left", "1 h 5 min left"; empty for < 0
QString stateText(DownloadState state); // "Downloading", "Paused", ...
QString detail(const DownloadProgress& p); // the one line under a download's name

} // namespace downloadtext
