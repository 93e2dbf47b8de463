// Settings: the API server. A switch that serves the loaded model with OpenAI's API on
// http://127.0.0.1:PORT (editors, scripts and agents point their OpenAI client there), the port,
// whether other machines may connect (only with an API key), and the key, kept in the system
// keyring. LocalServer does the work and says how it stands; nothing here but bindings.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

SettingsSection {
    id: root

    title: qsTr("API server")

    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Serve the loaded model on http://127.0.0.1:%1").arg(AppSettings.serverPort)
        hint: qsTr("OpenAI-compatible: chat and text completions under /v1. Requests wait their turn with your own chats.")
        Switch {
            objectName: "serverEnabled"
            Layout.preferredWidth: parent.controlWidth
            checked: AppSettings.serverEnabled
            onToggled: AppSettings.serverEnabled = checked
            Accessible.name: qsTr("Serve the loaded model")
        }
    }
    Label {
        objectName: "serverStatus"
        Layout.fillWidth: true
        text: LocalServer.state === LocalServer.Listening && LocalServer.answered > 0
              ? qsTr("%1 · %n request(s) answered", "", LocalServer.answered).arg(LocalServer.statusText)
              : LocalServer.statusText
        font: Theme.smallFont
        color: LocalServer.state === LocalServer.Failed ? Theme.accentText
               : LocalServer.state === LocalServer.Listening ? Theme.goodText : Theme.textSecondary
        wrapMode: Text.Wrap
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Port")
        SpinBox {
            objectName: "serverPort"
            Layout.preferredWidth: parent.controlWidth
            from: 1024
            to: 65535
            editable: true
            value: AppSettings.serverPort
            textFromValue: (value, locale) => String(value) // a port has no thousands separator
            valueFromText: (text, locale) => parseInt(text)
            onValueModified: AppSettings.serverPort = value
            Accessible.name: qsTr("Port")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Let other machines connect")
        hint: qsTr("Listens on every network interface instead of this computer only. Needs an API key.")
        Switch {
            objectName: "serverOnNetwork"
            Layout.preferredWidth: parent.controlWidth
            checked: AppSettings.serverOnNetwork
            onToggled: AppSettings.serverOnNetwork = checked
            Accessible.name: qsTr("Let other machines connect")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("API key")
        hint: LocalServer.keyMessage.length > 0 ? LocalServer.keyMessage
              : qsTr("Clients send it as \"Authorization: Bearer KEY\" (the OpenAI libraries' api_key). Kept in the system keyring.")
        RowLayout {
            Layout.preferredWidth: parent.controlWidth
            spacing: Theme.spacingXs
            TextField {
                id: keyField
                objectName: "serverKey"
                Layout.fillWidth: true
                // Shown as typed or made by "New", to be copied for the clients; once saved the
                // field is empty again and the key stays in the keyring.
                placeholderText: LocalServer.hasApiKey ? qsTr("(saved)") : qsTr("none")
                Accessible.name: qsTr("API key")
                onAccepted: { LocalServer.saveApiKey(text); text = "" }
            }
            Button {
                text: qsTr("New")
                onClicked: keyField.text = LocalServer.randomApiKey()
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Fill in a random key: copy it for your clients, then save it.")
            }
            Button {
                text: LocalServer.hasApiKey && keyField.text.length === 0 ? qsTr("Forget") : qsTr("Save")
                enabled: LocalServer.hasApiKey || keyField.text.length > 0
                onClicked: {
                    if (keyField.text.length > 0)
                        LocalServer.saveApiKey(keyField.text)
                    else
                        LocalServer.forgetApiKey()
                    keyField.text = ""
                }
            }
        }
    }
}
