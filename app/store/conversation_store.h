// ConversationStore: the chat history in one SQLite file (Qt SQL, QSQLITE), the only place in
// Hearth that holds SQL. Conversations, their messages as a tree of alternatives (regenerated
// replies and edited prompts are siblings; one sibling is current; the shown conversation is the
// path of current messages), streaming replies saved while they grow, FTS5 search.
//
// Threads: the store lives on the UI thread and is used only there (a QSqlDatabase connection
// belongs to the thread that opened it). Its calls are short SQLite statements; none waits on the
// engine. The one hot call, updateStreamingReply, is a single prepared UPDATE.
// Ownership: one owner (the chat controller) holds it by value or unique_ptr; not copyable.
// Only one ConversationStore (one process) should have a file open: the app's single-instance
// check guarantees it.
// Durability: WAL with synchronous=NORMAL and every call its own committed transaction, so what a
// call wrote survives the app being killed (a power cut may lose the last second).
// Errors: every call returns hearth::Status or hearth::Result<T>; the message is one line that
// names what failed. A call on a store that is not open fails with FailedPrecondition.
#pragma once

#include <QSqlDatabase>
#include <QString>

#include <functional>
#include <memory>

#include "hearth/status.h"
#include "store/store_types.h"

class QSqlQuery;

namespace store {

// (A nested struct with member initialisers cannot be a default argument of its own class.)
struct StoreOptions {
    int busyTimeoutMs = 2000;         // how long a call waits for another program's lock
    bool checkIntegrityOnOpen = true; // PRAGMA quick_check at open (ms for a typical file)
    std::function<qint64()> nowMs;    // the clock (ms since the epoch); empty = system clock
};

class ConversationStore {
public:
    ConversationStore();
    ~ConversationStore();
    ConversationStore(const ConversationStore&) = delete;
    ConversationStore& operator=(const ConversationStore&) = delete;

    // "<AppDataLocation>/history.sqlite".
    static QString defaultPath();

    // Opens or creates the file (and its folder), upgrading an older schema. On failure the store
    // stays closed and openProblem() says which way on to offer; a newer or damaged file is left
    // exactly as it was. A reply that was still streaming when the app last stopped is kept and
    // marked finished with stop reason kStopInterrupted.
    hearth::Status open(const QString& path, const StoreOptions& options = {});
    void close();
    bool isOpen() const;
    QString path() const { return m_path; }
    OpenProblem openProblem() const { return m_problem; }

    // The way on after a failed open: renames the file (with its -wal/-shm) to
    // "<file>.<problem>-<yyyyMMdd-HHmmss>" beside it and opens a new, empty file at path().
    // Returns where the old file went.
    hearth::Result<QString> startFresh();

    // PRAGMA integrity_check plus the search index's own check.
    hearth::Status checkIntegrity();

    // --- conversations ---------------------------------------------------------------------
    hearth::Result<qint64> createConversation(const ConversationSettings& settings, const QString& title = {});
    hearth::Result<Conversation> conversation(qint64 id);
    hearth::Result<QList<Conversation>> listConversations(); // most recently updated first
    hearth::Status renameConversation(qint64 id, const QString& title); // blank: InvalidArgument
    hearth::Status updateSettings(qint64 id, const ConversationSettings& settings);
    hearth::Status deleteConversation(qint64 id);                       // NotFound if absent
    hearth::Result<int> deleteConversations(const QList<qint64>& ids);  // one transaction; count
    // Conversations whose finished messages or title contain every word of the query
    // (case-insensitive substrings; any script), most recently updated first.
    hearth::Result<QList<SearchHit>> search(const QString& query, int limit = 50);

    // --- messages --------------------------------------------------------------------------
    // Appends after the last message of the current path. The first user message also titles
    // a conversation that has no title yet.
    hearth::Result<qint64> appendMessage(qint64 conversationId, const NewMessage& message);
    // A new sibling of messageId (same parent), made current: regenerate a reply, or edit and
    // resend a prompt. The messages after the old sibling stay on its branch.
    hearth::Result<qint64> addAlternative(qint64 messageId, const NewMessage& message);
    // Replaces the text of a streaming reply (call it at least once a second while it streams).
    hearth::Status updateStreamingReply(qint64 messageId, const QString& text, const QString& thinking = {});
    // The final text and numbers; the reply becomes searchable. FailedPrecondition if the
    // message is not a streaming reply.
    hearth::Status finishReply(qint64 messageId, const QString& text, const QString& thinking,
                               const ReplyStats& stats);
    // The conversation as shown: from the first message along the current alternatives.
    hearth::Result<QList<Message>> currentPath(qint64 conversationId);
    // Every message of every branch, parents before children (for export).
    hearth::Result<QList<Message>> allMessages(qint64 conversationId);
    // Shows the sibling `step` places away (-1: "<", +1: ">"); returns its id.
    // OutOfRange steps are InvalidArgument.
    hearth::Result<qint64> switchAlternative(qint64 messageId, int step);
    // Makes messageId and all its ancestors current.
    hearth::Status makeCurrent(qint64 messageId);

    // Adds a whole conversation in one transaction (import). In `messages`, id and parentId are
    // the caller's own numbering (a parent listed before its children); `current`, `created`,
    // text and stats are kept. Returns the new conversation's id.
    hearth::Result<qint64> importConversation(const Conversation& conversation, const QList<Message>& messages);

private:
    qint64 now() const;
    hearth::Status requireOpen() const;
    hearth::Status openFile();
    hearth::Status prepareConnection();
    hearth::Result<qint64> insertMessage(qint64 conversationId, qint64 parentId, const NewMessage& message);
    hearth::Result<Message> readMessage(qint64 id);
    hearth::Result<QList<Message>> readMessages(qint64 conversationId, bool currentOnly);
    hearth::Status touchConversation(qint64 id);

    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_db;
    std::unique_ptr<QSqlQuery> m_streamUpdate; // prepared once: the per-second hot path
    StoreOptions m_options;
    OpenProblem m_problem = OpenProblem::None;
};

} // namespace store
