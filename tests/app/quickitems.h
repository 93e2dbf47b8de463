// Finding a test scene's QML items by objectName (the tests that build real views share these).
#pragma once

#include <QList>
#include <QQuickItem>
#include <QString>

namespace apptest {

// Every item under (and including) root whose objectName is name; visibleOnly skips hidden ones.
inline void collectNamed(QQuickItem* item, const QString& name, bool visibleOnly, QList<QQuickItem*>& found)
{
    if (item->objectName() == name && (!visibleOnly || item->isVisible()))
        found << item;
    for (QQuickItem* child : item->childItems())
        collectNamed(child, name, visibleOnly, found);
}

inline QList<QQuickItem*> findAll(QQuickItem* root, const QString& name)
{
    QList<QQuickItem*> found;
    collectNamed(root, name, false, found);
    return found;
}

// The visible items named name: what a user could see and click.
inline QList<QQuickItem*> shown(QQuickItem* root, const QString& name)
{
    QList<QQuickItem*> found;
    collectNamed(root, name, true, found);
    return found;
}

} // namespace apptest
