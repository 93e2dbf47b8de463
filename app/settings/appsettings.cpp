#include "appsettings.h"

#include <QCoreApplication>
#include <QDir>
#include <QLocale>
#include <QPointer>
#include <QRandomGenerator>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// The ranges the settings page offers; a stored value outside them is pulled in.
constexpr int kMaxContext = 1 << 20;
constexpr double kMaxBudgetGiB = 4096;
constexpr int kMaxGpu = 63;
constexpr int kMinFont = 10, kMaxFont = 24, kDefaultFont = 14;
constexpr int kMaxTopK = 1000;
constexpr int kMaxTokens = 1 << 17;

double clampFinite(double value, double lo, double hi, double fallback)
{
    return std::isfinite(value) ? std::clamp(value, lo, hi) : fallback;
}

// `value` when it is one of `allowed`, else `fallback`.
QString oneOf(const QString& value, const QStringList& allowed, const QString& fallback)
{
    return allowed.contains(value) ? value : fallback;
}

QString cleanPath(const QString& path)
{
    return path.isEmpty() ? QString() : QDir::cleanPath(path);
}

} // namespace

AppSettings::AppSettings(QObject* parent)
    : QObject(parent)
    , m_settings(std::make_unique<QSettings>())
{
    read();
}

AppSettings::AppSettings(const QString& iniPath, QObject* parent)
    : QObject(parent)
    , m_settings(std::make_unique<QSettings>(iniPath, QSettings::IniFormat))
{
    read();
}

AppSettings::~AppSettings() = default; // QSettings writes what is pending when it goes

AppSettings* AppSettings::shared()
{
    static QPointer<AppSettings> instance;
    if (!instance) {
        instance = new AppSettings(QCoreApplication::instance());
        QJSEngine::setObjectOwnership(instance, QJSEngine::CppOwnership); // no engine deletes it
    }
    return instance;
}

AppSettings* AppSettings::create(QQmlEngine*, QJSEngine*)
{
    return shared();
}

QString AppSettings::defaultModelsFolder()
{
    const QString data = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    return QDir(data.isEmpty() ? QDir::homePath() : data).filePath(QStringLiteral("hearth/models"));
}

QString AppSettings::defaultLanguage()
{
    return QLocale::system().language() == QLocale::Chinese ? QStringLiteral("zh_CN") : QStringLiteral("en");
}

void AppSettings::read()
{
    const QSettings& s = *m_settings;
    const hearth::SamplingParams chat = hearth::SamplingParams::chatDefaults();
    auto number = [&](const char* key, double fallback) {
        bool ok = false;
        const double v = s.value(QLatin1String(key)).toDouble(&ok);
        return ok ? v : fallback;
    };
    auto text = [&](const char* key) { return s.value(QLatin1String(key)).toString(); };

    m_contextLength = int(std::clamp(number("load/contextLength", 4096), 0.0, double(kMaxContext)));
    m_kvType = oneOf(text("load/kvType"), kvTypes(), QStringLiteral("f16"));
    m_vramBudgetGiB = clampFinite(number("load/vramBudgetGiB", 0), 0, kMaxBudgetGiB, 0);
    m_gpu = int(std::clamp(number("load/gpu", 0), 0.0, double(kMaxGpu)));
    m_device = oneOf(text("load/device"), devices(), QStringLiteral("auto"));

    m_modelsFolder = s.contains(QStringLiteral("models/folder")) ? cleanPath(text("models/folder")) : defaultModelsFolder();
    m_addedModelPaths = s.value(QStringLiteral("models/added")).toStringList();
    m_lastModelPath = text("models/lastPath");
    m_lastModelQuant = text("models/lastQuant");
    m_catalogPath = cleanPath(text("models/catalog"));
    m_hfEndpoint = text("downloads/hfEndpoint").trimmed();
    m_parallelDownloads = int(std::clamp(number("downloads/parallel", 2), 1.0, 4.0));

    m_theme = oneOf(text("appearance/theme"), themes(), QStringLiteral("system"));
    m_fontSize = int(std::clamp(number("appearance/fontSize", kDefaultFont), double(kMinFont), double(kMaxFont)));
    m_language = oneOf(text("appearance/language"), languages(), defaultLanguage());

    m_temperature = clampFinite(number("chat/temperature", chat.temperature), 0, 2, chat.temperature);
    m_topK = int(std::clamp(number("chat/topK", chat.topK), 0.0, double(kMaxTopK)));
    m_topP = clampFinite(number("chat/topP", chat.topP), 0.01, 1, chat.topP);
    m_minP = clampFinite(number("chat/minP", chat.minP), 0, 1, chat.minP);
    m_repetitionPenalty = clampFinite(number("chat/repetitionPenalty", chat.repetitionPenalty), 0.5, 2, 1);
    m_maxTokens = int(std::clamp(number("chat/maxTokens", 1024), 1.0, double(kMaxTokens)));
    m_seed = int(std::clamp(number("chat/seed", -1), -1.0, double(std::numeric_limits<int>::max())));
    m_thinking = s.value(QStringLiteral("chat/thinking"), true).toBool();
    m_chatTemplateOverride = text("chat/templateOverride");

    m_serverEnabled = s.value(QStringLiteral("server/enabled"), false).toBool();
    m_serverPort = int(std::clamp(number("server/port", 8080), 1024.0, 65535.0));
    m_serverOnNetwork = s.value(QStringLiteral("server/onNetwork"), false).toBool();
}

template <typename T>
void AppSettings::store(const char* key, T& member, const T& value, void (AppSettings::*changed)())
{
    if (member == value)
        return;
    member = value;
    m_settings->setValue(QLatin1String(key), QVariant::fromValue(value));
    emit (this->*changed)();
}

void AppSettings::setContextLength(int value)
{
    const int before = m_contextLength;
    store("load/contextLength", m_contextLength, std::clamp(value, 0, kMaxContext), &AppSettings::contextLengthChanged);
    if (before != m_contextLength)
        emit loadOptionsChanged();
}

void AppSettings::setKvType(const QString& value)
{
    if (!kvTypes().contains(value) || value == m_kvType)
        return;
    store("load/kvType", m_kvType, value, &AppSettings::kvTypeChanged);
    emit loadOptionsChanged();
}

void AppSettings::setVramBudgetGiB(double value)
{
    store("load/vramBudgetGiB", m_vramBudgetGiB, clampFinite(value, 0, kMaxBudgetGiB, m_vramBudgetGiB),
          &AppSettings::vramBudgetGiBChanged);
}

void AppSettings::setGpu(int value)
{
    const int before = m_gpu;
    store("load/gpu", m_gpu, std::clamp(value, 0, kMaxGpu), &AppSettings::gpuChanged);
    if (before != m_gpu)
        emit loadOptionsChanged();
}

void AppSettings::setDevice(const QString& value)
{
    if (!devices().contains(value) || value == m_device)
        return;
    store("load/device", m_device, value, &AppSettings::deviceChanged);
    emit loadOptionsChanged();
}

QVariantMap AppSettings::loadOptions() const
{
    return {{QStringLiteral("contextLength"), m_contextLength},
            {QStringLiteral("kvType"), m_kvType},
            {QStringLiteral("gpu"), m_gpu},
            {QStringLiteral("device"), m_device}};
}

void AppSettings::setCatalogPath(const QString& value)
{
    const QString path = value.startsWith(QLatin1String("file:")) ? QUrl(value).toLocalFile() : value;
    store("models/catalog", m_catalogPath, cleanPath(path), &AppSettings::catalogPathChanged);
}

void AppSettings::setHfEndpoint(const QString& value)
{
    store("downloads/hfEndpoint", m_hfEndpoint, value.trimmed(), &AppSettings::downloadSettingsChanged);
}

void AppSettings::setServerEnabled(bool value)
{
    store("server/enabled", m_serverEnabled, value, &AppSettings::serverSettingsChanged);
}

void AppSettings::setServerPort(int value)
{
    // Below 1024 needs privileges a desktop app does not have.
    store("server/port", m_serverPort, std::clamp(value, 1024, 65535), &AppSettings::serverSettingsChanged);
}

void AppSettings::setServerOnNetwork(bool value)
{
    store("server/onNetwork", m_serverOnNetwork, value, &AppSettings::serverSettingsChanged);
}

void AppSettings::setParallelDownloads(int value)
{
    store("downloads/parallel", m_parallelDownloads, std::clamp(value, 1, 4), &AppSettings::downloadSettingsChanged);
}

void AppSettings::setModelsFolder(const QString& value)
{
    // A folder picked in a dialog comes as a file: URL.
    const QString path = value.startsWith(QLatin1String("file:")) ? QUrl(value).toLocalFile() : value;
    store("models/folder", m_modelsFolder, cleanPath(path), &AppSettings::modelsFolderChanged);
}

void AppSettings::setAddedModelPaths(const QStringList& value)
{
    QStringList paths;
    for (const QString& p : value)
        if (!p.isEmpty() && !paths.contains(cleanPath(p)))
            paths << cleanPath(p);
    store("models/added", m_addedModelPaths, paths, &AppSettings::addedModelPathsChanged);
}

void AppSettings::setLastModelPath(const QString& value)
{
    store("models/lastPath", m_lastModelPath, cleanPath(value), &AppSettings::lastModelChanged);
}

void AppSettings::setLastModelQuant(const QString& value)
{
    store("models/lastQuant", m_lastModelQuant, value, &AppSettings::lastModelChanged);
}

void AppSettings::setTheme(const QString& value)
{
    if (themes().contains(value))
        store("appearance/theme", m_theme, value, &AppSettings::themeChanged);
}

void AppSettings::setFontSize(int value)
{
    store("appearance/fontSize", m_fontSize, std::clamp(value, kMinFont, kMaxFont), &AppSettings::fontSizeChanged);
}

void AppSettings::setLanguage(const QString& value)
{
    if (languages().contains(value))
        store("appearance/language", m_language, value, &AppSettings::languageChanged);
}

void AppSettings::setTemperature(double value)
{
    store("chat/temperature", m_temperature, clampFinite(value, 0, 2, m_temperature), &AppSettings::samplingChanged);
}

void AppSettings::setTopK(int value)
{
    store("chat/topK", m_topK, std::clamp(value, 0, kMaxTopK), &AppSettings::samplingChanged);
}

void AppSettings::setTopP(double value)
{
    store("chat/topP", m_topP, clampFinite(value, 0.01, 1, m_topP), &AppSettings::samplingChanged);
}

void AppSettings::setMinP(double value)
{
    store("chat/minP", m_minP, clampFinite(value, 0, 1, m_minP), &AppSettings::samplingChanged);
}

void AppSettings::setRepetitionPenalty(double value)
{
    store("chat/repetitionPenalty", m_repetitionPenalty, clampFinite(value, 0.5, 2, m_repetitionPenalty),
          &AppSettings::samplingChanged);
}

void AppSettings::setMaxTokens(int value)
{
    store("chat/maxTokens", m_maxTokens, std::clamp(value, 1, kMaxTokens), &AppSettings::samplingChanged);
}

void AppSettings::setSeed(int value)
{
    store("chat/seed", m_seed, std::max(value, -1), &AppSettings::samplingChanged);
}

void AppSettings::setThinking(bool value)
{
    store("chat/thinking", m_thinking, value, &AppSettings::thinkingChanged);
}

void AppSettings::setChatTemplateOverride(const QString& value)
{
    store("chat/templateOverride", m_chatTemplateOverride, value, &AppSettings::chatTemplateOverrideChanged);
}

void AppSettings::resetSampling()
{
    const hearth::SamplingParams chat = hearth::SamplingParams::chatDefaults();
    setTemperature(chat.temperature);
    setTopK(chat.topK);
    setTopP(chat.topP);
    setMinP(chat.minP);
    setRepetitionPenalty(chat.repetitionPenalty);
    setMaxTokens(1024);
    setSeed(-1);
}

hearth::SamplingParams AppSettings::sampling() const
{
    hearth::SamplingParams p = hearth::SamplingParams::chatDefaults();
    p.temperature = float(m_temperature);
    p.topK = m_topK;
    p.topP = float(m_topP);
    p.minP = float(m_minP);
    p.repetitionPenalty = float(m_repetitionPenalty);
    p.seed = m_seed >= 0 ? quint64(m_seed) : QRandomGenerator::global()->generate64();
    return p;
}

LoadRequest AppSettings::loadRequest(const QString& path, const QString& quant) const
{
    return loadRequestFrom(path, quant, loadOptions());
}
