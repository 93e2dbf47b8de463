// Settings: how models load (context, KV type, VRAM budget, GPU, device) and where they live,
// appearance (theme, font size, language: all take effect at once), and the defaults of new
// chats (sampling, thinking, a chat-template override), downloads, and the API server. Every
// control writes AppSettings (or LocalServer, for the server's key), which keeps the values;
// nothing here reads or writes files. Open it with open().
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Templates as T
import QtQuick.Layouts
import Hearth

Dialog {
    id: root

    objectName: "settingsPage"
    title: qsTr("Settings")
    modal: true
    parent: T.Overlay.overlay
    anchors.centerIn: parent
    width: parent ? Math.min(760, parent.width - 2 * Theme.spacingXl) : 760
    height: parent ? Math.min(820, parent.height - 2 * Theme.spacingXl) : 720
    padding: 0
    header: Label {
        text: root.title
        font: Theme.bodyStrongFont
        color: Theme.textPrimary
        padding: Theme.spacingL
        leftPadding: Theme.spacingXl
        Accessible.role: Accessible.Heading
    }
    footer: DialogButtonBox {
        alignment: Qt.AlignRight
        padding: Theme.spacingM
        background: null // the dialog's own, with its rounded corners
        // A button of its own: Basic's delegate makes a lone button half the dialog wide.
        Button {
            text: qsTr("Close")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
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
        radius: Theme.radiusL
        color: Theme.surface
        border.color: Theme.border
    }

    contentItem: ScrollView {
        id: scroll
        clip: true
        contentWidth: availableWidth

        ColumnLayout {
            width: scroll.availableWidth
            spacing: Theme.spacingXl

            SettingsLoading {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
                Layout.topMargin: Theme.spacingL
            }
            SettingsAppearance {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
            }
            SettingsChat {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
            }
            SettingsDownloads {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
            }
            SettingsServer {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
                Layout.bottomMargin: Theme.spacingL
            }
        }
    }
}
