// The sidebar's note of downloads under way: how many and how far, with a thin bar; a click
// opens the library (clicked). Hidden when nothing downloads.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

ItemDelegate {
    id: root

    objectName: "downloadIndicator"
    visible: Downloads.activeCount > 0
    padding: Theme.spacingS
    Accessible.name: Downloads.summary

    contentItem: ColumnLayout {
        spacing: Theme.spacingXs
        Label {
            Layout.fillWidth: true
            text: Downloads.summary
            font: Theme.smallFont
            color: Theme.textSecondary
            elide: Text.ElideRight
        }
        ProgressBar {
            Layout.fillWidth: true
            from: 0
            to: 1
            value: Math.max(0, Downloads.overallFraction)
            indeterminate: Downloads.overallFraction < 0
        }
    }
    background: Rectangle {
        radius: Theme.radiusM
        color: root.hovered ? Theme.surface : "transparent"
        border.color: root.activeFocus ? Theme.accentLight : "transparent"
    }
}
