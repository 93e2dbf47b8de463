#include "downloadtypes.h"

#include "catalog.h"
#include "shardindex.h"

DownloadRequest requestFromCatalog(const CatalogFamily& family, const CatalogVariant& variant)
{
    DownloadRequest r;
    r.key = variant.id();
    r.name = family.name + QStringLiteral(" · ") + variant.quant;
    r.localName = variant.localName();
    r.license = variant.license.isEmpty() ? family.license : variant.license;
    r.licenseUrl = variant.licenseUrl.isEmpty() ? family.licenseUrl : variant.licenseUrl;
    // A GGUF (or the parts of a split one) lies in the models folder itself; a Hugging Face
    // folder's files go into a folder of their own.
    const bool folder = variant.format == QLatin1String("safetensors");
    for (const CatalogFile& f : variant.files) {
        DownloadItem item;
        item.repo = f.repo;
        item.remotePath = f.path;
        item.revision = variant.revision;
        item.localPath = folder ? r.localName + QLatin1Char('/') + f.fileName() : f.fileName();
        item.expectedBytes = f.sizeBytes;
        item.sha256 = f.sha256;
        item.optional = f.optional;
        item.listsShards = variant.shardsFromIndex && f.fileName() == QLatin1String(kShardIndexName);
        r.items << item;
    }
    // The file that makes the rest a model is moved in last, so that a scan of the folder never
    // sees half a model: part 1 of a GGUF, config.json of a folder.
    if (!r.items.isEmpty())
        r.entryPath = r.items.first().localPath;
    for (const DownloadItem& item : std::as_const(r.items))
        if (folder && item.localPath.endsWith(QLatin1String("/config.json")))
            r.entryPath = item.localPath;
    return r;
}

QString stateName(DownloadState state)
{
    switch (state) {
    case DownloadState::Queued: return QStringLiteral("queued");
    case DownloadState::Running: return QStringLiteral("running");
    case DownloadState::Verifying: return QStringLiteral("verifying");
    case DownloadState::Paused: return QStringLiteral("paused");
    case DownloadState::Failed: return QStringLiteral("failed");
    case DownloadState::Done: return QStringLiteral("done");
    }
    return QStringLiteral("paused");
}

DownloadState stateFromName(const QString& name)
{
    for (DownloadState s : {DownloadState::Queued, DownloadState::Running, DownloadState::Verifying,
                            DownloadState::Paused, DownloadState::Failed, DownloadState::Done})
        if (stateName(s) == name)
            return s;
    return DownloadState::Paused;
}
