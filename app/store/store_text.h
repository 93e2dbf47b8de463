// Text rules of the conversation store, free of SQL so they can be tested alone:
// what may be stored, the title made from a first message, search terms and snippets.
#pragma once

#include <QString>
#include <QStringList>

namespace store {

// Text as it is stored: unpaired UTF-16 surrogates (which have no UTF-8 form) and NUL (which
// SQLite's C-string functions would cut at) become U+FFFD; everything else is kept as typed.
// Never a null QString (which Qt SQL would store as NULL).
QString sanitizeText(const QString& text);

// A conversation title from its first user message: whitespace collapsed to single spaces, cut
// to at most maxChars characters at the last space when there is one in the second half
// (otherwise mid-word, as in Chinese), with "…" added when cut. Empty for blank text.
QString titleFromText(const QString& text, int maxChars = 60);

// The words of a search query (split at whitespace), at most 8, duplicates dropped.
QStringList searchTerms(const QString& query);

// How many characters (code points) a term has: FTS5's trigram index needs at least 3.
int codePointCount(const QString& text);

// One line of text around the first occurrence of any term (case-insensitive), about
// maxChars long, with "…" where it was cut. The start of the text when no term occurs.
QString makeSnippet(const QString& text, const QStringList& terms, int maxChars = 90);

} // namespace store
