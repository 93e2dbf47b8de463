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

// Records the load `id` (0: the next one) into `log`, until the host is destroyed.
void followLoad(EngineHost& host, LoadLog& log);
// Records the reply `id` into `log`; `clock` stamps its events.
void followReply(EngineHost& host, quint64 id, ReplyLog& log, const QElapsedTimer& clock);

// Greedy (deterministic) request for `text` after `history`.
TurnRequest greedyTurn(const QString& text, int maxTokens, const QList<TurnMessage>& history = {});

// A tiny random llama-shaped F32 GGUF (tests/common model builder) at dir/name; its path.
QString writeTinyModel(const QString& dir, const QString& name, int hidden = 64, int layers = 2);

} // namespace enginetest
