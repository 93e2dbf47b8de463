// A Hugging Face safetensors index (model.safetensors.index.json): the shard files its weight_map
// names and the byte total its metadata states. The file comes from the network, so it is read as
// untrusted input: bounded in size and in shards, and every shard name must be a plain file name
// (isSafeFileName: the catalog's own path rules) ending in ".safetensors", so that no name can
// reach outside the model's folder. Plain functions; any thread.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

inline constexpr const char* kShardIndexName = "model.safetensors.index.json";
// A 27B model's index is ~100 kB; the largest published ones (big MoE models) a few MB.
inline constexpr qint64 kMaxShardIndexBytes = qint64(8) << 20;
inline constexpr int kMaxShards = 1000;

struct ShardIndex {
    QStringList shards;     // distinct and sorted: "model-00001-of-00015.safetensors", ...
    qint64 totalBytes = -1; // metadata.total_size (the tensors' bytes); -1: not stated
};

// False with `error` (one sentence for people, naming the value at fault) when `json` is not an
// index the downloader accepts.
bool parseShardIndex(const QByteArray& json, ShardIndex* index, QString* error);
// The same for the file at `path`, refused unread when larger than kMaxShardIndexBytes.
bool readShardIndex(const QString& path, ShardIndex* index, QString* error);
