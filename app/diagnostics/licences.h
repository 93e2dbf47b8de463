// What the About page lists: Hearth's own licence and those of the libraries this build uses, and
// the loaded model's licence where its file states one. Words only; the page draws them.
#pragma once

#include <QList>
#include <QString>
#include <QVariantList>

struct LicenceEntry {
    QString component; // "Qt 6", "SentencePiece", the model's name
    QString licence;   // "LGPL-3.0", "Apache-2.0", ...; what the file says, for a model
    QString note;      // how Hearth uses it; may be empty
};

// Hearth's own licence (the LICENSE file's), or a sentence saying none is stated yet.
QString hearthLicence();
// The libraries of this build. The CUDA runtime and cuBLAS are listed only when the CUDA module
// is installed (it brings them).
QList<LicenceEntry> libraryLicences(bool cudaModulePresent);
// The loaded model's entry: empty `modelName` gives none; an empty licence says the file states none.
LicenceEntry modelLicence(const QString& modelName, const QString& licence);
// For QML: a list of {component, licence, note} maps.
QVariantList toVariantList(const QList<LicenceEntry>& entries);
