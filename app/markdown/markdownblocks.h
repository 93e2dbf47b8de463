// Markdown (model output, untrusted) → the app's own block list, parsed with md4c. Pure Qt Core.
//
// Every block's `text` is rich text in a small safe subset that QML's Text (RichText) shows without
// loading anything: b, i, s, u, code, a href (http, https, mailto only), br, p, ul/ol/li, pre,
// table/thead/tbody/tr/th/td, hr, blockquote; style attributes carry only MarkdownStyle's colours.
// Raw HTML in the markdown is escaped and shown as typed; images become "[image: alt]" followed
// by their target as a link; control characters show as their Control Pictures symbols; soft
// line breaks are kept as line breaks (chat replies mean them).
#pragma once

#include <QByteArrayView>
#include <QString>
#include <QStringView>

#include <vector>

struct MarkdownBlock {
    enum class Kind { Paragraph, Heading, Code, Quote, List, Rule, Table };

    Kind kind = Kind::Paragraph;
    QString text;      // safe rich text (empty for Code and Rule)
    QString plainText; // what a screen reader reads; Code: empty
    QString language;  // Code: the fence's first info word ("python"), may be empty
    QString code;      // Code: the raw code, without the final newline
    int level = 0;     // Heading: 1..6
    bool open = false; // Code: the fence is not closed yet (a reply still streaming)
    // Where the block starts in the UTF-8 input, when it can be told from the parse (a restart point
    // for incremental parsing, to be verified by the caller); -1 when unknown.
    qsizetype sourceStart = -1;

    bool sameContent(const MarkdownBlock& other) const;
};

struct MarkdownStyle {
    QString inlineCodeBackground = QStringLiteral("#1f808080"); // CSS colour of inline code and <pre>
    QString linkColor = QStringLiteral("#ff2a6fdb");            // CSS colour of links
};

class MarkdownBlocks
{
public:
    static std::vector<MarkdownBlock> parse(QStringView markdown, const MarkdownStyle& style = {});
    static std::vector<MarkdownBlock> parseUtf8(QByteArrayView markdown, const MarkdownStyle& style = {});

    // True when the text has a line that may be a link reference definition ("[x]: url"): such a
    // definition changes blocks before it, so incremental parsing must parse the whole text.
    static bool mayHaveReferenceDefinitions(QByteArrayView utf8);

    // "paragraph", "heading", "code", "quote", "list", "rule", "table": the model's kind role.
    static QString kindName(MarkdownBlock::Kind kind);
};
