// The VRAM meter for the window header: the device's memory as one bar split into Hearth's
// categories (weights, KV cache, recurrent state, workspace, CUDA context), other processes and
// free, each its own colour; above it the GPU's name and totals. On the CPU backend the same bar
// is the system's RAM with the model's share, and a line says why no GPU is in use. A click (or
// Enter) opens the legend with every figure and a chart of the last minutes. The numbers come
// from a MemoryMeter, which polls about once a second and reports after every load. While a
// remote server answers (remoteServer set) the meter says so: the model uses none of this
// computer's memory, and the bar, dimmed, is what is free here.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Item {
    id: root

    // A MemoryMeter. Untyped so that tests can hand in a stand-in with the same properties.
    property var memoryMeter: null
    // The remote connection's name while one answers the chat ("": the local engine), and its model.
    property string remoteServer: ""
    property string remoteModel: ""
    readonly property bool remote: remoteServer.length > 0

    readonly property bool valid: memoryMeter !== null && memoryMeter.valid
    readonly property bool onGpu: valid && memoryMeter.onGpu
    // C++ translates the reason: reading Qt.uiLanguage re-reads it when the language changes.
    readonly property string noGpuReason: (Qt.uiLanguage, valid && !remote ? memoryMeter.noGpuReason : "")
    readonly property var categories: valid ? [
        { key: "weights", name: qsTr("Weights"), bytes: memoryMeter.weightsBytes, color: Theme.memoryWeights },
        { key: "kvCache", name: qsTr("KV cache"), bytes: memoryMeter.kvCacheBytes, color: Theme.memoryKvCache },
        { key: "recurrent", name: qsTr("Recurrent state"), bytes: memoryMeter.recurrentStateBytes, color: Theme.memoryRecurrent },
        { key: "workspace", name: qsTr("Workspace"), bytes: memoryMeter.workspaceBytes, color: Theme.memoryWorkspace },
        { key: "context", name: qsTr("CUDA context"), bytes: memoryMeter.deviceContextBytes, color: Theme.memoryContext },
        { key: "other", name: onGpu ? qsTr("Other processes") : qsTr("Other programs"),
          bytes: memoryMeter.otherProcessesBytes, color: Theme.memoryOther },
        { key: "free", name: qsTr("Free"), bytes: memoryMeter.freeBytes, color: Theme.memoryFree },
    ] : []
    // The bar's full width: the device's memory (more when the parts add up to more, as the
    // CPU's mapped weights can, so that no segment runs off the end).
    readonly property real scaleBytes: {
        let sum = 0
        for (const c of categories)
            sum += c.bytes
        return valid ? Math.max(memoryMeter.totalBytes, sum, 1) : 1
    }

    readonly property string localTitle: !valid ? qsTr("Memory")
                                         : onGpu ? memoryMeter.deviceName
                                         : qsTr("CPU · %1").arg(memoryMeter.deviceName)
    readonly property string title: remote ? qsTr("Remote · %1").arg(remoteServer) : localTitle
    readonly property string summary: remote ? qsTr("none used here")
                                      : !valid ? qsTr("waiting for the engine")
                                      : onGpu ? qsTr("%1 free of %2").arg(Units.gib(memoryMeter.freeBytes)).arg(Units.gib(memoryMeter.totalBytes))
                                      : memoryMeter.loaded ? qsTr("model uses %1 of %2 RAM").arg(Units.size(memoryMeter.usedBytes)).arg(Units.gib(memoryMeter.totalBytes))
                                      : qsTr("%1 RAM").arg(Units.gib(memoryMeter.totalBytes))

    implicitWidth: 280
    implicitHeight: column.implicitHeight
    activeFocusOnTab: true

    Accessible.role: Accessible.Button
    Accessible.name: qsTr("Memory: %1, %2").arg(title).arg(summary)
    Accessible.description: noGpuReason
    Accessible.onPressAction: details.open()
    Keys.onReturnPressed: details.open()
    Keys.onSpacePressed: details.open()

    ColumnLayout {
        id: column
        anchors.left: parent.left
        anchors.right: parent.right
        spacing: Theme.spacingXs

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingS

            Label {
                objectName: "deviceTitle"
                Layout.fillWidth: true
                text: root.title
                font: Theme.smallFont
                color: Theme.textPrimary
                elide: Text.ElideRight
            }
            // The numbers keep a narrow meter; the name gives way first (to "CPU · …").
            Label {
                objectName: "summary"
                Layout.fillWidth: true
                // Whole pixels: a layout that rounds the width down would elide the last letter.
                Layout.minimumWidth: Math.min(Math.ceil(implicitWidth), root.width - 72)
                Layout.maximumWidth: Math.ceil(implicitWidth)
                text: root.summary
                font: Theme.smallFont
                color: Theme.textSecondary
                elide: Text.ElideRight
            }
        }

        Rectangle {
            id: bar
            objectName: "bar"
            Layout.fillWidth: true
            implicitHeight: Theme.spacingS
            radius: height / 2
            color: Theme.meterTrack
            clip: true
            opacity: root.remote ? 0.4 : 1

            Row {
                anchors.fill: parent
                Repeater {
                    model: root.categories
                    delegate: Rectangle {
                        required property var modelData
                        objectName: "segment_" + modelData.key
                        width: bar.width * modelData.bytes / root.scaleBytes
                        height: bar.height
                        color: modelData.color
                    }
                }
            }
        }

        Label {
            objectName: "noGpuReason"
            Layout.fillWidth: true
            visible: root.noGpuReason.length > 0
            text: root.noGpuReason
            font: Theme.smallFont
            color: Theme.noticeText
            elide: Text.ElideRight
        }
    }

    HoverHandler {
        id: hover
    }
    TapHandler {
        onTapped: details.open()
    }
    ToolTip.visible: hover.hovered && !details.opened
    ToolTip.delay: 500
    ToolTip.text: root.noGpuReason.length > 0 ? root.summary + "\n" + root.noGpuReason
                                               : qsTr("%1 · click for details").arg(root.summary)

    Popup {
        id: details
        objectName: "details"
        y: root.height + Theme.spacingXs
        x: root.width - width
        width: 340
        padding: Theme.spacingL
        background: Rectangle {
            radius: Theme.radiusM
            color: Theme.surface
            border.color: Theme.border
        }

        contentItem: ColumnLayout {
            spacing: Theme.spacingS

            Label {
                objectName: "remoteNote"
                Layout.fillWidth: true
                visible: root.remote
                text: qsTr("%1 runs on %2: it uses none of this computer's memory. Below: this computer.")
                          .arg(root.remoteModel).arg(root.remoteServer)
                textFormat: Text.PlainText
                font: Theme.smallFont
                color: Theme.textSecondary
                wrapMode: Text.Wrap
            }
            Label {
                Layout.fillWidth: true
                text: root.valid ? qsTr("%1 · %2 total").arg(root.localTitle).arg(Units.gib(root.memoryMeter.totalBytes)) : root.localTitle
                font: Theme.bodyStrongFont
                color: Theme.textPrimary
                wrapMode: Text.Wrap
            }

            Repeater {
                model: root.categories
                delegate: RowLayout {
                    id: legendRow
                    required property var modelData
                    objectName: "legend_" + modelData.key
                    Layout.fillWidth: true
                    // A GPU's categories are shown even when empty; the CPU has no CUDA context.
                    visible: modelData.bytes > 0 || root.onGpu && modelData.key !== "recurrent"
                             || modelData.key === "free"
                    spacing: Theme.spacingS

                    Rectangle {
                        implicitWidth: 10
                        implicitHeight: 10
                        radius: 2
                        color: legendRow.modelData.color
                        border.color: Theme.border
                    }
                    Label {
                        Layout.fillWidth: true
                        text: legendRow.modelData.name
                        font: Theme.smallFont
                        color: Theme.textSecondary
                    }
                    Label {
                        objectName: "legendValue"
                        text: Units.gib(legendRow.modelData.bytes)
                        font: Theme.smallFont
                        color: Theme.textPrimary
                    }
                }
            }

            Label {
                Layout.fillWidth: true
                visible: root.noGpuReason.length > 0
                text: root.noGpuReason
                font: Theme.smallFont
                color: Theme.noticeText
                wrapMode: Text.Wrap
            }

            Label {
                Layout.topMargin: Theme.spacingS
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                readonly property int minutes: Math.round(chart.windowSeconds / 60)
                // "min" reads right for any count: no plural forms needed.
                text: root.onGpu || !root.valid ? qsTr("Video memory used by Hearth, last %1 min").arg(minutes)
                                                : qsTr("Memory used by Hearth, last %1 min").arg(minutes)
                font: Theme.captionFont
                color: Theme.textTertiary
            }
            VramHistoryChart {
                id: chart
                objectName: "historyChart"
                Layout.fillWidth: true
                Layout.preferredHeight: 90
                historyBytes: root.valid ? root.memoryMeter.historyBytes : []
                historySecondsAgo: root.valid ? root.memoryMeter.historySecondsAgo : []
                windowSeconds: root.memoryMeter ? root.memoryMeter.historyWindowSeconds : 300
                totalBytes: root.valid ? root.memoryMeter.totalBytes : 0
            }
        }
    }
}
