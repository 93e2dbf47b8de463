// One download (a row of the Downloads model): the model's name, a progress bar, the line under
// it (bytes, rate, time left, or why it stopped) and its verbs: Pause, Resume (Retry after a
// failure), Cancel (deletes the partial file) or, once downloaded, Remove from the list.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

Rectangle {
    id: root

    // The Downloads model's roles
    required property var downloadId
    required property string name
    required property string downloadState
    required property string stateText
    required property string detail
    required property real fraction
    required property string license
    required property bool canPause
    required property bool canResume

    readonly property bool failed: downloadState === "failed"
    readonly property bool done: downloadState === "done"

    implicitHeight: column.implicitHeight + 2 * Theme.spacingM
    radius: Theme.radiusM
    color: Theme.surface
    border.color: failed ? Theme.noticeBorder : Theme.border
    Accessible.role: Accessible.ListItem
    Accessible.name: qsTr("%1: %2").arg(name).arg(detail)

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: Theme.spacingM
        spacing: Theme.spacingXs

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingS
            Label {
                Layout.fillWidth: true
                text: root.name
                textFormat: Text.PlainText
                font: Theme.bodyStrongFont
                color: Theme.textPrimary
                elide: Text.ElideRight
            }
            Label {
                objectName: "downloadState"
                text: root.stateText
                font: Theme.smallFont
                color: root.failed ? Theme.noticeText : root.done ? Theme.goodText : Theme.textSecondary
            }
            Button {
                objectName: "pauseButton"
                visible: root.canPause
                flat: true
                font: Theme.smallFont
                implicitWidth: implicitContentWidth + leftPadding + rightPadding
                text: qsTr("Pause")
                Accessible.name: qsTr("Pause the download of %1").arg(root.name)
                onClicked: Downloads.pause(root.downloadId)
            }
            Button {
                objectName: "resumeButton"
                visible: root.canResume
                flat: true
                font: Theme.smallFont
                implicitWidth: implicitContentWidth + leftPadding + rightPadding
                text: root.failed ? qsTr("Retry") : qsTr("Resume")
                Accessible.name: qsTr("Resume the download of %1").arg(root.name)
                onClicked: Downloads.resume(root.downloadId)
            }
            Button {
                objectName: "cancelButton"
                flat: true
                font: Theme.smallFont
                implicitWidth: implicitContentWidth + leftPadding + rightPadding
                text: root.done ? qsTr("Remove from list") : qsTr("Cancel")
                Accessible.name: root.done ? qsTr("Remove %1 from the list of downloads").arg(root.name)
                                           : qsTr("Cancel the download of %1 and delete what was downloaded").arg(root.name)
                onClicked: Downloads.cancel(root.downloadId)
            }
        }
        ProgressBar {
            objectName: "downloadProgress"
            Layout.fillWidth: true
            visible: !root.done
            from: 0
            to: 1
            value: Math.max(0, root.fraction)
            indeterminate: root.fraction < 0 && (root.downloadState === "running" || root.downloadState === "verifying")
        }
        Label {
            objectName: "downloadDetail"
            Layout.fillWidth: true
            text: root.detail
            textFormat: Text.PlainText
            font: Theme.smallFont
            color: root.failed ? Theme.noticeText : Theme.textSecondary
            wrapMode: Text.Wrap
        }
    }
}
