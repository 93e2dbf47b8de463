// ConversationList against a stand-in model: date sections above their conversations, a click
// opens one, Rename and Delete go through their dialogs, and nothing warns (a section delegate
// Qt 6.4 cannot create would only warn).
import QtQuick
import QtTest
import Hearth

Item {
    id: root
    width: 300
    height: 600

    ListModel {
        id: conversations
        ListElement { conversationId: 11; title: "Dragons"; section: "Today"; snippet: ""; current: true; selected: false }
        ListElement { conversationId: 12; title: "Soup"; section: "Today"; snippet: ""; current: false; selected: false }
        ListElement { conversationId: 13; title: "Old plans"; section: "Older"; snippet: ""; current: false; selected: false }
    }

    Component {
        id: listComponent
        ConversationList {
            anchors.fill: parent
            model: conversations
        }
    }

    SignalSpy { id: openSpy; signalName: "openRequested" }
    SignalSpy { id: renameSpy; signalName: "renameRequested" }
    SignalSpy { id: deleteSpy; signalName: "deleteRequested" }
    SignalSpy { id: newSpy; signalName: "newChatRequested" }

    TestCase {
        name: "ConversationList"
        when: windowShown

        function findAll(item, name, found) {
            found = found || []
            if (item.objectName === name)
                found.push(item)
            for (let i = 0; i < item.children.length; ++i)
                findAll(item.children[i], name, found)
            return found
        }
        function shown(item, name) {
            return findAll(item, name).filter(t => t.visible)
        }
        function texts(item, name) {
            return shown(item, name).map(t => t.text)
        }

        function init() {
            failOnWarning(/./)
        }

        function makeList() {
            const list = createTemporaryObject(listComponent, root)
            verify(list)
            for (const spy of [openSpy, renameSpy, deleteSpy, newSpy]) {
                spy.clear()
                spy.target = list
            }
            tryVerify(() => shown(list, "conversationTitle").length === 3)
            return list
        }

        function test_sectionsAndOpen() {
            const list = makeList()
            compare(texts(list, "sectionLabel"), ["Today", "Older"])
            const titles = shown(list, "conversationTitle")
            compare(titles.map(t => t.text), ["Dragons", "Soup", "Old plans"])
            // Each section's label is above its first conversation.
            verify(shown(list, "sectionLabel")[1].mapToItem(list, 0, 0).y < titles[2].mapToItem(list, 0, 0).y)
            verify(shown(list, "sectionLabel")[1].mapToItem(list, 0, 0).y > titles[1].mapToItem(list, 0, 0).y)
            mouseClick(titles[1])
            compare(openSpy.count, 1)
            compare(openSpy.signalArguments[0][0], 12)
            mouseClick(shown(list, "newChatButton")[0])
            compare(newSpy.count, 1)
        }

        function test_renameAndDeleteAskFirst() {
            const list = makeList()
            const menu = shown(list, "conversationMenuButton")[0] // the current one shows it
            verify(menu.Accessible.name.length > 0)
            const rename = list.renameDialog
            rename.ask(11, "Dragons")
            tryVerify(() => rename.opened)
            keyClick(Qt.Key_A, Qt.ControlModifier)
            for (const c of "Wyverns")
                keyClick(c)
            keyClick(Qt.Key_Return)
            tryVerify(() => !rename.visible)
            compare(renameSpy.count, 1)
            compare(Array.from(renameSpy.signalArguments[0]), [11, "Wyverns"])

            const confirm = list.deleteDialog
            confirm.ask([13], "Old plans")
            tryVerify(() => confirm.opened)
            compare(deleteSpy.count, 0) // nothing before the confirmation
            confirm.reject()
            tryVerify(() => !confirm.visible)
            compare(deleteSpy.count, 0)
            confirm.ask([13], "Old plans")
            tryVerify(() => confirm.opened)
            mouseClick(findAll(confirm.footer, "confirmDeleteButton")[0])
            tryVerify(() => !confirm.visible)
            compare(deleteSpy.count, 1)
            compare(deleteSpy.signalArguments[0][0], 13)
        }
    }
}
