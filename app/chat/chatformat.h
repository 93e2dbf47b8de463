// The chat's small rules, free of models and widgets so they can be tested alone: which date
// section a conversation falls in, how a reply's numbers read, what may be sent, and the
// sampling settings a conversation stores (JSON keys) as the engine takes them.
#pragma once

#include <QDate>
#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include "enginetypes.h"
#include "hearth/sampling.h"
#include "store/store_types.h"

namespace chat {

// "Today", "Yesterday", "Previous 7 days" or "Older" (translated), by the local calendar date.
QString dateSection(const QDateTime& updated, const QDate& today);

// "42.1 tok/s · prefill 310 tok/s · TTFT 120 ms · 256 tokens"; a rate with nothing to time is
// left out. Empty when the reply has no numbers (an unfinished or imported one).
QString statsLine(const store::ReplyStats& stats);

// A message can be sent when it has something besides whitespace.
bool isSendable(const QString& text);

// The sampling keys a conversation stores: temperature, top_k, top_p, min_p,
// repetition_penalty, seed, max_tokens. A missing key keeps its value in `base`; a negative seed
// draws a fresh one.
hearth::SamplingParams samplingFromJson(const QJsonObject& sampling, const hearth::SamplingParams& base);
// Those keys, in the order the chat options show them.
const QStringList& samplingKeys();
int maxTokensFromJson(const QJsonObject& sampling, int fallback);
// SamplingParams::chatDefaults() with a seed drawn at random (so that regenerate gives another
// answer when nothing else sets one).
hearth::SamplingParams chatDefaultsWithSeed();

// A chat's stop sequences: the sampling key "stop" (an array of strings; anything else: none).
QStringList stopFromJson(const QJsonObject& sampling);
// As the chat options show them: one a line, a newline written "\n", a tab "\t", a backslash
// "\\"; parseStopText reads that back (blank lines are no sequence).
QString stopText(const QStringList& stop);
QStringList parseStopText(const QString& text);

// What the store keeps of a reply's engine statistics (-1 = nothing to time becomes nullopt).
store::ReplyStats storeStats(const ReplyStats& stats, const QString& stopReason);

// The stop reason saved for a reply the engine failed in the middle of.
inline constexpr const char* kStopError = "error";

} // namespace chat
