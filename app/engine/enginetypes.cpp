#include "enginetypes.h"

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
