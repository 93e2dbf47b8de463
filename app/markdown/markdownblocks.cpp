// md4c's callbacks build one MarkdownBlock per top-level block; blocks nested inside a top-level
// quote, list or table become rich text of that block. Everything from the input is escaped.
#include "markdownblocks.h"

#include "markdownsource.h"

#include <QCoreApplication>
#include <QUrl>

#include <md4c.h>

#include <climits>
#include <utility>

namespace {

constexpr char16_t kReplacement = 0xfffd;

// Control characters are shown as their Control Pictures symbols (U+2400..), never acted on.
QChar visibleChar(QChar ch)
{
    const char16_t c = ch.unicode();
    if (c < 0x20 && c != u'\t' && c != u'\n')
        return QChar(char16_t(0x2400 + c));
    if (c == 0x7f)
        return QChar(char16_t(0x2421));
    return ch;
}

void appendPlain(QString& out, QStringView s)
{
    for (QChar ch : s)
        out += visibleChar(ch);
}

void appendEscaped(QString& out, QStringView s)
{
    for (QChar ch : s) {
        switch (ch.unicode()) {
        case u'&': out += u"&amp;"; break;
        case u'<': out += u"&lt;"; break;
        case u'>': out += u"&gt;"; break;
        case u'"': out += u"&quot;"; break;
        default: out += visibleChar(ch);
        }
    }
}

QString escaped(QStringView s)
{
    QString out;
    appendEscaped(out, s);
    return out;
}

QString decodeEntity(QByteArrayView entity)
{
    // md4c hands over "&name;", "&#123;" or "&#x1F;" verbatim.
    const QByteArrayView body = entity.sliced(1, entity.size() - 2);
    if (body.startsWith('#')) {
        const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
        bool ok = false;
        const uint cp = body.sliced(hex ? 2 : 1).toUInt(&ok, hex ? 16 : 10);
        if (!ok || cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return QString(QChar(kReplacement));
        const char32_t c = cp;
        return QString::fromUcs4(&c, 1);
    }
    static const std::pair<const char*, char16_t> named[] = {
        {"amp", u'&'}, {"lt", u'<'}, {"gt", u'>'}, {"quot", u'"'}, {"apos", u'\''},
        {"nbsp", 0x00a0}, {"copy", 0x00a9}, {"reg", 0x00ae}, {"trade", 0x2122}, {"hellip", 0x2026},
        {"mdash", 0x2014}, {"ndash", 0x2013}, {"times", 0x00d7}, {"middot", 0x00b7}, {"deg", 0x00b0},
        {"euro", 0x20ac}, {"laquo", 0x00ab}, {"raquo", 0x00bb}, {"larr", 0x2190}, {"rarr", 0x2192},
    };
    for (const auto& [name, ch] : named) {
        if (body == QByteArrayView(name))
            return QString(QChar(ch));
    }
    return QString::fromUtf8(entity); // unknown: shown as typed
}

QString attributeText(const MD_ATTRIBUTE& a)
{
    QString out;
    if (!a.text || a.size == 0)
        return out;
    for (int i = 0; a.substr_offsets[i] < a.size; ++i) {
        const QByteArrayView piece(a.text + a.substr_offsets[i], a.substr_offsets[i + 1] - a.substr_offsets[i]);
        switch (a.substr_types[i]) {
        case MD_TEXT_ENTITY: out += decodeEntity(piece); break;
        case MD_TEXT_NULLCHAR: out += QChar(kReplacement); break;
        default: out += QString::fromUtf8(piece);
        }
    }
    return out;
}

// The link target to keep clickable, fully encoded; empty when it must not be a link.
QString safeHref(QString target)
{
    target = target.trimmed();
    if (target.startsWith(u"www.", Qt::CaseInsensitive))
        target.prepend(u"http://");
    else if (target.contains(u'@') && !target.contains(u':'))
        target.prepend(u"mailto:"); // md4c's permissive e-mail autolinks come without a scheme
    const QUrl url(target, QUrl::TolerantMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid())
        return {};
    if ((scheme == u"http" || scheme == u"https") && !url.host().isEmpty())
        return url.toString(QUrl::FullyEncoded);
    if (scheme == u"mailto" && !url.path().isEmpty())
        return url.toString(QUrl::FullyEncoded);
    return {};
}

// Rich text ignores Text.linkColor, so the colour goes with each anchor.
QString anchorStart(const QString& href, const MarkdownStyle& style)
{
    return QStringLiteral("<a href=\"%1\" style=\"color:%2\">").arg(escaped(href), style.linkColor);
}

struct ClosingText {
    QString html;
    QString plain;
};

class Renderer
{
public:
    Renderer(QByteArrayView src, const MarkdownStyle& style) : m_src(src), m_lines(src), m_style(style) {}

    std::vector<MarkdownBlock> run()
    {
        MD_PARSER parser{};
        parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS | MD_FLAG_NOHTML
            | MD_FLAG_PERMISSIVEURLAUTOLINKS | MD_FLAG_PERMISSIVEWWWAUTOLINKS | MD_FLAG_PERMISSIVEEMAILAUTOLINKS;
        parser.enter_block = [](MD_BLOCKTYPE t, void* d, void* self) { return static_cast<Renderer*>(self)->enterBlock(t, d); };
        parser.leave_block = [](MD_BLOCKTYPE t, void* d, void* self) { return static_cast<Renderer*>(self)->leaveBlock(t, d); };
        parser.enter_span = [](MD_SPANTYPE t, void* d, void* self) { return static_cast<Renderer*>(self)->enterSpan(t, d); };
        parser.leave_span = [](MD_SPANTYPE t, void*, void* self) { return static_cast<Renderer*>(self)->leaveSpan(t); };
        parser.text = [](MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* self) {
            return static_cast<Renderer*>(self)->text(t, s, n);
        };
        if (m_src.size() > INT_MAX || md_parse(m_src.data(), MD_SIZE(m_src.size()), &parser, this) != 0)
            return fallback();
        if (!m_blocks.empty() && m_blocks.back().kind == MarkdownBlock::Kind::Code && m_fenceChar)
            markOpenFence(m_blocks.back());
        return std::move(m_blocks);
    }

private:
    bool top() const { return m_level == 1; }

    int enterBlock(MD_BLOCKTYPE type, void* detail)
    {
        if (type == MD_BLOCK_DOC)
            return 0;
        ++m_level;
        if (top())
            startBlock(type, detail);
        QString& h = m_block.text;
        switch (type) {
        case MD_BLOCK_QUOTE: if (!top()) { h += u"<blockquote>"; newPlainLine(); } break;
        case MD_BLOCK_UL: h += u"<ul>"; m_lists.push_back(0); newPlainLine(); break;
        case MD_BLOCK_OL: {
            const unsigned start = static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start;
            h += start == 1 ? QStringLiteral("<ol>") : QStringLiteral("<ol start=\"%1\">").arg(start);
            m_lists.push_back(int(start));
            newPlainLine();
            break;
        }
        case MD_BLOCK_LI: enterListItem(static_cast<MD_BLOCK_LI_DETAIL*>(detail)); break;
        case MD_BLOCK_HR: if (!top()) h += u"<hr/>"; break;
        case MD_BLOCK_H: if (!top()) { h += u"<p><b>"; newPlainLine(); } break;
        case MD_BLOCK_CODE:
            m_inCode = true;
            if (!top()) { h += QStringLiteral("<pre style=\"background-color:%1\">").arg(m_style.inlineCodeBackground); newPlainLine(); }
            break;
        case MD_BLOCK_P: case MD_BLOCK_HTML: if (!top()) { h += u"<p>"; newPlainLine(); } break;
        case MD_BLOCK_TABLE: h += u"<table border=\"1\" cellspacing=\"0\" cellpadding=\"6\">"; break;
        case MD_BLOCK_THEAD: h += u"<thead>"; break;
        case MD_BLOCK_TBODY: h += u"<tbody>"; break;
        case MD_BLOCK_TR: h += u"<tr>"; newPlainLine(); break;
        case MD_BLOCK_TH: case MD_BLOCK_TD: enterCell(type, static_cast<MD_BLOCK_TD_DETAIL*>(detail)); break;
        default: break;
        }
        return 0;
    }

    int leaveBlock(MD_BLOCKTYPE type, void*)
    {
        if (type == MD_BLOCK_DOC)
            return 0;
        QString& h = m_block.text;
        switch (type) {
        case MD_BLOCK_QUOTE: if (!top()) h += u"</blockquote>"; break;
        case MD_BLOCK_UL: h += u"</ul>"; m_lists.pop_back(); break;
        case MD_BLOCK_OL: h += u"</ol>"; m_lists.pop_back(); break;
        case MD_BLOCK_LI: h += u"</li>"; break;
        case MD_BLOCK_H: if (!top()) h += u"</b></p>"; break;
        case MD_BLOCK_CODE: m_inCode = false; if (!top()) h += u"</pre>"; break;
        case MD_BLOCK_P: case MD_BLOCK_HTML: if (!top()) h += u"</p>"; break;
        case MD_BLOCK_TABLE: h += u"</table>"; break;
        case MD_BLOCK_THEAD: h += u"</thead>"; break;
        case MD_BLOCK_TBODY: h += u"</tbody>"; break;
        case MD_BLOCK_TR: h += u"</tr>"; break;
        case MD_BLOCK_TH: h += u"</th>"; break;
        case MD_BLOCK_TD: h += u"</td>"; break;
        default: break;
        }
        if (top())
            finishBlock();
        --m_level;
        return 0;
    }

    void enterListItem(const MD_BLOCK_LI_DETAIL* li)
    {
        m_block.text += u"<li>";
        newPlainLine();
        int& counter = m_lists.back();
        m_block.plainText += counter > 0 ? QStringLiteral("%1. ").arg(counter++) : QStringLiteral("• ");
        if (li->is_task) {
            const bool done = li->task_mark == 'x' || li->task_mark == 'X';
            const QString box = done ? QStringLiteral("\u2611 ") : QStringLiteral("\u2610 ");
            m_block.text += box;
            m_block.plainText += box;
        }
    }

    void enterCell(MD_BLOCKTYPE type, const MD_BLOCK_TD_DETAIL* td)
    {
        static const char16_t* const aligns[] = {u"", u" align=\"left\"", u" align=\"center\"", u" align=\"right\""};
        m_block.text += type == MD_BLOCK_TH ? u"<th" : u"<td";
        m_block.text += aligns[td->align >= 0 && td->align <= 3 ? td->align : 0];
        m_block.text += u'>';
        if (!m_block.plainText.isEmpty() && !m_block.plainText.endsWith(u'\n'))
            m_block.plainText += u" | ";
    }

    int enterSpan(MD_SPANTYPE type, void* detail)
    {
        ClosingText close;
        switch (type) {
        case MD_SPAN_EM: m_block.text += u"<i>"; close.html = QStringLiteral("</i>"); break;
        case MD_SPAN_STRONG: m_block.text += u"<b>"; close.html = QStringLiteral("</b>"); break;
        case MD_SPAN_DEL: m_block.text += u"<s>"; close.html = QStringLiteral("</s>"); break;
        case MD_SPAN_U: m_block.text += u"<u>"; close.html = QStringLiteral("</u>"); break;
        case MD_SPAN_CODE:
            m_block.text += QStringLiteral("<code style=\"font-family:monospace;background-color:%1\">").arg(m_style.inlineCodeBackground);
            close.html = QStringLiteral("</code>");
            break;
        case MD_SPAN_A: close = enterLink(static_cast<MD_SPAN_A_DETAIL*>(detail)->href); break;
        case MD_SPAN_IMG: close = enterImage(static_cast<MD_SPAN_IMG_DETAIL*>(detail)->src); break;
        default: break;
        }
        m_spanClose.push_back(std::move(close));
        return 0;
    }

    int leaveSpan(MD_SPANTYPE type)
    {
        if (type == MD_SPAN_A || type == MD_SPAN_IMG)
            --m_linkDepth;
        m_block.text += m_spanClose.back().html;
        m_block.plainText += m_spanClose.back().plain;
        m_spanClose.pop_back();
        return 0;
    }

    // A safe target outside another link becomes an anchor; any other target is shown as text.
    ClosingText enterLink(const MD_ATTRIBUTE& hrefAttr)
    {
        noteAttribute(hrefAttr);
        const QString target = attributeText(hrefAttr);
        const QString href = m_linkDepth == 0 ? safeHref(target) : QString();
        ++m_linkDepth;
        if (!href.isEmpty()) {
            m_block.text += anchorStart(href, m_style);
            return {QStringLiteral("</a>"), {}};
        }
        if (target.trimmed().isEmpty())
            return {};
        return {QStringLiteral(" (%1)").arg(escaped(target)), QStringLiteral(" (%1)").arg(target)};
    }

    // Never an <img>: "[image: alt]" and the target, as a link when it is safe to offer one.
    ClosingText enterImage(const MD_ATTRIBUTE& srcAttr)
    {
        noteAttribute(srcAttr);
        const QString target = attributeText(srcAttr);
        const QString href = m_linkDepth == 0 ? safeHref(target) : QString();
        ++m_linkDepth;
        const QString label = QStringLiteral("[%1: ").arg(QCoreApplication::translate("MarkdownBlocks", "image"));
        appendText(label);
        ClosingText close{QStringLiteral("] "), QStringLiteral("] ") + target};
        close.html += href.isEmpty() ? escaped(target) : anchorStart(href, m_style) + escaped(target) + QStringLiteral("</a>");
        return close;
    }

    int text(MD_TEXTTYPE type, const MD_CHAR* s, MD_SIZE n)
    {
        noteSource(s, n);
        const QByteArrayView bytes(s, n);
        switch (type) {
        case MD_TEXT_NULLCHAR:
            if (m_inCode && top())
                m_block.code += QChar(kReplacement);
            else
                appendText(QString(QChar(kReplacement)));
            break;
        case MD_TEXT_BR: case MD_TEXT_SOFTBR: m_block.text += u"<br/>"; m_block.plainText += u'\n'; break;
        case MD_TEXT_ENTITY: appendText(decodeEntity(bytes)); break;
        case MD_TEXT_CODE:
            if (m_inCode && top())
                m_block.code += QString::fromUtf8(bytes);
            else if (m_inCode)
                appendText(QString::fromUtf8(bytes));
            else
                appendText(QString::fromUtf8(bytes).replace(u'\n', u' ')); // inline code is one line
            break;
        case MD_TEXT_HTML: { // only with HTML parsing on (it is off): shown as typed all the same
            const QStringList lines = QString::fromUtf8(bytes).split(u'\n');
            for (qsizetype i = 0; i < lines.size(); ++i) {
                if (i > 0) { m_block.text += u"<br/>"; m_block.plainText += u'\n'; }
                appendText(lines[i]);
            }
            break;
        }
        default: appendText(QString::fromUtf8(bytes)); break;
        }
        return 0;
    }

    void appendText(QStringView s)
    {
        appendEscaped(m_block.text, s);
        appendPlain(m_block.plainText, s);
    }

    void newPlainLine()
    {
        if (!m_block.plainText.isEmpty() && !m_block.plainText.endsWith(u'\n'))
            m_block.plainText += u'\n';
    }

    void startBlock(MD_BLOCKTYPE type, void* detail)
    {
        using K = MarkdownBlock::Kind;
        m_block = MarkdownBlock();
        m_minOffset = m_maxEnd = m_infoOffset = -1;
        m_fenceChar = 0;
        switch (type) {
        case MD_BLOCK_H:
            m_block.kind = K::Heading;
            m_block.level = int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
            break;
        case MD_BLOCK_CODE: {
            const auto* code = static_cast<MD_BLOCK_CODE_DETAIL*>(detail);
            m_block.kind = K::Code;
            m_block.language = attributeText(code->lang).left(64);
            m_fenceChar = code->fence_char;
            if (code->info.text && code->info.size > 0 && inSource(code->info.text))
                m_infoOffset = code->info.text - m_src.data();
            break;
        }
        case MD_BLOCK_QUOTE: m_block.kind = K::Quote; break;
        case MD_BLOCK_UL: case MD_BLOCK_OL: m_block.kind = K::List; break;
        case MD_BLOCK_HR: m_block.kind = K::Rule; break;
        case MD_BLOCK_TABLE: m_block.kind = K::Table; break;
        default: m_block.kind = K::Paragraph; break;
        }
    }

    void finishBlock()
    {
        m_block.sourceStart = restartPoint();
        while (m_block.plainText.endsWith(u'\n'))
            m_block.plainText.chop(1);
        if (m_block.code.endsWith(u'\n'))
            m_block.code.chop(1);
        m_blocks.push_back(std::move(m_block));
        m_block = MarkdownBlock();
    }

    bool inSource(const char* p) const { return p >= m_src.data() && p < m_src.data() + m_src.size(); }

    void noteSource(const char* p, qsizetype n)
    {
        if (!inSource(p))
            return; // md4c's own strings (a soft break's "\n")
        const qsizetype off = p - m_src.data();
        if (m_minOffset < 0 || off < m_minOffset)
            m_minOffset = off;
        m_maxEnd = std::max(m_maxEnd, off + n);
    }

    void noteAttribute(const MD_ATTRIBUTE& a)
    {
        if (a.text && a.size > 0)
            noteSource(a.text, a.size);
    }

    // The start of the line the block begins on, from the first source byte its text came from.
    qsizetype restartPoint() const
    {
        if (m_block.kind == MarkdownBlock::Kind::Code && m_fenceChar)
            return m_lines.fenceStart(m_fenceChar, m_infoOffset, m_minOffset);
        return m_minOffset < 0 ? -1 : m_lines.lineStart(m_minOffset);
    }

    // The last block is a fenced code block: is its closing fence there yet?
    void markOpenFence(MarkdownBlock& block) const
    {
        block.open = !m_lines.lastFenceClosed(m_fenceChar, m_infoOffset, m_maxEnd);
        if (!block.open)
            return;
        // Hide a closing fence still being typed ("``") rather than flash it as code.
        const qsizetype cut = block.code.lastIndexOf(u'\n') + 1;
        const QStringView tail = QStringView(block.code).sliced(cut).trimmed();
        if (!tail.isEmpty() && tail.count(QChar(m_fenceChar)) == tail.size()) {
            block.code.truncate(cut);
            if (block.code.endsWith(u'\n'))
                block.code.chop(1);
        }
    }

    std::vector<MarkdownBlock> fallback() const
    {
        MarkdownBlock block;
        const QString all = QString::fromUtf8(m_src);
        appendEscaped(block.text, all);
        block.text.replace(u'\n', QStringLiteral("<br/>"));
        appendPlain(block.plainText, all);
        return {block};
    }

    QByteArrayView m_src;
    MarkdownSource m_lines;
    MarkdownStyle m_style;
    std::vector<MarkdownBlock> m_blocks;
    MarkdownBlock m_block;                // the top-level block being built
    int m_level = 0;                      // open blocks inside the document; 1 = top level
    bool m_inCode = false;
    int m_linkDepth = 0;                  // open links and images: no anchor inside another
    std::vector<int> m_lists;             // per open list: the next item number, 0 for bullets
    std::vector<ClosingText> m_spanClose; // what each open span appends when it closes
    // Where the current top-level block's text came from in the source.
    qsizetype m_minOffset = -1;
    qsizetype m_maxEnd = -1;
    qsizetype m_infoOffset = -1; // a code fence's info string
    char m_fenceChar = 0;        // 0: not a fenced code block
};

} // namespace

bool MarkdownBlock::sameContent(const MarkdownBlock& other) const
{
    return kind == other.kind && level == other.level && open == other.open && text == other.text
        && plainText == other.plainText && language == other.language && code == other.code;
}

std::vector<MarkdownBlock> MarkdownBlocks::parse(QStringView markdown, const MarkdownStyle& style)
{
    return parseUtf8(markdown.toUtf8(), style);
}

std::vector<MarkdownBlock> MarkdownBlocks::parseUtf8(QByteArrayView markdown, const MarkdownStyle& style)
{
    return Renderer(markdown, style).run();
}

bool MarkdownBlocks::mayHaveReferenceDefinitions(QByteArrayView utf8)
{
    qsizetype i = 0;
    while (i < utf8.size()) {
        qsizetype end = utf8.indexOf('\n', i);
        if (end < 0)
            end = utf8.size();
        // Skip quote markers, indentation and a list marker, then look for "[label]:".
        qsizetype j = i;
        while (j < end && (utf8[j] == ' ' || utf8[j] == '\t' || utf8[j] == '>'))
            ++j;
        if (j + 1 < end && (utf8[j] == '-' || utf8[j] == '*' || utf8[j] == '+') && utf8[j + 1] == ' ')
            j += 2;
        while (j < end && utf8[j] >= '0' && utf8[j] <= '9')
            ++j;
        if (j < end && (utf8[j] == '.' || utf8[j] == ')'))
            ++j;
        while (j < end && utf8[j] == ' ')
            ++j;
        if (j < end && utf8[j] == '[' && utf8.sliced(j, end - j).indexOf("]:") > 0)
            return true;
        i = end + 1;
    }
    return false;
}

QString MarkdownBlocks::kindName(MarkdownBlock::Kind kind)
{
    switch (kind) {
    case MarkdownBlock::Kind::Paragraph: return QStringLiteral("paragraph");
    case MarkdownBlock::Kind::Heading: return QStringLiteral("heading");
    case MarkdownBlock::Kind::Code: return QStringLiteral("code");
    case MarkdownBlock::Kind::Quote: return QStringLiteral("quote");
    case MarkdownBlock::Kind::List: return QStringLiteral("list");
    case MarkdownBlock::Kind::Rule: return QStringLiteral("rule");
    case MarkdownBlock::Kind::Table: return QStringLiteral("table");
    }
    return {};
}
