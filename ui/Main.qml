// The application window. For now it shows the first-run/status screen.
import QtQuick
import QtQuick.Controls.Basic
import Hearth
import Hearth.App

ApplicationWindow {
    width: 1000
    height: 700
    minimumWidth: 560
    minimumHeight: 480
    visible: true
    title: qsTr("Hearth")
    color: Theme.background

    StatusView {
        anchors.fill: parent
        ready: DeviceStatus.ready
        version: DeviceStatus.version
        backendName: DeviceStatus.backendName
        usingGpu: DeviceStatus.usingGpu
        deviceModel: DeviceStatus.devices
        fallbackMessage: DeviceStatus.cpuFallbackMessage
        fallbackDetails: DeviceStatus.cpuFallbackDetails
    }
}
