// One message of the chat view. A user's message: plain text exactly as typed (control tokens
// included), with Edit (resend from here) and Copy. A reply: its thinking folded (open while it
// is still thinking), its markdown (MessageBody), an error or stop marker, its numbers, and
// Copy, Regenerate and the "< 2/3 >" arrows between alternatives. The roles come from
// ChatController.messages; the actions go up as signals, by row.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Item {
    id: root

    required property int index
    required property string role
    required property string text
    required property string thinking
    required property bool streaming
    required property bool thinkingActive
    required property string statsText
    required property string stopReason
    required property int alternativeIndex
    required property int alternativeCount
    required property string errorText

    property Flickable viewport      // the chat's ListView, for MessageBody
    property bool canAct: true       // regenerate / edit possible now (no reply being written)
    property bool canSwitch: true    // the alternatives arrows work now
    property bool thinkingOpen: false
    property bool editing: false
    readonly property bool isUser: role === "user"
    readonly property real columnWidth: Math.min(width - 2 * Theme.spacingXl, 820)
    readonly property real bubbleWidth: columnWidth * 0.85

    signal copyRequested(int row)
    signal regenerateRequested(int row)
    signal editRequested(int row, string text)
    signal alternativeRequested(int row, int step)
    signal linkRequested(string url)

    implicitHeight: column.implicitHeight + Theme.spacingL

    component ActionButton: Button {
        id: action
        flat: true
        font: Theme.smallFont
        padding: Theme.spacingXs
        leftPadding: Theme.spacingS
        rightPadding: Theme.spacingS
        Accessible.name: text
        contentItem: Label {
            text: action.text
            font: action.font
            color: action.enabled ? (action.hovered ? Theme.accentText : Theme.textSecondary) : Theme.textTertiary
            horizontalAlignment: Text.AlignHCenter
        }
        background: Rectangle {
            radius: Theme.radiusS
            color: action.down ? Theme.neutralSoft : action.hovered ? Theme.surfaceSunken : "transparent"
        }
    }

    ColumnLayout {
        id: column
        x: (root.width - root.columnWidth) / 2
        y: Theme.spacingS
        width: root.columnWidth
        spacing: Theme.spacingXs

        // --- the user's message -----------------------------------------------------------
        Rectangle {
            objectName: "userBubble"
            visible: root.isUser && !root.editing
            Layout.alignment: Qt.AlignRight
            implicitWidth: userText.width + 2 * Theme.spacingM
            implicitHeight: userText.height + 2 * Theme.spacingS + 2
            radius: Theme.radiusL
            color: Theme.accentSoft

            Text {
                id: userText
                objectName: "userText"
                x: Theme.spacingM
                y: Theme.spacingS + 1
                width: Math.min(implicitWidth, root.bubbleWidth - 2 * Theme.spacingM)
                text: root.isUser ? root.text : ""
                textFormat: Text.PlainText // as typed: never markup, never a control token
                wrapMode: Text.Wrap
                font: Theme.bodyFont
                color: Theme.textPrimary
                Accessible.role: Accessible.StaticText
                Accessible.name: qsTr("You: %1").arg(text)
            }
        }

        // Editing it: Enter sends the new text from here, Escape gives up.
        ColumnLayout {
            visible: root.editing
            Layout.fillWidth: true
            spacing: Theme.spacingXs

            Rectangle {
                Layout.fillWidth: true
                implicitHeight: Math.min(editor.implicitHeight, 240) + 2 * Theme.spacingXs
                radius: Theme.radiusM
                color: Theme.surface
                border.color: Theme.accentLight
                ScrollView {
                    anchors.fill: parent
                    anchors.margins: Theme.spacingXs
                    TextArea {
                        id: editor
                        objectName: "editInput"
                        wrapMode: TextEdit.Wrap
                        textFormat: TextEdit.PlainText
                        font: Theme.bodyFont
                        color: Theme.textPrimary
                        background: null
                        Accessible.name: qsTr("Edit the message")
                        Keys.onEscapePressed: root.editing = false
                        Keys.onPressed: (event) => {
                            if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                    && !(event.modifiers & Qt.ShiftModifier)) {
                                event.accepted = true
                                resendButton.clicked()
                            }
                        }
                    }
                }
            }
            RowLayout {
                Layout.alignment: Qt.AlignRight
                ActionButton {
                    text: qsTr("Cancel")
                    onClicked: root.editing = false
                }
                ActionButton {
                    id: resendButton
                    objectName: "resendButton"
                    text: qsTr("Send")
                    enabled: root.canAct && editor.text.trim().length > 0
                    onClicked: {
                        if (!enabled)
                            return
                        root.editing = false
                        root.editRequested(root.index, editor.text)
                    }
                }
            }
        }

        // --- a reply ------------------------------------------------------------------------
        // Its thinking: a fold, open while the model is still thinking.
        ActionButton {
            objectName: "thinkingToggle"
            visible: !root.isUser && root.thinking.length > 0
            Layout.leftMargin: -Theme.spacingS
            text: (root.thinkingActive ? qsTr("Thinking…") : qsTr("Thoughts"))
                  + (thinkingBox.visible ? "  ▾" : "  ▸")
            Accessible.name: thinkingBox.visible ? qsTr("Hide the thinking") : qsTr("Show the thinking")
            onClicked: root.thinkingOpen = !thinkingBox.visible
        }
        Rectangle {
            id: thinkingBox
            visible: !root.isUser && root.thinking.length > 0 && (root.thinkingOpen || root.thinkingActive)
            Layout.fillWidth: true
            implicitHeight: thinkingText.implicitHeight + 2 * Theme.spacingS
            color: "transparent"
            Rectangle {
                width: 2
                height: parent.height
                color: Theme.quoteBar
            }
            Text {
                id: thinkingText
                objectName: "thinkingText"
                x: Theme.spacingM
                y: Theme.spacingS
                width: parent.width - x
                text: thinkingBox.visible ? root.thinking : ""
                textFormat: Text.PlainText
                wrapMode: Text.Wrap
                font: Theme.smallFont
                color: Theme.textSecondary
                Accessible.role: Accessible.StaticText
                Accessible.name: qsTr("Thinking: %1").arg(text)
            }
        }

        MessageBody {
            objectName: "replyBody"
            visible: !root.isUser
            Layout.fillWidth: true
            text: root.isUser ? "" : root.text
            viewport: root.viewport
            onLinkRequested: (url) => root.linkRequested(url)
        }

        // Nothing yet: the prompt is being read.
        Label {
            visible: !root.isUser && root.streaming && root.text.length === 0 && root.thinking.length === 0
            text: qsTr("Reading the conversation…")
            font: Theme.smallFont
            color: Theme.textTertiary
        }

        Rectangle {
            objectName: "errorMarker"
            visible: root.errorText.length > 0
            Layout.fillWidth: true
            implicitHeight: errorLabel.implicitHeight + 2 * Theme.spacingS
            radius: Theme.radiusS
            color: Theme.noticeBackground
            border.color: Theme.noticeBorder
            Label {
                id: errorLabel
                x: Theme.spacingM
                y: Theme.spacingS
                width: parent.width - 2 * Theme.spacingM
                text: qsTr("The reply stopped because of an error: %1").arg(root.errorText)
                wrapMode: Text.Wrap
                font: Theme.smallFont
                color: Theme.noticeText
            }
        }

        // --- numbers and actions -----------------------------------------------------------
        RowLayout {
            Layout.fillWidth: true
            Layout.alignment: root.isUser ? Qt.AlignRight : Qt.AlignLeft
            visible: !root.editing
            spacing: Theme.spacingXs

            ActionButton {
                objectName: "previousAlternative"
                visible: root.alternativeCount > 1
                enabled: root.alternativeIndex > 1 && root.canSwitch
                text: "‹"
                Accessible.name: qsTr("Previous version")
                onClicked: root.alternativeRequested(root.index, -1)
            }
            Label {
                objectName: "alternativeLabel"
                visible: root.alternativeCount > 1
                text: qsTr("%1/%2").arg(root.alternativeIndex).arg(root.alternativeCount)
                font: Theme.smallFont
                color: Theme.textSecondary
            }
            ActionButton {
                objectName: "nextAlternative"
                visible: root.alternativeCount > 1
                enabled: root.alternativeIndex < root.alternativeCount && root.canSwitch
                text: "›"
                Accessible.name: qsTr("Next version")
                onClicked: root.alternativeRequested(root.index, 1)
            }
            ActionButton {
                id: copyButton
                objectName: "copyMessageButton"
                property bool copied: false
                text: copied ? qsTr("Copied") : qsTr("Copy")
                Accessible.name: qsTr("Copy the message")
                onClicked: {
                    root.copyRequested(root.index)
                    copied = true
                    copiedTimer.restart()
                }
                Timer {
                    id: copiedTimer
                    interval: 1500
                    onTriggered: copyButton.copied = false
                }
            }
            ActionButton {
                objectName: "editButton"
                visible: root.isUser
                enabled: root.canAct
                text: qsTr("Edit")
                Accessible.name: qsTr("Edit and resend the message")
                onClicked: {
                    editor.text = root.text
                    root.editing = true
                    editor.forceActiveFocus()
                    editor.cursorPosition = editor.length
                }
            }
            ActionButton {
                objectName: "regenerateButton"
                visible: !root.isUser
                enabled: root.canAct
                text: qsTr("Regenerate")
                Accessible.name: qsTr("Write this reply again")
                onClicked: root.regenerateRequested(root.index)
            }
            Label {
                objectName: "statsLine"
                visible: !root.isUser && !root.streaming
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingS
                text: {
                    const marks = { cancel: qsTr("stopped"), interrupted: qsTr("interrupted"), length: qsTr("length limit"),
                                    context: qsTr("context full") }
                    const mark = marks[root.stopReason] || ""
                    return [root.statsText, mark].filter(s => s.length > 0).join(" · ")
                }
                elide: Text.ElideRight
                font: Theme.smallFont
                color: Theme.textTertiary
                Accessible.role: Accessible.StaticText
                Accessible.name: text
            }
        }
    }
}
