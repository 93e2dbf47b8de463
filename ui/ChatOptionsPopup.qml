// This chat's own options: its system prompt, whether the model thinks first (for models that
// can) and its sampling (ChatSampling). Writes ChatController's properties, which keep them with
// the conversation. The defaults of new chats are in the settings.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

Popup {
    id: root

    property ChatController chat: null

    width: 460
    padding: Theme.spacingL
    margins: Theme.spacingS // kept inside the window; the content scrolls when it is too low
    focus: true
    onOpened: prompt.text = chat ? chat.systemPrompt : ""
    onClosed: if (chat) chat.systemPrompt = prompt.text
    background: Rectangle {
        radius: Theme.radiusM
        color: Theme.surface
        border.color: Theme.border
    }

    contentItem: ScrollView {
        id: scroller
        contentWidth: availableWidth
        clip: true

        ColumnLayout {
            width: scroller.availableWidth
            spacing: Theme.spacingS

            Label {
                text: qsTr("System prompt")
                font: Theme.captionFont
                color: Theme.textTertiary
            }
            ScrollView {
                Layout.fillWidth: true
                Layout.preferredHeight: 120
                TextArea {
                    id: prompt
                    objectName: "systemPromptInput"
                    wrapMode: TextEdit.Wrap
                    textFormat: TextEdit.PlainText
                    placeholderText: qsTr("How the assistant should answer in this chat")
                    font: Theme.bodyFont
                    color: Theme.textPrimary
                    placeholderTextColor: Theme.textTertiary
                    Accessible.name: qsTr("System prompt of this chat")
                    background: Rectangle {
                        radius: Theme.radiusS
                        color: Theme.surfaceSunken
                        border.color: prompt.activeFocus ? Theme.accentLight : Theme.border
                    }
                }
            }
            Switch {
                objectName: "thinkingSwitch"
                text: qsTr("Think before answering (models that can)")
                font: Theme.bodyFont
                checked: root.chat ? root.chat.thinking : true
                Accessible.name: text
                onToggled: if (root.chat) root.chat.thinking = checked
            }
            ChatSampling {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingS
                chat: root.chat
            }
        }
    }
}
