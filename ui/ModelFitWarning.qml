// Asked before a load that would not fit: says how much the model needs and where, and offers
// the largest context that fits (when one does), loading anyway, or not loading.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Templates as T
import Hearth

Dialog {
    id: root

    property var request: ({}) // { path, quant, name, estimatedBytes, maxContext, deviceName }

    signal loadAnyway(var request)
    signal loadWithContext(var request, int context)

    function ask(r) {
        request = r
        open()
    }

    objectName: "fitWarning"
    title: qsTr("This model may not fit")
    modal: true
    parent: T.Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(480, parent ? parent.width - 2 * Theme.spacingXl : 480)
    padding: Theme.spacingL
    // The Basic style's controls draw with the palette: follow the theme (dark included).
    palette.window: Theme.surface
    palette.windowText: Theme.textPrimary
    palette.base: Theme.surfaceSunken
    palette.text: Theme.textPrimary
    palette.button: Theme.neutralSoft
    palette.buttonText: Theme.textPrimary
    palette.highlight: Theme.accent
    palette.highlightedText: Theme.textOnAccent
    palette.mid: Theme.border
    palette.dark: Theme.textSecondary
    background: Rectangle {
        radius: Theme.radiusM
        color: Theme.surface
        border.color: Theme.border
    }

    contentItem: Label {
        objectName: "fitWarningText"
        text: qsTr("%1 needs about %2 at the chosen context, more than %3 has free. Loading it may fail or slow everything down.")
                  .arg(root.request.name || "").arg(Units.size(root.request.estimatedBytes || 0)).arg(root.request.deviceName || "")
              + (root.request.maxContext > 0 ? "\n\n" + qsTr("It fits with a context of up to %1 tokens.").arg(root.request.maxContext) : "")
        textFormat: Text.PlainText
        font: Theme.bodyFont
        color: Theme.textPrimary
        wrapMode: Text.Wrap
    }

    header: Label {
        text: root.title
        font: Theme.bodyStrongFont
        color: Theme.textPrimary
        padding: Theme.spacingL
        Accessible.role: Accessible.Heading
    }
    footer: DialogButtonBox {
        alignment: Qt.AlignRight
        padding: Theme.spacingM
        spacing: Theme.spacingS
        background: null
        Button {
            objectName: "useFittingContext"
            visible: root.request.maxContext > 0
            text: qsTr("Use %1 context").arg(Units.tokens(root.request.maxContext || 0))
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            onClicked: root.loadWithContext(root.request, root.request.maxContext)
        }
        Button {
            objectName: "loadAnyway"
            text: qsTr("Load anyway")
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            onClicked: root.loadAnyway(root.request)
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
}
