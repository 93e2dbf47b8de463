#include "chatformat.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QLocale>
#include <QRandomGenerator>

namespace chat {

QString dateSection(const QDateTime& updated, const QDate& today)
{
    const qint64 days = updated.toLocalTime().date().daysTo(today);
    if (days <= 0)
        return QCoreApplication::translate("ChatFormat", "Today");
    if (days == 1)
        return QCoreApplication::translate("ChatFormat", "Yesterday");
    if (days <= 7)
        return QCoreApplication::translate("ChatFormat", "Previous 7 days");
    return QCoreApplication::translate("ChatFormat", "Older");
}

QString statsLine(const store::ReplyStats& s)
{
    const QLocale locale;
    QStringList parts;
    if (s.decodeTokensPerSecond)
        parts << QCoreApplication::translate("ChatFormat", "%1 tok/s").arg(locale.toString(*s.decodeTokensPerSecond, 'f', 1));
    if (s.prefillTokensPerSecond)
        parts << QCoreApplication::translate("ChatFormat", "prefill %1 tok/s").arg(locale.toString(*s.prefillTokensPerSecond, 'f', 0));
    if (s.timeToFirstTokenMs)
        parts << QCoreApplication::translate("ChatFormat", "TTFT %1 ms").arg(locale.toString(*s.timeToFirstTokenMs, 'f', 0));
    if (s.generatedTokens > 0)
        parts << (s.generatedTokens == 1 ? QCoreApplication::translate("ChatFormat", "1 token")
                                         : QCoreApplication::translate("ChatFormat", "%1 tokens").arg(s.generatedTokens));
    return parts.join(QStringLiteral(" · "));
}

bool isSendable(const QString& text)
{
    for (const QChar c : text) {
        if (!c.isSpace())
            return true;
    }
    return false;
}

hearth::SamplingParams chatDefaultsWithSeed()
{
    hearth::SamplingParams p = hearth::SamplingParams::chatDefaults();
    p.seed = QRandomGenerator::global()->generate64();
    return p;
}

hearth::SamplingParams samplingFromJson(const QJsonObject& j, const hearth::SamplingParams& base)
{
    hearth::SamplingParams p = base;
    p.temperature = float(j.value(QLatin1String("temperature")).toDouble(p.temperature));
    p.topK = j.value(QLatin1String("top_k")).toInt(p.topK);
    p.topP = float(j.value(QLatin1String("top_p")).toDouble(p.topP));
    p.minP = float(j.value(QLatin1String("min_p")).toDouble(p.minP));
    p.repetitionPenalty = float(j.value(QLatin1String("repetition_penalty")).toDouble(p.repetitionPenalty));
    const QJsonValue seed = j.value(QLatin1String("seed"));
    if (seed.isDouble())
        p.seed = seed.toDouble() >= 0 ? quint64(seed.toDouble()) : QRandomGenerator::global()->generate64();
    return p;
}

const QStringList& samplingKeys()
{
    static const QStringList keys{QStringLiteral("temperature"), QStringLiteral("top_k"), QStringLiteral("top_p"),
                                  QStringLiteral("min_p"), QStringLiteral("repetition_penalty"),
                                  QStringLiteral("max_tokens"), QStringLiteral("seed")};
    return keys;
}

int maxTokensFromJson(const QJsonObject& sampling, int fallback)
{
    return sampling.value(QLatin1String("max_tokens")).toInt(fallback);
}

QStringList stopFromJson(const QJsonObject& sampling)
{
    QStringList out;
    for (const QJsonValue& v : sampling.value(QLatin1String("stop")).toArray())
        if (v.isString() && !v.toString().isEmpty())
            out << v.toString();
    return out;
}

QString stopText(const QStringList& stop)
{
    QStringList lines;
    for (QString s : stop) {
        s.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
        s.replace(QLatin1Char('\n'), QLatin1String("\\n"));
        s.replace(QLatin1Char('\t'), QLatin1String("\\t"));
        lines << s;
    }
    return lines.join(QLatin1Char('\n'));
}

QStringList parseStopText(const QString& text)
{
    QStringList out;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString s;
        for (qsizetype i = 0; i < line.size(); ++i) {
            const QChar c = line[i];
            if (c != QLatin1Char('\\') || i + 1 == line.size()) {
                s += c;
                continue;
            }
            const QChar next = line[++i];
            s += next == QLatin1Char('n') ? QChar(QLatin1Char('\n')) : next == QLatin1Char('t') ? QChar(QLatin1Char('\t')) : next;
        }
        if (!s.isEmpty() && !out.contains(s))
            out << s;
    }
    return out;
}

store::ReplyStats storeStats(const ReplyStats& s, const QString& stopReason)
{
    auto rate = [](double v) { return v >= 0 ? std::optional<double>(v) : std::nullopt; };
    store::ReplyStats out;
    out.promptTokens = s.promptTokens;
    out.generatedTokens = s.tokens;
    out.prefillTokensPerSecond = rate(s.prefillTokPerS);
    out.decodeTokensPerSecond = rate(s.decodeTokPerS);
    out.timeToFirstTokenMs = rate(s.ttftMs);
    out.stopReason = stopReason;
    return out;
}

} // namespace chat
