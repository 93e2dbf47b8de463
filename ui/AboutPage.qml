// About Hearth: the version, Hearth's licence, the licences of the libraries it uses and of the
// loaded model, and "Copy diagnostics" for a bug report. Every text comes from the Diagnostics
// singleton; this file only lays it out. Open it with open().
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import Hearth
import Hearth.App

Dialog {
    id: root

    objectName: "aboutPage"
    title: qsTr("About Hearth")
    modal: true
    parent: T.Overlay.overlay // Controls.Basic does not export Overlay in Qt 6.4
    anchors.centerIn: parent
    width: parent ? Math.min(640, parent.width - 2 * Theme.spacingXl) : 640
    // As tall as its text where the window allows (then the text scrolls).
    height: parent ? Math.min(implicitHeight, parent.height - 2 * Theme.spacingXl) : 640
    padding: 0
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
            spacing: Theme.spacingL

            RowLayout {
                Layout.fillWidth: true
                Layout.margins: Theme.spacingXl
                Layout.bottomMargin: 0
                spacing: Theme.spacingL
                BrandMark { }
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: Theme.spacingXs
                    Label {
                        text: qsTr("Hearth %1").arg(Diagnostics.version)
                        font: Theme.titleFont
                        color: Theme.textPrimary
                    }
                    Label {
                        objectName: "hearthLicence"
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: qsTr("Licence: %1").arg(Diagnostics.hearthLicence)
                        textFormat: Text.PlainText
                        font: Theme.bodyFont
                        color: Theme.textSecondary
                    }
                }
            }

            SettingsSection {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
                title: qsTr("Built with")

                Repeater {
                    objectName: "licences"
                    model: Diagnostics.licences
                    delegate: ColumnLayout {
                        id: entry
                        required property var modelData
                        Layout.fillWidth: true
                        spacing: 2
                        Accessible.role: Accessible.StaticText
                        Accessible.name: qsTr("%1, licence %2").arg(modelData.component).arg(modelData.licence)
                        RowLayout {
                            Layout.fillWidth: true
                            Label {
                                Layout.fillWidth: true
                                text: entry.modelData.component
                                textFormat: Text.PlainText
                                elide: Text.ElideRight
                                font: Theme.bodyStrongFont
                                color: Theme.textPrimary
                            }
                            Label {
                                objectName: "licenceName"
                                text: entry.modelData.licence
                                textFormat: Text.PlainText
                                font: Theme.smallFont
                                color: Theme.accentText
                            }
                        }
                        Label {
                            Layout.fillWidth: true
                            visible: text.length > 0
                            text: entry.modelData.note
                            textFormat: Text.PlainText
                            wrapMode: Text.Wrap
                            font: Theme.smallFont
                            color: Theme.textSecondary
                        }
                    }
                }
            }

            SettingsSection {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacingXl
                Layout.rightMargin: Theme.spacingXl
                Layout.bottomMargin: Theme.spacingXl
                title: qsTr("Diagnostics")

                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("When something goes wrong, copy the diagnostics (versions, GPU, driver, model, the last error) into your report. The log file has the details.")
                    font: Theme.bodyFont
                    color: Theme.textSecondary
                }
                TextEdit {
                    objectName: "logPath"
                    Layout.fillWidth: true
                    visible: Diagnostics.logPath.length > 0
                    readOnly: true
                    selectByMouse: true
                    wrapMode: TextEdit.WrapAnywhere
                    text: Diagnostics.logPath
                    textFormat: TextEdit.PlainText
                    font: Theme.monoFont
                    color: Theme.textPrimary
                    Accessible.name: qsTr("Log file: %1").arg(text)
                }
                Label {
                    objectName: "lastError"
                    Layout.fillWidth: true
                    visible: Diagnostics.lastError.length > 0
                    wrapMode: Text.Wrap
                    text: qsTr("Last error: %1").arg(Diagnostics.lastError)
                    textFormat: Text.PlainText
                    font: Theme.smallFont
                    color: Theme.noticeText
                }
                RowLayout {
                    spacing: Theme.spacingM
                    Button {
                        id: copyButton
                        objectName: "copyDiagnostics"
                        text: qsTr("Copy diagnostics")
                        Accessible.name: text
                        onClicked: {
                            Diagnostics.copyToClipboard()
                            copied.visible = true
                        }
                    }
                    Label {
                        id: copied
                        objectName: "copied"
                        visible: false
                        text: qsTr("Copied to the clipboard")
                        font: Theme.smallFont
                        color: Theme.goodText
                    }
                }
            }
        }
    }
}
