// Export of one conversation to Markdown (for people: the conversation as shown) and to JSON
// (for Hearth: every branch, every number; importJson reads it back), through the store's API.
//
// JSON format "hearth.conversation", version 1: an object with title, created, updated (ISO 8601
// UTC with milliseconds), modelPath, quant, systemPrompt, sampling (object), thinking (bool) and
// messages: a list, parents before children, of objects with id (numbered from 1 in the file),
// parent (an earlier id or null), current, role ("user", "assistant", "system"), text, thinking,
// created, promptTokens, generatedTokens, prefillTokensPerSecond, decodeTokensPerSecond,
// timeToFirstTokenMs (null = not measured), model, quant, device, stopReason.
// Keys are written sorted, so exporting an imported file gives the same bytes.
//
// Same thread rules as the store: call on the store's thread.
#pragma once

#include <QByteArray>
#include <QString>

#include "hearth/status.h"

namespace store {

class ConversationStore;

inline constexpr int kExportFormatVersion = 1;

hearth::Result<QString> exportMarkdown(ConversationStore& store, qint64 conversationId);
hearth::Result<QByteArray> exportJson(ConversationStore& store, qint64 conversationId);

// Adds the conversation in `json` as a new conversation; returns its id. A malformed file is
// InvalidArgument (the message names the field and the message number), a file from a newer
// format version Unsupported. Nothing is written unless the whole file is good.
hearth::Result<qint64> importJson(ConversationStore& store, const QByteArray& json);

// File helpers for the UI (which does no file I/O of its own): the file is replaced atomically.
hearth::Status writeExportFile(const QString& path, const QByteArray& content);
hearth::Result<qint64> importJsonFile(ConversationStore& store, const QString& path);

} // namespace store
