#include "enginetypes.h"

#include <QUrl>

DeviceChoice deviceChoiceFromName(const QString& name)
{
    if (name.compare(QLatin1String("cpu"), Qt::CaseInsensitive) == 0)
        return DeviceChoice::Cpu;
    if (name.compare(QLatin1String("cuda"), Qt::CaseInsensitive) == 0)
        return DeviceChoice::Cuda;
    return DeviceChoice::Auto;
}

EngineError toEngineError(const hearth::Status& status)
{
    return {status.code(), QString::fromStdString(status.message())};
}

LoadRequest loadRequestFrom(const QString& path, const QString& quant, const QVariantMap& options)
{
    LoadRequest r;
    r.path = path.startsWith(QLatin1String("file:")) ? QUrl(path).toLocalFile() : path;
    r.quant = quant;
    r.contextLength = qMax(0, options.value(QStringLiteral("contextLength"), 0).toInt());
    r.device = deviceChoiceFromName(options.value(QStringLiteral("device")).toString());
    r.gpu = qMax(0, options.value(QStringLiteral("gpu"), 0).toInt());
    const QString kv = options.value(QStringLiteral("kvType")).toString();
    r.kvType = kv == QLatin1String("f32") ? hearth::KvType::F32
             : kv == QLatin1String("bf16") ? hearth::KvType::BF16 : hearth::KvType::F16;
    r.threads = qMax(0, options.value(QStringLiteral("threads"), 0).toInt());
    r.allowRequantize = options.value(QStringLiteral("allowRequantize"), false).toBool();
    return r;
}
