// Qt Quick Test runner for the QML module Hearth (the tst_*.qml files in this folder).
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(HearthPlugin)
Q_IMPORT_QML_PLUGIN(HearthAppPlugin)

class Setup : public QObject
{
    Q_OBJECT

public slots:
    void qmlEngineAvailable(QQmlEngine* engine)
    {
        // Qt 6.4: the static modules live at qrc:/Hearth/..., which is not a default import path.
        engine->addImportPath(QStringLiteral("qrc:/"));
    }
};

QUICK_TEST_MAIN_WITH_SETUP(tst_ui, Setup)
#include "tst_ui.moc"
