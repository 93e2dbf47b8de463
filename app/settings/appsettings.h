// The user's settings, kept with QSettings (on Linux ~/.config/Hearth/Hearth.conf): how a model
// is loaded (context, KV type, VRAM budget, GPU, device), where models live, appearance (theme,
// font size, language) and the default sampling for new chats. Every setter checks its value
// (numbers are clamped, unknown words ignored) and writes through at once. QML reaches one shared
// instance as the singleton AppSettings; QML never touches files itself. GUI thread.
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QStringList>
#include <QVariantMap>

#include <memory>

#include "enginetypes.h"

class QSettings;

class AppSettings : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // Loading
    Q_PROPERTY(int contextLength READ contextLength WRITE setContextLength NOTIFY contextLengthChanged) // 0: the model's, capped at 4096
    Q_PROPERTY(QString kvType READ kvType WRITE setKvType NOTIFY kvTypeChanged)              // "f16", "bf16", "f32"
    Q_PROPERTY(double vramBudgetGiB READ vramBudgetGiB WRITE setVramBudgetGiB NOTIFY vramBudgetGiBChanged) // 0: all free memory
    Q_PROPERTY(int gpu READ gpu WRITE setGpu NOTIFY gpuChanged)                              // CUDA ordinal
    Q_PROPERTY(QString device READ device WRITE setDevice NOTIFY deviceChanged)              // "auto", "cpu", "cuda"
    Q_PROPERTY(QVariantMap loadOptions READ loadOptions NOTIFY loadOptionsChanged)           // for EngineHost.load
    // Models
    Q_PROPERTY(QString modelsFolder READ modelsFolder WRITE setModelsFolder NOTIFY modelsFolderChanged)
    Q_PROPERTY(QStringList addedModelPaths READ addedModelPaths WRITE setAddedModelPaths NOTIFY addedModelPathsChanged)
    Q_PROPERTY(QString lastModelPath READ lastModelPath WRITE setLastModelPath NOTIFY lastModelChanged)
    Q_PROPERTY(QString lastModelQuant READ lastModelQuant WRITE setLastModelQuant NOTIFY lastModelChanged)
    Q_PROPERTY(QString catalogPath READ catalogPath WRITE setCatalogPath NOTIFY catalogPathChanged) // empty: the built-in catalog
    // Downloads: a Hugging Face mirror (HEARTH_HF_ENDPOINT wins; empty: huggingface.co), how many at once
    Q_PROPERTY(QString hfEndpoint READ hfEndpoint WRITE setHfEndpoint NOTIFY downloadSettingsChanged)
    Q_PROPERTY(int parallelDownloads READ parallelDownloads WRITE setParallelDownloads NOTIFY downloadSettingsChanged) // 1..4
    // Appearance
    Q_PROPERTY(QString theme READ theme WRITE setTheme NOTIFY themeChanged)                  // "system", "light", "dark"
    Q_PROPERTY(int fontSize READ fontSize WRITE setFontSize NOTIFY fontSizeChanged)          // body text, px
    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)      // "en", "zh_CN"
    // Default sampling and chat
    Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY samplingChanged)
    Q_PROPERTY(int topK READ topK WRITE setTopK NOTIFY samplingChanged)                      // 0: off
    Q_PROPERTY(double topP READ topP WRITE setTopP NOTIFY samplingChanged)                   // 1: off
    Q_PROPERTY(double minP READ minP WRITE setMinP NOTIFY samplingChanged)                   // 0: off
    Q_PROPERTY(double repetitionPenalty READ repetitionPenalty WRITE setRepetitionPenalty NOTIFY samplingChanged) // 1: off
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY samplingChanged)
    Q_PROPERTY(int seed READ seed WRITE setSeed NOTIFY samplingChanged)                      // -1: a new one per reply
    Q_PROPERTY(bool thinking READ thinking WRITE setThinking NOTIFY thinkingChanged)
    Q_PROPERTY(QString chatTemplateOverride READ chatTemplateOverride WRITE setChatTemplateOverride NOTIFY chatTemplateOverrideChanged)
    // The API server (app/server/LocalServer): on or off, its port, and whether other machines
    // may connect (0.0.0.0, only with an API key); the key itself is in the keyring.
    Q_PROPERTY(bool serverEnabled READ serverEnabled WRITE setServerEnabled NOTIFY serverSettingsChanged)
    Q_PROPERTY(int serverPort READ serverPort WRITE setServerPort NOTIFY serverSettingsChanged) // 1024..65535
    Q_PROPERTY(bool serverOnNetwork READ serverOnNetwork WRITE setServerOnNetwork NOTIFY serverSettingsChanged)

public:
    // The user's settings file (QSettings' default for the application's names). No default
    // argument: Qt 6.4 would then make QML's singleton with it instead of calling create().
    explicit AppSettings(QObject* parent);
    // An INI file of its own (tests).
    explicit AppSettings(const QString& iniPath, QObject* parent = nullptr);
    ~AppSettings() override;

    // The instance QML's singleton is (made on first use, owned by the application object).
    static AppSettings* shared();
    static AppSettings* create(QQmlEngine*, QJSEngine*);

    int contextLength() const { return m_contextLength; }
    void setContextLength(int value);
    QString kvType() const { return m_kvType; }
    void setKvType(const QString& value);
    double vramBudgetGiB() const { return m_vramBudgetGiB; }
    void setVramBudgetGiB(double value);
    int gpu() const { return m_gpu; }
    void setGpu(int value);
    QString device() const { return m_device; }
    void setDevice(const QString& value);
    QVariantMap loadOptions() const;

    QString modelsFolder() const { return m_modelsFolder; }
    void setModelsFolder(const QString& value);
    QStringList addedModelPaths() const { return m_addedModelPaths; }
    void setAddedModelPaths(const QStringList& value);
    QString lastModelPath() const { return m_lastModelPath; }
    void setLastModelPath(const QString& value);
    QString lastModelQuant() const { return m_lastModelQuant; }
    void setLastModelQuant(const QString& value);
    QString catalogPath() const { return m_catalogPath; }
    void setCatalogPath(const QString& value);
    QString hfEndpoint() const { return m_hfEndpoint; }
    void setHfEndpoint(const QString& value);
    int parallelDownloads() const { return m_parallelDownloads; }
    void setParallelDownloads(int value);

    QString theme() const { return m_theme; }
    void setTheme(const QString& value);
    int fontSize() const { return m_fontSize; }
    void setFontSize(int value);
    QString language() const { return m_language; }
    void setLanguage(const QString& value);

    double temperature() const { return m_temperature; }
    void setTemperature(double value);
    int topK() const { return m_topK; }
    void setTopK(int value);
    double topP() const { return m_topP; }
    void setTopP(double value);
    double minP() const { return m_minP; }
    void setMinP(double value);
    double repetitionPenalty() const { return m_repetitionPenalty; }
    void setRepetitionPenalty(double value);
    int maxTokens() const { return m_maxTokens; }
    void setMaxTokens(int value);
    int seed() const { return m_seed; }
    void setSeed(int value);
    bool thinking() const { return m_thinking; }
    void setThinking(bool value);
    QString chatTemplateOverride() const { return m_chatTemplateOverride; }
    void setChatTemplateOverride(const QString& value);

    bool serverEnabled() const { return m_serverEnabled; }
    void setServerEnabled(bool value);
    int serverPort() const { return m_serverPort; }
    void setServerPort(int value);
    bool serverOnNetwork() const { return m_serverOnNetwork; }
    void setServerOnNetwork(bool value);

    // Sampling back to the engine's chat defaults (hearth::SamplingParams::chatDefaults()).
    Q_INVOKABLE void resetSampling();

    // For the chat controller: the sampling of a new reply (seed -1 draws a fresh seed) and a
    // load request with the loading settings.
    hearth::SamplingParams sampling() const;
    LoadRequest loadRequest(const QString& path, const QString& quant = {}) const;

    static QStringList kvTypes() { return {QStringLiteral("f16"), QStringLiteral("bf16"), QStringLiteral("f32")}; }
    static QStringList devices() { return {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}; }
    static QStringList themes() { return {QStringLiteral("system"), QStringLiteral("light"), QStringLiteral("dark")}; }
    static QStringList languages() { return {QStringLiteral("en"), QStringLiteral("zh_CN")}; }
    static QString defaultModelsFolder();
    static QString defaultLanguage(); // the system's, when Hearth speaks it; else English

signals:
    void contextLengthChanged();
    void kvTypeChanged();
    void vramBudgetGiBChanged();
    void gpuChanged();
    void deviceChanged();
    void loadOptionsChanged();
    void modelsFolderChanged();
    void addedModelPathsChanged();
    void lastModelChanged();
    void catalogPathChanged();
    void downloadSettingsChanged();
    void themeChanged();
    void fontSizeChanged();
    void languageChanged();
    void samplingChanged();
    void thinkingChanged();
    void chatTemplateOverrideChanged();
    void serverSettingsChanged();

private:
    void read();
    // Stores `value` under `key` and emits `changed` when it differs from `member`.
    template <typename T>
    void store(const char* key, T& member, const T& value, void (AppSettings::*changed)());

    std::unique_ptr<QSettings> m_settings;
    int m_contextLength = 4096;
    QString m_kvType;
    double m_vramBudgetGiB = 0;
    int m_gpu = 0;
    QString m_device;
    QString m_modelsFolder;
    QStringList m_addedModelPaths;
    QString m_lastModelPath, m_lastModelQuant;
    QString m_catalogPath;
    QString m_hfEndpoint;
    int m_parallelDownloads = 2;
    QString m_theme;
    int m_fontSize = 14;
    QString m_language;
    double m_temperature = 0, m_topP = 1, m_minP = 0, m_repetitionPenalty = 1;
    int m_topK = 0, m_maxTokens = 1024, m_seed = -1;
    bool m_thinking = true;
    QString m_chatTemplateOverride;
    bool m_serverEnabled = false, m_serverOnNetwork = false;
    int m_serverPort = 8080;
};
