// A one-line notice across the chat with one action: an error, a load in progress, a way on.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    property string message
    property string actionText

    signal actionTriggered()

    implicitHeight: row.implicitHeight + 2 * Theme.spacingS
    radius: Theme.radiusM
    color: Theme.noticeBackground
    border.color: Theme.noticeBorder
    Accessible.role: Accessible.AlertMessage
    Accessible.name: message

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: Theme.spacingS
        anchors.leftMargin: Theme.spacingM
        spacing: Theme.spacingM
        Label {
            objectName: "bannerMessage"
            Layout.fillWidth: true
            text: root.message
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
            maximumLineCount: 3
            elide: Text.ElideRight
            font: Theme.smallFont
            color: Theme.noticeText
        }
        Button {
            visible: root.actionText.length > 0
            flat: true
            text: root.actionText
            font: Theme.smallFont
            Accessible.name: text
            onClicked: root.actionTriggered()
        }
    }
}
