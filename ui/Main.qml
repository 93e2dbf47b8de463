// The application window: the conversations on the left; on the right a header (the chat's
// title, the VRAM meter, the model, settings and About buttons), then the chat — or, with no
// model or server and nothing to show, the welcome with a way to open one —, the live stats and
// the composer. A remote server answers through the same chat (chat.connection).
// Everything it shows lives in `chat` (ChatController, made by main.cpp); this file only lays it
// out and passes the user's requests on.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

ApplicationWindow {
    id: window

    required property ChatController chat
    readonly property EngineHost engine: chat.engine
    readonly property ActiveConnection connection: chat.connection
    readonly property RemoteBackend remote: connection.remoteBackend
    readonly property bool showWelcome: !engine.loaded && !connection.remote && chat.messages.count === 0

    width: 1280
    height: 800
    minimumWidth: 760
    minimumHeight: 520
    visible: true
    title: chat.title.length > 0 ? qsTr("%1 — Hearth").arg(chat.title) : qsTr("Hearth")
    color: Theme.background
    // The Basic style's own colours (dialogs, menus, fields, switches) follow the theme too.
    palette.window: Theme.surface
    palette.windowText: Theme.textPrimary
    palette.base: Theme.surface
    palette.alternateBase: Theme.surfaceSunken
    palette.text: Theme.textPrimary
    palette.button: Theme.neutralSoft
    palette.buttonText: Theme.textPrimary
    palette.brightText: Theme.textOnAccent
    palette.highlight: Theme.accent
    palette.highlightedText: Theme.textOnAccent
    palette.placeholderText: Theme.textTertiary
    palette.light: Theme.surface
    palette.midlight: Theme.border
    palette.mid: Theme.border
    palette.dark: Theme.textSecondary

    MemoryMeter {
        id: memoryMeter
        engine: window.engine
        active: window.visible
    }

    // Requests from the command line or a second start, and what is open now for a restart.
    Connections {
        target: AppInstance
        function onOpenRequested(path) { window.chat.loadModel(path) }
        function onConversationRequested(id) { window.chat.openConversation(id) }
    }
    Connections {
        target: window.chat
        function onConversationChanged() { AppInstance.setCurrent(window.engine.modelPath, window.chat.conversationId) }
        function onErrorOccurred(message) { errorBanner.show(message) }
    }
    Connections {
        target: window.engine
        function onModelChanged() { AppInstance.setCurrent(window.engine.modelPath, window.chat.conversationId) }
    }

    Shortcut {
        sequence: StandardKey.New
        onActivated: window.newChat()
    }
    Shortcut {
        sequence: StandardKey.Find
        onActivated: sidebar.focusSearch()
    }

    component HeaderButton: Button {
        id: headerButton
        font: Theme.smallFont
        Accessible.name: text
        contentItem: Label {
            text: headerButton.text
            font: headerButton.font
            elide: Text.ElideMiddle
            horizontalAlignment: Text.AlignHCenter
            verticalAlignment: Text.AlignVCenter
            color: Theme.textPrimary
        }
        background: Rectangle {
            implicitHeight: 34
            radius: Theme.radiusM
            color: headerButton.down ? Theme.neutralSoft : headerButton.hovered ? Theme.surfaceSunken : Theme.surface
            border.color: headerButton.activeFocus ? Theme.accentLight : Theme.border
        }
    }

    // "picker", "remote", "connection", "library", "settings", "about" or "chatOptions" (main.cpp's
    // screenshot hook; "connection" edits the first remote connection, or adds one).
    function openPage(name) {
        if (name === "picker")
            pickerLoader.show()
        else if (name === "remote")
            pickerLoader.showRemote()
        else if (name === "connection")
            pickerLoader.editConnection(RemoteConnections.count > 0 ? RemoteConnections.idAt(0) : "")
        else if (name === "library")
            libraryLoader.show()
        else if (name === "chatOptions")
            chatOptions.open()
        else if (name === "settings")
            settingsLoader.show()
        else if (name === "about")
            aboutLoader.show()
    }

    function newChat() {
        chat.newChat()
        composer.focusInput()
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        ConversationList {
            id: sidebar
            Layout.preferredWidth: window.width < 1000 ? 224 : 272
            Layout.fillHeight: true
            model: window.chat.conversations
            onNewChatRequested: window.newChat()
            onOpenRequested: (id) => window.chat.openConversation(id)
            onRenameRequested: (id, title) => window.chat.renameConversation(id, title)
            onDeleteRequested: (id) => window.chat.deleteConversation(id)
            onDeleteSelectedRequested: window.chat.deleteSelectedConversations()
            onExportRequested: (id, title, format) => exportDialog.ask(id, title, format)
            onImportRequested: importDialog.open()
            onLibraryRequested: libraryLoader.show()
        }
        Rectangle {
            Layout.fillHeight: true
            implicitWidth: 1
            color: Theme.border
        }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0

            // The header. vramSlot holds the VRAM meter; the buttons open the model picker
            // (models, quant switcher) and the settings.
            RowLayout {
                id: header
                objectName: "header"
                Layout.fillWidth: true
                Layout.margins: Theme.spacingM
                Layout.leftMargin: Theme.spacingL
                spacing: Theme.spacingM

                // A row item without fillWidth keeps its implicit width: the title, the meter and
                // the model button give way to a narrow window, each in proportion to what it
                // would like (the title: all of itself, up to 22 % of the window). The title keeps
                // up to 200 px of what a window has beyond 1080 px (below that the buttons need it).
                Label {
                    objectName: "chatTitle"
                    opacity: width > 48 ? 1 : 0 // squeezed out: the window's title says it
                    Layout.fillWidth: true
                    Layout.minimumWidth: Math.min(implicitWidth, 200, Math.max(0, window.width - 1080))
                    Layout.preferredWidth: Math.min(implicitWidth, window.width * 0.22)
                    ToolTip.visible: truncated && titleHover.hovered
                    ToolTip.text: text
                    HoverHandler { id: titleHover }
                    text: window.chat.title.length > 0 ? window.chat.title : qsTr("New chat")
                    textFormat: Text.PlainText
                    elide: Text.ElideRight
                    font: Theme.subtitleFont
                    color: Theme.textPrimary
                }
                Item {
                    id: vramSlot
                    objectName: "vramSlot"
                    Layout.fillWidth: true
                    Layout.minimumWidth: 150
                    Layout.preferredWidth: 380
                    Layout.maximumWidth: 460 // a wide window shows the device's name whole
                    implicitHeight: vramMeter.implicitHeight
                    VramMeter {
                        id: vramMeter
                        anchors.fill: parent
                        memoryMeter: memoryMeter
                        remoteServer: window.connection.remote ? window.remote.connectionName : ""
                        remoteModel: window.connection.modelName
                    }
                }
                HeaderButton {
                    objectName: "modelButton"
                    Layout.minimumWidth: 112
                    Layout.preferredWidth: Math.min(implicitWidth, 260)
                    text: window.engine.loading ? qsTr("Loading…")
                          : window.connection.remote ? qsTr("%1 · %2").arg(window.connection.modelName).arg(window.remote.connectionName)
                          : window.engine.loaded ? qsTr("%1 · %2").arg(window.engine.modelName).arg(window.engine.quant)
                          : qsTr("Choose a model")
                    Accessible.name: qsTr("Models and quantization: %1").arg(text)
                    onClicked: window.connection.remote ? pickerLoader.showRemote() : pickerLoader.show()
                }
                HeaderButton {
                    objectName: "chatOptionsButton"
                    text: qsTr("Chat options")
                    Accessible.name: qsTr("This chat's system prompt, thinking and sampling")
                    onClicked: chatOptions.open()
                    ChatOptionsPopup {
                        id: chatOptions
                        y: parent.height + Theme.spacingXs
                        x: parent.width - width
                        chat: window.chat
                    }
                }
                HeaderButton {
                    objectName: "settingsButton"
                    text: qsTr("Settings")
                    Accessible.name: qsTr("Open the settings")
                    onClicked: settingsLoader.show()
                }
                HeaderButton {
                    objectName: "aboutButton"
                    text: qsTr("About")
                    Accessible.name: qsTr("About Hearth, licences and diagnostics")
                    onClicked: aboutLoader.show()
                }
            }
            Rectangle {
                Layout.fillWidth: true
                implicitHeight: 1
                color: Theme.border
            }

            Banner {
                id: storeBanner
                objectName: "storeBanner"
                Layout.fillWidth: true
                Layout.margins: Theme.spacingS
                visible: window.chat.storeError.length > 0
                message: qsTr("The chat history could not be opened: %1").arg(window.chat.storeError)
                actionText: qsTr("Start a new history (keep the old file aside)")
                onActionTriggered: window.chat.startFreshStore()
            }
            // A sticky GPU error: the engine is done until the process restarts. Everything is
            // saved already; the restart reopens this model and conversation.
            Banner {
                objectName: "deviceLostBanner"
                Layout.fillWidth: true
                Layout.margins: Theme.spacingS
                visible: window.engine.deviceLost
                message: AppInstance.restartOffer
                actionText: qsTr("Restart Hearth")
                onActionTriggered: AppInstance.restartApp()
            }
            Banner {
                id: errorBanner
                objectName: "errorBanner"
                function show(text) {
                    message = text
                    visible = true
                }
                Layout.fillWidth: true
                Layout.margins: Theme.spacingS
                visible: false
                actionText: qsTr("Dismiss")
                onActionTriggered: visible = false
            }
            // The remote server in use does not answer as it should (or its key was not kept).
            Banner {
                objectName: "remoteBanner"
                Layout.fillWidth: true
                Layout.margins: Theme.spacingS
                visible: window.connection.remote && window.remote.problem.length > 0
                message: qsTr("%1: %2").arg(window.remote.connectionName).arg(window.remote.problem)
                actionText: qsTr("Check again")
                onActionTriggered: window.remote.check()
            }
            Banner {
                objectName: "loadBanner"
                Layout.fillWidth: true
                Layout.margins: Theme.spacingS
                visible: !window.showWelcome && (window.engine.loading || window.engine.loadError.length > 0)
                message: window.engine.loading
                         ? qsTr("%1… %2 %").arg(window.engine.loadPhaseText).arg(Math.round(window.engine.loadFraction * 100))
                         : qsTr("The model could not be loaded: %1").arg(window.engine.loadError)
                actionText: window.engine.loading ? qsTr("Cancel") : qsTr("Open another model")
                onActionTriggered: window.engine.loading ? window.engine.cancelLoad() : openModelDialog.open()
            }

            StatusView {
                objectName: "welcome"
                visible: window.showWelcome
                Layout.fillWidth: true
                Layout.fillHeight: true
                ready: DeviceStatus.ready
                version: DeviceStatus.version
                backendName: DeviceStatus.backendName
                usingGpu: DeviceStatus.usingGpu
                deviceModel: DeviceStatus.devices
                fallbackMessage: DeviceStatus.cpuFallbackMessage
                fallbackDetails: DeviceStatus.cpuFallbackDetails
                extras: OpenModelPanel {
                    Layout.fillWidth: true
                    loading: window.engine.loading
                    loadFraction: window.engine.loadFraction
                    loadPhaseText: window.engine.loadPhaseText
                    loadError: window.engine.loadError
                    notice: AppInstance.startupNotice
                    onOpenFileRequested: openModelDialog.open()
                    onOpenFolderRequested: openFolderDialog.open()
                    onBrowseRequested: pickerLoader.show()
                    onRemoteRequested: pickerLoader.showRemote()
                    onLibraryRequested: libraryLoader.show()
                    onCancelRequested: window.engine.cancelLoad()
                }
            }

            ChatView {
                id: chatView
                objectName: "chatView"
                visible: !window.showWelcome
                Layout.fillWidth: true
                Layout.fillHeight: true
                model: window.chat.messages
                canAct: window.chat.canSend
                canSwitch: !window.chat.replying
                onCopyRequested: (row) => window.chat.copyMessage(row)
                onRegenerateRequested: (row) => window.chat.regenerate(row)
                onEditRequested: (row, text) => window.chat.editAndResend(row, text)
                onAlternativeRequested: (row, step) => window.chat.switchAlternative(row, step)

                Label {
                    anchors.centerIn: parent
                    visible: window.chat.messages.count === 0
                    text: qsTr("Ask anything. Your conversation stays on this computer.")
                    font: Theme.subtitleFont
                    color: Theme.textTertiary
                }
            }

            ColumnLayout {
                Layout.fillWidth: true
                Layout.maximumWidth: 868
                Layout.alignment: Qt.AlignHCenter
                Layout.leftMargin: Theme.spacingL
                Layout.rightMargin: Theme.spacingL
                Layout.bottomMargin: Theme.spacingM
                spacing: Theme.spacingS

                StatsBar {
                    objectName: "statsBar"
                    Layout.fillWidth: true
                    visible: window.engine.loaded || window.connection.remote
                    stats: window.chat.liveStats
                }
                Composer {
                    id: composer
                    Layout.fillWidth: true
                    canSend: window.chat.canSend
                    replying: window.chat.replying
                    placeholder: window.connection.modelName.length > 0 ? qsTr("Message %1…").arg(window.connection.modelName)
                                                                        : qsTr("Open a model to start chatting")
                    onSendRequested: (text) => {
                        if (window.chat.send(text)) {
                            clear()
                            chatView.scrollToEnd()
                        }
                    }
                    onStopRequested: window.chat.stop()
                }
            }
        }
    }

    // Export and import: the dialogs pick the file, the controller writes and reads it.
    FileDialog {
        id: exportDialog
        property var conversationId: 0
        property string format: "markdown"
        function ask(id, name, kind) {
            conversationId = id
            format = kind
            const base = (name || qsTr("conversation")).replace(/[\\/:*?"<>|]/g, "_")
            selectedFile = base + (kind === "json" ? ".json" : ".md")
            open()
        }
        title: qsTr("Export the conversation")
        fileMode: FileDialog.SaveFile
        nameFilters: format === "json" ? [qsTr("JSON (*.json)")] : [qsTr("Markdown (*.md)")]
        onAccepted: window.chat.exportConversation(conversationId, selectedFile, format)
    }
    FileDialog {
        id: importDialog
        title: qsTr("Import a conversation")
        nameFilters: [qsTr("JSON (*.json)"), qsTr("All files (*)")]
        onAccepted: window.chat.importConversation(selectedFile)
    }
    FileDialog {
        id: openModelDialog
        title: qsTr("Open a model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: window.chat.loadModel(selectedFile)
    }
    FolderDialog {
        id: openFolderDialog
        title: qsTr("Open a Hugging Face model folder")
        onAccepted: window.chat.loadModel(selectedFolder)
    }

    // Made on first use: the picker reads the models folder, settings build many controls.
    Loader {
        id: pickerLoader
        function show() {
            active = true
            item.open()
        }
        function showRemote() {
            active = true
            item.openRemote()
        }
        // The dialog for connection `id` ("": a new one), over the remote tab.
        function editConnection(id) {
            showRemote()
            item.editConnection(id)
        }
        active: false
        sourceComponent: Component {
            ModelPicker {
                engine: window.engine
                connection: window.connection
            }
        }
    }
    Loader {
        id: libraryLoader
        objectName: "libraryLoader"
        function show() {
            active = true
            item.open()
        }
        active: false
        sourceComponent: Component {
            LibraryPage {
                engine: window.engine
            }
        }
    }
    Loader {
        id: aboutLoader
        objectName: "aboutLoader"
        function show() {
            active = true
            item.open()
        }
        active: false
        sourceComponent: Component {
            AboutPage { }
        }
    }
    Loader {
        id: settingsLoader
        function show() {
            active = true
            item.open()
        }
        active: false
        sourceComponent: Component {
            SettingsPage { }
        }
    }

    Component.onCompleted: composer.focusInput()
}
