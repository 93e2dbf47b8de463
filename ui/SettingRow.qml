// One setting: its name (and a line on what it does) on the left; the control, declared as the
// row's child, on the right (give it Layout.preferredWidth: SettingRow.controlWidth).
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

RowLayout {
    id: root

    property string label
    property string hint
    readonly property int controlWidth: 260

    spacing: Theme.spacingL

    ColumnLayout {
        Layout.fillWidth: true
        Layout.preferredWidth: 1
        Layout.alignment: Qt.AlignVCenter
        spacing: 2
        Label {
            Layout.fillWidth: true
            text: root.label
            font: Theme.bodyFont
            color: Theme.textPrimary
            wrapMode: Text.Wrap
        }
        Label {
            Layout.fillWidth: true
            visible: root.hint.length > 0
            text: root.hint
            font: Theme.smallFont
            color: Theme.textSecondary
            wrapMode: Text.Wrap
        }
    }
}
