// The body of a reply: its markdown (untrusted model output) as blocks, one delegate per row of a
// MarkdownBlockModel. Nothing here loads a URL: links are reported by linkRequested for the page
// to confirm (showing the target) before it opens them. While a reply streams, `text` grows and
// only the rows of its last block change.
pragma ComponentBehavior: Bound
import QtQuick
import Hearth
import Hearth.App

Column {
    id: root

    property string text // the markdown so far
    // The view this body scrolls in (the chat's ListView): code rows far outside it are not laid
    // out. Unset, the nearest Flickable ancestor is used; with none, everything is laid out.
    property Flickable viewport
    readonly property MarkdownBlockModel blocks: blockModel

    signal linkRequested(string url)
    signal codeScrolled(int block, real x) // keeps the rows of one long code block side by side

    Component.onCompleted: {
        for (let p = parent; p && !viewport; p = p.parent) {
            if (p instanceof Flickable)
                viewport = p
        }
    }

    MarkdownBlockModel {
        id: blockModel
        text: root.text
        inlineCodeBackground: Theme.inlineCodeBackground
        linkColor: Theme.accentText
    }

    Repeater {
        model: blockModel
        // Each row shows one of three things. A Repeater of 0 or 1 items picks it: Qt 6.4's
        // Loader cannot instantiate the bound components this file's delegates are.
        delegate: Column {
            id: row

            required property int index
            required property string kind
            required property string text
            required property string plainText
            required property string language
            required property string code
            required property int level
            required property int block
            required property int chunk
            required property bool lastChunk
            required property int lineCount
            required property bool open

            // Set once the Column has placed this row: until then its y says nothing.
            property bool placed: false
            // Whether this row is within a screen of the viewport (always true without one).
            readonly property bool nearView: {
                const view = root.viewport
                if (!view)
                    return true
                if (!placed)
                    return false
                void (view.contentHeight + root.y + row.y) // evaluated again when the content moves
                const y = row.mapToItem(view.contentItem, 0, 0).y
                return y + row.height > view.contentY - view.height && y < view.contentY + 2 * view.height
            }

            width: root.width
            // Space above every block but the first, none between the rows of one code block.
            topPadding: index === 0 || chunk > 0 ? 0 : Theme.spacingM

            Connections {
                target: root
                enabled: !row.placed
                function onPositioningComplete() { row.placed = true }
            }

            Repeater {
                model: row.kind === "code" || row.kind === "rule" ? 0 : 1
                delegate: RichBlock {
                    width: row.width
                    kind: row.kind
                    level: row.level
                    text: row.text
                    plainText: row.plainText
                    onLinkActivated: (link) => root.linkRequested(link)
                }
            }

            Repeater {
                model: row.kind === "rule" ? 1 : 0
                delegate: Item {
                    width: row.width
                    height: Theme.spacingS * 2 + 1
                    Accessible.role: Accessible.Separator
                    Accessible.name: qsTr("Separator")
                    Rectangle {
                        y: Theme.spacingS
                        width: parent.width
                        height: 1
                        color: Theme.border
                    }
                }
            }

            Repeater {
                model: row.kind === "code" ? 1 : 0
                delegate: CodeBlock {
                    id: codeBlock
                    objectName: "codeBlock"
                    width: row.width
                    code: row.code
                    language: row.language
                    lineCount: row.lineCount
                    first: row.chunk === 0
                    last: row.lastChunk
                    inProgress: row.open
                    contentActive: row.nearView
                    onCopyRequested: Clipboard.setText(blockModel.codeBlockText(row.index))
                    onScrolled: (x) => root.codeScrolled(row.block, x)

                    Connections {
                        target: root
                        function onCodeScrolled(block, x) {
                            if (block === row.block)
                                codeBlock.scrollTo(x)
                        }
                    }
                }
            }
        }
    }
}
