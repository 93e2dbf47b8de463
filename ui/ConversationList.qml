// The sidebar: New chat, a search over every conversation, the conversations in date sections,
// and per conversation Rename, Export (Markdown, JSON) and Delete (after a confirmation); Import
// reads a JSON export back; "Select" turns on check boxes
// for deleting several at once. `model` is ChatController.conversations; what the user asks for
// goes up as signals.
// No `pragma ComponentBehavior: Bound` here: Qt 6.4's ListView cannot create a bound section
// delegate ("Component is not ready"), as its Loader cannot create bound components.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import Hearth

Rectangle {
    id: root

    property QtObject model: null // ChatController.conversations (a stand-in with its roles in tests)
    property bool selecting: false
    readonly property alias renameDialog: renameBox
    readonly property alias deleteDialog: deleteBox

    signal newChatRequested()
    signal openRequested(var conversationId)
    signal renameRequested(var conversationId, string title)
    signal deleteRequested(var conversationId)
    signal deleteSelectedRequested()
    signal exportRequested(var conversationId, string title, string format)
    signal importRequested()
    signal libraryRequested()

    function focusSearch() { search.forceActiveFocus() }

    color: Theme.surfaceSunken
    onSelectingChanged: if (!selecting && model) model.clearSelection()

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacingM
        spacing: Theme.spacingS

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingS
            Rectangle {
                implicitWidth: 26
                implicitHeight: 26
                radius: Theme.radiusS
                gradient: Gradient {
                    GradientStop { position: 0.0; color: Theme.accentLight }
                    GradientStop { position: 1.0; color: Theme.accent }
                }
                Accessible.ignored: true
                Label {
                    anchors.centerIn: parent
                    text: "H"
                    font: Theme.bodyStrongFont
                    color: Theme.textOnAccent
                }
            }
            Label {
                Layout.fillWidth: true
                text: qsTr("Hearth")
                font: Theme.bodyStrongFont
                color: Theme.textPrimary
                elide: Text.ElideRight
            }
            // As wide as their words: Basic's 100 px buttons would push the name out of the row.
            Button {
                objectName: "importButton"
                implicitWidth: implicitContentWidth + leftPadding + rightPadding
                flat: true
                text: qsTr("Import")
                font: Theme.smallFont
                visible: !root.selecting
                Accessible.name: qsTr("Import a conversation from a JSON export")
                onClicked: root.importRequested()
            }
            Button {
                objectName: "selectButton"
                implicitWidth: implicitContentWidth + leftPadding + rightPadding
                flat: true
                text: root.selecting ? qsTr("Done") : qsTr("Select")
                font: Theme.smallFont
                enabled: root.selecting || list.count > 0
                opacity: enabled ? 1 : 0.4
                Accessible.name: root.selecting ? qsTr("Stop selecting conversations") : qsTr("Select conversations")
                onClicked: root.selecting = !root.selecting
            }
        }

        Button {
            id: newChatButton
            objectName: "newChatButton"
            Layout.fillWidth: true
            text: qsTr("New chat")
            font: Theme.bodyStrongFont
            Accessible.name: qsTr("Start a new chat")
            onClicked: root.newChatRequested()
            contentItem: Label {
                text: "+  " + newChatButton.text
                font: newChatButton.font
                color: Theme.accentText
                horizontalAlignment: Text.AlignHCenter
                verticalAlignment: Text.AlignVCenter
            }
            background: Rectangle {
                implicitHeight: 38
                radius: Theme.radiusM
                color: newChatButton.down ? Theme.accentSoft : newChatButton.hovered ? Theme.surfaceSunken : Theme.surface
                border.color: newChatButton.activeFocus ? Theme.accentLight : Theme.border
            }
        }

        Button {
            objectName: "libraryButton"
            Layout.fillWidth: true
            flat: true
            text: qsTr("Library: models to download")
            font: Theme.smallFont
            Accessible.name: qsTr("Open the library of models")
            onClicked: root.libraryRequested()
        }

        TextField {
            id: search
            objectName: "searchField"
            Layout.fillWidth: true
            placeholderText: qsTr("Search conversations")
            font: Theme.bodyFont
            color: Theme.textPrimary
            placeholderTextColor: Theme.textTertiary
            selectByMouse: true
            Accessible.name: qsTr("Search conversations")
            background: Rectangle {
                implicitHeight: 36
                radius: Theme.radiusM
                color: Theme.surface
                border.color: search.activeFocus ? Theme.accentLight : Theme.border
            }
            onTextChanged: searchDelay.restart()
            Keys.onEscapePressed: text = ""
            Timer {
                id: searchDelay
                interval: 150
                onTriggered: if (root.model) root.model.searchQuery = search.text
            }
        }

        // Downloads under way (hidden when none): a click opens the library, where they are listed.
        DownloadIndicator {
            Layout.fillWidth: true
            onClicked: root.libraryRequested()
        }

        ListView {
            id: list
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.model
            boundsBehavior: Flickable.StopAtBounds
            activeFocusOnTab: true
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Conversations")
            ScrollBar.vertical: ScrollBar { }

            section.property: "section"
            section.delegate: Label {
                required property string section
                objectName: "sectionLabel"
                width: ListView.view.width
                topPadding: Theme.spacingM
                bottomPadding: Theme.spacingXs
                leftPadding: Theme.spacingS
                text: section
                font: Theme.captionFont
                color: Theme.textTertiary
            }

            delegate: ItemDelegate {
                id: row
                required property int index
                required property var conversationId
                required property string title
                required property string snippet
                required property bool current
                required property bool selected

                width: ListView.view.width
                highlighted: current
                padding: Theme.spacingS
                Accessible.name: title
                Accessible.role: Accessible.ListItem
                background: Rectangle {
                    radius: Theme.radiusS
                    color: row.current ? Theme.accentSoft : row.hovered ? Theme.neutralSoft : "transparent"
                }
                onClicked: root.selecting ? root.model.setSelected(conversationId, !selected)
                                          : root.openRequested(conversationId)
                TapHandler {
                    acceptedButtons: Qt.RightButton
                    onTapped: rowMenu.popup()
                }

                contentItem: RowLayout {
                    spacing: Theme.spacingS
                    CheckBox {
                        objectName: "selectBox"
                        visible: root.selecting
                        checked: row.selected
                        padding: 0
                        Accessible.name: qsTr("Select %1").arg(row.title)
                        onToggled: root.model.setSelected(row.conversationId, checked)
                    }
                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 0
                        Label {
                            objectName: "conversationTitle"
                            Layout.fillWidth: true
                            text: row.title
                            textFormat: Text.PlainText
                            elide: Text.ElideRight
                            font: Theme.bodyFont
                            color: Theme.textPrimary
                        }
                        Label {
                            visible: row.snippet.length > 0
                            Layout.fillWidth: true
                            text: row.snippet
                            textFormat: Text.PlainText
                            elide: Text.ElideRight
                            font: Theme.smallFont
                            color: Theme.textSecondary
                        }
                    }
                    ToolButton {
                        id: menuButton
                        objectName: "conversationMenuButton"
                        visible: !root.selecting && (row.hovered || row.current || activeFocus)
                        text: "⋯"
                        font: Theme.bodyStrongFont
                        contentItem: Label {
                            text: menuButton.text
                            font: menuButton.font
                            color: Theme.textSecondary
                            horizontalAlignment: Text.AlignHCenter
                            verticalAlignment: Text.AlignVCenter
                        }
                        background: Rectangle {
                            implicitWidth: 28
                            implicitHeight: 28
                            radius: Theme.radiusS
                            color: menuButton.down || menuButton.hovered ? Theme.neutralSoft : "transparent"
                        }
                        Accessible.name: qsTr("More for %1").arg(row.title)
                        onClicked: rowMenu.popup()
                    }
                }

                Menu {
                    id: rowMenu
                    MenuItem {
                        text: qsTr("Rename…")
                        onTriggered: renameBox.ask(row.conversationId, row.title)
                    }
                    MenuItem {
                        text: qsTr("Export as Markdown…")
                        onTriggered: root.exportRequested(row.conversationId, row.title, "markdown")
                    }
                    MenuItem {
                        text: qsTr("Export as JSON…")
                        onTriggered: root.exportRequested(row.conversationId, row.title, "json")
                    }
                    MenuItem {
                        text: qsTr("Delete…")
                        onTriggered: deleteBox.ask([row.conversationId], row.title)
                    }
                }
            }

            Label {
                anchors.centerIn: parent
                width: parent.width - 2 * Theme.spacingL
                visible: list.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                text: search.text.length > 0 ? qsTr("No conversation matches.") : qsTr("No conversations yet.")
                font: Theme.smallFont
                color: Theme.textTertiary
            }
        }

        Button {
            objectName: "deleteSelectedButton"
            visible: root.selecting
            Layout.fillWidth: true
            enabled: root.model !== null && root.model.selectedCount > 0
            text: qsTr("Delete %1 selected").arg(root.model ? root.model.selectedCount : 0)
            Accessible.name: text
            onClicked: deleteBox.ask([], "")
        }
    }

    Dialog {
        id: renameBox
        objectName: "renameDialog"
        property var conversationId
        function ask(id, title) {
            conversationId = id
            nameField.text = title
            open()
            nameField.selectAll()
            nameField.forceActiveFocus()
        }
        parent: T.Overlay.overlay
        anchors.centerIn: parent
        width: 380
        modal: true
        title: qsTr("Rename conversation")
        standardButtons: Dialog.Save | Dialog.Cancel
        onAccepted: if (nameField.text.trim().length > 0) root.renameRequested(conversationId, nameField.text)
        TextField {
            id: nameField
            width: parent.width
            font: Theme.bodyFont
            Accessible.name: qsTr("New name")
            onAccepted: renameBox.accept()
        }
    }

    // One conversation (ids has it), or the selection (ids empty).
    Dialog {
        id: deleteBox
        objectName: "deleteDialog"
        property var ids: []
        property string name
        function ask(list, title) {
            ids = list
            name = title
            open()
        }
        parent: T.Overlay.overlay
        anchors.centerIn: parent
        width: 400
        modal: true
        title: qsTr("Delete?")
        footer: DialogButtonBox {
            Button {
                objectName: "confirmDeleteButton"
                text: qsTr("Delete")
                Accessible.name: qsTr("Delete for good")
                DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            }
            Button {
                text: qsTr("Cancel")
                Accessible.name: qsTr("Keep it")
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
        }
        onAccepted: {
            if (ids.length > 0) {
                root.deleteRequested(ids[0])
            } else {
                root.deleteSelectedRequested()
                root.selecting = false
            }
        }
        Label {
            width: parent.width
            wrapMode: Text.Wrap
            font: Theme.bodyFont
            text: deleteBox.ids.length > 0
                  ? qsTr("“%1” and all its messages will be deleted. This cannot be undone.").arg(deleteBox.name)
                  : qsTr("%1 conversations and all their messages will be deleted. This cannot be undone.")
                    .arg(root.model ? root.model.selectedCount : 0)
        }
    }
}
