#include "modelscan.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

#include "hearth/quant.h"

namespace {

bool isHfFolder(const QDir& dir)
{
    return dir.exists(QStringLiteral("config.json")) &&
           !dir.entryList({QStringLiteral("*.safetensors")}, QDir::Files).isEmpty();
}

void collect(const QDir& dir, int depth, QStringList& out)
{
    if (isHfFolder(dir)) {
        out << dir.absolutePath();
        return;
    }
    // A split GGUF is one model: its first part stands for it.
    static const QRegularExpression laterPart(QStringLiteral("-(?!00001)\\d{5}-of-\\d{5}\\.gguf$"));
    for (const QFileInfo& f : dir.entryInfoList({QStringLiteral("*.gguf")}, QDir::Files))
        if (!laterPart.match(f.fileName()).hasMatch())
            out << f.absoluteFilePath();
    if (depth > 0)
        for (const QFileInfo& sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
            collect(QDir(sub.absoluteFilePath()), depth - 1, out);
}

FitQuery query(const QString& path, int trainedContext, const FitSettings& s)
{
    FitQuery q;
    q.path = path;
    q.context = s.context;
    q.trainedContext = trainedContext;
    q.device = s.device;
    q.freedBytes = s.freedBytes;
    q.kvType = s.kvType;
    q.budgetBytes = s.budgetBytes;
    return q;
}

} // namespace

QStringList findModelPaths(const QString& folder)
{
    QStringList out;
    if (!folder.isEmpty() && QFileInfo(folder).isDir())
        collect(QDir(folder), 2, out); // models/Publisher/Model/ is a common layout
    std::sort(out.begin(), out.end());
    return out;
}

void describeEntry(ModelEntry& entry, const FitSettings& settings)
{
    entry.ready = true;
    auto header = hearth::ModelHeader::read(entry.path.toStdString()); // once for facts and fit
    if (!header.isOk()) {
        entry.error = QString::fromStdString(header.status().message());
        return;
    }
    entry.error.clear();
    entry.facts = modelFacts(entry.path, *header.value());
    entry.fit = estimateFit(query(entry.path, entry.facts.contextLength, settings), *header.value());
}

QList<QuantOption> presetOptions(const ModelFacts& facts, const QString& loadedQuant, const FitSettings& settings)
{
    QList<QuantOption> out;
    // Every preset's plan and estimates from one read: a large vocabulary makes each read slow.
    const auto header = hearth::ModelHeader::read(facts.path.toStdString());
    if (!header.isOk())
        return out;
    for (const hearth::QuantPresetInfo& preset : hearth::quantPresets()) {
        auto plan = header.value()->planQuantPreset(preset.name);
        if (!plan.isOk() || plan->requantizes)
            continue;
        FitQuery q = query(facts.path, facts.contextLength, settings);
        q.quant = QString::fromStdString(plan->preset);
        const FitEstimate fit = estimateFit(q, *header.value());
        QuantOption o;
        o.kind = QStringLiteral("preset");
        o.label = o.preset = QString::fromStdString(plan->preset);
        o.path = facts.path;
        o.estimatedBytes = fit.totalBytes;
        o.fits = fit.fits;
        o.maxContext = fit.maxContext;
        o.current = o.preset.compare(loadedQuant, Qt::CaseInsensitive) == 0;
        out << o;
    }
    return out;
}

QList<QuantOption> fileOptions(const QList<ModelEntry>& entries, const ModelFacts& loaded)
{
    QList<QuantOption> out;
    for (const ModelEntry& e : entries) {
        if (!e.ready || !e.error.isEmpty() || e.facts.architectureKey != loaded.architectureKey)
            continue;
        QuantOption o;
        o.kind = QStringLiteral("file");
        o.label = e.facts.quant;
        o.path = e.path;
        o.estimatedBytes = e.fit.totalBytes;
        o.fits = e.fit.fits;
        o.maxContext = e.fit.maxContext;
        o.current = QFileInfo(e.path) == QFileInfo(loaded.path);
        out << o;
    }
    return out;
}
