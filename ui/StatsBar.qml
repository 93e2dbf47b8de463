// The reply's numbers while it is written (and the last reply's after): decode speed now, prefill
// speed, time to first token, context used of its size, and a small chart of decode tok/s over
// the reply. `stats` is a LiveStats (or a stand-in with the same properties in tests).
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Rectangle {
    id: root

    property QtObject stats: null

    readonly property bool known: stats !== null && (stats.active || stats.tokens > 0)
    function rate(value, digits) {
        return value >= 0 ? Number(value).toLocaleString(Qt.locale(), "f", digits) : "—"
    }

    implicitHeight: 40
    color: Theme.surfaceSunken
    border.color: Theme.border
    radius: Theme.radiusM
    Accessible.role: Accessible.StatusBar
    Accessible.name: qsTr("Reply statistics")

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.spacingM
        anchors.rightMargin: Theme.spacingM
        spacing: Theme.spacingL

        component Figure: ColumnLayout {
            id: figure
            property string label
            property string value
            spacing: 0
            Accessible.role: Accessible.StaticText
            Accessible.name: label + ": " + value
            Label {
                text: figure.label
                font: Theme.captionFont
                color: Theme.textTertiary
            }
            Label {
                text: figure.value
                font: Theme.bodyStrongFont
                color: Theme.textPrimary
            }
        }

        Rectangle {
            objectName: "liveDot"
            implicitWidth: 8
            implicitHeight: 8
            radius: 4
            color: root.stats && root.stats.active ? Theme.goodText : Theme.textTertiary
            Accessible.ignored: true
        }
        Figure {
            objectName: "decodeFigure"
            label: qsTr("Decode")
            value: root.known ? qsTr("%1 tok/s").arg(root.rate(root.stats.decodeTokPerS, 1)) : "—"
        }
        Figure {
            objectName: "prefillFigure"
            label: qsTr("Prefill")
            value: root.known ? qsTr("%1 tok/s").arg(root.rate(root.stats.prefillTokPerS, 0)) : "—"
        }
        Figure {
            objectName: "ttftFigure"
            label: qsTr("First token")
            value: root.known && root.stats.ttftMs >= 0 ? qsTr("%1 ms").arg(root.rate(root.stats.ttftMs, 0)) : "—"
        }
        Figure {
            objectName: "contextFigure"
            label: qsTr("Context")
            value: root.known && root.stats.contextSize > 0
                   ? qsTr("%1 / %2").arg(root.stats.contextUsed).arg(Units.tokens(root.stats.contextSize)) : "—"
        }
        Rectangle {
            Layout.preferredWidth: 60
            Layout.alignment: Qt.AlignVCenter
            implicitHeight: Theme.meterHeight
            radius: height / 2
            color: Theme.meterTrack
            visible: root.known && root.stats.contextSize > 0
            Accessible.ignored: true
            Rectangle {
                width: parent.width * (root.known && root.stats.contextSize > 0
                                       ? Math.min(1, root.stats.contextUsed / root.stats.contextSize) : 0)
                height: parent.height
                radius: parent.radius
                color: Theme.accent
            }
        }
        Item { Layout.fillWidth: true }

        // Decode tok/s over the reply: x is time into the reply, y the rate (0 at the bottom).
        Canvas {
            id: chart
            objectName: "decodeChart"
            Layout.preferredWidth: 180
            Layout.fillHeight: true
            Layout.topMargin: Theme.spacingXs
            Layout.bottomMargin: Theme.spacingXs
            Accessible.role: Accessible.Chart
            Accessible.name: qsTr("Decode speed over the reply")
            readonly property var points: root.stats ? root.stats.decodeHistory : []
            readonly property var times: root.stats ? root.stats.historyMs : []
            readonly property color lineColor: Theme.accent
            readonly property color fillColor: Theme.accentSoft
            onPointsChanged: requestPaint()
            onLineColorChanged: requestPaint()
            onPaint: {
                const ctx = getContext("2d")
                ctx.reset()
                const n = Math.min(points.length, times.length)
                if (n < 2)
                    return
                let top = 0
                for (let i = 0; i < n; ++i)
                    top = Math.max(top, points[i])
                const span = Math.max(times[n - 1] - times[0], 1)
                const x = (i) => (times[i] - times[0]) / span * (width - 2) + 1
                const y = (i) => height - 1 - points[i] / (top * 1.1 || 1) * (height - 2)
                ctx.beginPath()
                ctx.moveTo(x(0), height)
                for (let i = 0; i < n; ++i)
                    ctx.lineTo(x(i), y(i))
                ctx.lineTo(x(n - 1), height)
                ctx.closePath()
                ctx.fillStyle = fillColor
                ctx.fill()
                ctx.beginPath()
                ctx.moveTo(x(0), y(0))
                for (let i = 1; i < n; ++i)
                    ctx.lineTo(x(i), y(i))
                ctx.strokeStyle = lineColor
                ctx.lineWidth = 1.5
                ctx.stroke()
            }
        }
    }
}
