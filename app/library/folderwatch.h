// Watches the models folder and its subfolders two levels down (where the scan looks) and says
// when their entries change: a file added, renamed into place (a finished download), removed, or a
// new subfolder. Bursts (a copy, a download's rename) are debounced into one changed(). New
// subfolders are watched from then on. GUI thread.
#pragma once

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

class FolderWatch : public QObject
{
    Q_OBJECT

public:
    explicit FolderWatch(QObject* parent = nullptr, int debounceMs = 300);

    QString folder() const { return m_folder; }
    void setFolder(const QString& folder); // empty: watch nothing
    QStringList watched() const { return m_watcher.directories(); }

signals:
    void changed();

private:
    void rewatch();

    QString m_folder;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
};
