#include "markdownblockmodel.h"

#include <algorithm>

MarkdownBlockModel::MarkdownBlockModel(QObject* parent)
    : QAbstractListModel(parent), m_codeBackground(m_style.inlineCodeBackground), m_linkColor(m_style.linkColor)
{
}

int MarkdownBlockModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant MarkdownBlockModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount())
        return {};
    const Row& row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case PlainTextRole: return row.kind == MarkdownBlock::Kind::Code ? row.code : row.plainText;
    case KindRole: return MarkdownBlocks::kindName(row.kind);
    case TextRole: return row.text;
    case LanguageRole: return row.language;
    case CodeRole: return row.code;
    case LevelRole: return row.level;
    case BlockRole: return row.block;
    case ChunkRole: return row.chunk;
    case LastChunkRole: return row.lastChunk;
    case LineCountRole: return row.lineCount;
    case OpenRole: return row.open;
    default: return {};
    }
}

QHash<int, QByteArray> MarkdownBlockModel::roleNames() const
{
    return {
        {KindRole, "kind"}, {TextRole, "text"}, {PlainTextRole, "plainText"}, {LanguageRole, "language"},
        {CodeRole, "code"}, {LevelRole, "level"}, {BlockRole, "block"}, {ChunkRole, "chunk"},
        {LastChunkRole, "lastChunk"}, {LineCountRole, "lineCount"}, {OpenRole, "open"},
    };
}

void MarkdownBlockModel::setText(const QString& text)
{
    if (text == m_text)
        return;
    QByteArray utf8 = text.toUtf8();
    const bool keepsPrefix = m_tailStart > 0 && utf8.startsWith(QByteArrayView(m_utf8).first(m_tailStart));
    m_text = text;
    m_utf8 = std::move(utf8);
    reparse(keepsPrefix);
    emit textChanged();
}

void MarkdownBlockModel::setInlineCodeBackground(const QColor& color)
{
    if (color == m_codeBackground)
        return;
    m_codeBackground = color;
    m_style.inlineCodeBackground = color.name(QColor::HexArgb);
    reparse(false);
    emit inlineCodeBackgroundChanged();
}

void MarkdownBlockModel::setLinkColor(const QColor& color)
{
    if (color == m_linkColor)
        return;
    m_linkColor = color;
    m_style.linkColor = color.name(QColor::HexArgb);
    reparse(false);
    emit linkColorChanged();
}

void MarkdownBlockModel::reparse(bool incremental)
{
    // A link reference definition may change any block before it: parse everything.
    const bool references = MarkdownBlocks::mayHaveReferenceDefinitions(m_utf8);
    if (!incremental || references) {
        m_tailStart = 0;
        m_stableBlocks = m_stableRows = 0;
        m_rejected.clear();
    }
    std::vector<MarkdownBlock> tail = MarkdownBlocks::parseUtf8(QByteArrayView(m_utf8).sliced(m_tailStart), m_style);
    for (MarkdownBlock& block : tail) {
        if (block.sourceStart >= 0)
            block.sourceStart += m_tailStart;
    }
    std::vector<Row> rows;
    for (size_t i = 0; i < tail.size(); ++i)
        appendRows(rows, tail[i], m_stableBlocks + int(i));
    replaceRowsFrom(m_stableRows, std::move(rows));
    if (!references)
        advanceTail(tail);
}

void MarkdownBlockModel::appendRows(std::vector<Row>& rows, const MarkdownBlock& block, int blockIndex)
{
    Row row{block.kind, block.text, block.plainText, block.language, {}, block.level, blockIndex};
    row.open = block.open;
    if (block.kind != MarkdownBlock::Kind::Code) {
        rows.push_back(std::move(row));
        return;
    }
    // Rows of kCodeChunkLines lines: while a long block streams only its last row changes.
    for (qsizetype from = 0, chunk = 0;; ++chunk) {
        qsizetype end = from; // the newline after the row's last line; -1: the row runs to the end
        int lines = 1;
        while ((end = block.code.indexOf(u'\n', end)) >= 0 && lines < kCodeChunkLines) {
            ++end;
            ++lines;
        }
        row.code = block.code.mid(from, end < 0 ? -1 : end - from);
        row.chunk = int(chunk);
        row.lineCount = lines;
        row.lastChunk = end < 0;
        rows.push_back(row);
        if (end < 0)
            return;
        from = end + 1;
    }
}

void MarkdownBlockModel::replaceRowsFrom(int first, std::vector<Row> rows)
{
    const int oldCount = rowCount();
    const int newCount = first + int(rows.size());
    for (int i = first; i < std::min(oldCount, newCount); ++i) {
        Row& target = m_rows[size_t(i)];
        Row& source = rows[size_t(i - first)];
        if (!(target == source)) {
            target = std::move(source);
            emit dataChanged(index(i), index(i));
        }
    }
    if (newCount > oldCount) {
        beginInsertRows({}, oldCount, newCount - 1);
        std::move(rows.begin() + (oldCount - first), rows.end(), std::back_inserter(m_rows));
        endInsertRows();
    } else if (newCount < oldCount) {
        beginRemoveRows({}, newCount, oldCount - 1);
        m_rows.resize(size_t(newCount));
        endRemoveRows();
    }
    if (newCount != oldCount)
        emit countChanged();
}

// Moves the restart point to the latest block of the tail whose start can be told and verified:
// parsing from there must give exactly the blocks the parse from the old restart point gave.
void MarkdownBlockModel::advanceTail(const std::vector<MarkdownBlock>& tail)
{
    // A line still being written may yet change what the lines before it are (an underline, a
    // fence): move only when the text ends with a complete line.
    if (!m_utf8.endsWith('\n'))
        return;
    for (size_t j = tail.size(); j-- > 1;) {
        const qsizetype start = tail[j].sourceStart;
        if (start <= m_tailStart || std::find(m_rejected.begin(), m_rejected.end(), start) != m_rejected.end())
            continue;
        const std::vector<MarkdownBlock> check = MarkdownBlocks::parseUtf8(QByteArrayView(m_utf8).sliced(start), m_style);
        const bool same = check.size() == tail.size() - j
            && std::equal(check.begin(), check.end(), tail.begin() + qsizetype(j),
                          [](const MarkdownBlock& a, const MarkdownBlock& b) { return a.sameContent(b); });
        if (!same) {
            m_rejected.push_back(start);
            continue;
        }
        const int firstBlock = m_stableBlocks + int(j);
        while (m_stableRows < rowCount() && m_rows[size_t(m_stableRows)].block < firstBlock)
            ++m_stableRows;
        m_stableBlocks = firstBlock;
        m_tailStart = start;
        return;
    }
}

QString MarkdownBlockModel::codeBlockText(int row) const
{
    if (row < 0 || row >= rowCount() || m_rows[size_t(row)].kind != MarkdownBlock::Kind::Code)
        return {};
    const int block = m_rows[size_t(row)].block;
    int first = row;
    while (first > 0 && m_rows[size_t(first - 1)].block == block)
        --first;
    QString code;
    for (int i = first; i < rowCount() && m_rows[size_t(i)].block == block; ++i) {
        if (i > first)
            code += u'\n';
        code += m_rows[size_t(i)].code;
    }
    return code;
}

QVariantMap MarkdownBlockModel::get(int row) const
{
    QVariantMap map;
    if (row < 0 || row >= rowCount())
        return map;
    const QHash<int, QByteArray> names = roleNames();
    for (auto it = names.begin(); it != names.end(); ++it)
        map.insert(QString::fromUtf8(it.value()), data(index(row), it.key()));
    return map;
}
