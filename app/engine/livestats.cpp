#include "livestats.h"

namespace {
constexpr double kWindowMs = 1000;
constexpr qsizetype kMaxHistory = 1024; // then every other point goes: the chart keeps its shape
}

LiveStats::LiveStats(QObject* parent)
    : QObject(parent)
{
}

void LiveStats::setEngine(ReplyBackend* engine)
{
    if (!followEngine(this, m_engine, engine))
        return;
    if (m_engine) {
        connect(m_engine, &ReplyBackend::replyPieces, this,
                [this](quint64 id, const QString&, const QString&, const ReplyStats& s) { update(id, s); });
        connect(m_engine, &ReplyBackend::replyFinished, this, [this](quint64 id, const ReplyResult& r) { end(id, r.stats); });
        connect(m_engine, &ReplyBackend::replyFailed, this, [this](quint64 id, const ReplyFailure& f) { end(id, f.stats); });
        // Cleared when a reply starts, not at its first token: prefill can take a while.
        connect(m_engine, &ReplyBackend::generatingChanged, this, [this] {
            if (m_engine->isGenerating() && !m_active)
                begin(0);
        });
    }
    emit engineChanged();
}

void LiveStats::begin(quint64 id)
{
    m_id = id;
    m_active = true;
    m_stats = {};
    m_decodeNow = -1;
    m_recent.clear();
    m_history.clear();
    m_historyMs.clear();
    emit statsChanged();
    emit historyChanged();
}

void LiveStats::update(quint64 id, const ReplyStats& stats)
{
    if (id != m_id || !m_active)
        begin(id);
    m_stats = stats;
    m_recent.append(stats);
    while (m_recent.size() > 2 && stats.elapsedMs - m_recent.constFirst().elapsedMs > kWindowMs)
        m_recent.removeFirst();
    m_decodeNow = rateOverLastSecond(stats);
    if (m_decodeNow >= 0) {
        if (m_history.size() >= kMaxHistory)
            halveHistory();
        m_history.append(m_decodeNow);
        m_historyMs.append(stats.elapsedMs);
        emit historyChanged();
    }
    emit statsChanged();
}

void LiveStats::halveHistory()
{
    QList<qreal> values, times;
    for (qsizetype i = 0; i < m_history.size(); i += 2) {
        values.append(m_history[i]);
        times.append(m_historyMs[i]);
    }
    m_history = values;
    m_historyMs = times;
}

double LiveStats::rateOverLastSecond(const ReplyStats& stats) const
{
    // The oldest sample of the window after the first token (prefill is not decode).
    for (const ReplyStats& then : m_recent) {
        const double ms = stats.elapsedMs - then.elapsedMs;
        if (then.tokens > 0 && stats.tokens > then.tokens && ms > 0)
            return (stats.tokens - then.tokens) * 1000.0 / ms;
    }
    return stats.decodeTokPerS;
}

void LiveStats::end(quint64 id, const ReplyStats& finalStats)
{
    if (id != m_id && m_active)
        return; // a reply that was never followed
    m_id = id;
    m_active = false;
    m_stats = finalStats;
    m_decodeNow = finalStats.decodeTokPerS;
    m_recent.clear();
    emit statsChanged();
}
