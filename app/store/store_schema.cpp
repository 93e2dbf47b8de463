#include "store/store_schema.h"

#include <QStringList>

#include "store/store_sql.h"

namespace store {
namespace {

// One statement per entry: QSQLITE runs only the first statement of a string.
const char* const kVersion1[] = {
    R"(CREATE TABLE conversations (
         id INTEGER PRIMARY KEY,
         title TEXT NOT NULL DEFAULT '',
         created INTEGER NOT NULL,
         updated INTEGER NOT NULL,
         model_path TEXT NOT NULL DEFAULT ''))",
    R"(CREATE TABLE messages (
         id INTEGER PRIMARY KEY,
         conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
         role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
         text TEXT NOT NULL,
         created INTEGER NOT NULL))",
    "CREATE INDEX messages_by_conversation ON messages(conversation_id, id)",
};

const char* const kVersion2[] = {
    "ALTER TABLE conversations ADD COLUMN quant TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE conversations ADD COLUMN system_prompt TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE conversations ADD COLUMN sampling TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE conversations ADD COLUMN thinking INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX conversations_by_updated ON conversations(updated)",
    // The alternatives tree: siblings share a parent (NULL for a first message); exactly one
    // sibling is current, and the shown path follows the current child from the current root.
    "ALTER TABLE messages ADD COLUMN parent_id INTEGER REFERENCES messages(id) ON DELETE CASCADE",
    "ALTER TABLE messages ADD COLUMN is_current INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE messages ADD COLUMN streaming INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN thinking TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE messages ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN generated_tokens INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN prefill_tps REAL",
    "ALTER TABLE messages ADD COLUMN decode_tps REAL",
    "ALTER TABLE messages ADD COLUMN ttft_ms REAL",
    "ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE messages ADD COLUMN quant TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE messages ADD COLUMN device TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE messages ADD COLUMN stop_reason TEXT NOT NULL DEFAULT ''",
    // v1 conversations were linear: each message follows the one before it.
    R"(UPDATE messages SET parent_id = (
         SELECT max(p.id) FROM messages p
         WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id))",
    // Also serves the foreign key's cascade, which looks children up by parent.
    "CREATE INDEX messages_by_parent ON messages(parent_id)",
    "CREATE INDEX messages_streaming ON messages(id) WHERE streaming = 1",
    // Search covers finished messages only: a streaming reply is rewritten every second, and
    // re-indexing its whole text each time would cost more as the reply grows. The index reads
    // its content through this view, so 'rebuild' and 'integrity-check' agree with the triggers.
    "CREATE VIEW message_fts_source AS SELECT id, text FROM messages WHERE streaming = 0",
    // trigram: substring search that works for text without spaces (Chinese, Japanese).
    R"(CREATE VIRTUAL TABLE message_fts USING fts5(
         text, content = 'message_fts_source', content_rowid = 'id', tokenize = 'trigram'))",
    R"(CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.streaming = 0 BEGIN
         INSERT INTO message_fts(rowid, text) VALUES (new.id, new.text);
       END)",
    R"(CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.streaming = 0 BEGIN
         INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, old.text);
       END)",
    R"(CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, streaming ON messages
       WHEN old.streaming = 0 OR new.streaming = 0 BEGIN
         INSERT INTO message_fts(message_fts, rowid, text)
           SELECT 'delete', old.id, old.text WHERE old.streaming = 0;
         INSERT INTO message_fts(rowid, text) SELECT new.id, new.text WHERE new.streaming = 0;
       END)",
    "INSERT INTO message_fts(message_fts) VALUES ('rebuild')",
};

// Model downloads (app/library's DownloadStore): one row per download, one per file of it.
const char* const kVersion3[] = {
    R"(CREATE TABLE downloads (
         id INTEGER PRIMARY KEY,
         key TEXT NOT NULL,
         name TEXT NOT NULL,
         local_name TEXT NOT NULL,
         entry_path TEXT NOT NULL,
         license TEXT NOT NULL DEFAULT '',
         license_url TEXT NOT NULL DEFAULT '',
         folder TEXT NOT NULL,
         state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'verifying', 'paused', 'failed', 'done')),
         error TEXT NOT NULL DEFAULT '',
         created INTEGER NOT NULL,
         updated INTEGER NOT NULL))",
    // Sizes NULL: unknown. catalog_size is what the catalog promised (a server that disagrees is
    // refused), size what is known now; received: bytes in the .part when last saved.
    R"(CREATE TABLE download_files (
         download_id INTEGER NOT NULL REFERENCES downloads(id) ON DELETE CASCADE,
         position INTEGER NOT NULL,
         repo TEXT NOT NULL,
         remote_path TEXT NOT NULL,
         revision TEXT NOT NULL,
         local_path TEXT NOT NULL,
         catalog_size INTEGER,
         size INTEGER,
         sha256 TEXT NOT NULL DEFAULT '',
         linked_etag TEXT NOT NULL DEFAULT '',
         received INTEGER NOT NULL DEFAULT 0,
         complete INTEGER NOT NULL DEFAULT 0,
         PRIMARY KEY (download_id, position)))",
    "CREATE INDEX downloads_by_key ON downloads(key)",
};

// A catalog file whose presence was not checked (a 404 drops it), the safetensors index whose
// weight_map adds the shards once it is in, and the total that index states (NULL: none).
const char* const kVersion4[] = {
    "ALTER TABLE download_files ADD COLUMN optional INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE download_files ADD COLUMN lists_shards INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE downloads ADD COLUMN estimated_size INTEGER",
};

template <size_t N>
QStringList statements(const char* const (&list)[N])
{
    QStringList out;
    for (const char* s : list) out << QString::fromUtf8(s);
    return out;
}

// Step N turns version N-1 into version N.
QStringList step(int version)
{
    switch (version) {
    case 1: return statements(kVersion1);
    case 2: return statements(kVersion2);
    case 3: return statements(kVersion3);
    case 4: return statements(kVersion4);
    default: return {};
    }
}

hearth::Status applyStep(QSqlDatabase& db, int version)
{
    WriteTransaction tx(db);
    HEARTH_TRY(tx.status());
    // Read again under the write lock: another process may have migrated meanwhile.
    HEARTH_ASSIGN(const int current, schemaVersion(db));
    if (current >= version) return hearth::Status::ok();
    for (const QString& sql : step(version)) HEARTH_TRY(execSql(db, sql));
    HEARTH_TRY(execSql(db, QStringLiteral("PRAGMA user_version = %1").arg(version)));
    return tx.commit();
}

} // namespace

hearth::Result<int> schemaVersion(QSqlDatabase& db)
{
    HEARTH_ASSIGN(const QVariant v, queryValue(db, QStringLiteral("PRAGMA user_version")));
    return v.toInt();
}

hearth::Status migrate(QSqlDatabase& db, int targetVersion)
{
    if (targetVersion < 1 || targetVersion > kSchemaVersion)
        return hearth::invalidArgument("schema version " + std::to_string(targetVersion) + " does not exist");
    HEARTH_ASSIGN(const int current, schemaVersion(db));
    if (current > kSchemaVersion)
        return hearth::unsupported("the history file has schema version " + std::to_string(current) +
                                   ", written by a newer Hearth; this one reads up to version " +
                                   std::to_string(kSchemaVersion));
    for (int v = current + 1; v <= targetVersion; ++v)
        HEARTH_TRY_CTX(applyStep(db, v), "upgrading the history to schema version " + std::to_string(v));
    return hearth::Status::ok();
}

} // namespace store
