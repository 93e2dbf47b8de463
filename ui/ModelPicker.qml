// The model picker: the models in the models folder and those the user opened (a .gguf file or
// a Hugging Face folder), each with its facts and the engine's estimate of whether it fits at the
// chosen context; Load loads one with the loading settings (a warning first when it would not
// fit). For the loaded model, the quant switcher. While a model loads: its progress, and Cancel.
// A second tab lists the remote servers (RemoteList). Open it with open(), or openRemote() on
// that tab; `engine` is the app's EngineHost, `connection` the chat's ActiveConnection.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Templates as T
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

Dialog {
    id: root

    property EngineHost engine: null
    property ActiveConnection connection: null
    readonly property LocalModels models: localModels
    readonly property bool loading: engine !== null && engine.loading

    // Loads `path` (with `quant`, a preset, or as stored), remembering it as the last model once
    // it has loaded.
    function load(path, quant) {
        if (!engine)
            return
        pending = { id: engine.load(path, quant, AppSettings.loadOptions), path: path, quant: quant }
    }
    // A load the user asked for: straight away when it fits, else after a warning.
    function requestLoad(request) {
        if (request.fits)
            load(request.path, request.quant)
        else
            fitWarning.ask(request)
    }
    property var pending: null

    function openRemote() {
        tabs.currentIndex = 1
        open()
    }
    function editConnection(id) {
        openRemote()
        remoteList.edit(id)
    }

    objectName: "modelPicker"
    title: qsTr("Models")
    modal: true
    parent: T.Overlay.overlay
    anchors.centerIn: parent
    width: parent ? Math.min(900, parent.width - 2 * Theme.spacingXl) : 900
    height: parent ? Math.min(720, parent.height - 2 * Theme.spacingXl) : 700
    padding: Theme.spacingL
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

    LocalModels {
        id: localModels
        folder: AppSettings.modelsFolder
        addedPaths: AppSettings.addedModelPaths
        contextLength: AppSettings.contextLength
        device: AppSettings.device
        kvType: AppSettings.kvType
        vramBudgetGiB: AppSettings.vramBudgetGiB
        engine: root.engine
        // Files the user opened stay in the list next time.
        onAddedPathsChanged: AppSettings.addedModelPaths = addedPaths
    }

    Connections {
        target: root.engine
        function onModelLoaded(id) {
            if (root.pending && id === root.pending.id) {
                AppSettings.lastModelPath = root.pending.path
                AppSettings.lastModelQuant = root.pending.quant
                root.pending = null
            }
        }
    }

    FileDialog {
        id: fileDialog
        title: qsTr("Open a model file")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: list.currentIndex = localModels.addPath(selectedFile)
    }
    FolderDialog {
        id: folderDialog
        title: qsTr("Open a Hugging Face model folder")
        onAccepted: list.currentIndex = localModels.addPath(selectedFolder)
    }

    ModelFitWarning {
        id: fitWarning
        onLoadAnyway: request => root.load(request.path, request.quant)
        onLoadWithContext: (request, context) => {
            AppSettings.contextLength = context
            root.load(request.path, request.quant)
        }
    }

    contentItem: ColumnLayout {
        spacing: Theme.spacingM

        TabBar {
            id: tabs
            objectName: "pickerTabs"
            Layout.fillWidth: true
            // Basic's tabs: the chosen one in the window's colour, the other a quiet grey.
            palette.dark: Theme.neutralSoft
            palette.mid: Theme.border
            palette.brightText: Theme.textSecondary
            TabButton { text: qsTr("On this computer") }
            TabButton {
                objectName: "remoteTab"
                text: qsTr("Remote servers (%1)").arg(RemoteConnections.count)
            }
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex

            ColumnLayout {
                spacing: Theme.spacingM

                RowLayout {
                    Layout.fillWidth: true
                    spacing: Theme.spacingS

                    Label {
                        objectName: "folderLabel"
                        Layout.fillWidth: true
                        text: qsTr("Models folder: %1").arg(localModels.folder)
                        textFormat: Text.PlainText
                        font: Theme.smallFont
                        color: Theme.textSecondary
                        elide: Text.ElideMiddle
                    }
                    BusyIndicator {
                        implicitWidth: 24
                        implicitHeight: 24
                        running: localModels.busy
                        visible: running
                    }
                    Button {
                        text: qsTr("Rescan")
                        onClicked: localModels.rescan()
                    }
                    Button {
                        objectName: "openFileButton"
                        text: qsTr("Open file…")
                        onClicked: {
                            fileDialog.parentWindow = root.Window.window
                            fileDialog.open()
                        }
                    }
                    Button {
                        objectName: "openFolderButton"
                        text: qsTr("Open folder…")
                        onClicked: {
                            folderDialog.parentWindow = root.Window.window
                            folderDialog.open()
                        }
                    }
                }

                Label {
                    Layout.fillWidth: true
                    text: qsTr("Estimates for a context of up to %1 tokens on %2 (change it in Settings).")
                        .arg(Units.tokens(AppSettings.contextLength > 0 ? AppSettings.contextLength : 4096)) // 0: up to 4K
                        .arg(AppSettings.device === "cpu" ? qsTr("the CPU") : AppSettings.device === "cuda" ? qsTr("the GPU")
                                                                                                               : qsTr("the best device"))
                    font: Theme.smallFont
                    color: Theme.textTertiary
                    wrapMode: Text.Wrap
                }

                ListView {
                    id: list
                    objectName: "modelList"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    clip: true
                    spacing: Theme.spacingS
                    model: localModels
                    currentIndex: -1
                    keyNavigationEnabled: true
                    activeFocusOnTab: true
                    ScrollBar.vertical: ScrollBar {}
                    Accessible.name: qsTr("Local models")

                    delegate: ModelRow {
                        width: ListView.view.width
                        chosenContext: AppSettings.contextLength
                        busy: root.loading
                        current: ListView.isCurrentItem
                        onSelected: list.currentIndex = index
                        onLoadRequested: root.requestLoad({ path: path, quant: "", name: name, fits: fits,
                                                           estimatedBytes: estimatedBytes, maxContext: maxContext,
                                                           deviceName: deviceName })
                    }

                    Label {
                        anchors.centerIn: parent
                        width: parent.width - 2 * Theme.spacingXl
                        visible: list.count === 0 && !localModels.busy
                        horizontalAlignment: Text.AlignHCenter
                        wrapMode: Text.Wrap
                        text: qsTr("No models yet. Put .gguf files or Hugging Face folders in the models folder, or open one.")
                        font: Theme.bodyFont
                        color: Theme.textSecondary
                    }
                }

                QuantSwitcher {
                    objectName: "quantSwitcher"
                    Layout.fillWidth: true
                    visible: root.engine !== null && root.engine.loaded
                    options: localModels.quantOptions
                    modelName: root.engine ? root.engine.modelName : ""
                    quant: root.engine ? root.engine.quant : ""
                    busy: root.loading
                    onSwitchRequested: (kind, preset, path, label, fits, estimatedBytes, maxContext) => {
                        const request = { path: path, quant: kind === "preset" ? preset : "", name: label, fits: fits,
                                          estimatedBytes: estimatedBytes, maxContext: maxContext,
                                          deviceName: root.engine.deviceName }
                        if (kind === "preset" && fits)
                            root.pending = { id: root.engine.switchQuant(preset), path: root.engine.modelPath, quant: preset }
                        else
                            root.requestLoad(request)
                    }
                }
            }

            RemoteList {
                id: remoteList
                objectName: "remoteList"
                connection: root.connection
            }
        }

        RowLayout {
            objectName: "loadProgress"
            Layout.fillWidth: true
            visible: root.loading
            spacing: Theme.spacingS

            Label {
                text: root.engine ? root.engine.loadPhaseText : ""
                font: Theme.smallFont
                color: Theme.textSecondary
            }
            ProgressBar {
                Layout.fillWidth: true
                from: 0
                to: 1
                value: root.engine ? root.engine.loadFraction : 0
                Accessible.name: qsTr("Loading progress")
            }
            Button {
                objectName: "cancelLoadButton"
                text: qsTr("Cancel")
                onClicked: root.engine.cancelLoad()
            }
        }

        Label {
            objectName: "loadError"
            Layout.fillWidth: true
            visible: text.length > 0 && !root.loading
            text: root.engine ? root.engine.loadError : ""
            textFormat: Text.PlainText
            font: Theme.smallFont
            color: Theme.noticeText
            wrapMode: Text.Wrap
        }
    }
}
