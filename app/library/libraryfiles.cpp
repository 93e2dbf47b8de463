#include "libraryfiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

#include "shardindex.h"

namespace {

bool isHfFolder(const QDir& dir)
{
    return dir.exists(QStringLiteral("config.json")) &&
           !dir.entryList({QStringLiteral("*.safetensors")}, QDir::Files).isEmpty();
}

// The canonical form of `path` when it lies strictly inside `folder`; empty otherwise.
QString inside(const QString& folder, const QString& path)
{
    const QString root = QFileInfo(folder).canonicalFilePath();
    const QString target = QFileInfo(path).canonicalFilePath();
    if (root.isEmpty() || target.isEmpty() || !target.startsWith(root + QLatin1Char('/')))
        return {};
    return target;
}

} // namespace

QString variantLocalPath(const QString& folder, const CatalogVariant& variant)
{
    const QString name = variant.localName();
    return folder.isEmpty() || name.isEmpty() ? QString() : QDir(folder).filePath(name);
}

bool isVariantDownloaded(const QString& folder, const CatalogVariant& variant)
{
    const QString path = variantLocalPath(folder, variant);
    if (path.isEmpty())
        return false;
    const QDir dir = variant.format == QStringLiteral("safetensors") ? QDir(path) : QDir(folder);
    for (const CatalogFile& f : variant.files)
        if (!f.optional && !QFileInfo(dir.filePath(f.fileName())).isFile())
            return false;
    if (!variant.shardsFromIndex)
        return true;
    // The shards are those its index names (a small file, read off the GUI thread).
    ShardIndex index;
    if (!readShardIndex(dir.filePath(QLatin1String(kShardIndexName)), &index, nullptr))
        return false;
    return std::all_of(index.shards.begin(), index.shards.end(),
                       [&dir](const QString& shard) { return QFileInfo(dir.filePath(shard)).isFile(); });
}

QStringList watchFolders(const QString& folder)
{
    if (folder.isEmpty() || !QFileInfo(folder).isDir())
        return {};
    QStringList out{QFileInfo(folder).absoluteFilePath()};
    for (const QFileInfo& sub : QDir(folder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        out << sub.absoluteFilePath();
        for (const QFileInfo& deeper : QDir(sub.absoluteFilePath()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
            out << deeper.absoluteFilePath();
    }
    return out;
}

quint64 folderBytes(const QString& folder)
{
    if (folder.isEmpty())
        return 0;
    quint64 total = 0;
    const int depth = QDir(folder).absolutePath().count(QLatin1Char('/'));
    QDirIterator it(folder, QDir::Files | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        if (it.fileInfo().absoluteFilePath().count(QLatin1Char('/')) - depth <= 4)
            total += quint64(it.fileInfo().size());
    }
    return total;
}

QStringList deletionTargets(const QString& folder, const QString& path, QString* why)
{
    auto refuse = [why](const QString& reason) {
        if (why)
            *why = reason;
        return QStringList();
    };
    const QString target = inside(folder, path);
    if (target.isEmpty())
        return refuse(QStringLiteral("%1 is not in the models folder").arg(path));
    const QFileInfo info(target);
    if (info.isDir()) {
        if (!isHfFolder(QDir(target)))
            return refuse(QStringLiteral("%1 is not a Hugging Face model folder").arg(path));
        return {target};
    }
    if (!target.endsWith(QStringLiteral(".gguf"), Qt::CaseInsensitive))
        return refuse(QStringLiteral("%1 is not a model file").arg(path));
    // A split GGUF is one model: its other parts go with it.
    static const QRegularExpression part(QStringLiteral("\\A(.+)-(\\d{5})-of-(\\d{5})\\.gguf\\z"));
    const auto m = part.match(info.fileName());
    if (!m.hasMatch())
        return {target};
    QStringList parts;
    const int count = m.captured(3).toInt();
    for (int i = 1; i <= count; ++i) {
        const QString name = QStringLiteral("%1-%2-of-%3.gguf").arg(m.captured(1)).arg(i, 5, 10, QLatin1Char('0')).arg(m.captured(3));
        const QString p = info.dir().filePath(name);
        if (QFileInfo::exists(p))
            parts << p;
    }
    return parts;
}

bool removeTargets(const QStringList& targets, QString* why)
{
    for (const QString& t : targets) {
        const QFileInfo info(t);
        const bool removed = info.isDir() ? QDir(t).removeRecursively() : QFile::remove(t);
        if (!removed) {
            if (why)
                *why = QStringLiteral("%1 could not be removed (is it read-only?)").arg(t);
            return false;
        }
    }
    return true;
}
