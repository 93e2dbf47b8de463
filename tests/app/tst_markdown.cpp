// MarkdownBlocks (md4c → blocks of safe rich text) and MarkdownBlockModel (streaming updates).
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

#include "markdown/markdownblockmodel.h"
#include "markdown/markdownblocks.h"

using Kind = MarkdownBlock::Kind;

namespace {

// The tags and attributes the rich text may contain; anything else would be a hole.
bool onlySafeMarkup(const QString& html, QString* bad)
{
    static const QRegularExpression tag(QStringLiteral("<(/?)([a-zA-Z0-9]+)([^>]*)>"));
    static const QStringList allowed = {
        QStringLiteral("b"), QStringLiteral("i"), QStringLiteral("s"), QStringLiteral("u"),
        QStringLiteral("code"), QStringLiteral("a"), QStringLiteral("br"), QStringLiteral("p"),
        QStringLiteral("ul"), QStringLiteral("ol"), QStringLiteral("li"), QStringLiteral("pre"),
        QStringLiteral("table"), QStringLiteral("thead"), QStringLiteral("tbody"), QStringLiteral("tr"),
        QStringLiteral("th"), QStringLiteral("td"), QStringLiteral("hr"), QStringLiteral("blockquote")};
    static const QRegularExpression attributes(QStringLiteral(
        "^(| href=\"(https?|mailto):[^\"<>]*\" style=\"color:#[0-9a-f]{8}\"| start=\"\\d+\"| align=\"(left|center|right)\"|"
        " style=\"(font-family:monospace;)?background-color:#[0-9a-f]{8}\"|"
        " border=\"1\" cellspacing=\"0\" cellpadding=\"6\"|/)$"));
    for (auto it = tag.globalMatch(html); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        if (!allowed.contains(m.captured(2)) || !attributes.match(m.captured(3)).hasMatch()) {
            *bad = m.captured(0);
            return false;
        }
    }
    // A '<' that does not start one of those tags would be markup Qt might still read.
    QString rest = html;
    rest.remove(tag);
    if (rest.contains(u'<') || rest.contains(u'>')) {
        *bad = rest;
        return false;
    }
    return true;
}

// How MarkdownBlocks opens a link to `href` with the default style.
QString anchor(QStringView href)
{
    return QStringLiteral("<a href=\"%1\" style=\"color:%2\">").arg(href, MarkdownStyle().linkColor);
}

QString rowsAsText(const MarkdownBlockModel& model)
{
    QString all;
    for (int i = 0; i < model.rowCount(); ++i) {
        const QVariantMap row = model.get(i);
        all += QStringLiteral("[%1|%2|%3|%4|%5|%6|%7]\n")
                   .arg(row[QStringLiteral("kind")].toString(), row[QStringLiteral("text")].toString(),
                        row[QStringLiteral("language")].toString(), row[QStringLiteral("code")].toString(),
                        row[QStringLiteral("level")].toString(), row[QStringLiteral("chunk")].toString(),
                        row[QStringLiteral("open")].toString());
    }
    return all;
}

// A reply that uses most of what models write.
const char* const kReply = R"(# Sorting in Python

Use `sorted()` — it returns a **new** list; `list.sort()` sorts *in place*.
A second line of the same paragraph, with a [link](https://docs.python.org/3/howto/sorting.html).

1. Make a list
2. Call `sorted` on it
   - with `key=`
   - or `reverse=True`

```python
data = [3, 1, 2]
print(sorted(data))  # [1, 2, 3]
```

> Note: `sort()` returns None.
> Quotes can span lines.

| Function | In place |
|:---------|:--------:|
| sorted   | no       |
| sort     | yes      |

---

Setext heading
--------------

~~~
tilde fence
~~~

Done. ![diagram](http://127.0.0.1:9/d.png) <b>not bold</b> <|im_end|>
)";

// Constructs whose meaning depends on the lines after them.
const char* const kTricky = R"(para
- item interrupts it
-
  item after an empty one

text
===
  indented

    indented code

    more of it
not code

> quote
lazy continuation
>> nested

1) one
2) two
10. new list

* a

  loose second paragraph
* b
   ```
   fenced in a list
   ```
````md
```
inner fence stays code
```
````
| x |
|---|
| 1 |
after table
- [ ] task
***
last <!-- comment --> &amp; done

-
  a list whose first item starts empty
- second
)";

} // namespace

class TestMarkdown : public QObject
{
    Q_OBJECT

private slots:
    void fencedCodeWithAndWithoutLanguage()
    {
        const auto blocks = MarkdownBlocks::parse(u"```python\nprint('hi')\n\nx = 1\n```\n\n```\nplain\n```\n");
        QCOMPARE(blocks.size(), size_t(2));
        QCOMPARE(blocks[0].kind, Kind::Code);
        QCOMPARE(blocks[0].language, QStringLiteral("python"));
        QCOMPARE(blocks[0].code, QStringLiteral("print('hi')\n\nx = 1"));
        QVERIFY(!blocks[0].open);
        QCOMPARE(blocks[1].kind, Kind::Code);
        QCOMPARE(blocks[1].language, QString());
        QCOMPARE(blocks[1].code, QStringLiteral("plain"));
        // The info string's first word only; code is raw, markup and all.
        const auto more = MarkdownBlocks::parse(u"~~~ c++ {.numberLines}\n<b>&amp;</b>\n~~~");
        QCOMPARE(more[0].language, QStringLiteral("c++"));
        QCOMPARE(more[0].code, QStringLiteral("<b>&amp;</b>"));
    }

    void openFenceWhileStreaming()
    {
        auto blocks = MarkdownBlocks::parse(u"Here:\n\n```js\nlet x = 1\nlet y");
        QCOMPARE(blocks.size(), size_t(2));
        QCOMPARE(blocks[1].kind, Kind::Code);
        QVERIFY(blocks[1].open);
        QCOMPARE(blocks[1].code, QStringLiteral("let x = 1\nlet y"));
        // A closing fence half typed is not shown as code.
        blocks = MarkdownBlocks::parse(u"```js\nlet x = 1\n``");
        QVERIFY(blocks[0].open);
        QCOMPARE(blocks[0].code, QStringLiteral("let x = 1"));
        blocks = MarkdownBlocks::parse(u"```js\nlet x = 1\n```");
        QVERIFY(!blocks[0].open);
        QCOMPARE(blocks[0].code, QStringLiteral("let x = 1"));
        blocks = MarkdownBlocks::parse(u"```js\n");
        QCOMPARE(blocks[0].kind, Kind::Code);
        QVERIFY(blocks[0].open);
        blocks = MarkdownBlocks::parse(u"```\n```\n");
        QVERIFY(!blocks[0].open);
    }

    void inlineCodeIsMonospaceAndEscaped()
    {
        const auto blocks = MarkdownBlocks::parse(u"Use `a < b && c` here");
        QCOMPARE(blocks.size(), size_t(1));
        QCOMPARE(blocks[0].kind, Kind::Paragraph);
        QVERIFY2(blocks[0].text.contains(QStringLiteral("<code style=\"font-family:monospace;background-color:#")), qPrintable(blocks[0].text));
        QVERIFY(blocks[0].text.contains(QStringLiteral(">a &lt; b &amp;&amp; c</code>")));
        QCOMPARE(blocks[0].plainText, QStringLiteral("Use a < b && c here"));
    }

    void emphasisAndStrike()
    {
        const auto blocks = MarkdownBlocks::parse(u"**bold** *it* ~~gone~~");
        QCOMPARE(blocks[0].text, QStringLiteral("<b>bold</b> <i>it</i> <s>gone</s>"));
    }

    void headings()
    {
        const auto blocks = MarkdownBlocks::parse(u"# One\n## Two *em*\n###### Six\nSetext\n===");
        QCOMPARE(blocks.size(), size_t(4));
        for (const auto& b : blocks)
            QCOMPARE(b.kind, Kind::Heading);
        QCOMPARE(blocks[0].level, 1);
        QCOMPARE(blocks[0].text, QStringLiteral("One"));
        QCOMPARE(blocks[1].level, 2);
        QCOMPARE(blocks[1].text, QStringLiteral("Two <i>em</i>"));
        QCOMPARE(blocks[2].level, 6);
        QCOMPARE(blocks[3].level, 1);
    }

    void nestedLists()
    {
        const auto blocks = MarkdownBlocks::parse(u"- a\n  - b\n    1. c\n- [x] d\n\n3. three\n4. four");
        QCOMPARE(blocks.size(), size_t(2));
        QCOMPARE(blocks[0].kind, Kind::List);
        const QString& ul = blocks[0].text;
        QCOMPARE(ul.count(QStringLiteral("<ul>")), 2);
        QCOMPARE(ul.count(QStringLiteral("<ol>")), 1);
        QCOMPARE(ul.count(QStringLiteral("<li>")), 4);
        QVERIFY(ul.indexOf(QStringLiteral("<li>b<ol><li>c</li></ol></li>")) > 0);
        QVERIFY(ul.contains(QStringLiteral("\u2611 d")));
        QCOMPARE(blocks[1].kind, Kind::List);
        QVERIFY(blocks[1].text.startsWith(QStringLiteral("<ol start=\"3\"><li>three</li>")));
        QCOMPARE(blocks[1].plainText, QStringLiteral("3. three\n4. four"));
    }

    void tables()
    {
        const auto blocks = MarkdownBlocks::parse(u"| a | b |\n|:--|--:|\n| `1` | **2** |\n");
        QCOMPARE(blocks.size(), size_t(1));
        QCOMPARE(blocks[0].kind, Kind::Table);
        const QString& t = blocks[0].text;
        QVERIFY(t.startsWith(QStringLiteral("<table")));
        QCOMPARE(t.count(QStringLiteral("<th align=\"left\">")), 1);
        QCOMPARE(t.count(QStringLiteral("<td align=\"right\"><b>2</b></td>")), 1);
        QVERIFY(t.contains(QStringLiteral(">1</code></td>")));
        QCOMPARE(blocks[0].plainText, QStringLiteral("a | b\n1 | 2"));
    }

    void quotesAndRules()
    {
        const auto blocks = MarkdownBlocks::parse(u"> quoted *text*\n>\n> - item\n\n---\n\nafter");
        QCOMPARE(blocks.size(), size_t(3));
        QCOMPARE(blocks[0].kind, Kind::Quote);
        QVERIFY(blocks[0].text.startsWith(QStringLiteral("<p>quoted <i>text</i></p><ul><li>item</li></ul>")));
        QCOMPARE(blocks[1].kind, Kind::Rule);
        QCOMPARE(blocks[2].text, QStringLiteral("after"));
    }

    void rawHtmlIsEscaped()
    {
        const auto blocks = MarkdownBlocks::parse(
            u"<div onclick=\"x()\">\n<img src=\"http://127.0.0.1:9/a.png\">\n</div>\n\n"
            u"Inline <b>not bold</b> <script>alert(1)</script> &lt;img&gt;");
        QCOMPARE(blocks.size(), size_t(2));
        QCOMPARE(blocks[0].kind, Kind::Paragraph);
        QVERIFY(blocks[0].text.contains(QStringLiteral("&lt;img src=&quot;http://127.0.0.1:9/a.png&quot;&gt;")));
        QCOMPARE(blocks[1].plainText, QStringLiteral("Inline <b>not bold</b> <script>alert(1)</script> <img>"));
        for (const auto& b : blocks) {
            QString bad;
            QVERIFY2(onlySafeMarkup(b.text, &bad), qPrintable(bad));
            QVERIFY(!b.text.contains(QStringLiteral("<img"), Qt::CaseInsensitive));
        }
    }

    void imagesBecomeText()
    {
        const auto blocks = MarkdownBlocks::parse(
            u"![a *cat*](http://127.0.0.1:9/cat.png \"title\") and [![inner](http://x.org/i.png)](https://x.org/)");
        const QString& t = blocks[0].text;
        QVERIFY2(!t.contains(QStringLiteral("<img"), Qt::CaseInsensitive), qPrintable(t));
        QVERIFY(t.startsWith(QStringLiteral("[image: a <i>cat</i>] ") + anchor(u"http://127.0.0.1:9/cat.png") + QStringLiteral("http://127.0.0.1:9/cat.png</a>")));
        // An image inside a link: one anchor only, the image's target as text.
        QCOMPARE(t.count(QStringLiteral("<a ")), 2);
        QVERIFY(t.contains(anchor(u"https://x.org/") + QStringLiteral("[image: inner] http://x.org/i.png</a>")));
        QCOMPARE(blocks[0].plainText, QStringLiteral("[image: a cat] http://127.0.0.1:9/cat.png and [image: inner] http://x.org/i.png"));
    }

    void onlySafeLinks()
    {
        const auto blocks = MarkdownBlocks::parse(
            u"[a](javascript:alert(1)) [b](file:///etc/passwd) [c](https://ok.example/x?q=\"1\") <https://auto.example> "
            u"www.example.org mail@example.org [d](relative/path)");
        const QString& t = blocks[0].text;
        QString bad;
        QVERIFY2(onlySafeMarkup(t, &bad), qPrintable(bad));
        QVERIFY(!t.contains(QStringLiteral("javascript:alert(1)\"")));
        QVERIFY(t.contains(QStringLiteral("a (javascript:alert(1))")));
        QVERIFY(t.contains(QStringLiteral("b (file:///etc/passwd)")));
        QVERIFY(t.contains(anchor(u"https://ok.example/x?q=%221%22") + QStringLiteral("c</a>")));
        QVERIFY(t.contains(anchor(u"https://auto.example")));
        QVERIFY(t.contains(anchor(u"http://www.example.org")));
        QVERIFY(t.contains(anchor(u"mailto:mail@example.org")));
        QVERIFY(t.contains(QStringLiteral("d (relative/path)")));
    }

    void controlTokensAndBadBytesShownLiterally()
    {
        const QString text = QString::fromUtf8("Stop <|im_end|> here <|endoftext|>\x01 bad \xff\xfe end\xc3");
        const auto blocks = MarkdownBlocks::parse(text);
        QCOMPARE(blocks.size(), size_t(1));
        QVERIFY(blocks[0].text.contains(QStringLiteral("&lt;|im_end|&gt;")));
        QVERIFY(blocks[0].plainText.startsWith(QStringLiteral("Stop <|im_end|> here <|endoftext|>\u2401 bad ")));
        QVERIFY(blocks[0].plainText.contains(QChar(0xfffd)));
        QVERIFY(blocks[0].plainText.endsWith(QStringLiteral("end\ufffd")));
        QString bad;
        QVERIFY2(onlySafeMarkup(blocks[0].text, &bad), qPrintable(bad));
        // Entities decode to text, and an invalid one to U+FFFD.
        const auto entities = MarkdownBlocks::parse(u"&lt;b&gt; &#0; &#x1F600; &bogus;");
        QCOMPARE(entities[0].plainText, QStringLiteral("<b> \ufffd \U0001F600 &bogus;"));
        QVERIFY(entities[0].text.startsWith(QStringLiteral("&lt;b&gt;")));
    }

    void hostileInputStaysSafe()
    {
        const QStringList inputs = {
            QStringLiteral("<a href=\"javascript:x\">x</a> <iframe src=//e.org>"),
            QStringLiteral("[x](<http://a.org/\" onclick=\"y>) [y](http://a.org/'><img src=x>)"),
            QStringLiteral("`<img src=http://a.org/i.png>` ``` <style>*{background:url(http://a.org)}</style>"),
            QStringLiteral("| <b>x</b> | ![i](http://a.org/i.png) |\n|--|--|\n| <svg onload=1> | &lt;&gt; |"),
            QStringLiteral("> <img src=x>\n> ```\n> <img src=y>\n> ```"),
            QStringLiteral("- <img src=x>\n  ```html\n  <img src=y>\n  ```"),
            QString::fromUtf8(kReply),
        };
        for (const QString& input : inputs) {
            for (const MarkdownBlock& b : MarkdownBlocks::parse(input)) {
                QString bad;
                QVERIFY2(onlySafeMarkup(b.text, &bad), qPrintable(input + QStringLiteral(" → ") + bad));
            }
        }
    }

    void modelRoles()
    {
        MarkdownBlockModel model;
        model.setText(QStringLiteral("## Title\n\n```sh\nls\n```\n"));
        QCOMPARE(model.rowCount(), 2);
        QVariantMap heading = model.get(0);
        QCOMPARE(heading[QStringLiteral("kind")].toString(), QStringLiteral("heading"));
        QCOMPARE(heading[QStringLiteral("level")].toInt(), 2);
        QCOMPARE(heading[QStringLiteral("text")].toString(), QStringLiteral("Title"));
        QVariantMap code = model.get(1);
        QCOMPARE(code[QStringLiteral("kind")].toString(), QStringLiteral("code"));
        QCOMPARE(code[QStringLiteral("language")].toString(), QStringLiteral("sh"));
        QCOMPARE(code[QStringLiteral("code")].toString(), QStringLiteral("ls"));
        QCOMPARE(code[QStringLiteral("lastChunk")].toBool(), true);
        QCOMPARE(model.codeBlockText(1), QStringLiteral("ls"));
        QCOMPARE(model.codeBlockText(0), QString());
        QVERIFY(model.get(2).isEmpty());
    }

    // Streaming a reply a few characters at a time gives, at every step, exactly what parsing the
    // whole text gives, and never resets the model.
    void streamingMatchesFullParse_data()
    {
        QTest::addColumn<QString>("reply");
        QTest::addColumn<int>("step"); // characters appended at a time: 1, or 1 to 3
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("settled");
        QTest::newRow("reply") << QString::fromUtf8(kReply) << 0 << 10 << 9;
        // The start of the last list cannot be told from the parse (its first item starts empty):
        // the list before it is parsed again with it.
        QTest::newRow("tricky") << QString::fromUtf8(kTricky) << 1 << 16 << 14;
    }

    void streamingMatchesFullParse()
    {
        QFETCH(QString, reply);
        QFETCH(int, step);
        QFETCH(int, rows);
        QFETCH(int, settled);
        MarkdownBlockModel streamed;
        QSignalSpy resets(&streamed, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&streamed, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&streamed, &QAbstractItemModel::rowsRemoved);
        int changedEarly = 0; // dataChanged on a row before the last two
        int rowsBefore = 0;
        connect(&streamed, &QAbstractItemModel::dataChanged, this, [&](const QModelIndex& from) {
            if (from.row() < rowsBefore - 2)
                ++changedEarly;
        });
        for (qsizetype end = 0; end < reply.size();) {
            end = std::min(reply.size(), end + (step > 0 ? step : 1 + end % 3));
            rowsBefore = streamed.rowCount();
            streamed.setText(reply.left(end));
            MarkdownBlockModel whole;
            whole.setText(reply.left(end));
            QCOMPARE(rowsAsText(streamed), rowsAsText(whole));
        }
        QCOMPARE(streamed.text(), reply);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(changedEarly, 0);
        QCOMPARE(streamed.rowCount(), rows);
        // Only the last block (or two) is parsed again on the next append.
        QCOMPARE(streamed.settledRows(), settled);
        // Rows are added at the end as blocks begin; few ever go away (a line that turned out to
        // be a setext underline folds a list into a heading).
        QVERIFY2(removed.count() <= 3, qPrintable(QString::number(removed.count())));
        QVERIFY(inserted.count() >= rows);
    }

    // An edited or regenerated text that does not extend the old one: updated in place.
    void replacedTextUpdatesInPlace()
    {
        MarkdownBlockModel model;
        model.setText(QStringLiteral("one\n\ntwo\n\nthree"));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.setText(QStringLiteral("one\n\nTWO"));
        QCOMPARE(resets.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed[0][0].toModelIndex().row(), 1);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(model.rowCount(), 2);
        model.setText(QString());
        QCOMPARE(model.rowCount(), 0);
    }

    // A definition after its use changes an earlier block: the model parses the whole text then.
    void referenceDefinitions()
    {
        const QString text = QStringLiteral("See [docs].\n\nMore text.\n\n[docs]: https://example.org/docs\n");
        MarkdownBlockModel model;
        for (qsizetype end = 1; end <= text.size(); ++end)
            model.setText(text.left(end));
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.get(0)[QStringLiteral("text")].toString().contains(anchor(u"https://example.org/docs") + QStringLiteral("docs</a>")));
    }

    void longCodeIsChunked()
    {
        QString code;
        for (int i = 0; i < 10000; ++i)
            code += QStringLiteral("line %1 = compute(%1) # a comment to make it longer\n").arg(i);
        code.chop(1);
        const QString text = QStringLiteral("Here it is:\n\n```python\n") + code + QStringLiteral("\n```\n\nDone.");
        MarkdownBlockModel model;
        QElapsedTimer timer;
        timer.start();
        model.setText(text);
        const qint64 ms = timer.elapsed();
        qInfo("10,000 lines of code: setText took %lld ms", ms);
        QVERIFY2(ms < 1000, qPrintable(QString::number(ms))); // ~10-20 ms here; generous for CI
        const int chunks = 10000 / MarkdownBlockModel::kCodeChunkLines;
        QCOMPARE(model.rowCount(), 2 + chunks);
        for (int i = 1; i <= chunks; ++i) {
            const QVariantMap row = model.get(i);
            QCOMPARE(row[QStringLiteral("chunk")].toInt(), i - 1);
            QCOMPARE(row[QStringLiteral("lineCount")].toInt(), MarkdownBlockModel::kCodeChunkLines);
            QCOMPARE(row[QStringLiteral("lastChunk")].toBool(), i == chunks);
            QCOMPARE(row[QStringLiteral("language")].toString(), QStringLiteral("python"));
        }
        QVERIFY(model.get(1)[QStringLiteral("code")].toString().startsWith(QStringLiteral("line 0 = compute(0)")));
        QCOMPARE(model.codeBlockText(chunks / 2), code);
    }

    // Appending to a 10,000-line open fence changes only its last row, and each append stays cheap.
    void streamingIntoLongCode()
    {
        QString text = QStringLiteral("```c\n");
        for (int i = 0; i < 10000; ++i)
            text += QStringLiteral("x[%1] = %1; /* filler text */\n").arg(i);
        MarkdownBlockModel model;
        model.setText(text);
        const int rows = model.rowCount();
        QVERIFY(model.get(rows - 1)[QStringLiteral("open")].toBool());
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QList<int> changedRows;
        connect(&model, &QAbstractItemModel::dataChanged, this,
                [&](const QModelIndex& from) { changedRows << from.row(); });
        QElapsedTimer timer;
        timer.start();
        const QStringList tokens = {QStringLiteral("y"), QStringLiteral(" ="), QStringLiteral(" 1"), QStringLiteral(";\n")};
        for (int i = 0; i < 100; ++i) {
            text += tokens[i % tokens.size()];
            model.setText(text);
        }
        const qint64 ms = timer.elapsed();
        qInfo("100 appends to a 10,000-line fence: %lld ms", ms);
        QVERIFY2(ms < 3000, qPrintable(QString::number(ms)));
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserted.count(), 1); // 10,025 lines: one row more than 10,000 at 200 a row
        for (int row : changedRows)
            QVERIFY2(row >= rows - 1, qPrintable(QString::number(row)));
        text += QStringLiteral("```\n");
        model.setText(text);
        QVERIFY(!model.get(model.rowCount() - 1)[QStringLiteral("open")].toBool());
    }
};

QTEST_GUILESS_MAIN(TestMarkdown)
#include "tst_markdown.moc"
