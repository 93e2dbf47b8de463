// The VRAM meter's numbers: asks the engine for a memory report about once a second (and gets one
// after every load), and exposes it by category with the device's totals; on the CPU backend the
// RAM the model uses and, in the user's language, why no GPU is in use. Keeps the last five
// minutes of Hearth's own use for a chart. GUI thread; the reports are made on the engine thread.
#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QQmlEngine>
#include <QTimer>

#include "enginehost.h"

class MemoryMeter : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(EngineHost* engine READ engine WRITE setEngine NOTIFY engineChanged)
    Q_PROPERTY(bool active READ isActive WRITE setActive NOTIFY activeChanged)   // polling on
    Q_PROPERTY(int intervalMs READ intervalMs WRITE setIntervalMs NOTIFY intervalMsChanged)
    Q_PROPERTY(bool valid READ isValid NOTIFY reportChanged)   // a report has arrived
    Q_PROPERTY(bool loaded READ isLoaded NOTIFY reportChanged) // a model is in memory
    Q_PROPERTY(QString deviceName READ deviceName NOTIFY reportChanged)
    Q_PROPERTY(bool onGpu READ onGpu NOTIFY reportChanged)
    // Bytes (as double: QML's int is 32-bit).
    Q_PROPERTY(double weightsBytes READ weightsBytes NOTIFY reportChanged)
    Q_PROPERTY(double kvCacheBytes READ kvCacheBytes NOTIFY reportChanged)
    Q_PROPERTY(double recurrentStateBytes READ recurrentStateBytes NOTIFY reportChanged)
    Q_PROPERTY(double workspaceBytes READ workspaceBytes NOTIFY reportChanged)
    Q_PROPERTY(double deviceContextBytes READ deviceContextBytes NOTIFY reportChanged)
    Q_PROPERTY(double usedBytes READ usedBytes NOTIFY reportChanged) // Hearth's: the categories above
    Q_PROPERTY(double otherProcessesBytes READ otherProcessesBytes NOTIFY reportChanged)
    Q_PROPERTY(double freeBytes READ freeBytes NOTIFY reportChanged)
    Q_PROPERTY(double totalBytes READ totalBytes NOTIFY reportChanged) // the device's memory
    // Empty on a GPU; else why the CPU runs the model, in words and as a code for logic:
    // "chosen", or hearth::cudaUnavailableName ("no_driver", "not_built", ...).
    Q_PROPERTY(QString noGpuReason READ noGpuReason NOTIFY reportChanged)
    Q_PROPERTY(QString noGpuReasonCode READ noGpuReasonCode NOTIFY reportChanged)
    // usedBytes over the last historyWindowSeconds: sample i was taken historySecondsAgo[i] ago.
    Q_PROPERTY(QList<qreal> historyBytes READ historyBytes NOTIFY historyChanged)
    Q_PROPERTY(QList<qreal> historySecondsAgo READ historySecondsAgo NOTIFY historyChanged)
    Q_PROPERTY(int historyWindowSeconds READ historyWindowSeconds CONSTANT)

public:
    explicit MemoryMeter(QObject* parent = nullptr);

    EngineHost* engine() const { return m_engine; }
    void setEngine(EngineHost* engine);
    bool isActive() const { return m_active; }
    void setActive(bool active);
    int intervalMs() const { return m_timer.interval(); }
    void setIntervalMs(int ms);

    bool isValid() const { return m_valid; }
    bool isLoaded() const { return m_snapshot.loaded; }
    QString deviceName() const { return QString::fromStdString(m_snapshot.report.device.name); }
    bool onGpu() const { return m_snapshot.report.device.kind == hearth::DeviceKind::Cuda; }
    double weightsBytes() const { return double(m_snapshot.report.weightsBytes); }
    double kvCacheBytes() const { return double(m_snapshot.report.kvCacheBytes); }
    double recurrentStateBytes() const { return double(m_snapshot.report.recurrentStateBytes); }
    double workspaceBytes() const { return double(m_snapshot.report.workspaceBytes); }
    double deviceContextBytes() const { return double(m_snapshot.report.deviceContextBytes); }
    double usedBytes() const { return double(m_snapshot.report.totalBytes()); }
    double otherProcessesBytes() const;
    double freeBytes() const { return double(m_snapshot.report.device.freeBytes); }
    double totalBytes() const { return double(m_snapshot.report.device.totalBytes); }
    QString noGpuReason() const;
    QString noGpuReasonCode() const;
    QList<qreal> historyBytes() const { return m_historyBytes; }
    QList<qreal> historySecondsAgo() const;
    static int historyWindowSeconds() { return 300; }

    // Takes a report (the engine's memoryReport signal; tests feed their own).
    void apply(const MemorySnapshot& snapshot);

signals:
    void engineChanged();
    void activeChanged();
    void intervalMsChanged();
    void reportChanged();
    void historyChanged();

private:
    void updateTimer();

    QPointer<EngineHost> m_engine;
    QTimer m_timer;
    bool m_active = true;
    bool m_valid = false;
    MemorySnapshot m_snapshot;
    QElapsedTimer m_clock;
    QList<qreal> m_historyBytes, m_historyTimes; // times: seconds on m_clock
};
