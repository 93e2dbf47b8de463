// AboutPage shows what the Diagnostics singleton says: Hearth's licence, one row per library (and
// model) licence, and "Copy diagnostics" puts Diagnostics' report on the clipboard.
import QtQuick
import QtTest
import Hearth
import Hearth.App

Item {
    id: root
    width: 900
    height: 900

    Component {
        id: pageComponent
        AboutPage { }
    }

    TestCase {
        name: "AboutPage"
        when: windowShown

        function findAll(item, name, found) {
            found = found || []
            if (item.objectName === name)
                found.push(item)
            for (let i = 0; i < item.children.length; ++i)
                findAll(item.children[i], name, found)
            return found
        }

        function openPage() {
            tryCompare(Diagnostics, "probed", true, 10000) // the licence list is final then
            const page = createTemporaryObject(pageComponent, root)
            page.open()
            tryCompare(page, "opened", true)
            return page
        }

        function test_licencesComeFromDiagnostics() {
            const page = openPage()
            const shown = findAll(page.contentItem, "licenceName").map(l => l.text)
            compare(shown, Diagnostics.licences.map(e => e.licence))
            verify(shown.indexOf("LGPL-3.0") >= 0)   // Qt
            verify(shown.indexOf("Apache-2.0") >= 0) // SentencePiece
            verify(shown.indexOf("MIT") >= 0)        // md4c, nlohmann/json
            const own = findAll(page.contentItem, "hearthLicence")
            compare(own.length, 1)
            verify(own[0].text.indexOf(Diagnostics.hearthLicence) >= 0)
        }

        function test_copyDiagnosticsFillsTheClipboard() {
            const page = openPage()
            Clipboard.setText("")
            const button = findAll(page.contentItem, "copyDiagnostics")[0]
            const copied = findAll(page.contentItem, "copied")[0]
            verify(!copied.visible)
            mouseClick(button)
            compare(Clipboard.text(), Diagnostics.copyText())
            verify(Clipboard.text().indexOf("Hearth " + Diagnostics.version) === 0)
            verify(copied.visible)
        }
    }
}
