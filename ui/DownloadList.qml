// The downloads, for the Library page: one DownloadRow each, and the last reason a download
// could not start (Downloads.errorOccurred). Hidden while there is nothing to show.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

ColumnLayout {
    id: root

    spacing: Theme.spacingS
    visible: Downloads.count > 0 || refusal.text.length > 0

    Connections {
        target: Downloads
        function onErrorOccurred(message) { refusal.text = message }
        function onCountChanged() { refusal.text = "" }
    }

    Label {
        Layout.fillWidth: true
        text: qsTr("Downloads")
        font: Theme.captionFont
        color: Theme.textSecondary
        Accessible.role: Accessible.Heading
    }
    Label {
        id: refusal
        objectName: "downloadRefusal"
        Layout.fillWidth: true
        visible: text.length > 0
        textFormat: Text.PlainText
        font: Theme.smallFont
        color: Theme.noticeText
        wrapMode: Text.Wrap
    }
    Repeater {
        model: Downloads
        delegate: DownloadRow {
            Layout.fillWidth: true
        }
    }
}
