#include "enginetestkit.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "apptestdata.h"
#include "engineworker.h"
#include "hearth/synth.h"
#include "model_builder.h"

namespace enginetest {

void followLoad(EngineHost& host, LoadLog& log, QObject* context)
{
    if (!context)
        context = &host;
    // Direct: runs on the engine thread, to see where the load runs.
    QObject::connect(host.worker(), &EngineWorker::loadProgress, context,
                     [&log](quint64, double, LoadPhase) { log.progressThread = QThread::currentThread(); },
                     Qt::DirectConnection);
    QObject::connect(&host, &EngineHost::loadProgress, context, [&log](quint64, double fraction, LoadPhase phase) {
        log.fractions << fraction;
        log.phases << phase;
    });
    QObject::connect(&host, &EngineHost::modelLoaded, context, [&log](quint64, const ModelSummary& model) {
        log.done = log.ok = true;
        log.model = model;
    });
    QObject::connect(&host, &EngineHost::loadFailed, context, [&log](quint64, const EngineError& error) {
        log.done = true;
        log.error = error;
    });
}

LoadRequest cpuLoad(const QString& path, const QString& quant)
{
    LoadRequest request;
    request.path = path;
    request.quant = quant;
    request.device = DeviceChoice::Cpu;
    return request;
}

LoadLog loadAndWait(EngineHost& host, const LoadRequest& request, int timeoutMs)
{
    LoadLog log;
    QObject scope; // the log's connections end with this call
    followLoad(host, log, &scope);
    host.loadModel(request);
    if (!QTest::qWaitFor([&] { return log.done; }, timeoutMs))
        qWarning("load of %s: no outcome in %d ms", qPrintable(request.path), timeoutMs);
    return log;
}

void followReply(EngineHost& host, quint64 id, ReplyLog& log, const QElapsedTimer& clock)
{
    QObject::connect(&host, &EngineHost::replyPieces, &host,
                     [&log, &clock, id](quint64 got, const QString& content, const QString& reasoning,
                                        const ReplyStats& stats) {
                         if (got != id)
                             return;
                         if (log.firstPieceMs < 0)
                             log.firstPieceMs = clock.elapsed();
                         ++log.pieces;
                         log.content += content;
                         log.reasoning += reasoning;
                         log.stats << stats;
                     });
    QObject::connect(&host, &EngineHost::replyFinished, &host, [&log, &clock, id](quint64 got, const ReplyResult& r) {
        if (got != id)
            return;
        log.done = log.ok = true;
        log.result = r;
        log.doneMs = clock.elapsed();
    });
    QObject::connect(&host, &EngineHost::replyFailed, &host, [&log, &clock, id](quint64 got, const ReplyFailure& f) {
        if (got != id)
            return;
        log.done = true;
        log.failure = f;
        log.doneMs = clock.elapsed();
    });
}

TurnRequest greedyTurn(const QString& text, int maxTokens, const QList<TurnMessage>& history)
{
    TurnRequest r;
    r.history = history;
    r.userText = text;
    r.sampling = hearth::SamplingParams{}; // greedy
    r.maxTokens = maxTokens;
    return r;
}

QString writeTinyModel(const QString& dir, const QString& name, int hidden, int layers)
{
    hearth::test::TinyModelSpec spec;
    spec.hidden = hidden;
    spec.layers = layers;
    spec.ffn = hidden * 3 / 2;
    spec.headDim = hidden / spec.heads;
    const QString path = QDir(dir).filePath(name);
    hearth::test::writeTinyGguf(spec, path.toStdString());
    return path;
}

namespace {

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size())
        return true;
    qWarning("could not write %s", qPrintable(path));
    return false;
}

} // namespace

QString writeTinyQwen35(const QString& path, const QString& tokenizerJson, const QString& chatTemplate,
                        const QString& preset)
{
    // The folder's name becomes the model's: "Qwen3.5-tiny (synthetic)".
    const QDir work(QDir(apptest::scratchDir(QStringLiteral("qwen35-fixture"))).filePath(QStringLiteral("Qwen3.5-tiny")));
    // Qwen3.5's layout at small widths: every 4th layer full attention with a quarter of its head
    // rotated, twice as many DeltaNet value heads as key heads; Qwen's vocabulary, untied.
    const QJsonArray layerTypes{"linear_attention", "linear_attention", "linear_attention", "full_attention"};
    const QJsonObject rope{{"rope_type", "default"}, {"rope_theta", 1e7}, {"partial_rotary_factor", 0.25}};
    const QJsonObject config{
        {"model_type", "qwen3_5_text"}, {"vocab_size", 151936}, {"hidden_size", 64}, {"intermediate_size", 96},
        {"num_hidden_layers", 4}, {"layer_types", layerTypes}, {"num_attention_heads", 2},
        {"num_key_value_heads", 1}, {"head_dim", 32}, {"partial_rotary_factor", 0.25}, {"rope_parameters", rope},
        {"linear_conv_kernel_dim", 4}, {"linear_num_key_heads", 2}, {"linear_num_value_heads", 4},
        {"linear_key_head_dim", 16}, {"linear_value_head_dim", 16}, {"max_position_embeddings", 4096},
        {"rms_norm_eps", 1e-6}, {"tie_word_embeddings", false}, {"hidden_act", "silu"}};
    // As a Qwen release's tokenizer_config.json has them; synth reads it beside tokenizer.json.
    const QJsonObject tokenizerConfig{{"eos_token", "<|im_end|>"}, {"pad_token", "<|endoftext|>"},
                                      {"bos_token", QJsonValue::Null}, {"add_bos_token", false},
                                      {"chat_template", chatTemplate}};
    const QString tokenizer = work.filePath(QStringLiteral("tokenizer.json"));
    if (!QDir().mkpath(work.path()) ||
        !writeFile(work.filePath(QStringLiteral("config.json")), QJsonDocument(config).toJson()) ||
        !writeFile(work.filePath(QStringLiteral("tokenizer_config.json")), QJsonDocument(tokenizerConfig).toJson()) ||
        !QFile::copy(tokenizerJson, tokenizer)) {
        qWarning("could not prepare the Qwen3.5 fixture in %s", qPrintable(work.path()));
        return {};
    }
    hearth::SynthModelParams p;
    p.configPath = work.filePath(QStringLiteral("config.json")).toStdString();
    p.tokenizerPath = tokenizer.toStdString();
    p.preset = preset.toStdString();
    p.seed = 1;
    p.threads = 2;
    p.outputPath = path.toStdString();
    const auto written = hearth::synthesizeModel(p);
    if (!written.isOk()) {
        qWarning("synth %s: %s", qPrintable(path), written.status().message().c_str());
        return {};
    }
    return path;
}

} // namespace enginetest
