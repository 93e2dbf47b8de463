// The first-run / status screen: a centred card that says which backend and devices Hearth found.
// Pure presentation: Main.qml binds these properties to DeviceStatus; tests bind them to stubs.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Flickable {
    id: root

    property bool ready: false
    property string version
    property string backendName // "CUDA" / "CPU"
    property bool usingGpu: false
    property alias deviceModel: deviceRepeater.model // roles: see DeviceRow's required properties
    property string fallbackMessage // empty when a GPU is used
    property string fallbackDetails
    // Shown under the welcome (the app's empty state puts its "Open a model" panel here).
    property alias extras: extrasColumn.data

    contentWidth: width
    contentHeight: Math.max(height, card.implicitHeight + 2 * Theme.spacingXxxl)
    boundsBehavior: Flickable.StopAtBounds
    clip: true
    ScrollBar.vertical: ScrollBar { }

    // A soft shadow under the card: three widening layers, faintest outside.
    Repeater {
        model: 3
        delegate: Rectangle {
            required property int index
            x: card.x - index - 1
            y: card.y + 2 * index + 2
            width: card.width + 2 * (index + 1)
            height: card.height
            radius: card.radius + index + 1
            color: Theme.shadow
        }
    }

    Rectangle {
        id: card
        width: Math.min(Theme.cardWidth, root.width - 2 * Theme.spacingXl)
        height: implicitHeight
        implicitHeight: layout.implicitHeight + 2 * Theme.spacingXxxl
        x: (root.width - width) / 2
        y: (root.contentHeight - height) / 2
        radius: Theme.radiusL
        color: Theme.surface
        border.color: Theme.border

        ColumnLayout {
            id: layout
            anchors.fill: parent
            anchors.margins: Theme.spacingXxxl
            spacing: 0

            BrandMark {
                Layout.alignment: Qt.AlignHCenter
            }
            Label {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingL
                horizontalAlignment: Text.AlignHCenter
                text: qsTr("Welcome to Hearth")
                font: Theme.titleFont
                color: Theme.textPrimary
            }
            Label {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingS
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                text: qsTr("Chat with AI models that run entirely on this computer.")
                font: Theme.subtitleFont
                color: Theme.textSecondary
            }

            ColumnLayout {
                id: extrasColumn
                objectName: "statusExtras"
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingXl
                visible: children.length > 0
                spacing: Theme.spacingS
            }

            RowLayout {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingXxl
                spacing: Theme.spacingS

                Label {
                    Layout.fillWidth: true
                    text: qsTr("Compute")
                    font: Theme.captionFont
                    color: Theme.textTertiary
                }
                Rectangle {
                    objectName: "backendBadge"
                    visible: root.ready
                    implicitWidth: backendLabel.implicitWidth + 2 * Theme.spacingM
                    implicitHeight: backendLabel.implicitHeight + Theme.spacingXs * 1.5
                    radius: height / 2
                    color: root.usingGpu ? Theme.goodSoft : Theme.neutralSoft

                    Label {
                        id: backendLabel
                        anchors.centerIn: parent
                        text: qsTr("Backend: %1").arg(root.backendName)
                        font: Theme.smallFont
                        color: root.usingGpu ? Theme.goodText : Theme.textSecondary
                    }
                }
            }

            // While the engine looks for devices.
            RowLayout {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingM
                visible: !root.ready
                spacing: Theme.spacingM

                BusyIndicator {
                    objectName: "busyIndicator"
                    running: !root.ready
                    implicitWidth: 28
                    implicitHeight: 28
                    palette.dark: Theme.accent // the Basic style draws its dots in palette.dark
                }
                Label {
                    Layout.fillWidth: true
                    text: qsTr("Looking for graphics cards…")
                    font: Theme.bodyFont
                    color: Theme.textSecondary
                }
            }

            ColumnLayout {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingM
                visible: root.ready
                spacing: Theme.spacingS

                Repeater {
                    id: deviceRepeater
                    delegate: DeviceRow {
                        Layout.fillWidth: true
                    }
                }

                FallbackNotice {
                    objectName: "fallbackNotice"
                    Layout.fillWidth: true
                    Layout.topMargin: Theme.spacingXs
                    visible: root.fallbackMessage.length > 0
                    message: root.fallbackMessage
                    details: root.fallbackDetails
                }
            }

            Rectangle {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingXl
                implicitHeight: 1
                color: Theme.border
            }

            RowLayout {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spacingL
                spacing: Theme.spacingM

                Label {
                    objectName: "versionLabel"
                    text: qsTr("Version %1").arg(root.version)
                    font: Theme.smallFont
                    color: Theme.textTertiary
                }
                Label {
                    Layout.fillWidth: true
                    horizontalAlignment: Text.AlignRight
                    text: qsTr("Your conversations stay on this computer.")
                    font: Theme.smallFont
                    color: Theme.textTertiary
                    elide: Text.ElideLeft
                }
            }
        }
    }
}
