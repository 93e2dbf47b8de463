#include "diagnostics.h"

#include "deviceprobe.h"

#include <QSysInfo>
#include <QThread>

#include <exception>

#include "clipboard.h"
#include "enginehost.h"
#include "licences.h"
#include "logfile.h"

namespace {

QPointer<Diagnostics> s_shared;

QString gib(quint64 bytes)
{
    return QString::number(double(bytes) / double(1ull << 30), 'f', 1) + QStringLiteral(" GiB");
}

// Whether the CUDA module (with the CUDA libraries it brings) is installed, loaded or not.
bool modulePresent(const hearth::DeviceReport& report)
{
    using hearth::CudaUnavailable;
    return report.cudaBuilt && report.cudaUnavailable != CudaUnavailable::NotBuilt &&
           report.cudaUnavailable != CudaUnavailable::ModuleMissing;
}

} // namespace

Diagnostics::Diagnostics(QObject* parent)
    : Diagnostics([] { return hearth::probeDevices(); }, parent)
{
}

Diagnostics::Diagnostics(Probe probe, QObject* parent)
    : QObject(parent)
{
    m_probeThread = startDeviceProbe(this, std::move(probe), QStringLiteral("Hearth diagnostics probe"),
                                     [this](const hearth::DeviceReport& report) {
                                         m_report = report;
                                         emit probedChanged();
                                         emit licencesChanged();
                                     });
}

Diagnostics::~Diagnostics()
{
    m_probeThread->wait();
}

void Diagnostics::setShared(Diagnostics* diagnostics)
{
    s_shared = diagnostics;
}

Diagnostics* Diagnostics::create(QQmlEngine*, QJSEngine*)
{
    // A QML test without main()'s instance gets its own, which the engine deletes.
    if (!s_shared)
        s_shared = new Diagnostics(nullptr);
    else
        QJSEngine::setObjectOwnership(s_shared, QJSEngine::CppOwnership);
    return s_shared;
}

void Diagnostics::setEngine(EngineHost* host)
{
    if (!followEngine(this, m_engine, host) || !host)
        return;
    connect(host, &EngineHost::modelChanged, this, &Diagnostics::licencesChanged);
    connect(host, &EngineHost::loadFailed, this, [this](quint64, const EngineError& error) {
        if (!error.cancelled())
            reportError(tr("Loading the model failed: %1").arg(error.message));
    });
    connect(host, &EngineHost::replyFailed, this, [this](quint64, const ReplyFailure& failure) {
        reportError(tr("The reply failed: %1").arg(failure.error.message));
    });
    emit licencesChanged();
}

QString Diagnostics::version()
{
    return QStringLiteral(HEARTH_VERSION);
}

QString Diagnostics::qtVersion()
{
    return QString::fromLatin1(qVersion());
}

QString Diagnostics::hearthLicence()
{
    return ::hearthLicence();
}

QString Diagnostics::logPath() const
{
    return logfile::currentPath();
}

QVariantList Diagnostics::licences() const
{
    QList<LicenceEntry> entries = libraryLicences(m_report && modulePresent(*m_report));
    if (m_engine && m_engine->isLoaded())
        entries.append(modelLicence(m_engine->modelName(), m_engine->model().facts.license));
    return toVariantList(entries);
}

void Diagnostics::reportError(const QString& message)
{
    qWarning("error shown: %s", qPrintable(message));
    if (m_lastError == message)
        return;
    m_lastError = message;
    emit lastErrorChanged();
}

QString Diagnostics::gpuLines() const
{
    if (!m_report)
        return QStringLiteral("GPU: (the device probe has not finished)\n");
    const hearth::DeviceReport& r = *m_report;
    QString out;
    int gpus = 0;
    for (const hearth::DeviceInfo& d : r.devices) {
        if (d.kind != hearth::DeviceKind::Cuda)
            continue;
        ++gpus;
        out += QStringLiteral("GPU %1: %2 (compute %3, %4)\n")
                   .arg(d.index)
                   .arg(QString::fromStdString(d.name), QString::fromStdString(d.computeCapability), gib(d.totalBytes));
    }
    if (gpus == 0)
        out += QStringLiteral("GPU: none usable\n");
    out += QStringLiteral("CUDA: %1\n").arg(gpus > 0 ? QStringLiteral("available")
                                                      : QStringLiteral("unavailable (%1): %2").arg(
                                                            QLatin1String(hearth::cudaUnavailableName(r.cudaUnavailable)),
                                                            QString::fromStdString(r.cudaUnavailableReason)));
    out += QStringLiteral("CUDA module: %1\n")
               .arg(!r.cudaBuilt ? QStringLiteral("not built")
                    : modulePresent(r) ? (gpus > 0 ? QStringLiteral("loaded") : QStringLiteral("installed"))
                                       : QStringLiteral("missing"));
    if (!r.devices.empty() && r.devices.front().kind == hearth::DeviceKind::Cpu)
        out += QStringLiteral("CPU: %1, %2 RAM\n").arg(QString::fromStdString(r.devices.front().name),
                                                       gib(r.devices.front().totalBytes));
    return out;
}

QString Diagnostics::copyText() const
{
    QString out = QStringLiteral("Hearth %1\nQt: %2 (built with %3)\nOS: %4, kernel %5, %6\n")
                      .arg(version(), qtVersion(), QStringLiteral(QT_VERSION_STR), QSysInfo::prettyProductName(),
                           QSysInfo::kernelVersion(), QSysInfo::currentCpuArchitecture());
    out += gpuLines();
    if (m_engine && m_engine->isLoaded()) {
        const ModelSummary& m = m_engine->model();
        out += QStringLiteral("Model: %1 (%2, %3)\nQuant: %4\nDevice: %5 (%6)\nContext: %7\n")
                   .arg(m.facts.name, m.facts.architecture, m.facts.path, m.quant, m.deviceName,
                        QLatin1String(hearth::deviceKindName(m.device)))
                   .arg(m.contextSize);
    } else {
        out += QStringLiteral("Model: none loaded\n");
    }
    out += QStringLiteral("Last error: %1\n").arg(m_lastError.isEmpty() ? QStringLiteral("none") : m_lastError);
    out += QStringLiteral("Log: %1\n").arg(logPath().isEmpty() ? QStringLiteral("none") : logPath());
    return out;
}

void Diagnostics::copyToClipboard() const
{
    Clipboard().setText(copyText());
}
