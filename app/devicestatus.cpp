#include "devicestatus.h"

#include "deviceprobe.h"

#include <QThread>

#include <algorithm>
#include <exception>

DeviceStatus::DeviceStatus(QObject* parent)
    : DeviceStatus([] { return hearth::probeDevices(); }, parent)
{
}

DeviceStatus::DeviceStatus(Probe probe, QObject* parent)
    : QObject(parent)
    , m_devices(new DeviceModel(this))
{
    // The result comes back as a queued call, so it is applied on this object's thread, and only
    // once the event loop runs: a QSignalSpy connected right after construction sees readyChanged.
    m_probeThread = startDeviceProbe(this, std::move(probe), QStringLiteral("Hearth device probe"),
                                     [this](const hearth::DeviceReport& report) { apply(report); });
}

DeviceStatus::~DeviceStatus()
{
    // The probe cannot be interrupted; it is short, and the result is cached by the engine.
    m_probeThread->wait();
}

QString DeviceStatus::version()
{
    return QStringLiteral(HEARTH_VERSION);
}

void DeviceStatus::apply(const hearth::DeviceReport& report)
{
    m_usingGpu = std::any_of(report.devices.begin(), report.devices.end(),
                             [](const hearth::DeviceInfo& d) { return d.kind == hearth::DeviceKind::Cuda; });
    m_backendName = m_usingGpu ? QStringLiteral("CUDA") : QStringLiteral("CPU");
    m_cudaBuilt = report.cudaBuilt;
    m_cudaUnavailableReason = m_usingGpu ? QString() : QString::fromStdString(report.cudaUnavailableReason);
    m_cpuFallbackMessage = plainFallbackMessage(report);
    // Without a CUDA build the plain message already says everything.
    m_cpuFallbackDetails = m_cudaBuilt ? m_cudaUnavailableReason : QString();
    m_devices->setDevices(report.devices);
    m_ready = true;
    emit readyChanged();
}

QString DeviceStatus::plainFallbackMessage(const hearth::DeviceReport& report)
{
    const bool anyCuda = std::any_of(report.devices.begin(), report.devices.end(),
                                     [](const hearth::DeviceInfo& d) { return d.kind == hearth::DeviceKind::Cuda; });
    if (anyCuda)
        return {};
    using hearth::CudaUnavailable;
    QString what;
    switch (report.cudaBuilt ? report.cudaUnavailable : CudaUnavailable::NotBuilt) {
    case CudaUnavailable::NotBuilt: what = tr("This build of Hearth has no GPU support"); break;
    case CudaUnavailable::NoDriver: what = tr("No NVIDIA driver found"); break;
    case CudaUnavailable::DriverBroken: what = tr("The NVIDIA driver is installed but not working"); break;
    case CudaUnavailable::DriverTooOld: what = tr("The NVIDIA driver is too old for Hearth's GPU support"); break;
    case CudaUnavailable::NoDevice: what = tr("No NVIDIA graphics card found"); break;
    case CudaUnavailable::ModuleMismatch: what = tr("Hearth's GPU support belongs to a different version of Hearth"); break;
    case CudaUnavailable::ModuleMissing:
    case CudaUnavailable::LibraryMissing:
    case CudaUnavailable::ModuleBroken: what = tr("Hearth's GPU support could not be loaded"); break;
    case CudaUnavailable::None:
    case CudaUnavailable::CudaError: what = tr("The NVIDIA graphics card can't be used right now"); break;
    }
    return tr("%1 — Hearth will run on the CPU (slower).").arg(what);
}
