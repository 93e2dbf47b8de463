// A reply's markdown as a list model for QML: one row per block (MarkdownBlocks), a long code block
// split into rows of at most kCodeChunkLines lines so that a view only lays out what it shows.
//
// Streaming: setText() takes the whole reply so far. Everything before the start of the last block
// is final (verified once by parsing from there), so only that last block is parsed again and only
// its rows change: dataChanged / rowsInserted / rowsRemoved at the tail, never a model reset. Text
// that does not extend the previous one (an edit, a regenerated reply) is parsed whole and the rows
// are updated in place where they differ.
#pragma once

#include <QAbstractListModel>
#include <QColor>
#include <QQmlEngine>

#include <vector>

#include "markdownblocks.h"

class MarkdownBlockModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString text READ text WRITE setText NOTIFY textChanged)
    // Background of inline code and code inside lists and quotes (the view's theme sets it).
    Q_PROPERTY(QColor inlineCodeBackground READ inlineCodeBackground WRITE setInlineCodeBackground
                   NOTIFY inlineCodeBackgroundChanged)
    // Colour of links (rich text ignores Text.linkColor).
    Q_PROPERTY(QColor linkColor READ linkColor WRITE setLinkColor NOTIFY linkColorChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        KindRole = Qt::UserRole + 1, // "paragraph", "heading", "code", "quote", "list", "rule", "table"
        TextRole,                    // safe rich text (not for code and rule)
        PlainTextRole,               // the same without markup, for accessibility
        LanguageRole,                // code: "python", or empty
        CodeRole,                    // code: this row's lines, raw
        LevelRole,                   // heading: 1..6, else 0
        BlockRole,                   // index of the markdown block the row belongs to
        ChunkRole,                   // code: 0 for a block's first row, 1, 2, ... for the next ones
        LastChunkRole,               // code: the block's last row
        LineCountRole,               // code: lines in this row
        OpenRole,                    // code: the fence is not closed yet (still streaming)
    };
    Q_ENUM(Role)

    static constexpr int kCodeChunkLines = 200;

    explicit MarkdownBlockModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString text() const { return m_text; }
    void setText(const QString& text);
    QColor inlineCodeBackground() const { return m_codeBackground; }
    void setInlineCodeBackground(const QColor& color);
    QColor linkColor() const { return m_linkColor; }
    void setLinkColor(const QColor& color);

    // The whole raw code of the code block that `row` belongs to (all its rows); empty otherwise.
    Q_INVOKABLE QString codeBlockText(int row) const;
    // One row as a map of role name to value (like ListModel.get); empty for a bad row.
    Q_INVOKABLE QVariantMap get(int row) const;
    // Rows that appending to the text can no longer change (all but the last block's).
    int settledRows() const { return m_stableRows; }

signals:
    void textChanged();
    void inlineCodeBackgroundChanged();
    void linkColorChanged();
    void countChanged();

private:
    struct Row {
        MarkdownBlock::Kind kind = MarkdownBlock::Kind::Paragraph;
        QString text, plainText, language, code;
        int level = 0, block = 0, chunk = 0, lineCount = 0;
        bool lastChunk = true, open = false;
        bool operator==(const Row&) const = default;
    };

    void reparse(bool incremental);
    static void appendRows(std::vector<Row>& rows, const MarkdownBlock& block, int blockIndex);
    void replaceRowsFrom(int first, std::vector<Row> rows);
    void advanceTail(const std::vector<MarkdownBlock>& tail);

    QString m_text;
    QByteArray m_utf8; // m_text in UTF-8, as md4c reads it
    std::vector<Row> m_rows;
    MarkdownStyle m_style;
    QColor m_codeBackground;
    QColor m_linkColor;
    // Everything before byte m_tailStart is final: its m_stableBlocks blocks fill the first
    // m_stableRows rows. m_rejected: restart points that did not verify (not tried again).
    qsizetype m_tailStart = 0;
    int m_stableBlocks = 0;
    int m_stableRows = 0;
    std::vector<qsizetype> m_rejected;
};
