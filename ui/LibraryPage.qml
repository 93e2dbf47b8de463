// The Library: the catalog's models by family, each quant with its size, licence and whether it
// fits this machine (ModelLibrary's estimate on the chosen device), and the models on this
// computer with their disk use and Delete. Download shows the licence, then hands the variant to
// ModelLibrary.requestDownload (the downloader picks it up). Open it with open().
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import Hearth
import Hearth.App

Dialog {
    id: root

    property EngineHost engine: null
    readonly property ModelLibrary modelLibrary: library
    readonly property Dialog downloadConfirmation: confirmDownload

    objectName: "libraryPage"
    title: qsTr("Library")
    modal: true
    parent: T.Overlay.overlay
    anchors.centerIn: parent
    width: parent ? Math.min(960, parent.width - 2 * Theme.spacingXl) : 960
    height: parent ? Math.min(760, parent.height - 2 * Theme.spacingXl) : 720
    padding: Theme.spacingL
    footer: DialogButtonBox {
        alignment: Qt.AlignRight
        padding: Theme.spacingM
        background: null // the dialog's own, with its rounded corners
        Button {
            text: qsTr("Close")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
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
        onAddedPathsChanged: AppSettings.addedModelPaths = addedPaths
    }
    ModelLibrary {
        id: library
        catalogPath: AppSettings.catalogPath
        folder: AppSettings.modelsFolder
        localModels: localModels
        device: AppSettings.device
        gpu: AppSettings.gpu
        contextLength: AppSettings.contextLength
        kvType: AppSettings.kvType
        vramBudgetGiB: AppSettings.vramBudgetGiB
    }

    Dialog {
        id: confirmDownload
        property var row: null
        objectName: "confirmDownload"
        parent: T.Overlay.overlay
        anchors.centerIn: parent
        modal: true
        title: row ? qsTr("Download %1?").arg(row.spec) : ""
        standardButtons: Dialog.Ok | Dialog.Cancel
        readonly property alias message: licenceLabel.text
        Label {
            id: licenceLabel
            width: Math.min(480, root.width - 2 * Theme.spacingXl)
            text: confirmDownload.row
                  ? qsTr("This model is published under the licence \"%1\". By downloading it you accept its terms%2.")
                      .arg(confirmDownload.row.license)
                      .arg(confirmDownload.row.licenseUrl.length > 0 ? qsTr(" (%1)").arg(confirmDownload.row.licenseUrl) : "")
                  : ""
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
        }
        onAccepted: library.requestDownload(row.spec)
    }
    Dialog {
        id: confirmDelete
        property string path
        property string name
        property real bytes: 0
        objectName: "confirmDelete"
        parent: T.Overlay.overlay
        anchors.centerIn: parent
        modal: true
        title: qsTr("Delete %1?").arg(name)
        standardButtons: Dialog.Ok | Dialog.Cancel
        Label {
            width: Math.min(480, root.width - 2 * Theme.spacingXl)
            text: qsTr("%1 will be removed from the models folder, freeing %2. This cannot be undone.")
                .arg(confirmDelete.path).arg(Units.size(confirmDelete.bytes))
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
        }
        onAccepted: library.deleteModel(path)
    }
    // The licence was shown (confirmDownload): the downloader takes it from here.
    Connections {
        target: library
        function onDownloadRequested(spec) { Downloads.download(spec) }
    }
    Connections {
        target: library
        function onDeleteFailed(message) { deleteError.text = message }
        function onModelDeleted() { deleteError.text = "" }
    }

    contentItem: ColumnLayout {
        spacing: Theme.spacingM

        Label {
            objectName: "deviceSummary"
            Layout.fillWidth: true
            text: library.cpuOnly
                  ? qsTr("No GPU in use: estimates are for the CPU and its memory (%1 free of %2); speeds from this machine's memory bandwidth, measured at %3 GB/s.")
                      .arg(Units.size(library.deviceFreeBytes)).arg(Units.size(library.deviceTotalBytes))
                      .arg(Math.round(library.cpuBandwidth / 1e9))
                  : qsTr("Estimates for %1 (%2 free of %3) at a context of %4.")
                      .arg(library.deviceName).arg(Units.size(library.deviceFreeBytes)).arg(Units.size(library.deviceTotalBytes))
                      .arg(Units.tokens(AppSettings.contextLength > 0 ? AppSettings.contextLength : 4096))
            font: Theme.smallFont
            color: Theme.textSecondary
            wrapMode: Text.Wrap
        }
        FallbackNotice {
            objectName: "catalogError"
            Layout.fillWidth: true
            visible: library.catalogError.length > 0
            message: qsTr("The model catalog could not be read.")
            details: library.catalogError
        }

        DownloadList {
            objectName: "downloadList"
            Layout.fillWidth: true
            Layout.maximumHeight: root.height / 3
            clip: true
        }

        TabBar {
            id: tabs
            Layout.fillWidth: true
            TabButton { text: qsTr("Catalog") }
            TabButton { objectName: "localTab"; text: qsTr("On this computer (%1)").arg(localModels.count) }
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex

            ListView {
                id: catalogList
                objectName: "catalogList"
                clip: true
                spacing: Theme.spacingS
                model: library.variants
                ScrollBar.vertical: ScrollBar {}
                Accessible.name: qsTr("Models to download")
                delegate: CatalogRow {
                    required property var model
                    width: ListView.view.width
                    deviceName: library.deviceName
                    cpuOnly: library.cpuOnly
                    onDownloadRequested: {
                        confirmDownload.row = { spec: spec, license: license, licenseUrl: model.licenseUrl }
                        confirmDownload.open()
                    }
                }
            }

            ColumnLayout {
                spacing: Theme.spacingS
                Label {
                    objectName: "diskUse"
                    Layout.fillWidth: true
                    text: qsTr("Models folder: %1 · %2 used · %3 free on its disk")
                        .arg(library.folder).arg(Units.size(library.diskUsedBytes)).arg(Units.size(library.diskFreeBytes))
                    textFormat: Text.PlainText
                    font: Theme.smallFont
                    color: Theme.textSecondary
                    elide: Text.ElideMiddle
                }
                Label {
                    id: deleteError
                    objectName: "deleteError"
                    Layout.fillWidth: true
                    visible: text.length > 0
                    textFormat: Text.PlainText
                    font: Theme.smallFont
                    color: Theme.noticeText
                    wrapMode: Text.Wrap
                }
                ListView {
                    objectName: "localList"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    clip: true
                    spacing: Theme.spacingS
                    model: localModels
                    ScrollBar.vertical: ScrollBar {}
                    Accessible.name: qsTr("Models on this computer")
                    delegate: RowLayout {
                        id: localRow
                        required property string path
                        required property string name
                        required property string quant
                        required property string parameters
                        required property real fileBytes
                        required property bool userAdded
                        required property bool loaded
                        width: ListView.view.width
                        spacing: Theme.spacingM
                        ColumnLayout {
                            Layout.fillWidth: true
                            spacing: 0
                            Label {
                                Layout.fillWidth: true
                                text: localRow.name
                                textFormat: Text.PlainText
                                font: Theme.bodyStrongFont
                                color: Theme.textPrimary
                                elide: Text.ElideRight
                            }
                            Label {
                                Layout.fillWidth: true
                                text: [localRow.quant, localRow.parameters, Units.size(localRow.fileBytes), localRow.path]
                                    .filter(s => s.length > 0).join(" · ")
                                textFormat: Text.PlainText
                                font: Theme.smallFont
                                color: Theme.textSecondary
                                elide: Text.ElideMiddle
                            }
                        }
                        Button {
                            visible: localRow.userAdded
                            text: qsTr("Remove from list")
                            onClicked: localModels.removeAddedPath(localRow.path)
                        }
                        Button {
                            objectName: "deleteButton"
                            visible: !localRow.userAdded
                            enabled: !localRow.loaded && library.canDelete(localRow.path)
                            text: qsTr("Delete…")
                            Accessible.name: qsTr("Delete %1").arg(localRow.name)
                            onClicked: {
                                confirmDelete.path = localRow.path
                                confirmDelete.name = localRow.name
                                confirmDelete.bytes = localRow.fileBytes
                                confirmDelete.open()
                            }
                        }
                    }
                }
            }
        }
    }
}
