#include "shardindex.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>

#include "catalog.h"

namespace {

bool refuse(QString* error, const QString& why)
{
    if (error)
        *error = why;
    return false;
}

// A value from the file as an error message may quote it: short, no control characters.
QString quoted(const QString& value)
{
    static const QRegularExpression control(QStringLiteral("[\\x00-\\x1f\\x7f]"));
    QString out = value.left(120);
    out.replace(control, QStringLiteral("?"));
    return out + (value.size() > 120 ? QStringLiteral("…") : QString());
}

// metadata.total_size when it is a plausible byte count; -1 otherwise (it only feeds an estimate).
qint64 statedTotal(const QJsonObject& root)
{
    const QJsonValue v = root.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("total_size"));
    const double d = v.toDouble(-1);
    if (!v.isDouble() || !std::isfinite(d) || d != std::floor(d) || d < 1 || d > double(Catalog::kMaxFileBytes))
        return -1;
    return qint64(d);
}

} // namespace

bool parseShardIndex(const QByteArray& json, ShardIndex* index, QString* error)
{
    if (json.size() > kMaxShardIndexBytes)
        return refuse(error, QCoreApplication::translate("ShardIndex", "the index is larger than %1 bytes")
                                 .arg(kMaxShardIndexBytes));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return refuse(error, QCoreApplication::translate("ShardIndex", "the index is not valid JSON: %1")
                                 .arg(parseError.errorString()));
    const QJsonValue map = doc.object().value(QStringLiteral("weight_map"));
    if (!map.isObject() || map.toObject().isEmpty())
        return refuse(error, QCoreApplication::translate("ShardIndex", "the index has no weight_map naming its shards"));
    QSet<QString> seen;
    const QJsonObject weights = map.toObject();
    for (auto it = weights.begin(); it != weights.end(); ++it) {
        if (!it.value().isString())
            return refuse(error, QCoreApplication::translate("ShardIndex", "the index maps the tensor '%1' to no file name")
                                     .arg(quoted(it.key())));
        const QString name = it.value().toString();
        if (seen.contains(name))
            continue;
        QString why;
        if (!isSafeFileName(name, &why))
            return refuse(error, QCoreApplication::translate("ShardIndex", "the index names the shard '%1': %2")
                                     .arg(quoted(name), why));
        if (!name.endsWith(QStringLiteral(".safetensors")))
            return refuse(error, QCoreApplication::translate("ShardIndex", "the index names the shard '%1', which is not "
                                                                          "a .safetensors file")
                                     .arg(quoted(name)));
        if (seen.size() == kMaxShards)
            return refuse(error, QCoreApplication::translate("ShardIndex", "the index names more than %1 shards").arg(kMaxShards));
        seen.insert(name);
    }
    ShardIndex out;
    out.shards = QStringList(seen.begin(), seen.end());
    std::sort(out.shards.begin(), out.shards.end());
    out.totalBytes = statedTotal(doc.object());
    *index = out;
    return true;
}

bool readShardIndex(const QString& path, ShardIndex* index, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return refuse(error, QCoreApplication::translate("ShardIndex", "%1 cannot be read: %2").arg(path, file.errorString()));
    if (file.size() > kMaxShardIndexBytes)
        return refuse(error, QCoreApplication::translate("ShardIndex", "the index is larger than %1 bytes")
                                 .arg(kMaxShardIndexBytes));
    return parseShardIndex(file.read(kMaxShardIndexBytes + 1), index, error);
}
