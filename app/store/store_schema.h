// The history database's schema and its ordered migrations. The version lives in
// PRAGMA user_version; step N brings version N-1 to N inside one write transaction that also
// sets the new version, so a failed step leaves the file at the version before it.
//
//   v1  conversations (title, times, model path) and linear messages (role, text, time)
//   v2  conversation settings (quant, system prompt, sampling JSON, thinking); per-message
//       thinking, statistics and stop reason; the alternatives tree (parent_id, is_current);
//       streaming replies; FTS5 (trigram) search over finished messages, kept by triggers
//   v3  model downloads and their files (app/library/downloadstore.h)
//   v4  optional download files, a safetensors index that adds its shards, the estimated total
//
// Internal to app/store/ and app/library's DownloadStore (which opens the same file); tests use
// migrate() with an older target to build an old file.
#pragma once

#include <QSqlDatabase>

#include "hearth/status.h"

namespace store {

inline constexpr int kSchemaVersion = 4;

hearth::Result<int> schemaVersion(QSqlDatabase& db);

// Applies the steps from the file's version up to targetVersion (<= kSchemaVersion). A file
// newer than kSchemaVersion is refused with Unsupported before anything is written.
hearth::Status migrate(QSqlDatabase& db, int targetVersion = kSchemaVersion);

} // namespace store
