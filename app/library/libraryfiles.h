// The models folder as the library sees it: where a catalog variant lands and whether it is
// there, the folders to watch, the space used, and what deleting a model removes. Deletion only
// ever touches a model inside the models folder. Plain functions that read the disk: call them
// off the GUI thread where a folder may be large.
#pragma once

#include <QString>
#include <QStringList>

#include "catalog.h"

// `folder`/variant.localName(): a GGUF (the first part of a split one) or a Hugging Face folder.
QString variantLocalPath(const QString& folder, const CatalogVariant& variant);
// Every file of the variant is in place (a partial download's .part files do not count): its
// files that are not optional and, with shardsFromIndex, every shard its index names.
bool isVariantDownloaded(const QString& folder, const CatalogVariant& variant);

// `folder` and its subfolders two levels down: where findModelPaths looks, so where to watch.
QStringList watchFolders(const QString& folder);
// The bytes of the regular files under `folder` (three levels down).
quint64 folderBytes(const QString& folder);

// What deleting the model at `path` removes: the .gguf (with the other parts of a split one) or
// the Hugging Face folder. Empty, with `why`, when `path` is not such a model inside `folder`.
QStringList deletionTargets(const QString& folder, const QString& path, QString* why);
// Removes `targets` (files, or folders with everything in them); false with `why` on the first failure.
bool removeTargets(const QStringList& targets, QString* why);
