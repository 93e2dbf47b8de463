#include "languageswitcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QQmlEngine>

#include "appsettings.h"

namespace {

const QString kFolder = QStringLiteral(":/i18n");

QString qmPath(const QString& code)
{
    return QDir(kFolder).filePath(QStringLiteral("hearth_%1.qm").arg(code));
}

} // namespace

LanguageSwitcher::LanguageSwitcher(QQmlEngine* engine, AppSettings* settings, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
{
    if (!settings)
        return;
    apply(settings->language());
    connect(settings, &AppSettings::languageChanged, this, [this, settings] { apply(settings->language()); });
}

LanguageSwitcher::~LanguageSwitcher()
{
    if (m_translator)
        QCoreApplication::removeTranslator(m_translator.get());
}

void LanguageSwitcher::setEngine(QQmlEngine* engine)
{
    m_engine = engine;
    if (m_engine) {
        m_engine->setUiLanguage(m_language);
        m_engine->retranslate();
    }
}

QStringList LanguageSwitcher::available()
{
    QStringList codes{QStringLiteral("en")};
    for (const QString& file : QDir(kFolder).entryList({QStringLiteral("hearth_*.qm")}, QDir::Files))
        codes << file.mid(7, file.size() - 7 - 3); // hearth_<code>.qm
    return codes;
}

bool LanguageSwitcher::apply(const QString& code)
{
    auto translator = std::make_unique<QTranslator>();
    const bool english = code == QLatin1String("en");
    if (!english && !translator->load(qmPath(code)))
        qWarning("hearth: no translation for language %s; showing English", qPrintable(code));
    const bool translated = !english && !translator->isEmpty();
    const QString now = translated ? code : QStringLiteral("en");
    if (now == m_language)
        return now == code;
    if (m_translator)
        QCoreApplication::removeTranslator(m_translator.get());
    m_translator.reset();
    if (translated) {
        m_translator = std::move(translator);
        QCoreApplication::installTranslator(m_translator.get());
    }
    m_language = now;
    if (m_engine) {
        m_engine->setUiLanguage(now);
        m_engine->retranslate();
    }
    emit languageChanged();
    return now == code;
}
