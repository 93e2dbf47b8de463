// A titled group of settings.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

ColumnLayout {
    id: root

    property string title

    spacing: Theme.spacingM

    Label {
        Layout.fillWidth: true
        text: root.title
        font: Theme.captionFont
        color: Theme.accentText
        Accessible.role: Accessible.Heading
    }
}
