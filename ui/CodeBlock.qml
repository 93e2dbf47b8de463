// One row of a fenced code block (a long block comes as several rows, see MarkdownBlockModel):
// monospace, never wrapped, scrolling sideways; the block's first row carries the language and a
// Copy button. Its height follows from the line count alone, so a row far outside the view can
// leave its text unloaded (contentActive: false) without the layout around it moving.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import Hearth

Item {
    id: root

    property string code             // this row's lines, shown exactly as written
    property string language
    property int lineCount: 1
    property bool first: true        // the block's first row: language and Copy
    property bool last: true         // the block's last row
    property bool inProgress: false  // the closing fence has not come yet
    property bool contentActive: true
    readonly property real lineHeight: Math.ceil(codeMetrics.lineSpacing)
    readonly property real headerHeight: Math.ceil(labelMetrics.height) + 2 * Theme.spacingS + Theme.spacingXs
    readonly property int padding: Theme.spacingM

    signal copyRequested()
    signal scrolled(real x) // the user scrolled this row sideways

    function scrollTo(x) {
        const flick = body.itemAt(0) as Flickable
        if (flick)
            flick.contentX = Math.max(0, Math.min(x, flick.contentWidth - flick.width))
    }

    implicitHeight: (first ? headerHeight : padding) + lineCount * lineHeight + (last ? padding : 0)
    clip: true // the background's rounded corners show only at the block's ends

    FontMetrics {
        id: codeMetrics
        font: Theme.monoFont
    }
    FontMetrics {
        id: labelMetrics
        font: Theme.smallFont
    }

    Rectangle {
        y: root.first ? 0 : -radius
        width: parent.width
        height: parent.height + (root.first ? 0 : radius) + (root.last ? 0 : radius)
        radius: Theme.radiusS
        color: Theme.codeBackground
        border.color: Theme.border
    }

    // Only a block's first row has a header (a Repeater of 0 or 1: Qt 6.4's Loader cannot
    // instantiate bound components).
    Repeater {
        model: root.first ? 1 : 0
        delegate: Item {
            width: root.width
            height: root.headerHeight

            Label {
                objectName: "languageLabel"
                anchors.left: parent.left
                anchors.leftMargin: root.padding
                anchors.right: progressLabel.left
                anchors.verticalCenter: parent.verticalCenter
                text: root.language.length > 0 ? root.language : qsTr("code")
                textFormat: Text.PlainText // model output: never interpreted as markup
                elide: Text.ElideRight
                font: Theme.smallFont
                color: Theme.textSecondary
            }
            Label {
                id: progressLabel
                objectName: "progressLabel"
                anchors.right: copyButton.left
                anchors.rightMargin: Theme.spacingS
                anchors.verticalCenter: parent.verticalCenter
                visible: root.inProgress
                text: qsTr("writing…")
                font: Theme.smallFont
                color: Theme.textTertiary
            }
            Button {
                id: copyButton
                objectName: "copyButton"
                property bool copied: false
                anchors.right: parent.right
                anchors.rightMargin: Theme.spacingXs
                anchors.verticalCenter: parent.verticalCenter
                height: parent.height - Theme.spacingXs
                topPadding: 0
                bottomPadding: 0
                flat: true
                font: Theme.smallFont
                palette.windowText: Theme.textSecondary // the Basic style's flat text colour
                palette.buttonText: Theme.textSecondary
                text: copied ? qsTr("Copied") : qsTr("Copy")
                Accessible.name: root.language.length > 0 ? qsTr("Copy %1 code").arg(root.language) : qsTr("Copy code")
                onClicked: {
                    root.copyRequested()
                    copied = true
                    copiedTimer.restart()
                }
                Timer {
                    id: copiedTimer
                    interval: 1500
                    onTriggered: copyButton.copied = false
                }
            }
        }
    }

    // The code itself, only while contentActive.
    Repeater {
        id: body
        model: root.contentActive ? 1 : 0
        delegate: Flickable {
            id: flick
            objectName: "codeFlickable"
            y: root.first ? root.headerHeight : root.padding
            width: root.width
            height: root.lineCount * root.lineHeight
            contentWidth: codeText.implicitWidth + 2 * root.padding
            contentHeight: height
            flickableDirection: Flickable.HorizontalFlick
            boundsBehavior: Flickable.StopAtBounds
            interactive: contentWidth > width
            clip: true
            Accessible.role: Accessible.Pane
            Accessible.name: qsTr("Code")
            ScrollBar.horizontal: ScrollBar {
                id: hbar
                Accessible.name: qsTr("Scroll the code sideways")
            }
            onContentXChanged: {
                if (moving || hbar.pressed)
                    root.scrolled(contentX)
            }

            Text {
                id: codeText
                objectName: "codeText"
                x: root.padding
                text: root.code
                textFormat: Text.PlainText
                wrapMode: Text.NoWrap
                font: Theme.monoFont
                color: Theme.textPrimary
                lineHeightMode: Text.FixedHeight
                lineHeight: root.lineHeight
                Accessible.role: Accessible.StaticText
                Accessible.name: root.code
            }
        }
    }
}
