// The model picker's remote servers: the user's connections to OpenAI-compatible servers (vLLM,
// SGLang, llama-server, another Hearth), the one in use with the server's state, and a way to
// add, edit, use and remove one (removing asks first: its API key leaves the keyring too).
// `connection` is the chat's ActiveConnection; the dialog is ConnectionDialog.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Templates as T
import QtQuick.Layouts
import Hearth
import Hearth.App

ColumnLayout {
    id: root

    property ActiveConnection connection: null
    readonly property RemoteBackend backend: connection ? connection.remoteBackend : null

    // Opens the dialog for connection `id` ("": a new one).
    function edit(id) {
        dialog.edit(id)
    }

    spacing: Theme.spacingM

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.spacingS
        Label {
            Layout.fillWidth: true
            text: qsTr("Chat with a model served elsewhere over the OpenAI API: vLLM or SGLang on a bigger machine, llama-server, or another Hearth. The conversation stays in this computer's history.")
            font: Theme.smallFont
            color: Theme.textSecondary
            wrapMode: Text.Wrap
        }
        Button {
            objectName: "addConnectionButton"
            text: qsTr("Add a server…")
            onClicked: root.edit("")
        }
    }

    ListView {
        id: list
        objectName: "connectionList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        spacing: Theme.spacingS
        model: RemoteConnections
        ScrollBar.vertical: ScrollBar {}
        Accessible.name: qsTr("Remote servers")

        delegate: ConnectionRow {
            width: ListView.view.width
            statusText: root.backend ? root.backend.statusText : ""
            statusGood: root.backend !== null && root.backend.healthy
            onUseRequested: root.connection.useRemote(connectionId)
            onDisconnectRequested: root.connection.useLocal()
            onEditRequested: dialog.edit(connectionId)
            onRemoveRequested: confirmRemove.ask(connectionId, name)
        }

        Label {
            anchors.centerIn: parent
            width: parent.width - 2 * Theme.spacingXl
            visible: list.count === 0
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            text: qsTr("No servers yet. Add one with its address, for example http://gpu-box:8000/v1 for vLLM.")
            font: Theme.bodyFont
            color: Theme.textSecondary
        }
    }

    ConnectionDialog {
        id: dialog
        onUseRequested: (id) => root.connection.useRemote(id)
    }

    Dialog {
        id: confirmRemove
        objectName: "confirmRemoveConnection"
        property string connectionId
        property string connectionName
        function ask(id, name) {
            connectionId = id
            connectionName = name
            open()
        }
        title: qsTr("Remove %1?").arg(connectionName)
        modal: true
        parent: T.Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(440, parent ? parent.width - 2 * Theme.spacingXl : 440)
        padding: Theme.spacingL
        palette.window: Theme.surface
        palette.windowText: Theme.textPrimary
        palette.button: Theme.neutralSoft
        palette.buttonText: Theme.textPrimary
        background: Rectangle {
            radius: Theme.radiusM
            color: Theme.surface
            border.color: Theme.border
        }
        header: Label {
            text: confirmRemove.title
            font: Theme.bodyStrongFont
            color: Theme.textPrimary
            padding: Theme.spacingL
            Accessible.role: Accessible.Heading
        }
        contentItem: Label {
            text: qsTr("The connection and its API key are deleted. Conversations held with it stay in the history.")
            font: Theme.bodyFont
            color: Theme.textPrimary
            wrapMode: Text.Wrap
        }
        footer: DialogButtonBox {
            alignment: Qt.AlignRight
            padding: Theme.spacingM
            spacing: Theme.spacingS
            background: null
            Button {
                objectName: "confirmRemoveButton"
                text: qsTr("Remove")
                DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            }
            Button {
                text: qsTr("Cancel")
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
        }
        onAccepted: root.connection.removeConnection(connectionId)
    }
}
