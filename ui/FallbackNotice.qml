// Says, in plain words, why Hearth runs on the CPU; the engine's own reason below in small type.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    property string message
    property string details

    implicitHeight: content.implicitHeight + 2 * Theme.spacingM
    radius: Theme.radiusM
    color: Theme.noticeBackground
    border.color: Theme.noticeBorder

    RowLayout {
        id: content
        anchors.fill: parent
        anchors.margins: Theme.spacingM
        spacing: Theme.spacingM

        Rectangle {
            Layout.alignment: Qt.AlignTop
            Layout.topMargin: 1
            implicitWidth: 20
            implicitHeight: 20
            radius: width / 2
            color: Theme.noticeIcon

            Label {
                anchors.centerIn: parent
                text: "i"
                font: Theme.chipFont
                color: Theme.textOnAccent
            }
        }

        ColumnLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingXs

            Label {
                objectName: "fallbackMessage"
                Layout.fillWidth: true
                text: root.message
                font: Theme.bodyFont
                color: Theme.noticeText
                wrapMode: Text.Wrap
            }
            Label {
                Layout.fillWidth: true
                visible: root.details.length > 0
                text: qsTr("Details: %1").arg(root.details)
                font: Theme.smallFont
                color: Theme.noticeText
                opacity: 0.75
                wrapMode: Text.Wrap
            }
        }
    }
}
