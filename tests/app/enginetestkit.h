// What the engine bridge's tests share: following an EngineHost's loads and replies into plain
// records, greedy turn requests, and tiny models written on the spot.
#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QString>
#include <QThread>

#include "enginehost.h"

namespace enginetest {

struct LoadLog {
    bool done = false, ok = false;
    ModelSummary model;
    EngineError error;
    QList<double> fractions;
    QList<LoadPhase> phases;
    QThread* progressThread = nullptr; // where the worker reported progress from
};

struct ReplyLog {
    bool done = false, ok = false;
    QString content, reasoning;   // the streamed pieces, joined
    int pieces = 0;
    QList<ReplyStats> stats;      // of every piece
    ReplyResult result;
    ReplyFailure failure;
    qint64 firstPieceMs = -1, doneMs = -1; // on the test's clock
};

// Records the host's loads into `log`, until `context` (null: the host) is destroyed.
void followLoad(EngineHost& host, LoadLog& log, QObject* context = nullptr);
// A request to load `path` on the CPU, with the preset `quant` when set.
LoadRequest cpuLoad(const QString& path, const QString& quant = {});
// Loads `request` into `host` and waits for the outcome, at most `timeoutMs` (then done is false).
LoadLog loadAndWait(EngineHost& host, const LoadRequest& request, int timeoutMs = 60000);
// Records the reply `id` into `log`; `clock` stamps its events.
void followReply(EngineHost& host, quint64 id, ReplyLog& log, const QElapsedTimer& clock);

// Greedy (deterministic) request for `text` after `history`.
TurnRequest greedyTurn(const QString& text, int maxTokens, const QList<TurnMessage>& history = {});

// A tiny random llama-shaped F32 GGUF (tests/common model builder) at dir/name; its path.
QString writeTinyModel(const QString& dir, const QString& name, int hidden = 64, int layers = 2);

// A tiny random Qwen3.5-architecture model (qwen35: three Gated DeltaNet layers and one gated
// attention layer, hidden 64) written by synth to `path` with weights in `preset` (BF16: a 16-bit
// source, as Qwen publishes them), carrying the byte-level BPE tokenizer `tokenizerJson` and
// `chatTemplate` (its config and tokenizer files go to a scratch folder of their own). `path`, or
// empty on failure (with a warning saying why).
QString writeTinyQwen35(const QString& path, const QString& tokenizerJson, const QString& chatTemplate,
                        const QString& preset = QStringLiteral("BF16"));

} // namespace enginetest
