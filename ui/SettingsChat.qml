// Settings: what a new chat starts with: sampling, the reply length, the seed, thinking, and a
// chat template to use instead of the model's own.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

SettingsSection {
    id: root

    title: qsTr("New chats")

    Label {
        objectName: "modelDefaultsNote"
        Layout.fillWidth: true
        text: qsTr("A model that recommends its own sampling (in its generation_config.json or GGUF metadata) starts new chats with those values instead. Each chat can change them in Chat options.")
        font: Theme.smallFont
        color: Theme.textSecondary
        wrapMode: Text.Wrap
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Temperature")
        hint: qsTr("Higher is more varied, 0 always picks the likeliest token.")
        DecimalSpinBox {
            objectName: "temperature"
            Layout.preferredWidth: parent.controlWidth
            realFrom: 0; realTo: 2; realStep: 0.05; decimals: 2
            realValue: AppSettings.temperature
            onRealValueModified: value => AppSettings.temperature = value
            Accessible.name: qsTr("Temperature")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Top-k")
        hint: qsTr("Only the k likeliest tokens are considered; 0 turns it off.")
        SpinBox {
            objectName: "topK"
            Layout.preferredWidth: parent.controlWidth
            from: 0; to: 1000; editable: true
            value: AppSettings.topK
            onValueModified: AppSettings.topK = value
            Accessible.name: qsTr("Top-k")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Top-p")
        hint: qsTr("The likeliest tokens whose probabilities add up to p; 1 turns it off.")
        DecimalSpinBox {
            objectName: "topP"
            Layout.preferredWidth: parent.controlWidth
            realFrom: 0.01; realTo: 1; realStep: 0.05; decimals: 2
            realValue: AppSettings.topP
            onRealValueModified: value => AppSettings.topP = value
            Accessible.name: qsTr("Top-p")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Min-p")
        hint: qsTr("Drops tokens less likely than this share of the likeliest one; 0 turns it off.")
        DecimalSpinBox {
            objectName: "minP"
            Layout.preferredWidth: parent.controlWidth
            realFrom: 0; realTo: 1; realStep: 0.01; decimals: 2
            realValue: AppSettings.minP
            onRealValueModified: value => AppSettings.minP = value
            Accessible.name: qsTr("Min-p")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Repetition penalty")
        hint: qsTr("Above 1 makes recently used tokens less likely; 1 turns it off.")
        DecimalSpinBox {
            objectName: "repetitionPenalty"
            Layout.preferredWidth: parent.controlWidth
            realFrom: 0.5; realTo: 2; realStep: 0.05; decimals: 2
            realValue: AppSettings.repetitionPenalty
            onRealValueModified: value => AppSettings.repetitionPenalty = value
            Accessible.name: qsTr("Repetition penalty")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Maximum reply length")
        hint: qsTr("In tokens, thinking included.")
        SpinBox {
            objectName: "maxTokens"
            Layout.preferredWidth: parent.controlWidth
            from: 1; to: 131072; stepSize: 256; editable: true
            value: AppSettings.maxTokens
            onValueModified: AppSettings.maxTokens = value
            Accessible.name: qsTr("Maximum reply length")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Seed")
        hint: qsTr("The same seed and settings give the same reply; Random picks a new seed each time.")
        SpinBox {
            objectName: "seed"
            Layout.preferredWidth: parent.controlWidth
            from: -1; to: 2147483647; editable: true
            value: AppSettings.seed
            textFromValue: (v, locale) => v < 0 ? qsTr("Random") : String(v)
            valueFromText: (text, locale) => text === qsTr("Random") ? -1 : parseInt(text)
            validator: RegularExpressionValidator { regularExpression: /.*/ }
            onValueModified: AppSettings.seed = value
            Accessible.name: qsTr("Seed")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Thinking")
        hint: qsTr("Models that can think first reason step by step; the thoughts fold away in the reply.")
        Switch {
            objectName: "thinking"
            Layout.preferredWidth: parent.controlWidth
            checked: AppSettings.thinking
            onToggled: AppSettings.thinking = checked
            Accessible.name: qsTr("Thinking")
        }
    }
    Button {
        objectName: "resetSampling"
        text: qsTr("Reset sampling to the defaults")
        onClicked: AppSettings.resetSampling()
    }

    Label {
        Layout.fillWidth: true
        Layout.topMargin: Theme.spacingS
        text: qsTr("Chat template override")
        font: Theme.bodyFont
        color: Theme.textPrimary
    }
    Label {
        Layout.fillWidth: true
        text: qsTr("A Jinja template used instead of the model's own, for models whose template is broken. Leave it empty to use the model's.")
        font: Theme.smallFont
        color: Theme.textSecondary
        wrapMode: Text.Wrap
    }
    ScrollView {
        Layout.fillWidth: true
        Layout.preferredHeight: 140
        TextArea {
            objectName: "chatTemplate"
            text: AppSettings.chatTemplateOverride
            font: Theme.monoFont
            wrapMode: TextEdit.NoWrap
            placeholderText: "{% for message in messages %}…" // Jinja: the same in every language
            onEditingFinished: AppSettings.chatTemplateOverride = text
            Accessible.name: qsTr("Chat template override")
            background: Rectangle {
                radius: Theme.radiusS
                color: Theme.surfaceSunken
                border.color: Theme.border
            }
        }
    }
}
