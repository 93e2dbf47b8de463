#include "modelfacts.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <vector>

#include "hearth/quant.h"

namespace {

quint64 pathBytes(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isDir())
        return quint64(info.size());
    quint64 total = 0;
    for (const QFileInfo& file : QDir(path).entryInfoList(QDir::Files))
        total += quint64(file.size());
    return total;
}

QString tensorTypeText(const std::map<std::string, int>& typeCounts)
{
    std::vector<std::pair<std::string, int>> types(typeCounts.begin(), typeCounts.end());
    std::stable_sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    QStringList parts;
    for (const auto& [type, count] : types)
        parts << QStringLiteral("%1 %2").arg(QString::fromStdString(type)).arg(count);
    return parts.join(QStringLiteral(" \u00b7 "));
}

// Norms are F32 in every file: they decide only when nothing else is there.
QString mainType(const std::map<std::string, int>& typeCounts)
{
    std::string best = "F32";
    int bestCount = 0;
    for (const auto& [type, count] : typeCounts)
        if (type != "F32" && count > bestCount) {
            best = type;
            bestCount = count;
        }
    return QString::fromStdString(best);
}

ModelFacts factsOf(const QString& path, const hearth::ModelInfo& info, const QString& quant);

} // namespace

bool isFullPrecision(const std::map<std::string, int>& typeCounts)
{
    return std::all_of(typeCounts.begin(), typeCounts.end(), [](const auto& entry) {
        return entry.first == "F32" || entry.first == "F16" || entry.first == "BF16";
    });
}

QString quantLabel(const QString& path, const std::map<std::string, int>& typeCounts)
{
    auto header = hearth::ModelHeader::read(path.toStdString());
    return header.isOk() ? quantLabel(*header.value(), typeCounts) : mainType(typeCounts);
}

QString quantLabel(const hearth::ModelHeader& header, const std::map<std::string, int>& typeCounts)
{
    for (const hearth::QuantPresetInfo& preset : hearth::quantPresets()) {
        auto plan = header.planQuantPreset(preset.name);
        if (plan.isOk() && !plan->requantizes && plan->tensorTypeCounts == typeCounts)
            return QString::fromStdString(plan->preset);
    }
    return mainType(typeCounts);
}

QJsonObject samplingJson(const hearth::SamplingDefaults& d)
{
    // Six significant digits: what a float keeps of the decimal the file wrote.
    auto decimal = [](float v) { return QString::number(double(v), 'g', 6).toDouble(); };
    QJsonObject j;
    if (d.temperature)
        j.insert(QLatin1String("temperature"), decimal(*d.temperature));
    if (d.topK)
        j.insert(QLatin1String("top_k"), *d.topK);
    if (d.topP)
        j.insert(QLatin1String("top_p"), decimal(*d.topP));
    if (d.minP)
        j.insert(QLatin1String("min_p"), decimal(*d.minP));
    if (d.repetitionPenalty)
        j.insert(QLatin1String("repetition_penalty"), decimal(*d.repetitionPenalty));
    return j;
}

QString formatParameterCount(quint64 count)
{
    if (count >= 1'000'000'000ull)
        return QStringLiteral("%1B").arg(double(count) / 1e9, 0, 'f', 1);
    if (count >= 1'000'000ull)
        return QStringLiteral("%1M").arg(double(count) / 1e6, 0, 'f', count >= 100'000'000ull ? 0 : 1);
    if (count >= 1'000ull)
        return QStringLiteral("%1K").arg(count / 1000);
    return QString::number(count);
}

hearth::Result<ModelFacts> describeModelFacts(const QString& path)
{
    HEARTH_ASSIGN(const auto header, hearth::ModelHeader::read(path.toStdString()));
    return modelFacts(path, *header);
}

ModelFacts modelFacts(const QString& path, const hearth::ModelInfo& info)
{
    return factsOf(path, info, quantLabel(path, info.tensorTypeCounts));
}

ModelFacts modelFacts(const QString& path, const hearth::ModelHeader& header)
{
    return factsOf(path, header.info(), quantLabel(header, header.info().tensorTypeCounts));
}

namespace {

ModelFacts factsOf(const QString& path, const hearth::ModelInfo& info, const QString& quant)
{
    ModelFacts f;
    f.path = path;
    f.name = QString::fromStdString(info.name);
    if (f.name.isEmpty())
        f.name = QFileInfo(path).completeBaseName();
    f.format = QString::fromStdString(info.format);
    f.architecture = QString::fromStdString(info.architecture);
    f.license = QString::fromStdString(info.license);
    f.quant = quant;
    f.tensorTypes = tensorTypeText(info.tensorTypeCounts);
    f.fullPrecision = isFullPrecision(info.tensorTypeCounts);
    f.parameterCount = info.parameterCount;
    f.fileBytes = pathBytes(path);
    f.contextLength = std::max(info.contextLength, info.ropeScaledContextLength);
    f.architectureKey = QStringLiteral("%1/v%2/h%3/l%4/a%5/k%6/d%7/f%8")
                            .arg(f.architecture)
                            .arg(info.vocabSize)
                            .arg(info.hidden)
                            .arg(info.layers)
                            .arg(info.heads)
                            .arg(info.kvHeads)
                            .arg(info.headDim)
                            .arg(info.ffn);
    f.sampling = samplingJson(info.sampling);
    f.samplingProblems = QString::fromStdString(info.sampling.problems);
    return f;
}

} // namespace
