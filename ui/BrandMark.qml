// The Hearth mark: an ember-coloured rounded square with the initial.
import QtQuick
import Hearth

Rectangle {
    implicitWidth: Theme.brandMarkSize
    implicitHeight: Theme.brandMarkSize
    radius: Theme.radiusL - 2
    gradient: Gradient {
        GradientStop { position: 0.0; color: Theme.accentLight }
        GradientStop { position: 1.0; color: Theme.accent }
    }

    Text {
        anchors.centerIn: parent
        text: "H"
        font: Theme.brandFont
        color: Theme.textOnAccent
    }
}
