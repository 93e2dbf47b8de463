#include "licences.h"

#include <QCoreApplication>
#include <QVariantMap>

namespace {

// The translation context of this file's words (lupdate reads Licences::tr).
struct Licences {
    Q_DECLARE_TR_FUNCTIONS(Licences)
};

} // namespace

QString hearthLicence()
{
    // HEARTH_LICENSE comes from CMake: the SPDX id of the project's LICENSE file, undefined while
    // the project states none.
#ifdef HEARTH_LICENSE
    return QStringLiteral(HEARTH_LICENSE);
#else
    return Licences::tr("Hearth's own licence is not stated yet (the source has no LICENSE file).");
#endif
}

QList<LicenceEntry> libraryLicences(bool cudaModulePresent)
{
    QList<LicenceEntry> out = {
        {QStringLiteral("Qt 6"), QStringLiteral("LGPL-3.0"),
         Licences::tr("The user interface, the history database access and the local socket; linked dynamically, "
            "so the system's Qt libraries can be replaced.")},
        {QStringLiteral("SentencePiece"), QStringLiteral("Apache-2.0"), Licences::tr("Tokenizers of SentencePiece models.")},
#ifdef HEARTH_HAS_BPE
        {QStringLiteral("PCRE2"), QStringLiteral("BSD-3-Clause"), Licences::tr("The pre-tokenizer of byte-level BPE models.")},
        {QStringLiteral("ICU"), QStringLiteral("Unicode-3.0"), Licences::tr("Unicode normalization for byte-level BPE models.")},
#endif
        {QStringLiteral("SQLite"), Licences::tr("public domain"), Licences::tr("The chat history (through Qt's SQLite driver).")},
        {QStringLiteral("md4c"), QStringLiteral("MIT"), Licences::tr("Markdown in replies.")},
        {QStringLiteral("nlohmann/json"), QStringLiteral("MIT"), Licences::tr("Model configuration files.")},
        {QStringLiteral("cpp-httplib"), QStringLiteral("MIT"), Licences::tr("The API server (Settings → API server).")},
        {QStringLiteral("OpenSSL"), QStringLiteral("Apache-2.0"),
         Licences::tr("Loaded with the system's cpp-httplib; the API server itself speaks plain HTTP.")},
    };
    if (cudaModulePresent)
        out.append({QStringLiteral("NVIDIA CUDA runtime, cuBLAS"), Licences::tr("NVIDIA CUDA Toolkit EULA"),
                    Licences::tr("The GPU backend: redistributable parts of the CUDA Toolkit.")});
    return out;
}

LicenceEntry modelLicence(const QString& modelName, const QString& licence)
{
    if (modelName.isEmpty())
        return {};
    return {modelName, licence.isEmpty() ? Licences::tr("not stated in the model's files") : licence,
            Licences::tr("The loaded model. Its licence governs what you may do with it and its output.")};
}

QVariantList toVariantList(const QList<LicenceEntry>& entries)
{
    QVariantList out;
    for (const LicenceEntry& entry : entries) {
        if (entry.component.isEmpty())
            continue;
        out.append(QVariantMap{{QStringLiteral("component"), entry.component},
                               {QStringLiteral("licence"), entry.licence},
                               {QStringLiteral("note"), entry.note}});
    }
    return out;
}
