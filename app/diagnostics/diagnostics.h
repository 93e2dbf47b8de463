// What a bug report needs, in one place: "Copy diagnostics" (app and Qt versions, OS, GPU, driver
// and CUDA state, the CUDA module, model, quant, device, the last error, the log file) and the
// About page's licences. The device probe runs on its own thread (the engine caches it); model
// facts and errors come from the EngineHost it follows. GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QQmlEngine>
#include <QVariantList>

#include <functional>
#include <memory>
#include <optional>

#include "hearth/devices.h"

class EngineHost;
class QThread;

class Diagnostics : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(QString version READ version CONSTANT)
    Q_PROPERTY(QString qtVersion READ qtVersion CONSTANT)
    Q_PROPERTY(QString hearthLicence READ hearthLicence CONSTANT)
    Q_PROPERTY(QString logPath READ logPath CONSTANT)
    Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
    // [{component, licence, note}]: the libraries of this build, then the loaded model.
    Q_PROPERTY(QVariantList licences READ licences NOTIFY licencesChanged)
    // The device probe has finished (the GPU lines and the CUDA licences are known).
    Q_PROPERTY(bool probed READ probed NOTIFY probedChanged)

public:
    using Probe = std::function<hearth::DeviceReport()>;

    // Probes with hearth::probeDevices(). Not default-constructible: Qt 6.4's QML would make its
    // own singleton instead of create().
    explicit Diagnostics(QObject* parent);
    explicit Diagnostics(Probe probe, QObject* parent = nullptr);
    ~Diagnostics() override; // waits for a probe still running

    // main() registers its instance before QML starts; QML's singleton is it.
    static void setShared(Diagnostics* diagnostics);
    static Diagnostics* create(QQmlEngine*, QJSEngine*);

    // Follows `host`: its model for the report and the About page, its failures as the last error.
    void setEngine(EngineHost* host);

    static QString version();
    static QString qtVersion();
    static QString hearthLicence();
    QString logPath() const;
    QString lastError() const { return m_lastError; }
    QVariantList licences() const;
    bool probed() const { return m_report.has_value(); }

    // The report, plain text, one fact per line.
    Q_INVOKABLE QString copyText() const;
    // copyText() onto the system clipboard.
    Q_INVOKABLE void copyToClipboard() const;
    // An error the user was shown (the controller reports the ones the engine does not).
    Q_INVOKABLE void reportError(const QString& message);

signals:
    void lastErrorChanged();
    void licencesChanged();
    void probedChanged();

private:
    QString gpuLines() const;

    std::unique_ptr<QThread> m_probeThread;
    std::optional<hearth::DeviceReport> m_report;
    QPointer<EngineHost> m_engine;
    QString m_lastError;
};
