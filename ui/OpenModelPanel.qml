// The empty state's way on: open a model file or folder (or the model list, the library to
// download one, or a remote server), and while it loads
// its progress with Cancel; a failed load or a model that is gone says so here.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

ColumnLayout {
    id: root

    property bool loading: false
    property real loadFraction: 0
    property string loadPhaseText
    property string loadError
    property string notice // e.g. the model used last is no longer there

    signal openFileRequested()
    signal openFolderRequested()
    signal browseRequested()
    signal libraryRequested()
    signal remoteRequested()
    signal cancelRequested()

    spacing: Theme.spacingS

    FallbackNotice {
        objectName: "startNotice"
        Layout.fillWidth: true
        visible: root.notice.length > 0 && !root.loading
        message: root.notice
    }
    FallbackNotice {
        objectName: "loadErrorNotice"
        Layout.fillWidth: true
        visible: root.loadError.length > 0 && !root.loading
        message: qsTr("The model could not be loaded.")
        details: root.loadError
    }

    RowLayout {
        Layout.fillWidth: true
        visible: !root.loading
        spacing: Theme.spacingS
        Button {
            id: openButton
            objectName: "openModelButton"
            Layout.fillWidth: true
            text: qsTr("Open a model…")
            font: Theme.bodyStrongFont
            Accessible.name: qsTr("Open a model file")
            onClicked: root.openFileRequested()
            contentItem: Label {
                text: openButton.text
                font: openButton.font
                color: Theme.textOnAccent
                horizontalAlignment: Text.AlignHCenter
                verticalAlignment: Text.AlignVCenter
            }
            background: Rectangle {
                implicitHeight: 38
                radius: Theme.radiusM
                color: openButton.down ? Theme.accentText : Theme.accent
            }
        }
        Button {
            objectName: "openFolderButton"
            text: qsTr("Folder…")
            font: Theme.bodyFont
            Accessible.name: qsTr("Open a Hugging Face model folder")
            onClicked: root.openFolderRequested()
        }
        Button {
            objectName: "browseModelsButton"
            text: qsTr("Models")
            font: Theme.bodyFont
            Accessible.name: qsTr("Show the models on this computer")
            onClicked: root.browseRequested()
        }
        Button {
            objectName: "libraryButton"
            text: qsTr("Get a model")
            font: Theme.bodyFont
            Accessible.name: qsTr("Open the library of models to download")
            onClicked: root.libraryRequested()
        }
        Button {
            objectName: "remoteButton"
            text: qsTr("Server…")
            font: Theme.bodyFont
            Accessible.name: qsTr("Chat with a model on a vLLM, SGLang or other OpenAI-compatible server")
            onClicked: root.remoteRequested()
        }
    }

    ColumnLayout {
        objectName: "loadProgress"
        Layout.fillWidth: true
        visible: root.loading
        spacing: Theme.spacingXs
        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: root.loadPhaseText.length > 0 ? root.loadPhaseText : qsTr("Loading the model")
                font: Theme.bodyFont
                color: Theme.textSecondary
                elide: Text.ElideRight
            }
            Label {
                text: Math.round(root.loadFraction * 100) + " %"
                font: Theme.smallFont
                color: Theme.textTertiary
            }
            Button {
                objectName: "cancelLoadButton"
                flat: true
                text: qsTr("Cancel")
                font: Theme.smallFont
                Accessible.name: qsTr("Cancel loading the model")
                onClicked: root.cancelRequested()
            }
        }
        ProgressBar {
            Layout.fillWidth: true
            value: root.loadFraction
            Accessible.name: qsTr("Loading progress")
        }
    }
}
