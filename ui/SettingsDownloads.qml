// Settings: downloads. A Hugging Face token for gated models (kept in the system keyring, never
// in the settings file; without a keyring only until Hearth quits), a mirror of Hugging Face, and
// how many downloads run at once.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

SettingsSection {
    id: root

    title: qsTr("Downloads")

    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Hugging Face token")
        hint: HfToken.message.length > 0 ? HfToken.message
              : HfToken.state === HfToken.Stored ? qsTr("Saved in the system keyring. Gated models (Llama) need one.")
              : qsTr("Gated models (Llama) need one. It is kept in the system keyring, never in a file.")
        RowLayout {
            Layout.preferredWidth: parent.controlWidth
            spacing: Theme.spacingXs
            TextField {
                id: tokenField
                objectName: "hfToken"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: HfToken.hasToken ? qsTr("(saved)") : "hf_…"
                Accessible.name: qsTr("Hugging Face token")
                onAccepted: { HfToken.save(text); text = "" }
            }
            Button {
                text: HfToken.hasToken && tokenField.text.length === 0 ? qsTr("Forget") : qsTr("Save")
                enabled: HfToken.hasToken || tokenField.text.length > 0
                onClicked: {
                    if (tokenField.text.length > 0)
                        HfToken.save(tokenField.text)
                    else
                        HfToken.forget()
                    tokenField.text = ""
                }
            }
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Download from")
        hint: qsTr("A mirror of Hugging Face; empty: huggingface.co. The environment variable HEARTH_HF_ENDPOINT wins over this.")
        TextField {
            objectName: "hfEndpoint"
            Layout.preferredWidth: parent.controlWidth
            text: AppSettings.hfEndpoint
            placeholderText: "https://huggingface.co"
            Accessible.name: qsTr("Download from")
            onEditingFinished: AppSettings.hfEndpoint = text
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Downloads at once")
        SpinBox {
            objectName: "parallelDownloads"
            Layout.preferredWidth: parent.controlWidth
            from: 1
            to: 4
            value: AppSettings.parallelDownloads
            onValueModified: AppSettings.parallelDownloads = value
            Accessible.name: qsTr("Downloads at once")
        }
    }
}
