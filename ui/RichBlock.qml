// One markdown block shown as rich text: a paragraph, heading, list, table or quote. The text is
// the safe subset MarkdownBlocks writes (no images, no raw HTML); a click on a link is reported,
// never opened here.
pragma ComponentBehavior: Bound
import QtQuick
import Hearth

Item {
    id: root

    property string kind: "paragraph" // the model's kind role
    property int level: 0             // heading level
    property string text              // rich text
    property string plainText         // what a screen reader reads

    signal linkActivated(string link)

    readonly property bool quote: kind === "quote"
    implicitHeight: label.implicitHeight

    Rectangle {
        visible: root.quote
        width: 3
        height: parent.height
        radius: 1.5
        color: Theme.quoteBar
    }

    Text {
        id: label
        objectName: "blockText"
        x: root.quote ? Theme.spacingM : 0
        width: parent.width - x
        text: root.text
        textFormat: Text.RichText
        wrapMode: Text.Wrap
        font: root.kind === "heading" ? Theme.headingFont(root.level) : Theme.bodyFont
        color: root.quote ? Theme.textSecondary : Theme.textPrimary
        linkColor: Theme.accentText
        onLinkActivated: (link) => root.linkActivated(link)
        Accessible.role: Accessible.StaticText
        Accessible.name: root.plainText

        HoverHandler {
            cursorShape: label.hoveredLink.length > 0 ? Qt.PointingHandCursor : Qt.ArrowCursor
        }
    }
}
