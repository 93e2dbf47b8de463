// The stats bar of the reply in progress: decode speed now (over the last second of the reply)
// and its history over the reply for a small chart, prefill speed, time to first token, context
// used of the context size. Follows one ReplyBackend's replies (the engine or a remote server);
// after a reply it shows that reply's final figures. GUI thread.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QQmlEngine>

#include "replybackend.h"

class LiveStats : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ReplyBackend* engine READ engine WRITE setEngine NOTIFY engineChanged)
    Q_PROPERTY(bool active READ isActive NOTIFY statsChanged) // a reply is being generated
    Q_PROPERTY(int tokens READ tokens NOTIFY statsChanged)
    Q_PROPERTY(double decodeTokPerS READ decodeTokPerS NOTIFY statsChanged) // -1: not yet known
    Q_PROPERTY(double prefillTokPerS READ prefillTokPerS NOTIFY statsChanged)
    Q_PROPERTY(double ttftMs READ ttftMs NOTIFY statsChanged)
    Q_PROPERTY(int contextUsed READ contextUsed NOTIFY statsChanged)
    Q_PROPERTY(int contextSize READ contextSize NOTIFY statsChanged)
    // Decode tok/s at historyMs[i] ms into the reply.
    Q_PROPERTY(QList<qreal> decodeHistory READ decodeHistory NOTIFY historyChanged)
    Q_PROPERTY(QList<qreal> historyMs READ historyMs NOTIFY historyChanged)

public:
    explicit LiveStats(QObject* parent = nullptr);

    ReplyBackend* engine() const { return m_engine; }
    void setEngine(ReplyBackend* engine);

    bool isActive() const { return m_active; }
    int tokens() const { return m_stats.tokens; }
    double decodeTokPerS() const { return m_decodeNow; }
    double prefillTokPerS() const { return m_stats.prefillTokPerS; }
    double ttftMs() const { return m_stats.ttftMs; }
    int contextUsed() const { return m_stats.contextUsed; }
    int contextSize() const { return m_stats.contextSize; }
    QList<qreal> decodeHistory() const { return m_history; }
    QList<qreal> historyMs() const { return m_historyMs; }

    // What the engine's signals drive (tests call them directly).
    void begin(quint64 id);
    void update(quint64 id, const ReplyStats& stats);
    void end(quint64 id, const ReplyStats& finalStats);

signals:
    void engineChanged();
    void statsChanged();
    void historyChanged();

private:
    double rateOverLastSecond(const ReplyStats& stats) const;
    void halveHistory();

    QPointer<ReplyBackend> m_engine;
    quint64 m_id = 0;
    bool m_active = false;
    ReplyStats m_stats;
    double m_decodeNow = -1;
    QList<qreal> m_history, m_historyMs;
    QList<ReplyStats> m_recent; // samples of the last second, for the live rate
};
