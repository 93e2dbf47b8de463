// One model in the picker: its name and facts (architecture, parameters, quant, file size,
// trained context), and the engine's estimate of whether it fits at the chosen context, with the
// largest context that does and, on the CPU, the decode speed its memory bandwidth allows. Load
// asks the picker to load it.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    // LocalModels' roles
    required property int index
    required property string path
    required property string name
    required property string format
    required property string architecture
    required property string parameters
    required property string quant
    required property real fileBytes
    required property int contextLength
    required property bool ready
    required property string error
    required property real estimatedBytes
    required property bool fits
    required property int maxContext
    required property string deviceName
    required property real tokensPerSecond
    required property bool userAdded
    required property bool loaded

    property int chosenContext: 0   // the context setting; 0: the model's own, up to 4096
    property bool busy: false       // a load is under way: no second one from here
    property bool current: false    // the list's current row

    signal loadRequested()
    signal selected()

    // As the engine loads it: the chosen context, but no more than the model's own.
    readonly property int contextShown: Math.min(contextLength, chosenContext > 0 ? chosenContext : 4096)
    readonly property string factsText: {
        const parts = [architecture, qsTr("%1 parameters").arg(parameters), quant, Units.size(fileBytes),
                       qsTr("%1 context").arg(Units.tokens(contextLength))]
        return parts.filter(s => s.length > 0).join(" · ")
    }
    readonly property string fitText: {
        if (!ready)
            return qsTr("Reading the file…")
        if (error.length > 0)
            return error
        if (fits && tokensPerSecond > 0)
            return qsTr("Fits on %1 at %2 context: needs about %3; on the CPU at most about %4 tokens per second")
                .arg(deviceName).arg(Units.tokens(contextShown)).arg(Units.size(estimatedBytes))
                .arg(Math.max(1, Math.round(tokensPerSecond)))
        if (fits)
            return qsTr("Fits on %1 at %2 context: needs about %3")
                .arg(deviceName).arg(Units.tokens(contextShown)).arg(Units.size(estimatedBytes))
        if (maxContext > 0)
            return qsTr("Needs about %1 at %2 context, more than %3 has free; fits up to %4 context")
                .arg(Units.size(estimatedBytes)).arg(Units.tokens(contextShown)).arg(deviceName).arg(Units.tokens(maxContext))
        return qsTr("Does not fit on %1: needs about %2 at %3 context")
            .arg(deviceName).arg(Units.size(estimatedBytes)).arg(Units.tokens(contextShown))
    }

    implicitHeight: content.implicitHeight + 2 * Theme.spacingM
    radius: Theme.radiusM
    color: current ? Theme.accentSoft : Theme.surfaceSunken
    border.color: current ? Theme.accentLight : Theme.border

    Accessible.role: Accessible.ListItem
    Accessible.name: name + ", " + factsText + ", " + fitText

    TapHandler {
        onTapped: root.selected()
        onDoubleTapped: if (root.ready && root.error.length === 0 && !root.busy) root.loadRequested()
    }

    RowLayout {
        id: content
        anchors.fill: parent
        anchors.margins: Theme.spacingM
        spacing: Theme.spacingM

        ColumnLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingXs

            RowLayout {
                Layout.fillWidth: true
                spacing: Theme.spacingS
                Label {
                    objectName: "modelName"
                    Layout.fillWidth: true
                    text: root.name
                    textFormat: Text.PlainText // a file's own words
                    font: Theme.bodyStrongFont
                    color: Theme.textPrimary
                    elide: Text.ElideRight
                }
                Label {
                    objectName: "loadedBadge"
                    visible: root.loaded
                    text: qsTr("Loaded")
                    font: Theme.chipFont
                    color: Theme.goodText
                    padding: Theme.spacingXs
                    background: Rectangle { radius: Theme.radiusS; color: Theme.goodSoft }
                }
            }
            Label {
                objectName: "modelFacts"
                Layout.fillWidth: true
                visible: root.ready && root.error.length === 0
                text: root.factsText
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: Theme.textSecondary
                elide: Text.ElideRight
            }
            Label {
                objectName: "modelFit"
                Layout.fillWidth: true
                text: root.fitText
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: !root.ready ? Theme.textTertiary
                       : root.error.length > 0 || !root.fits ? Theme.noticeText : Theme.goodText
                wrapMode: Text.Wrap
            }
            Label {
                Layout.fillWidth: true
                text: root.path
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: Theme.textTertiary
                elide: Text.ElideMiddle
            }
        }

        Button {
            objectName: "loadButton"
            Layout.alignment: Qt.AlignVCenter
            text: root.loaded ? qsTr("Reload") : qsTr("Load")
            enabled: root.ready && root.error.length === 0 && !root.busy
            onClicked: root.loadRequested()
            Accessible.name: qsTr("Load %1").arg(root.name)
        }
    }
}
