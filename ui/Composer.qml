// Where the user writes: Enter sends, Shift+Enter starts a new line; while a reply is written the
// button stops it. Sending is the page's business (sendRequested); the page clears the text once
// the message was taken. Blank text cannot be sent.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    property bool canSend: false   // a model is loaded and nothing is being written
    property bool replying: false  // a reply is being written: the button is Stop
    property string placeholder: qsTr("Message Hearth…")
    property alias text: input.text
    readonly property bool hasText: input.text.trim().length > 0
    readonly property bool sendEnabled: canSend && hasText

    signal sendRequested(string text)
    signal stopRequested()

    function send() {
        if (sendEnabled)
            sendRequested(input.text)
    }
    function clear() { input.clear() }
    function focusInput() { input.forceActiveFocus() }

    implicitHeight: Math.min(row.implicitHeight, 280) + 2 * Theme.spacingS
    radius: Theme.radiusL
    color: Theme.surface
    border.color: input.activeFocus ? Theme.accentLight : Theme.border

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: Theme.spacingS
        anchors.leftMargin: Theme.spacingM
        spacing: Theme.spacingS

        ScrollView {
            id: scroll
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.alignment: Qt.AlignVCenter
            implicitHeight: Math.min(input.implicitHeight, 264)
            clip: true

            TextArea {
                id: input
                objectName: "composerInput"
                wrapMode: TextEdit.Wrap
                textFormat: TextEdit.PlainText
                placeholderText: root.placeholder
                placeholderTextColor: Theme.textTertiary
                font: Theme.bodyFont
                color: Theme.textPrimary
                selectionColor: Theme.accentLight
                background: null
                padding: Theme.spacingXs
                focus: true
                Accessible.name: qsTr("Message")
                Accessible.description: qsTr("Enter sends; Shift+Enter starts a new line")
                Keys.onPressed: (event) => {
                    if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                            && !(event.modifiers & Qt.ShiftModifier)) {
                        event.accepted = true
                        root.send()
                    }
                }
            }
        }

        Button {
            id: actionButton
            objectName: root.replying ? "stopButton" : "sendButton"
            Layout.alignment: Qt.AlignBottom
            Layout.preferredHeight: 36
            Layout.preferredWidth: Math.max(76, implicitWidth)
            enabled: root.replying || root.sendEnabled
            text: root.replying ? qsTr("Stop") : qsTr("Send")
            font: Theme.bodyStrongFont
            Accessible.name: root.replying ? qsTr("Stop the reply") : qsTr("Send the message")
            onClicked: root.replying ? root.stopRequested() : root.send()
            contentItem: Label {
                text: actionButton.text
                font: actionButton.font
                horizontalAlignment: Text.AlignHCenter
                verticalAlignment: Text.AlignVCenter
                color: !actionButton.enabled ? Theme.textTertiary : root.replying ? Theme.background : Theme.textOnAccent
            }
            background: Rectangle {
                radius: Theme.radiusM
                color: !actionButton.enabled ? Theme.neutralSoft
                       : root.replying ? Theme.textPrimary
                       : actionButton.down ? Theme.accentText : Theme.accent
            }
        }
    }
}
