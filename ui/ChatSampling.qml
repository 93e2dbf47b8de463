// This chat's sampling: every value the next reply uses, each marked with where it comes from
// (the loaded model's own recommendation, this chat, or the settings' default for new chats),
// and a way back to the model's defaults. Writes through ChatController, which keeps a changed
// value with the conversation.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

ColumnLayout {
    id: root

    property ChatController chat: null
    readonly property var values: chat ? chat.effectiveSampling : ({})
    readonly property var sources: chat ? chat.samplingSources : ({})
    readonly property bool modelHasDefaults: chat !== null && Object.keys(chat.modelSampling).length > 0
    readonly property int controlWidth: 150

    spacing: Theme.spacingS

    // Where the value of `key` comes from, in a word beside its control.
    component Source: Label {
        required property string key
        readonly property string source: root.sources[key] || ""
        objectName: "samplingSource_" + key
        Layout.fillWidth: true
        text: source === "model" ? qsTr("model default") : source === "chat" ? qsTr("this chat") : qsTr("default")
        font: Theme.smallFont
        color: source === "model" ? Theme.accentText : Theme.textTertiary
        elide: Text.ElideRight
    }
    component Name: Label {
        Layout.fillWidth: true
        font: Theme.bodyFont
        color: Theme.textPrimary
        elide: Text.ElideRight
    }

    Label {
        text: qsTr("Sampling")
        font: Theme.captionFont
        color: Theme.textTertiary
    }
    GridLayout {
        Layout.fillWidth: true
        columns: 3
        columnSpacing: Theme.spacingM
        rowSpacing: Theme.spacingXs

        Name { text: qsTr("Temperature") }
        DecimalSpinBox {
            objectName: "chatTemperature"
            Layout.preferredWidth: root.controlWidth
            realFrom: 0; realTo: 2; realStep: 0.05; decimals: 2
            realValue: root.values.temperature ?? 0
            onRealValueModified: value => root.chat.setSamplingValue("temperature", value)
            Accessible.name: qsTr("Temperature of this chat")
        }
        Source { key: "temperature" }

        Name { text: qsTr("Top-k") }
        SpinBox {
            objectName: "chatTopK"
            Layout.preferredWidth: root.controlWidth
            from: 0; to: 1000; editable: true
            value: root.values.top_k ?? 0
            onValueModified: root.chat.setSamplingValue("top_k", value)
            Accessible.name: qsTr("Top-k of this chat")
        }
        Source { key: "top_k" }

        Name { text: qsTr("Top-p") }
        DecimalSpinBox {
            objectName: "chatTopP"
            Layout.preferredWidth: root.controlWidth
            realFrom: 0.01; realTo: 1; realStep: 0.05; decimals: 2
            realValue: root.values.top_p ?? 1
            onRealValueModified: value => root.chat.setSamplingValue("top_p", value)
            Accessible.name: qsTr("Top-p of this chat")
        }
        Source { key: "top_p" }

        Name { text: qsTr("Min-p") }
        DecimalSpinBox {
            objectName: "chatMinP"
            Layout.preferredWidth: root.controlWidth
            realFrom: 0; realTo: 1; realStep: 0.01; decimals: 2
            realValue: root.values.min_p ?? 0
            onRealValueModified: value => root.chat.setSamplingValue("min_p", value)
            Accessible.name: qsTr("Min-p of this chat")
        }
        Source { key: "min_p" }

        Name { text: qsTr("Repetition penalty") }
        DecimalSpinBox {
            objectName: "chatRepetitionPenalty"
            Layout.preferredWidth: root.controlWidth
            realFrom: 0.5; realTo: 2; realStep: 0.05; decimals: 2
            realValue: root.values.repetition_penalty ?? 1
            onRealValueModified: value => root.chat.setSamplingValue("repetition_penalty", value)
            Accessible.name: qsTr("Repetition penalty of this chat")
        }
        Source { key: "repetition_penalty" }

        Name { text: qsTr("Maximum reply length") }
        SpinBox {
            objectName: "chatMaxTokens"
            Layout.preferredWidth: root.controlWidth
            from: 1; to: 131072; stepSize: 256; editable: true
            value: root.values.max_tokens ?? 1024
            onValueModified: root.chat.setSamplingValue("max_tokens", value)
            Accessible.name: qsTr("Maximum reply length of this chat")
        }
        Source { key: "max_tokens" }

        Name { text: qsTr("Seed") }
        SpinBox {
            objectName: "chatSeed"
            Layout.preferredWidth: root.controlWidth
            from: -1; to: 2147483647; editable: true
            value: root.values.seed ?? -1
            textFromValue: (v, locale) => v < 0 ? qsTr("Random") : String(v)
            valueFromText: (text, locale) => text === qsTr("Random") ? -1 : parseInt(text)
            validator: RegularExpressionValidator { regularExpression: /.*/ }
            onValueModified: root.chat.setSamplingValue("seed", value)
            Accessible.name: qsTr("Seed of this chat")
        }
        Source { key: "seed" }
    }
    Label {
        Layout.topMargin: Theme.spacingS
        text: qsTr("Stop sequences")
        font: Theme.captionFont
        color: Theme.textTertiary
    }
    TextArea {
        id: stopField
        objectName: "chatStop"
        Layout.fillWidth: true
        text: root.chat ? root.chat.stopText : ""
        // "\\n" goes in as an argument: lupdate would read the escape as a line break.
        placeholderText: qsTr("One a line (%1 for a line break): the reply ends before any of them").arg("\\n")
        textFormat: TextEdit.PlainText
        font: Theme.monoFont
        color: Theme.textPrimary
        placeholderTextColor: Theme.textTertiary
        Accessible.name: qsTr("Stop sequences of this chat")
        onEditingFinished: if (root.chat) root.chat.stopText = text
        background: Rectangle {
            radius: Theme.radiusS
            color: Theme.surfaceSunken
            border.color: stopField.activeFocus ? Theme.accentLight : Theme.border
        }
    }
    Button {
        objectName: "resetChatSampling"
        text: root.modelHasDefaults ? qsTr("Reset to model defaults") : qsTr("Reset to defaults")
        enabled: Object.keys(root.sources).some(key => root.sources[key] === "chat")
        opacity: enabled ? 1 : 0.5
        Accessible.name: text
        onClicked: root.chat.resetSampling()
    }
}
