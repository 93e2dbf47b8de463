// ConnectionDialog with the real ConnectionEditor (nothing is saved): what is typed reaches the
// editor, an address that cannot work is named and blocks Save, plain HTTP with a key to another
// machine is warned about, the endpoint replies go to is shown, and Save waits for a model. Also
// ConnectionRow's states and RemoteList's empty state.
import QtQuick
import QtTest
import Hearth
import Hearth.App

Item {
    id: root
    width: 900
    height: 700

    Component {
        id: dialogComponent
        ConnectionDialog {}
    }
    Component {
        id: rowComponent
        ConnectionRow {
            width: 700
            index: 0
            connectionId: "c1"
            name: "Lab vLLM"
            baseUrl: "http://gpu-box:8000/v1"
            host: "gpu-box:8000"
            modelName: "Qwen/Qwen3-8B"
            hasKey: true
            active: false
        }
    }
    Component {
        id: listComponent
        RemoteList { width: 700; height: 400 }
    }

    TestCase {
        name: "ConnectionDialog"
        when: windowShown

        function find(item, name) {
            if (!item)
                return null
            if (item.objectName === name)
                return item
            const parts = []
            const data = item.data || []
            for (let i = 0; i < data.length; ++i)
                parts.push(data[i])
            for (const extra of [item.contentItem, item.footer])
                if (extra)
                    parts.push(extra)
            for (let i = 0; i < parts.length; ++i) {
                const found = find(parts[i], name)
                if (found)
                    return found
            }
            return null
        }

        function openDialog() {
            const dialog = createTemporaryObject(dialogComponent, root)
            dialog.edit("")
            tryCompare(dialog, "opened", true)
            return dialog
        }

        function test_typingReachesTheEditor() {
            const dialog = openDialog()
            const field = find(dialog, "baseUrlField")
            verify(field.activeFocus)
            keyClick(Qt.Key_L)
            keyClick(Qt.Key_O)
            compare(dialog.editor.baseUrl, "lo")
            const endpoint = find(dialog, "endpointNote")
            compare(endpoint.text, "Replies are asked for at http://lo/v1/chat/completions")
            const key = find(dialog, "apiKeyField")
            compare(key.echoMode, TextInput.Password)
        }

        function test_badAddressBlocksSaving() {
            const dialog = openDialog()
            dialog.editor.baseUrl = "ftp://files.example.com"
            const error = find(dialog, "urlError")
            verify(error.visible)
            verify(error.text.indexOf("http://") >= 0, error.text)
            compare(find(dialog, "endpointNote").visible, false)
            verify(!find(dialog, "fetchModelsButton").enabled)
            dialog.editor.model = "some-model"
            verify(!find(dialog, "saveConnectionButton").enabled)
            verify(!find(dialog, "useConnectionButton").enabled)
            dialog.editor.baseUrl = "localhost:8000"
            verify(!error.visible)
            verify(find(dialog, "fetchModelsButton").enabled)
            verify(find(dialog, "saveConnectionButton").enabled)
        }

        function test_plainHttpWithAKeyIsWarnedAbout() {
            const dialog = openDialog()
            const warning = find(dialog, "insecureWarning")
            dialog.editor.baseUrl = "http://10.0.0.5:8000/v1"
            verify(!warning.visible)
            dialog.editor.apiKey = "sk-secret"
            verify(warning.visible)
            verify(warning.text.indexOf("HTTP") >= 0, warning.text)
            dialog.editor.baseUrl = "https://10.0.0.5/v1"
            verify(!warning.visible)
            dialog.editor.baseUrl = "http://127.0.0.1:8080"
            verify(!warning.visible)
        }

        function test_theModelComesFromTheBoxOrTyping() {
            const dialog = openDialog()
            dialog.editor.baseUrl = "localhost:8000"
            const box = find(dialog, "modelBox")
            box.editText = "typed-model"
            compare(dialog.editor.model, "typed-model")
            verify(find(dialog, "saveConnectionButton").enabled)
        }

        function test_rowSaysWhatItIs() {
            const row = createTemporaryObject(rowComponent, root)
            compare(find(row, "connectionFacts").text, "Qwen/Qwen3-8B · gpu-box:8000 · API key")
            verify(!find(row, "inUseBadge").visible)
            compare(find(row, "useConnectionButton").text, "Use")
            let used = 0
            row.useRequested.connect(() => ++used)
            mouseClick(find(row, "useConnectionButton"))
            compare(used, 1)
            row.active = true
            row.statusText = "Connected: gpu-box:8000 serves Qwen/Qwen3-8B."
            row.statusGood = true
            verify(find(row, "inUseBadge").visible)
            verify(find(row, "connectionStatus").visible)
            compare(find(row, "useConnectionButton").text, "Disconnect")
        }

        function test_emptyListSaysHowToBegin() {
            const list = createTemporaryObject(listComponent, root)
            const view = find(list, "connectionList")
            compare(view.count, RemoteConnections.count)
            verify(find(list, "addConnectionButton").visible)
        }
    }
}
