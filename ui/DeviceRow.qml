// One compute device: what it is, its memory and how full it is.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    required property string name
    required property string kind // "cpu" / "cuda"
    required property string kindLabel
    required property string memoryText
    required property string computeCapability
    required property real usedFraction

    readonly property bool gpu: kind === "cuda"

    implicitHeight: content.implicitHeight + 2 * Theme.spacingM
    radius: Theme.radiusM
    color: Theme.surfaceSunken
    border.color: Theme.border

    RowLayout {
        id: content
        anchors.fill: parent
        anchors.margins: Theme.spacingM
        spacing: Theme.spacingM

        Rectangle {
            Layout.preferredWidth: Theme.deviceChipSize
            Layout.preferredHeight: Theme.deviceChipSize
            Layout.alignment: Qt.AlignTop
            radius: Theme.radiusS + 2
            color: root.gpu ? Theme.goodSoft : Theme.accentSoft

            Label {
                anchors.centerIn: parent
                text: root.kindLabel
                font: Theme.chipFont
                color: root.gpu ? Theme.goodText : Theme.accentText
            }
        }

        ColumnLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingXs

            RowLayout {
                Layout.fillWidth: true
                spacing: Theme.spacingS

                Label {
                    objectName: "deviceName"
                    Layout.fillWidth: true
                    text: root.name
                    font: Theme.bodyStrongFont
                    color: Theme.textPrimary
                    elide: Text.ElideRight
                }
                Label {
                    visible: root.computeCapability.length > 0
                    text: qsTr("Compute %1").arg(root.computeCapability)
                    font: Theme.smallFont
                    color: Theme.textSecondary
                }
            }

            Label {
                Layout.fillWidth: true
                text: root.memoryText
                font: Theme.smallFont
                color: Theme.textSecondary
                elide: Text.ElideRight
            }

            Rectangle {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingXs
                implicitHeight: Theme.meterHeight
                radius: height / 2
                color: Theme.meterTrack

                Rectangle {
                    width: parent.width * Math.max(0, Math.min(1, root.usedFraction))
                    height: parent.height
                    radius: parent.radius
                    color: root.gpu ? Theme.goodText : Theme.accent
                }
            }
        }
    }
}
