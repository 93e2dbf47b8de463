// Switches the language of the whole app while it runs: follows AppSettings.language, installs
// the matching translator (compiled .qm files under :/i18n) and has the QML engine re-evaluate
// every qsTr binding. English is the source language: it needs no translator. Also sets
// Qt.uiLanguage, so QML can re-read texts that C++ translates (bind to Qt.uiLanguage). GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QTranslator>

#include <memory>

class AppSettings;
class QQmlEngine;

class LanguageSwitcher : public QObject
{
    Q_OBJECT

public:
    // Applies `settings`' language now (before the UI loads, so it starts translated) and on
    // every change. `engine` may be null (C++ only).
    LanguageSwitcher(QQmlEngine* engine, AppSettings* settings, QObject* parent = nullptr);
    ~LanguageSwitcher() override;

    QString language() const { return m_language; } // the one in effect: "en", "zh_CN"
    // The engine to retranslate (made after the switcher, so that C++ texts made before the
    // UI, such as start-up messages, are already translated). Applies the language to it.
    void setEngine(QQmlEngine* engine);
    // Switches to `code`; a language without a translation falls back to English. Returns
    // whether `code` is now in effect.
    bool apply(const QString& code);
    // The codes that have a translation, English included.
    static QStringList available();

signals:
    void languageChanged();

private:
    QPointer<QQmlEngine> m_engine;
    std::unique_ptr<QTranslator> m_translator; // installed while not English
    QString m_language = QStringLiteral("en");
};
