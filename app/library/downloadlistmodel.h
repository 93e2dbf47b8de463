// The downloads as QML sees them (singleton Downloads): one row per download with its progress
// in numbers and in words, the verbs of the rows (pause, resume, cancel), and what the library
// page's confirmation shows before a download starts (the model, its size and its licence, from
// the catalog). The downloads themselves run in a DownloadQueue on a thread of its own, so that
// hashing and writing gigabytes never touch the GUI thread; rows follow its reports.
// Threads: GUI thread. main() starts it (history file, settings); without that it is an empty list.
#pragma once

#include <QAbstractListModel>
#include <QPointer>
#include <QQmlEngine>
#include <QThread>
#include <QVariantMap>

#include "downloadtypes.h"

class AppSettings;
class DownloadQueue;
class HfTokenStore;

class DownloadListModel : public QAbstractListModel
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Downloads)
    QML_SINGLETON
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(int activeCount READ activeCount NOTIFY summaryChanged)     // waiting, checking, downloading
    Q_PROPERTY(double overallFraction READ overallFraction NOTIFY summaryChanged) // of the active ones; -1: unknown
    Q_PROPERTY(QString summary READ summary NOTIFY summaryChanged)         // the sidebar's line

public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        KeyRole,          // "qwen3-8b:Q4_K_M"
        NameRole,
        StateRole,        // downloadState: "queued", "running", "verifying", "paused", "failed", "done"
        StateTextRole,
        DetailRole,       // "1.2 GiB of 4.7 GiB · 35 MiB/s · 2 min left"
        ErrorRole,
        ReceivedBytesRole,
        TotalBytesRole,   // -1: unknown
        FractionRole,     // 0..1; -1: unknown
        BytesPerSecondRole,
        SecondsLeftRole,  // -1: unknown
        LicenseRole,
        LicenseUrlRole,
        PathRole,         // the model, once downloaded
        CanPauseRole,
        CanResumeRole,
    };
    Q_ENUM(Role)

    explicit DownloadListModel(QObject* parent);
    ~DownloadListModel() override; // stops the transfers (they resume next time) and the thread

    static DownloadListModel* shared();
    static DownloadListModel* create(QQmlEngine*, QJSEngine*);

    // Opens the download list in `databasePath` (empty: the default history file) and takes up
    // the downloads an earlier run left. Settings: models folder, mirror, downloads at once.
    void start(const QString& databasePath, AppSettings* settings, HfTokenStore* token);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int activeCount() const;
    double overallFraction() const;
    QString summary() const;

    // For the confirmation before a download: name, sizeBytes, sizeText, license, licenseUrl,
    // folder; or error (unknown spec, "coming" variant, no catalog).
    Q_INVOKABLE QVariantMap describe(const QString& spec) const;
    // Starts (or resumes) the download of catalog variant "FAMILY:QUANT"; false with
    // errorOccurred when it cannot start.
    Q_INVOKABLE bool download(const QString& spec);
    Q_INVOKABLE void pause(qint64 id);
    Q_INVOKABLE void resume(qint64 id);
    Q_INVOKABLE void cancel(qint64 id);

signals:
    void countChanged();
    void summaryChanged();
    void errorOccurred(const QString& message);
    void registered(const QString& key, const QString& path); // a model arrived in the folder

private:
    void onChanged(const DownloadProgress& progress);
    void onRemoved(qint64 id);
    int rowOf(qint64 id) const;
    void applySettings();

    QThread m_thread;
    DownloadQueue* m_queue = nullptr; // lives on m_thread
    QPointer<AppSettings> m_settings;
    QList<DownloadProgress> m_rows;
};
