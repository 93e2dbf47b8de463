// The Library page shows ModelLibrary's catalog: a row per variant with a fit badge ("Size
// unknown" where the catalog lacks the model's sizes), and Download asks for the licence first
// and only then hands the variant to ModelLibrary.requestDownload.
import QtQuick
import QtTest
import Hearth
import Hearth.App

Item {
    id: root
    width: 1000
    height: 900

    Component {
        id: pageComponent
        LibraryPage { }
    }

    TestCase {
        name: "LibraryPage"
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
            const page = createTemporaryObject(pageComponent, root)
            verify(page !== null)
            page.open()
            tryCompare(page, "opened", true)
            return page
        }

        function test_rowsShowTheCatalogWithFits() {
            const page = openPage()
            const list = findAll(page.contentItem, "catalogList")[0]
            verify(list.count > 20) // the built-in catalog's variants
            // Models Hearth runs come first, each with the engine's verdict once estimated.
            tryVerify(() => page.modelLibrary.busy === false, 30000)
            wait(50)
            let badges = findAll(list.contentItem, "fitBadge").filter(b => b.visible).map(b => b.text)
            verify(badges.length > 0)
            for (const text of badges)
                verify(["Fits", "Tight", "Does not fit"].indexOf(text) >= 0, text)
            verify(findAll(list.contentItem, "familyHeading").some(h => h.visible && h.text.indexOf("Qwen3 8B") === 0))
            verify(findAll(list.contentItem, "downloadButton").every(b => b.visible))
            // The smaller Qwen3.5 models at the end: sizes unknown, said so, offered all the same.
            list.positionViewAtEnd()
            wait(50)
            badges = findAll(list.contentItem, "fitBadge").filter(b => b.visible).map(b => b.text)
            verify(badges.indexOf("Size unknown") >= 0, badges.join(", "))
            verify(badges.indexOf("Coming") < 0)
            const texts = findAll(list.contentItem, "fitText").filter(t => t.visible).map(t => t.text)
            verify(texts.some(t => t.indexOf("cannot estimate") >= 0), texts.join(" | "))
            verify(findAll(list.contentItem, "downloadButton").every(b => b.visible))
        }

        function test_downloadShowsTheLicenceFirst() {
            const page = openPage()
            const list = findAll(page.contentItem, "catalogList")[0]
            const spy = createTemporaryObject(spyComponent, root, { target: page.modelLibrary })
            // A model Hearth runs (the first rows).
            tryVerify(() => findAll(list.contentItem, "downloadButton").some(b => b.enabled), 10000)
            const button = findAll(list.contentItem, "downloadButton").filter(b => b.enabled)[0]
            mouseClick(button)
            const confirm = page.downloadConfirmation
            tryCompare(confirm, "opened", true)
            verify(confirm.message.indexOf("licence") >= 0, confirm.message)
            compare(spy.count, 0) // nothing asked before the licence is accepted
            confirm.accept()
            tryCompare(spy, "count", 1)
            verify(spy.signalArguments[0][0].indexOf(":") > 0) // "family:QUANT"
        }
    }

    Component {
        id: spyComponent
        SignalSpy { signalName: "downloadRequested" }
    }
}
