// Adds or edits a remote connection: a name, the server's base URL (with where replies will be
// asked for, or why the address cannot work), an optional API key (kept in the system keyring,
// never in a file; a warning when plain HTTP would carry it off this computer), and the model,
// chosen from the server's list (Fetch models) or typed. Save keeps it; Save and use also
// connects the chat. The checks and the saving are the ConnectionEditor's; this lays them out.
// Open it with edit(id), "" for a new connection.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Templates as T
import QtQuick.Layouts
import Hearth
import Hearth.App

Dialog {
    id: root

    readonly property ConnectionEditor editor: connectionEditor
    property bool useAfterSave: false

    // After Save and use, once saved.
    signal useRequested(string id)

    function edit(id) {
        if (id.length === 0 || !editor.load(id))
            editor.reset()
        useAfterSave = false
        open()
        urlField.forceActiveFocus()
    }
    function saveAnd(use) {
        useAfterSave = use
        editor.save()
    }

    objectName: "connectionDialog"
    title: editor.connectionId.length > 0 ? qsTr("Edit the server") : qsTr("Add a server")
    modal: true
    parent: T.Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(560, parent ? parent.width - 2 * Theme.spacingXl : 560)
    padding: Theme.spacingL
    leftPadding: Theme.spacingXl
    rightPadding: Theme.spacingXl
    closePolicy: editor.saving ? Popup.NoAutoClose : Popup.CloseOnEscape
    // The Basic style's controls draw with the palette: follow the theme (dark included).
    palette.window: Theme.surface
    palette.windowText: Theme.textPrimary
    palette.base: Theme.surfaceSunken
    palette.text: Theme.textPrimary
    palette.button: Theme.neutralSoft
    palette.buttonText: Theme.textPrimary
    palette.highlight: Theme.accent
    palette.highlightedText: Theme.textOnAccent
    palette.placeholderText: Theme.textTertiary
    palette.mid: Theme.border
    palette.dark: Theme.textSecondary
    background: Rectangle {
        radius: Theme.radiusL
        color: Theme.surface
        border.color: Theme.border
    }
    header: Label {
        text: root.title
        font: Theme.bodyStrongFont
        color: Theme.textPrimary
        padding: Theme.spacingL
        leftPadding: Theme.spacingXl
        Accessible.role: Accessible.Heading
    }

    ConnectionEditor {
        id: connectionEditor
        // Saved: close, unless the keyring could not keep the key (the notice says so first).
        onSaved: (id) => {
            if (root.useAfterSave)
                root.useRequested(id)
            if (keyNotice.length === 0)
                root.close()
        }
    }

    component Caption: Label {
        font: Theme.captionFont
        color: Theme.textTertiary
    }
    component Note: Label {
        Layout.fillWidth: true
        visible: text.length > 0
        textFormat: Text.PlainText
        font: Theme.smallFont
        wrapMode: Text.Wrap
    }

    contentItem: ColumnLayout {
        spacing: Theme.spacingS
        enabled: !root.editor.saving && root.editor.keyNotice.length === 0

        Caption { text: qsTr("Address") }
        TextField {
            id: urlField
            objectName: "baseUrlField"
            Layout.fillWidth: true
            text: root.editor.baseUrl
            placeholderText: "http://localhost:8000/v1"
            inputMethodHints: Qt.ImhUrlCharactersOnly | Qt.ImhNoAutoUppercase
            Accessible.name: qsTr("Base URL of the server")
            onTextEdited: root.editor.baseUrl = text
        }
        Note {
            objectName: "urlError"
            text: root.editor.urlError
            color: Theme.noticeText
        }
        Note {
            objectName: "endpointNote"
            text: root.editor.urlError.length > 0 ? ""
                  : root.editor.endpoint.length > 0 ? qsTr("Replies are asked for at %1").arg(root.editor.endpoint)
                  : qsTr("vLLM listens on port 8000, SGLang on 30000, llama-server on 8080; the API is under /v1.")
            color: Theme.textTertiary
        }

        Caption {
            Layout.topMargin: Theme.spacingS
            text: qsTr("API key")
        }
        TextField {
            id: keyField
            objectName: "apiKeyField"
            Layout.fillWidth: true
            echoMode: TextInput.Password
            text: root.editor.apiKey
            placeholderText: root.editor.hasSavedKey && !root.editor.forgetKey ? qsTr("(saved in the keyring)")
                                                                               : qsTr("None (the server's --api-key, if it has one)")
            Accessible.name: qsTr("API key")
            onTextEdited: root.editor.apiKey = text
        }
        CheckBox {
            objectName: "forgetKey"
            visible: root.editor.hasSavedKey
            text: qsTr("Forget the saved key")
            checked: root.editor.forgetKey
            onToggled: root.editor.forgetKey = checked
        }
        Note {
            text: qsTr("Kept in the system keyring, never in a file.")
            color: Theme.textTertiary
        }
        Note {
            objectName: "insecureWarning"
            text: root.editor.insecureWarning
            color: Theme.noticeText
        }

        Caption {
            Layout.topMargin: Theme.spacingS
            text: qsTr("Model")
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spacingS
            ComboBox {
                id: modelBox
                objectName: "modelBox"
                Layout.fillWidth: true
                editable: true
                model: root.editor.models
                currentIndex: root.editor.models.indexOf(root.editor.model)
                Accessible.name: qsTr("Model")
                onEditTextChanged: root.editor.model = editText
            }
            BusyIndicator {
                implicitWidth: 24
                implicitHeight: 24
                running: root.editor.fetching
                visible: running
            }
            Button {
                objectName: "fetchModelsButton"
                text: qsTr("Fetch models")
                enabled: root.editor.canFetch && !root.editor.fetching
                onClicked: root.editor.fetchModels()
            }
        }
        Note {
            objectName: "fetchError"
            text: root.editor.fetchError
            color: Theme.noticeText
        }

        Caption {
            Layout.topMargin: Theme.spacingS
            text: qsTr("Name")
        }
        TextField {
            objectName: "nameField"
            Layout.fillWidth: true
            text: root.editor.name
            placeholderText: qsTr("As the picker shows it (the server's address if empty)")
            Accessible.name: qsTr("Name of the connection")
            onTextEdited: root.editor.name = text
        }
    }

    footer: ColumnLayout {
        spacing: 0
        Label {
            objectName: "keyNotice"
            Layout.fillWidth: true
            Layout.leftMargin: Theme.spacingXl
            Layout.rightMargin: Theme.spacingXl
            visible: text.length > 0
            text: root.editor.keyNotice
            textFormat: Text.PlainText
            font: Theme.smallFont
            color: Theme.noticeText
            wrapMode: Text.Wrap
        }
        DialogButtonBox {
            Layout.fillWidth: true
            alignment: Qt.AlignRight
            padding: Theme.spacingM
            spacing: Theme.spacingS
            background: null
            Button {
                objectName: "cancelConnectionButton"
                text: root.editor.keyNotice.length > 0 ? qsTr("Close") : qsTr("Cancel")
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
            Button {
                objectName: "saveConnectionButton"
                visible: root.editor.keyNotice.length === 0
                text: qsTr("Save")
                enabled: root.editor.canSave
                onClicked: root.saveAnd(false)
            }
            Button {
                id: useButton
                objectName: "useConnectionButton"
                visible: root.editor.keyNotice.length === 0
                text: qsTr("Save and use")
                enabled: root.editor.canSave
                onClicked: root.saveAnd(true)
                // The dialog's main action, in the accent as the welcome's "Open a model…".
                contentItem: Label {
                    text: useButton.text
                    font: useButton.font
                    color: Theme.textOnAccent
                    horizontalAlignment: Text.AlignHCenter
                    verticalAlignment: Text.AlignVCenter
                }
                background: Rectangle {
                    implicitWidth: 100
                    implicitHeight: 40
                    radius: Theme.radiusS
                    color: useButton.down ? Theme.accentText : Theme.accent
                    opacity: useButton.enabled ? 1 : 0.45
                }
            }
        }
    }
}
