// One remote connection in the model picker: its name, the model and the server's address, and
// for the one in use whether the server answers (or why not). Use connects the chat to it;
// Edit and Remove ask the picker.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    // RemoteConnections' roles
    required property int index
    required property string connectionId
    required property string name
    required property string baseUrl
    required property string host
    required property string modelName
    required property bool hasKey
    required property bool active

    // For the connection in use: the server's state in words, and whether that is good news.
    property string statusText
    property bool statusGood: false

    signal useRequested()
    signal disconnectRequested()
    signal editRequested()
    signal removeRequested()

    implicitHeight: content.implicitHeight + 2 * Theme.spacingM
    radius: Theme.radiusM
    color: active ? Theme.accentSoft : Theme.surfaceSunken
    border.color: active ? Theme.accentLight : Theme.border

    Accessible.role: Accessible.ListItem
    Accessible.name: qsTr("%1: %2 on %3").arg(name).arg(modelName).arg(host) + (active ? ", " + statusText : "")

    TapHandler {
        onDoubleTapped: if (!root.active) root.useRequested()
    }

    RowLayout {
        id: content
        anchors.fill: parent
        anchors.margins: Theme.spacingM
        spacing: Theme.spacingM

        ColumnLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingXs

            RowLayout {
                Layout.fillWidth: true
                spacing: Theme.spacingS
                Label {
                    objectName: "connectionName"
                    Layout.fillWidth: true
                    text: root.name
                    textFormat: Text.PlainText
                    font: Theme.bodyStrongFont
                    color: Theme.textPrimary
                    elide: Text.ElideRight
                }
                Label {
                    objectName: "inUseBadge"
                    visible: root.active
                    text: qsTr("In use")
                    font: Theme.chipFont
                    color: Theme.goodText
                    padding: Theme.spacingXs
                    background: Rectangle { radius: Theme.radiusS; color: Theme.goodSoft }
                }
            }
            Label {
                objectName: "connectionFacts"
                Layout.fillWidth: true
                text: [root.modelName, root.host, root.hasKey ? qsTr("API key") : qsTr("no API key")].join(" · ")
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: Theme.textSecondary
                elide: Text.ElideRight
            }
            Label {
                objectName: "connectionStatus"
                Layout.fillWidth: true
                visible: root.active && root.statusText.length > 0
                text: root.statusText
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: root.statusGood ? Theme.goodText : Theme.noticeText
                wrapMode: Text.Wrap
            }
            Label {
                Layout.fillWidth: true
                text: root.baseUrl
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: Theme.textTertiary
                elide: Text.ElideMiddle
            }
        }

        Button {
            objectName: "editConnectionButton"
            Layout.alignment: Qt.AlignVCenter
            text: qsTr("Edit")
            Accessible.name: qsTr("Edit %1").arg(root.name)
            onClicked: root.editRequested()
        }
        Button {
            objectName: "removeConnectionButton"
            Layout.alignment: Qt.AlignVCenter
            text: qsTr("Remove")
            Accessible.name: qsTr("Remove %1").arg(root.name)
            onClicked: root.removeRequested()
        }
        Button {
            objectName: "useConnectionButton"
            Layout.alignment: Qt.AlignVCenter
            text: root.active ? qsTr("Disconnect") : qsTr("Use")
            Accessible.name: root.active ? qsTr("Stop using %1").arg(root.name) : qsTr("Use %1").arg(root.name)
            onClicked: root.active ? root.disconnectRequested() : root.useRequested()
        }
    }
}
