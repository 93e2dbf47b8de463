// Settings: how a model is loaded, and where models are found. They apply to the next load.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

SettingsSection {
    id: root

    // The CUDA devices DeviceStatus lists, in ordinal order.
    readonly property var gpuNames: {
        const names = []
        const devices = DeviceStatus.devices
        for (let i = 0; i < devices.count; ++i) {
            const d = devices.get(i)
            if (d.kind === "cuda")
                names.push(d.name)
        }
        return names
    }

    title: qsTr("Models and memory")

    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Context length")
        hint: qsTr("Tokens the model can keep in mind. Longer needs more memory.")
        SpinBox {
            id: contextBox
            objectName: "contextLength"
            Layout.preferredWidth: parent.controlWidth
            from: 0
            to: 1048576
            stepSize: 1024
            editable: true
            value: AppSettings.contextLength
            textFromValue: (v, locale) => v === 0 ? qsTr("Model default") : Number(v).toLocaleString(locale, "f", 0)
            valueFromText: (text, locale) => text === qsTr("Model default") ? 0 : Number.fromLocaleString(locale, text)
            validator: RegularExpressionValidator { regularExpression: /.*/ }
            onValueModified: AppSettings.contextLength = value
            Accessible.name: qsTr("Context length")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("KV cache type")
        hint: qsTr("f16 and bf16 halve the cache of f32, on the GPU and the CPU alike; f32 keeps results exact.")
        ComboBox {
            objectName: "kvType"
            Layout.preferredWidth: parent.controlWidth
            model: ["f16", "bf16", "f32"]
            currentIndex: count > 0 ? indexOfValue(AppSettings.kvType) : -1 // rows first
            onActivated: AppSettings.kvType = currentValue
            Accessible.name: qsTr("KV cache type")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("VRAM budget")
        hint: qsTr("The most video memory Hearth should plan to use. The fit estimates count no more than this.")
        DecimalSpinBox {
            objectName: "vramBudget"
            Layout.preferredWidth: parent.controlWidth
            realFrom: 0
            realTo: 1024
            realStep: 0.5
            decimals: 1
            zeroText: qsTr("No limit")
            realValue: AppSettings.vramBudgetGiB
            onRealValueModified: value => AppSettings.vramBudgetGiB = value
            Accessible.name: qsTr("VRAM budget in GiB")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Device")
        hint: qsTr("Automatic uses the GPU when one is usable.")
        ComboBox {
            objectName: "device"
            Layout.preferredWidth: parent.controlWidth
            textRole: "text"
            valueRole: "value"
            model: [
                { value: "auto", text: qsTr("Automatic") },
                { value: "cuda", text: qsTr("GPU (CUDA)") },
                { value: "cpu", text: qsTr("CPU") },
            ]
            currentIndex: count > 0 ? indexOfValue(AppSettings.device) : -1 // rows first
            onActivated: AppSettings.device = currentValue
            Accessible.name: qsTr("Device")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        visible: root.gpuNames.length > 1
        label: qsTr("GPU")
        ComboBox {
            objectName: "gpu"
            Layout.preferredWidth: parent.controlWidth
            model: root.gpuNames.map((name, i) => qsTr("%1: %2").arg(i).arg(name))
            currentIndex: Math.min(AppSettings.gpu, root.gpuNames.length - 1)
            onActivated: index => AppSettings.gpu = index
            Accessible.name: qsTr("GPU")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Models folder")
        hint: qsTr("Where Hearth looks for .gguf files and Hugging Face folders.")
        RowLayout {
            Layout.preferredWidth: parent.controlWidth
            Layout.fillWidth: false // a layout in a layout fills by default
            spacing: Theme.spacingXs
            TextField {
                objectName: "modelsFolder"
                Layout.fillWidth: true
                text: AppSettings.modelsFolder
                onEditingFinished: AppSettings.modelsFolder = text
                Accessible.name: qsTr("Models folder")
            }
            Button {
                text: qsTr("Choose…")
                onClicked: {
                    folderDialog.parentWindow = root.Window.window
                    folderDialog.open()
                }
            }
        }
    }

    FolderDialog {
        id: folderDialog
        title: qsTr("Choose the models folder")
        onAccepted: AppSettings.modelsFolder = selectedFolder
    }
}
