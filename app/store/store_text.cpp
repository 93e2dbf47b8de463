#include "store/store_text.h"

#include "store/store_types.h"

#include <QRegularExpression>

#include <algorithm>

namespace store {

QString roleName(Role role)
{
    switch (role) {
    case Role::User: return QStringLiteral("user");
    case Role::Assistant: return QStringLiteral("assistant");
    case Role::System: return QStringLiteral("system");
    }
    return QStringLiteral("user");
}

std::optional<Role> roleFromName(const QString& name)
{
    if (name == QLatin1String("user")) return Role::User;
    if (name == QLatin1String("assistant")) return Role::Assistant;
    if (name == QLatin1String("system")) return Role::System;
    return std::nullopt;
}

QString sanitizeText(const QString& text)
{
    // Never null: Qt SQL binds a null QString as NULL, and the text columns are NOT NULL.
    QString out = text.isNull() ? QString::fromLatin1("") : text;
    const qsizetype n = out.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = out.at(i);
        if (c.isHighSurrogate() && i + 1 < n && out.at(i + 1).isLowSurrogate()) {
            ++i; // a valid pair
        } else if (c.isSurrogate() || c.unicode() == 0) {
            out[i] = QChar::ReplacementCharacter;
        }
    }
    return out;
}

namespace {

// Never end a cut between the two halves of a surrogate pair.
qsizetype safeCut(const QString& text, qsizetype at)
{
    if (at > 0 && at < text.size() && text.at(at).isLowSurrogate()) return at - 1;
    return at;
}

} // namespace

QString titleFromText(const QString& text, int maxChars)
{
    const QString flat = sanitizeText(text).simplified();
    if (flat.size() <= maxChars) return flat;
    // The result, "…" included, is at most maxChars characters.
    qsizetype cut = flat.lastIndexOf(QLatin1Char(' '), maxChars - 1);
    if (cut < maxChars / 2) cut = safeCut(flat, maxChars - 1); // no space late enough: cut mid-word
    return flat.left(cut).trimmed() + QChar(0x2026);
}

QStringList searchTerms(const QString& query)
{
    QStringList terms;
    const QStringList words = sanitizeText(query).split(QRegularExpression(QStringLiteral("\\s+")),
                                                        Qt::SkipEmptyParts);
    for (const QString& w : words) {
        if (!terms.contains(w, Qt::CaseInsensitive)) terms << w;
        if (terms.size() == 8) break;
    }
    return terms;
}

int codePointCount(const QString& text)
{
    int n = 0;
    for (qsizetype i = 0; i < text.size(); ++i)
        if (!text.at(i).isLowSurrogate()) ++n;
    return n;
}

QString makeSnippet(const QString& text, const QStringList& terms, int maxChars)
{
    qsizetype hit = -1;
    for (const QString& t : terms) {
        const qsizetype at = text.indexOf(t, 0, Qt::CaseInsensitive);
        if (at >= 0 && (hit < 0 || at < hit)) hit = at;
    }
    // Show a little before the match so it reads in context, most of the window after it.
    qsizetype start = hit < 0 ? 0 : std::max<qsizetype>(0, hit - maxChars / 3);
    if (start > 0) {
        const qsizetype space = text.indexOf(QLatin1Char(' '), start);
        if (space >= 0 && space < hit) start = space + 1; // begin at a word
        start = safeCut(text, start);
    }
    const qsizetype end = safeCut(text, std::min<qsizetype>(text.size(), start + maxChars));
    QString snippet = text.mid(start, end - start).simplified();
    if (start > 0) snippet.prepend(QChar(0x2026));
    if (end < text.size()) snippet.append(QChar(0x2026));
    return snippet;
}

} // namespace store
