// Settings → API server: the switch, the port and "other machines" write AppSettings, and the
// line under the switch is LocalServer's status — here the singleton without an engine behind it,
// which listens but has no model to serve, and refuses other machines without a key. The port
// reads without a thousands separator.
import QtQuick
import QtTest
import Hearth
import Hearth.App

Item {
    id: root
    width: 800
    height: 700

    Component {
        id: sectionComponent
        SettingsServer { width: 760 }
    }

    TestCase {
        name: "SettingsServer"
        when: windowShown

        function findAll(item, name, found) {
            found = found || []
            if (item.objectName === name)
                found.push(item)
            for (let i = 0; i < item.children.length; ++i)
                findAll(item.children[i], name, found)
            return found
        }

        function init() {
            AppSettings.serverEnabled = false
            AppSettings.serverOnNetwork = false
            AppSettings.serverPort = 20000 + Math.floor(Math.random() * 30000) // a free one, most likely
        }

        function cleanup() {
            AppSettings.serverEnabled = false
            AppSettings.serverOnNetwork = false
        }

        function test_switchServesAndSaysSo() {
            const section = createTemporaryObject(sectionComponent, root)
            const toggle = findAll(section, "serverEnabled")[0]
            const status = findAll(section, "serverStatus")[0]
            compare(LocalServer.state, LocalServer.Off)
            verify(!toggle.checked)
            mouseClick(toggle)
            verify(AppSettings.serverEnabled)
            compare(LocalServer.state, LocalServer.Listening)
            compare(LocalServer.url, "http://127.0.0.1:" + AppSettings.serverPort)
            compare(status.text, LocalServer.statusText)
            verify(status.text.indexOf(LocalServer.url) >= 0)
            mouseClick(toggle)
            verify(!AppSettings.serverEnabled)
            compare(LocalServer.state, LocalServer.Off)
            compare(LocalServer.url, "")
        }

        function test_otherMachinesNeedAKey() {
            const section = createTemporaryObject(sectionComponent, root)
            AppSettings.serverEnabled = true
            mouseClick(findAll(section, "serverOnNetwork")[0])
            verify(AppSettings.serverOnNetwork)
            compare(LocalServer.state, LocalServer.Failed) // no key can be had here
            compare(LocalServer.url, "")
            compare(findAll(section, "serverStatus")[0].text, LocalServer.statusText)
        }

        function test_portReadsPlain() {
            const section = createTemporaryObject(sectionComponent, root)
            AppSettings.serverPort = 12345
            const port = findAll(section, "serverPort")[0]
            compare(port.value, 12345)
            compare(port.displayText, "12345")
        }
    }
}
