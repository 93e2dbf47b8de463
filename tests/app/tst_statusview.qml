// StatusView against a stub model, and Main's wiring against the real DeviceStatus singleton.
import QtQuick
import QtTest
import Hearth
import Hearth.App

// TestCase is an invisible Item, so the views under test are parented to this root instead.
Item {
    id: root
    width: 1000
    height: 700

    TestCase {
        id: testCase
        name: "StatusView"
        when: windowShown

        ListModel {
            id: stubDevices
            ListElement {
                name: "Stub CPU (4 threads)"; kind: "cpu"; kindLabel: "CPU"
                memoryText: "16.0 GiB total · 9.5 GiB free"; computeCapability: ""; usedFraction: 0.4
            }
            ListElement {
                name: "NVIDIA GeForce RTX 4090"; kind: "cuda"; kindLabel: "GPU"
                memoryText: "24.0 GiB total · 22.8 GiB free"; computeCapability: "8.9"; usedFraction: 0.05
            }
        }

        // Main needs the chat controller main.cpp gives it (here without a history file).
        Component {
            id: chatComponent
            ChatController { }
        }

        Component {
            id: viewComponent
            StatusView {
                width: root.width
                height: root.height
            }
        }

        // Items under `item` (depth first) whose objectName is `name`.
        function findAll(item, name, found) {
            found = found || []
            if (item.objectName === name)
                found.push(item)
            for (let i = 0; i < item.children.length; ++i)
                findAll(item.children[i], name, found)
            return found
        }

        // The texts of those that are shown (`visible` is false when an ancestor is hidden).
        function shownTexts(item, name) {
            return findAll(item, name).filter(t => t.visible).map(t => t.text)
        }

        function test_showsDevicesWhenReady() {
            const view = createTemporaryObject(viewComponent, root, {
                ready: true, version: "9.9.9", backendName: "CUDA", usingGpu: true, deviceModel: stubDevices
            })
            verify(view)
            tryVerify(() => shownTexts(view, "deviceName").length === 2)
            compare(shownTexts(view, "deviceName"), ["Stub CPU (4 threads)", "NVIDIA GeForce RTX 4090"])
            verify(findAll(view, "backendBadge")[0].visible)
            verify(!findAll(view, "fallbackNotice")[0].visible)
            verify(findAll(view, "versionLabel")[0].text.indexOf("9.9.9") >= 0)
            verify(!findAll(view, "busyIndicator")[0].running)
        }

        function test_busyUntilReady() {
            const view = createTemporaryObject(viewComponent, root, { ready: false, deviceModel: stubDevices })
            verify(view)
            const busy = findAll(view, "busyIndicator")[0]
            verify(busy.running)
            verify(busy.visible)
            compare(shownTexts(view, "deviceName").length, 0)
            view.ready = true
            verify(!busy.running)
            tryVerify(() => shownTexts(view, "deviceName").length === 2)
        }

        function test_fallbackNotice() {
            const message = "No NVIDIA driver found — Hearth will run on the CPU (slower)."
            const view = createTemporaryObject(viewComponent, root, {
                ready: true, backendName: "CPU", deviceModel: stubDevices, fallbackMessage: message,
                fallbackDetails: "no NVIDIA driver found"
            })
            verify(view)
            verify(findAll(view, "fallbackNotice")[0].visible)
            compare(shownTexts(view, "fallbackMessage"), [message])
        }

        function test_realDeviceStatus() {
            const view = createTemporaryObject(viewComponent, root)
            verify(view)
            view.ready = Qt.binding(() => DeviceStatus.ready)
            view.backendName = Qt.binding(() => DeviceStatus.backendName)
            view.deviceModel = DeviceStatus.devices
            view.fallbackMessage = Qt.binding(() => DeviceStatus.cpuFallbackMessage)
            tryCompare(DeviceStatus, "ready", true, 10000)
            verify(DeviceStatus.devices.count >= 1)
            const cpuName = DeviceStatus.devices.get(0).name
            verify(cpuName.length > 0)
            tryVerify(() => shownTexts(view, "deviceName").indexOf(cpuName) >= 0)
            verify(DeviceStatus.backendName === "CPU" || DeviceStatus.backendName === "CUDA")
            if (DeviceStatus.backendName === "CPU")
                compare(shownTexts(view, "fallbackMessage"), [DeviceStatus.cpuFallbackMessage])
        }

        function test_mainWindowLoads() {
            const component = Qt.createComponent("qrc:/Hearth/Main.qml")
            compare(component.status, Component.Ready, component.errorString())
            const chat = createTemporaryObject(chatComponent, root)
            verify(chat)
            const window = component.createObject(null, { visible: false, chat: chat })
            verify(window)
            compare(window.title, "Hearth")
            window.destroy()
        }
    }
}
