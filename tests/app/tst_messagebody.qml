// MessageBody, RichBlock and CodeBlock: what a reply's markdown turns into on screen, the Copy
// button, links reported instead of opened, and streaming that keeps the existing delegates.
import QtQuick
import QtTest
import Hearth
import Hearth.App

Item {
    id: root
    width: 800
    height: 600

    Component {
        id: bodyComponent
        MessageBody {
            width: root.width
        }
    }

    Component {
        id: listComponent
        ListView {
            width: 400
            height: 300
            model: 2
            delegate: MessageBody {
                width: 400
                text: "hello"
            }
        }
    }

    SignalSpy {
        id: linkSpy
        signalName: "linkRequested"
    }

    TestCase {
        name: "MessageBody"
        when: windowShown

        function findAll(item, name, found) {
            found = found || []
            if (item.objectName === name)
                found.push(item)
            for (let i = 0; i < item.children.length; ++i)
                findAll(item.children[i], name, found)
            return found
        }

        function shown(item, name) {
            return findAll(item, name).filter(t => t.visible)
        }

        function lines(count) {
            const all = []
            for (let i = 0; i < count; ++i)
                all.push("print(" + i + ")")
            return all.join("\n")
        }

        function init() {
            linkSpy.clear()
        }

        function test_blocks() {
            const body = createTemporaryObject(bodyComponent, root, {
                text: "# Title\n\nHello **world** and `code`\n\n```js\nlet x = 1\n```\n\n---\n\n> a quote"
            })
            verify(body)
            tryCompare(body.blocks, "count", 5)
            const texts = shown(body, "blockText")
            compare(texts.length, 3)
            compare(texts[0].text, "Title")
            compare(texts[0].font.pixelSize, Theme.headingFont(1).pixelSize)
            verify(texts[1].text.indexOf("<b>world</b>") >= 0)
            compare(texts[1].Accessible.name, "Hello world and code")
            compare(texts[2].text, "<p>a quote</p>")
            compare(shown(body, "languageLabel")[0].text, "js")
            compare(shown(body, "codeText")[0].text, "let x = 1")
            verify(!shown(body, "progressLabel").length)
            // The heading sits above the paragraph, the paragraph above the code.
            verify(texts[0].mapToItem(body, 0, 0).y < texts[1].mapToItem(body, 0, 0).y)
            verify(texts[1].mapToItem(body, 0, 0).y < shown(body, "codeText")[0].mapToItem(body, 0, 0).y)
        }

        function test_copyButtonCopiesRawCode() {
            const code = "if a < b:\n    print(\"<b>&amp;</b>\")"
            const body = createTemporaryObject(bodyComponent, root, { text: "```python\n" + code + "\n```" })
            verify(body)
            const button = shown(body, "copyButton")[0]
            verify(button)
            verify(button.Accessible.name.length > 0)
            Clipboard.setText("")
            mouseClick(button)
            compare(Clipboard.text(), code)
            compare(button.text, qsTr("Copied"))
        }

        // A long block comes as several rows; Copy on its first row copies all of it.
        function test_copyLongCode() {
            const code = lines(450)
            const body = createTemporaryObject(bodyComponent, root, { text: "```\n" + code + "\n```\n" })
            verify(body)
            tryCompare(body.blocks, "count", 3)
            compare(findAll(body, "codeBlock").length, 3)
            compare(findAll(body, "copyButton").length, 1)
            Clipboard.setText("")
            mouseClick(shown(body, "copyButton")[0])
            compare(Clipboard.text(), code)
        }

        // Scrolling one row of a long block sideways scrolls its other rows with it.
        function test_longCodeRowsScrollTogether() {
            const wide = "x".repeat(400)
            const all = []
            for (let i = 0; i < 250; ++i)
                all.push(i + wide)
            const body = createTemporaryObject(bodyComponent, root, { text: "```\n" + all.join("\n") + "\n```" })
            verify(body)
            const flicks = findAll(body, "codeFlickable")
            compare(flicks.length, 2)
            verify(flicks[0].interactive)
            mouseDrag(flicks[0], 600, 40, -300, 0)
            tryVerify(() => flicks[0].contentX > 100)
            tryCompare(flicks[1], "contentX", flicks[0].contentX)
        }

        function test_linkIsReportedNotOpened() {
            const body = createTemporaryObject(bodyComponent, root, {
                text: "[the site](https://example.org/page) and more words after it"
            })
            verify(body)
            linkSpy.target = body
            const text = shown(body, "blockText")[0]
            verify(text)
            mouseClick(text, 8, text.height / 2)
            compare(linkSpy.count, 1)
            compare(linkSpy.signalArguments[0][0], "https://example.org/page")
            // Plain text is not a link.
            mouseClick(text, text.contentWidth - 4, text.height / 2)
            compare(linkSpy.count, 1)
        }

        function test_unsafeContentShownAsText() {
            const body = createTemporaryObject(bodyComponent, root, {
                text: "Done <|im_end|> <img src=\"http://127.0.0.1:9/x.png\"> [x](javascript:alert(1))"
            })
            verify(body)
            const text = shown(body, "blockText")[0]
            compare(text.Accessible.name,
                    "Done <|im_end|> <img src=\"http://127.0.0.1:9/x.png\"> x (javascript:alert(1))")
            verify(text.text.indexOf("<img") < 0)
            verify(text.text.indexOf("<a ") < 0)
        }

        // Inside the chat's ListView, a body finds the view it scrolls in by itself.
        function test_findsItsViewport() {
            const list = createTemporaryObject(listComponent, root)
            verify(list)
            tryVerify(() => list.itemAtIndex(1) !== null)
            compare(list.itemAtIndex(0).viewport, list)
            compare(list.itemAtIndex(1).viewport, list)
            const alone = createTemporaryObject(bodyComponent, root)
            compare(alone.viewport, null)
        }

        // Appending keeps the delegates already made; an open fence shows as code being written.
        function test_streamingKeepsDelegates() {
            const body = createTemporaryObject(bodyComponent, root, { text: "First paragraph." })
            verify(body)
            const first = shown(body, "blockText")[0]
            verify(first)
            let text = "First paragraph."
            const more = "\n\nSecond *one*.\n\n```py\nx = 1\ny = 2\n"
            for (let i = 0; i < more.length; ++i) {
                text += more[i]
                body.text = text
            }
            compare(shown(body, "blockText")[0], first)
            compare(shown(body, "blockText").length, 2)
            compare(shown(body, "codeText")[0].text, "x = 1\ny = 2")
            verify(shown(body, "progressLabel").length === 1)
            body.text = text + "```\n"
            compare(shown(body, "blockText")[0], first)
            verify(!shown(body, "progressLabel").length)
        }
    }
}
