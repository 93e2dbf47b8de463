// A small chart of the memory Hearth used over the last minutes (the VRAM meter's popup): one
// filled line, newest on the right, scaled to the device's memory (or to the peak when that is
// far below it, so that small models still show a shape). Drawn with Canvas: Qt Charts' QML
// would need a QApplication.
import QtQuick
import QtQuick.Controls.Basic
import Hearth

Item {
    id: root

    property var historyBytes: []      // MemoryMeter.historyBytes
    property var historySecondsAgo: [] // MemoryMeter.historySecondsAgo
    property int windowSeconds: 300
    property real totalBytes: 0               // the device's memory; 0: unknown

    // The top of the chart: the device's memory, or twice the peak when the peak is under a tenth.
    readonly property real peakBytes: {
        let peak = 0
        for (let i = 0; i < historyBytes.length; ++i)
            peak = Math.max(peak, historyBytes[i])
        return peak
    }
    readonly property real topBytes: totalBytes > 0 && peakBytes > totalBytes / 10 ? totalBytes
                                     : Math.max(peakBytes * 2, 1)
    readonly property string topLabel: Units.gib(topBytes)

    implicitHeight: 90
    Accessible.role: Accessible.Chart
    Accessible.name: qsTr("Memory used over the last minutes, up to %1").arg(topLabel)

    onHistoryBytesChanged: canvas.requestPaint()
    onTopBytesChanged: canvas.requestPaint()
    Connections {
        target: Theme
        function onDarkChanged() { canvas.requestPaint() }
    }

    Rectangle {
        anchors.fill: canvas
        color: Theme.surfaceSunken
        radius: Theme.radiusS
        border.color: Theme.border
    }

    Canvas {
        id: canvas
        objectName: "canvas"
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.bottom: axis.top
        anchors.bottomMargin: 2
        onWidthChanged: requestPaint()
        onHeightChanged: requestPaint()

        onPaint: {
            const ctx = getContext("2d")
            ctx.reset()
            const n = Math.min(root.historyBytes.length, root.historySecondsAgo.length)
            if (n === 0 || width <= 0 || height <= 0)
                return
            const xAt = i => width * (1 - root.historySecondsAgo[i] / root.windowSeconds)
            const yAt = i => height - 2 - (height - 4) * Math.min(1, root.historyBytes[i] / root.topBytes)
            ctx.beginPath()
            ctx.moveTo(xAt(0), height)
            for (let i = 0; i < n; ++i)
                ctx.lineTo(xAt(i), yAt(i))
            ctx.lineTo(xAt(n - 1), height)
            ctx.closePath()
            ctx.fillStyle = Theme.accentSoft
            ctx.fill()
            ctx.beginPath()
            ctx.moveTo(xAt(0), yAt(0))
            for (let i = 1; i < n; ++i)
                ctx.lineTo(xAt(i), yAt(i))
            ctx.strokeStyle = Theme.accent
            ctx.lineWidth = 1.5
            ctx.stroke()
        }
    }

    Label {
        anchors.top: parent.top
        anchors.right: parent.right
        anchors.margins: Theme.spacingXs
        text: root.topLabel
        font: Theme.smallFont
        color: Theme.textTertiary
    }

    Item {
        id: axis
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        height: ago.implicitHeight

        Label {
            id: ago
            anchors.left: parent.left
            text: qsTr("%1 min ago").arg(Math.round(root.windowSeconds / 60))
            font: Theme.smallFont
            color: Theme.textTertiary
        }
        Label {
            anchors.right: parent.right
            text: qsTr("now")
            font: Theme.smallFont
            color: Theme.textTertiary
        }
    }
}
