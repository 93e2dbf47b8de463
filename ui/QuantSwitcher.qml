// The quant switcher for the loaded model: from a 16/32-bit source every preset with the memory
// it would need and whether it fits; for a quantized file, the other files of the same model.
// Choosing one asks the picker to reload (EngineHost.switchQuant, or loading that file); the
// conversation stays, and its KV cache is recomputed on the next turn.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

ColumnLayout {
    id: root

    property var options: null     // LocalModels.quantOptions
    property string modelName
    property string quant           // what is loaded now
    property bool busy: false       // a load is under way

    // kind "preset": `preset` names it; kind "file": `path` is the other file.
    signal switchRequested(string kind, string preset, string path, string label, bool fits,
                           real estimatedBytes, int maxContext)

    spacing: Theme.spacingS

    Label {
        Layout.fillWidth: true
        text: qsTr("Quantization of %1 (now %2)").arg(root.modelName).arg(root.quant)
        textFormat: Text.PlainText
        font: Theme.bodyStrongFont
        color: Theme.textPrimary
        elide: Text.ElideRight
    }
    Label {
        Layout.fillWidth: true
        visible: root.options !== null && root.options.count === 0
        text: qsTr("No other quantization of this model is available: it is already quantized and no other file of it is in your models.")
        font: Theme.smallFont
        color: Theme.textSecondary
        wrapMode: Text.Wrap
    }

    Flow {
        Layout.fillWidth: true
        spacing: Theme.spacingS

        Repeater {
            model: root.options
            delegate: Button {
                id: option
                required property string kind
                required property string label
                required property string preset
                required property string path
                required property real estimatedBytes
                required property bool fits
                required property int maxContext
                required property bool current

                objectName: "quantOption_" + label
                enabled: !root.busy && !current
                background: Rectangle {
                    radius: Theme.radiusS
                    color: option.current ? Theme.accentSoft : option.down ? Theme.neutralSoft : Theme.surfaceSunken
                    border.color: option.current ? Theme.accentLight : option.hovered ? Theme.accent : Theme.border
                }
                implicitWidth: Math.max(120, optionText.implicitWidth + 2 * Theme.spacingM)
                contentItem: Column {
                    id: optionText
                    spacing: 2
                    Label {
                        text: option.label
                        font: Theme.bodyStrongFont
                        color: option.current ? Theme.accentText : Theme.textPrimary
                    }
                    Label {
                        text: option.current ? qsTr("loaded · %1").arg(Units.size(option.estimatedBytes))
                              : option.fits ? qsTr("fits · %1").arg(Units.size(option.estimatedBytes))
                              : qsTr("too big · %1").arg(Units.size(option.estimatedBytes))
                        font: Theme.smallFont
                        color: option.fits || option.current ? Theme.goodText : Theme.noticeText
                    }
                }
                Accessible.name: qsTr("Switch to %1, about %2").arg(label).arg(Units.size(estimatedBytes))
                onClicked: root.switchRequested(kind, preset, path, label, fits, estimatedBytes, maxContext)
            }
        }
    }
}
