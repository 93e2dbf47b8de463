#include "folderwatch.h"

#include "libraryfiles.h"

FolderWatch::FolderWatch(QObject* parent, int debounceMs)
    : QObject(parent)
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(debounceMs);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, &m_debounce, qOverload<>(&QTimer::start));
    connect(&m_debounce, &QTimer::timeout, this, [this] {
        rewatch(); // a folder made meanwhile (a Hugging Face download) is watched too
        emit changed();
    });
}

void FolderWatch::setFolder(const QString& folder)
{
    if (folder == m_folder)
        return;
    m_folder = folder;
    m_debounce.stop();
    rewatch();
}

void FolderWatch::rewatch()
{
    const QStringList wanted = watchFolders(m_folder);
    const QStringList current = m_watcher.directories();
    QStringList gone, added;
    for (const QString& d : current)
        if (!wanted.contains(d))
            gone << d;
    for (const QString& d : wanted)
        if (!current.contains(d))
            added << d;
    if (!gone.isEmpty())
        m_watcher.removePaths(gone);
    if (!added.isEmpty())
        m_watcher.addPaths(added);
}
