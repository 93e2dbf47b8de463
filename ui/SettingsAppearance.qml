// Settings: theme, font size and language; each takes effect at once.
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth
import Hearth.App

SettingsSection {
    id: root

    title: qsTr("Appearance")

    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Theme")
        ComboBox {
            objectName: "theme"
            Layout.preferredWidth: parent.controlWidth
            textRole: "text"
            valueRole: "value"
            model: [
                { value: "system", text: qsTr("Same as the system") },
                { value: "light", text: qsTr("Light") },
                { value: "dark", text: qsTr("Dark") },
            ]
            currentIndex: count > 0 ? indexOfValue(AppSettings.theme) : -1 // rows first
            onActivated: AppSettings.theme = currentValue
            Accessible.name: qsTr("Theme")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Font size")
        hint: qsTr("The size of body text, in pixels; everything else scales with it.")
        SpinBox {
            objectName: "fontSize"
            Layout.preferredWidth: parent.controlWidth
            from: 10
            to: 24
            editable: true
            value: AppSettings.fontSize
            onValueModified: AppSettings.fontSize = value
            Accessible.name: qsTr("Font size")
        }
    }
    SettingRow {
        Layout.fillWidth: true
        label: qsTr("Language")
        ComboBox {
            objectName: "language"
            Layout.preferredWidth: parent.controlWidth
            textRole: "text"
            valueRole: "value"
            // Each language is named in its own words, whatever the language shown now.
            model: [
                { value: "en", text: "English" },
                { value: "zh_CN", text: "简体中文" },
            ]
            currentIndex: count > 0 ? indexOfValue(AppSettings.language) : -1 // rows first
            onActivated: AppSettings.language = currentValue
            Accessible.name: qsTr("Language")
        }
    }
}
