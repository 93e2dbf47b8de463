// The plain values the conversation store reads and writes (no SQL here, no QObject).
// Times are UTC QDateTimes with millisecond precision; ids are SQLite row ids (0 = none).
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace store {

enum class Role { User, Assistant, System };

QString roleName(Role role);                          // "user", "assistant", "system"
std::optional<Role> roleFromName(const QString& name); // nullopt for anything else

// Why a reply stopped: the engine's words (eos, length, context, stop_string, cancel) plus
// the store's own for a reply the app never finished (it was killed or crashed mid-reply).
inline constexpr const char* kStopInterrupted = "interrupted";

// Why the history file could not be opened, and so which way on the UI offers.
enum class OpenProblem {
    None,
    NotWritable,  // the folder cannot be created or the file cannot be written: pick another place
    Locked,       // another program holds the file: retry, or startFresh()
    Corrupt,      // not a SQLite file, or damaged: startFresh() keeps it aside
    NewerVersion, // written by a newer Hearth, left untouched: update Hearth, or startFresh()
    Failed,       // anything else (the message says what): startFresh()
};

// What a conversation is run with. Empty strings mean "not set".
struct ConversationSettings {
    QString modelPath;  // a .gguf file or an HF folder; a remote model: "<model> @ <base URL>"
    QString quant;      // preset name, e.g. "Q4_K_M"; empty = as stored in the file
    QString systemPrompt;
    QJsonObject sampling; // temperature, top_k, top_p, ... as the app writes them
    bool thinking = false;
};

struct Conversation {
    qint64 id = 0;
    QString title; // empty until the first user message (the UI shows "New chat")
    QDateTime created;
    QDateTime updated; // last message added or reply finished; the sidebar sorts by it
    ConversationSettings settings;
};

// The numbers a finished reply keeps. A rate with nothing to time is nullopt (shown "n/a").
struct ReplyStats {
    int promptTokens = 0;
    int generatedTokens = 0;
    std::optional<double> prefillTokensPerSecond;
    std::optional<double> decodeTokensPerSecond;
    std::optional<double> timeToFirstTokenMs;
    QString model;      // file or folder name the reply came from
    QString quant;
    QString device;     // e.g. "NVIDIA GeForce RTX 4090" or "CPU"
    QString stopReason; // see kStopInterrupted above
};

// A message as the caller hands it in.
struct NewMessage {
    Role role = Role::User;
    QString text;
    QString thinking;
    bool streaming = false; // an assistant reply that will be filled by updateStreamingReply
};

struct Message {
    qint64 id = 0;
    qint64 conversationId = 0;
    qint64 parentId = 0; // the message this one answers or follows; 0 for the first
    Role role = Role::User;
    QString text;
    QString thinking;
    QDateTime created;
    ReplyStats stats;
    bool streaming = false; // true while a reply is being generated
    bool current = true;    // the alternative shown among its siblings
    // Position among the messages with the same parent (regenerated replies, edited prompts),
    // 1-based, for "2/3": index and count.
    int alternativeIndex = 1;
    int alternativeCount = 1;
};

// One conversation that matches a search: the newest matching message (or the title).
struct SearchHit {
    qint64 conversationId = 0;
    qint64 messageId = 0; // 0 when only the title matched
    QString snippet;      // plain text around the first match, one line
};

} // namespace store
