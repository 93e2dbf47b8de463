// Which backend and devices the engine will use, for the first-run/status screen.
// The probe (hearth::probeDevices, ~1 s the first time: it loads the CUDA libraries) runs on its
// own thread; the properties are filled in on the GUI thread and then `ready` turns true.
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QString>

#include <functional>
#include <memory>

#include "devicemodel.h"
#include "hearth/devices.h"

class QThread;

class DeviceStatus : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // Every property below except version and devices changes once, together with ready.
    Q_PROPERTY(bool ready READ isReady NOTIFY readyChanged)
    Q_PROPERTY(QString version READ version CONSTANT)
    Q_PROPERTY(QString backendName READ backendName NOTIFY readyChanged)
    Q_PROPERTY(bool usingGpu READ usingGpu NOTIFY readyChanged)
    Q_PROPERTY(DeviceModel* devices READ devices CONSTANT)
    Q_PROPERTY(bool cudaBuilt READ cudaBuilt NOTIFY readyChanged)
    Q_PROPERTY(QString cudaUnavailableReason READ cudaUnavailableReason NOTIFY readyChanged)
    Q_PROPERTY(QString cpuFallbackMessage READ cpuFallbackMessage NOTIFY readyChanged)
    Q_PROPERTY(QString cpuFallbackDetails READ cpuFallbackDetails NOTIFY readyChanged)

public:
    // Returns the report to show; runs on the probe thread. Tests pass a fake one.
    using Probe = std::function<hearth::DeviceReport()>;

    explicit DeviceStatus(QObject* parent = nullptr); // probes with hearth::probeDevices()
    explicit DeviceStatus(Probe probe, QObject* parent = nullptr);
    ~DeviceStatus() override; // waits for a probe still running

    bool isReady() const { return m_ready; }
    static QString version();
    QString backendName() const { return m_backendName; }   // "CUDA" or "CPU"; empty until ready
    bool usingGpu() const { return m_usingGpu; }
    DeviceModel* devices() const { return m_devices; }
    bool cudaBuilt() const { return m_cudaBuilt; }
    QString cudaUnavailableReason() const { return m_cudaUnavailableReason; } // engine's words
    // Plain words for the user when no GPU is usable ("No NVIDIA driver found — ..."); else empty.
    QString cpuFallbackMessage() const { return m_cpuFallbackMessage; }
    // The engine's reason, when it adds something to the plain message (for "Details: ..."); else empty.
    QString cpuFallbackDetails() const { return m_cpuFallbackDetails; }

    static QString plainFallbackMessage(const hearth::DeviceReport& report);

signals:
    void readyChanged();

private:
    void apply(const hearth::DeviceReport& report);

    DeviceModel* m_devices = nullptr; // child
    std::unique_ptr<QThread> m_probeThread;
    bool m_ready = false;
    bool m_usingGpu = false;
    bool m_cudaBuilt = false;
    QString m_backendName;
    QString m_cudaUnavailableReason;
    QString m_cpuFallbackMessage;
    QString m_cpuFallbackDetails;
};
