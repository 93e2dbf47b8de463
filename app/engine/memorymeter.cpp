#include "memorymeter.h"

MemoryMeter::MemoryMeter(QObject* parent)
    : QObject(parent)
{
    m_clock.start();
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_engine)
            m_engine->requestMemoryReport();
    });
}

void MemoryMeter::setEngine(EngineHost* engine)
{
    if (!followEngine(this, m_engine, engine))
        return;
    if (m_engine) {
        connect(m_engine, &EngineHost::memoryReport, this, &MemoryMeter::apply);
        m_engine->requestMemoryReport(); // a first reading now, not in a second
    }
    updateTimer();
    emit engineChanged();
}

void MemoryMeter::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    updateTimer();
    emit activeChanged();
}

void MemoryMeter::setIntervalMs(int ms)
{
    if (ms == m_timer.interval() || ms <= 0)
        return;
    m_timer.setInterval(ms);
    emit intervalMsChanged();
}

void MemoryMeter::updateTimer()
{
    if (m_engine && m_active)
        m_timer.start();
    else
        m_timer.stop();
}

void MemoryMeter::apply(const MemorySnapshot& snapshot)
{
    m_snapshot = snapshot;
    m_valid = true;
    const qreal now = qreal(m_clock.elapsed()) / 1000;
    m_historyBytes.append(usedBytes());
    m_historyTimes.append(now);
    while (!m_historyTimes.isEmpty() && now - m_historyTimes.constFirst() > historyWindowSeconds()) {
        m_historyTimes.removeFirst();
        m_historyBytes.removeFirst();
    }
    emit reportChanged();
    emit historyChanged();
}

QList<qreal> MemoryMeter::historySecondsAgo() const
{
    QList<qreal> ago;
    ago.reserve(m_historyTimes.size());
    const qreal newest = m_historyTimes.isEmpty() ? 0 : m_historyTimes.constLast();
    for (qreal t : m_historyTimes)
        ago.append(newest - t);
    return ago;
}

double MemoryMeter::otherProcessesBytes() const
{
    // What is neither free nor Hearth's. On the CPU the mapped weights may count as available
    // page cache, so this can come out negative: nothing to show then.
    const hearth::MemoryReport& r = m_snapshot.report;
    const double other = double(r.device.totalBytes) - double(r.device.freeBytes) - double(r.totalBytes());
    return other > 0 ? other : 0;
}

QString MemoryMeter::noGpuReasonCode() const
{
    if (!m_valid || onGpu())
        return {};
    if (m_snapshot.cpuChosen)
        return QStringLiteral("chosen");
    const auto why = m_snapshot.cudaBuilt ? m_snapshot.cudaUnavailable : hearth::CudaUnavailable::NotBuilt;
    return QString::fromLatin1(hearth::cudaUnavailableName(why));
}

QString MemoryMeter::noGpuReason() const
{
    if (!m_valid || onGpu())
        return {};
    if (m_snapshot.cpuChosen)
        return tr("Running on the CPU, as chosen in the settings");
    using hearth::CudaUnavailable;
    switch (m_snapshot.cudaBuilt ? m_snapshot.cudaUnavailable : CudaUnavailable::NotBuilt) {
    case CudaUnavailable::NotBuilt: return tr("This build of Hearth has no GPU support");
    case CudaUnavailable::ModuleMissing: return tr("Hearth's GPU support is not installed");
    case CudaUnavailable::LibraryMissing: return tr("A CUDA library that Hearth's GPU support needs is missing");
    case CudaUnavailable::ModuleBroken: return tr("Hearth's GPU support could not be loaded");
    case CudaUnavailable::ModuleMismatch: return tr("Hearth's GPU support belongs to a different version of Hearth");
    case CudaUnavailable::NoDriver: return tr("No NVIDIA driver found");
    case CudaUnavailable::DriverBroken: return tr("The NVIDIA driver is installed but not working");
    case CudaUnavailable::DriverTooOld: return tr("The NVIDIA driver is too old for Hearth's GPU support");
    case CudaUnavailable::NoDevice: return tr("No NVIDIA graphics card found");
    case CudaUnavailable::None: // a GPU is usable, yet the CPU runs the model: the load chose it
    case CudaUnavailable::CudaError: return tr("The NVIDIA graphics card can't be used right now");
    }
    return {};
}
