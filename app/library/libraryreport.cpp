#include "libraryreport.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QStorageInfo>

#include <cmath>

#include "appsettings.h"
#include "catalog.h"
#include "catalogmodel.h"
#include "fitadvisor.h"
#include "libraryfiles.h"
#include "modellibrary.h"
#include "modelscan.h"

namespace {

QJsonValue bytesOrNull(qint64 bytes)
{
    return bytes >= 0 ? QJsonValue(double(bytes)) : QJsonValue();
}

QJsonObject localEntry(const ModelEntry& e)
{
    const ModelFacts& f = e.facts;
    QJsonObject o{{QStringLiteral("path"), e.path}, {QStringLiteral("userAdded"), e.userAdded}};
    if (!e.error.isEmpty()) {
        o[QStringLiteral("error")] = e.error;
        return o;
    }
    o[QStringLiteral("name")] = f.name;
    o[QStringLiteral("format")] = f.format;
    o[QStringLiteral("architecture")] = f.architecture;
    o[QStringLiteral("quant")] = f.quant;
    o[QStringLiteral("parameters")] = double(f.parameterCount);
    o[QStringLiteral("fileBytes")] = double(f.fileBytes);
    o[QStringLiteral("contextLength")] = f.contextLength;
    o[QStringLiteral("license")] = f.license.isEmpty() ? QJsonValue() : QJsonValue(f.license);
    QJsonObject fit{{QStringLiteral("context"), e.fit.context}};
    if (e.fit.ok) {
        fit[QStringLiteral("fits")] = e.fit.fits;
        fit[QStringLiteral("estimatedBytes")] = double(e.fit.totalBytes);
        fit[QStringLiteral("maxContext")] = e.fit.maxContext;
    } else {
        fit[QStringLiteral("error")] = e.fit.error;
    }
    o[QStringLiteral("fit")] = fit;
    return o;
}

QJsonObject variantFitJson(const VariantFit& fit, bool gpu)
{
    QJsonObject o{{QStringLiteral("verdict"), QString::fromLatin1(fitVerdictName(fit.verdict))},
                  {QStringLiteral("context"), fit.context}};
    if (fit.verdict == FitVerdict::Unknown) {
        o[QStringLiteral("error")] = fit.error;
        o[QStringLiteral("sizesUnknown")] = fit.sizesUnknown;
        return o;
    }
    o[QStringLiteral("estimatedBytes")] = double(fit.totalBytes);
    o[QStringLiteral("weightsBytes")] = double(fit.weightsBytes);
    o[QStringLiteral("maxContext")] = fit.maxContext;
    o[QStringLiteral("needsFreeing")] = fit.needsFreeing;
    if (!gpu) {
        o[QStringLiteral("speed")] = QString::fromLatin1(speedClassName(fit.speed));
        o[QStringLiteral("tokensPerSecondBound")] = std::round(fit.tokensPerSecond * 10) / 10;
    }
    return o;
}

QJsonObject familyJson(const CatalogFamily& family, const FitTarget& target, const QString& folder)
{
    QList<VariantFit> fits;
    for (const CatalogVariant& v : family.variants)
        fits << estimateVariantFit(family, v, target);
    const int best = recommendedVariant(family, fits);
    const bool gpu = target.device.kind == hearth::DeviceKind::Cuda;
    QJsonArray variants;
    for (int i = 0; i < family.variants.size(); ++i) {
        const CatalogVariant& v = family.variants[i];
        bool hashes = true;
        for (const CatalogFile& f : v.files)
            hashes = hashes && !f.sha256.isEmpty();
        variants.append(QJsonObject{{QStringLiteral("spec"), v.id()},
                                    {QStringLiteral("quant"), v.quant},
                                    {QStringLiteral("format"), v.format},
                                    {QStringLiteral("files"), int(v.files.size())},
                                    {QStringLiteral("sizeBytes"), bytesOrNull(v.totalBytes())},
                                    {QStringLiteral("sha256Known"), hashes},
                                    {QStringLiteral("license"), v.license},
                                    {QStringLiteral("downloaded"), isVariantDownloaded(folder, v)},
                                    {QStringLiteral("localPath"), variantLocalPath(folder, v)},
                                    {QStringLiteral("fit"), variantFitJson(fits[i], gpu)}});
    }
    return {{QStringLiteral("id"), family.id},
            {QStringLiteral("name"), family.name},
            {QStringLiteral("publisher"), family.publisher},
            {QStringLiteral("parameters"), parametersText(family)},
            {QStringLiteral("license"), family.license},
            {QStringLiteral("licenseUrl"), family.licenseUrl.isEmpty() ? QJsonValue() : QJsonValue(family.licenseUrl)},
            {QStringLiteral("coming"), !family.requiresArch.isEmpty()},
            {QStringLiteral("requires"), family.requiresArch.isEmpty() ? QJsonValue() : QJsonValue(family.requiresArch)},
            {QStringLiteral("recommended"), best >= 0 ? QJsonValue(family.variants[best].quant) : QJsonValue()},
            {QStringLiteral("variants"), variants}};
}

} // namespace

LibraryReportOptions reportOptionsFrom(const AppSettings& s)
{
    LibraryReportOptions o;
    o.catalogPath = s.catalogPath();
    o.folder = s.modelsFolder();
    o.addedPaths = s.addedModelPaths();
    o.device = deviceChoiceFromName(s.device());
    o.gpu = s.gpu();
    o.context = s.contextLength();
    o.kvType = s.loadRequest({}).kvType;
    o.budgetBytes = s.vramBudgetGiB() > 0 ? quint64(s.vramBudgetGiB() * double(1ull << 30)) : 0;
    return o;
}

QJsonObject libraryReport(const LibraryReportOptions& options, bool* ok)
{
    FitTarget target;
    target.device = chooseFitDevice(options.device, options.gpu);
    target.context = options.context;
    target.kvType = options.kvType;
    target.budgetBytes = options.budgetBytes;
    const bool gpu = target.device.kind == hearth::DeviceKind::Cuda;
    if (!gpu)
        target.cpuBandwidth = measuredCpuBandwidth();

    QJsonObject report{{QStringLiteral("schemaVersion"), kLibraryReportVersion}};
    report[QStringLiteral("device")] = QJsonObject{{QStringLiteral("kind"), gpu ? QStringLiteral("cuda") : QStringLiteral("cpu")},
                                                   {QStringLiteral("name"), QString::fromStdString(target.device.name)},
                                                   {QStringLiteral("totalBytes"), double(target.device.totalBytes)},
                                                   {QStringLiteral("freeBytes"), double(target.device.freeBytes)}};
    if (!gpu)
        report[QStringLiteral("cpuBandwidthMeasured")] = target.cpuBandwidth; // bytes/s
    report[QStringLiteral("modelsFolder")] = options.folder;
    report[QStringLiteral("diskUsedBytes")] = double(folderBytes(options.folder));
    const QStorageInfo storage(options.folder);
    report[QStringLiteral("diskFreeBytes")] = storage.isValid() ? QJsonValue(double(storage.bytesAvailable())) : QJsonValue();

    FitSettings settings;
    settings.context = options.context;
    settings.device = options.device;
    settings.kvType = options.kvType;
    settings.budgetBytes = options.budgetBytes;
    const QStringList paths = findModelPaths(options.folder);
    const QStringList all = paths + options.addedPaths;
    QJsonArray local;
    for (int i = 0; i < all.size(); ++i) {
        const QString path = QFileInfo(all[i]).absoluteFilePath();
        const bool added = i >= paths.size();
        if (added && paths.contains(path))
            continue; // opened by the user, and in the folder too
        ModelEntry e{path, added};
        describeEntry(e, settings);
        local.append(localEntry(e));
    }
    report[QStringLiteral("local")] = local;

    Catalog catalog;
    QString error;
    const QString source = Catalog::choosePath(options.catalogPath);
    const bool read = catalog.load(source, &error);
    QJsonObject catalogInfo{{QStringLiteral("source"), source}};
    if (!read)
        catalogInfo[QStringLiteral("error")] = error;
    report[QStringLiteral("catalog")] = catalogInfo;
    QJsonArray families;
    for (const CatalogFamily& f : catalog.families())
        families.append(familyJson(f, target, options.folder));
    report[QStringLiteral("families")] = families;
    if (ok)
        *ok = read;
    return report;
}
