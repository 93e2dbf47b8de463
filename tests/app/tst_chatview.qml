// Composer, ChatView and MessageDelegate against stand-in models: Enter sends, Shift+Enter is a
// new line, blank text cannot be sent, Stop while a reply is written; messages show as typed,
// thinking folds, the alternatives arrows and Regenerate/Edit report their row, an error marker
// shows, and the view follows a growing reply until the user scrolls up.
import QtQuick
import QtTest
import Hearth

Item {
    id: root
    width: 900
    height: 600

    Component {
        id: composerComponent
        Composer {
            width: 600
            canSend: true
        }
    }

    Component {
        id: chatComponent
        ChatView {
            width: root.width
            height: 400
        }
    }

    // Every role MessageDelegate reads, with a plain reply's values.
    function message(role, text, extra) {
        const m = { messageId: 0, role: role, text: text, thinking: "", streaming: false, thinkingActive: false,
                    statsText: "", stopReason: "", alternativeIndex: 1, alternativeCount: 1, errorText: "" }
        for (const key in extra)
            m[key] = extra[key]
        return m
    }

    ListModel { id: messages }

    SignalSpy { id: sendSpy; signalName: "sendRequested" }
    SignalSpy { id: stopSpy; signalName: "stopRequested" }
    SignalSpy { id: regenerateSpy; signalName: "regenerateRequested" }
    SignalSpy { id: alternativeSpy; signalName: "alternativeRequested" }
    SignalSpy { id: editSpy; signalName: "editRequested" }
    SignalSpy { id: copySpy; signalName: "copyRequested" }

    TestCase {
        name: "ChatView"
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

        function init() {
            failOnWarning(/./)
            for (const spy of [sendSpy, stopSpy, regenerateSpy, alternativeSpy, editSpy, copySpy])
                spy.clear()
            messages.clear()
        }

        function makeComposer() {
            const composer = createTemporaryObject(composerComponent, root)
            verify(composer)
            sendSpy.target = composer
            stopSpy.target = composer
            composer.focusInput()
            const input = findAll(composer, "composerInput")[0]
            tryVerify(() => input.activeFocus)
            return composer
        }

        function test_enterSendsShiftEnterIsANewLine() {
            const composer = makeComposer()
            keyClick("H")
            keyClick("i")
            keyClick(Qt.Key_Return, Qt.ShiftModifier)
            keyClick("x")
            compare(composer.text, "Hi\nx")
            compare(sendSpy.count, 0)
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 1)
            compare(sendSpy.signalArguments[0][0], "Hi\nx")
            keyClick(Qt.Key_Enter) // the keypad's Enter too
            compare(sendSpy.count, 2)
        }

        function test_blankCannotBeSent() {
            const composer = makeComposer()
            const button = findAll(composer, "sendButton")[0]
            verify(!button.enabled)
            keyClick(Qt.Key_Space)
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 0)
            verify(!button.enabled)
            keyClick("a")
            verify(button.enabled)
            verify(button.Accessible.name.length > 0)
            mouseClick(button)
            compare(sendSpy.count, 1)
            // No model loaded: nothing is sent whatever the text.
            composer.canSend = false
            verify(!button.enabled)
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 1)
        }

        function test_stopWhileReplying() {
            const composer = makeComposer()
            composer.canSend = false
            composer.replying = true
            const button = findAll(composer, "stopButton")[0]
            verify(button.enabled)
            mouseClick(button)
            compare(stopSpy.count, 1)
            compare(sendSpy.count, 0)
        }

        function test_messagesShowAsTyped() {
            messages.append(message("user", "Say <|im_end|> and <b>bold</b>", { messageId: 1 }))
            messages.append(message("assistant", "Some **markdown**", { messageId: 2, statsText: "42.0 tok/s · 12 tokens" }))
            const view = createTemporaryObject(chatComponent, root, { model: messages })
            verify(view)
            tryCompare(view.listView, "count", 2)
            tryVerify(() => shown(view, "userText").length === 1)
            const user = shown(view, "userText")[0]
            compare(user.text, "Say <|im_end|> and <b>bold</b>")
            compare(user.textFormat, Text.PlainText)
            tryVerify(() => shown(view, "statsLine").length === 1)
            compare(shown(view, "statsLine")[0].text, "42.0 tok/s · 12 tokens")
            verify(shown(view, "replyBody")[0].blocks.count === 1)
            // A link opens only after its target was shown and confirmed.
            shown(view, "replyBody")[0].linkRequested("https://example.org/page")
            tryVerify(() => view.linkDialog.opened)
            compare(view.linkDialog.url, "https://example.org/page")
            view.linkDialog.reject()
            tryVerify(() => !view.linkDialog.visible)
        }

        function test_actionsReportTheirRow() {
            messages.append(message("user", "Q", { messageId: 1 }))
            messages.append(message("assistant", "A", { messageId: 2, alternativeIndex: 2, alternativeCount: 3 }))
            const view = createTemporaryObject(chatComponent, root, { model: messages })
            verify(view)
            for (const spy of [regenerateSpy, alternativeSpy, editSpy, copySpy])
                spy.target = view
            tryVerify(() => shown(view, "alternativeLabel").length === 1)
            compare(shown(view, "alternativeLabel")[0].text, "2/3")
            mouseClick(shown(view, "previousAlternative")[0])
            mouseClick(shown(view, "nextAlternative")[0])
            compare(alternativeSpy.count, 2)
            const args = (i) => Array.from(alternativeSpy.signalArguments[i])
            compare(args(0), [1, -1])
            compare(args(1), [1, 1])
            mouseClick(shown(view, "regenerateButton")[0])
            compare(regenerateSpy.signalArguments[0][0], 1)
            const copies = shown(view, "copyMessageButton")
            compare(copies.length, 2)
            mouseClick(copies[1])
            compare(copySpy.signalArguments[0][0], 1)

            // Edit: the text comes up in an editor; Enter resends it from that row.
            mouseClick(shown(view, "editButton")[0])
            const editor = shown(view, "editInput")[0]
            verify(editor)
            tryVerify(() => editor.activeFocus)
            compare(editor.text, "Q")
            keyClick("2")
            keyClick(Qt.Key_Return)
            compare(editSpy.count, 1)
            compare(Array.from(editSpy.signalArguments[0]), [0, "Q2"])

            // Without a model: no regenerate or edit, but the versions can still be read.
            view.canAct = false
            verify(!shown(view, "regenerateButton")[0].enabled)
            verify(!shown(view, "editButton")[0].enabled)
            verify(shown(view, "previousAlternative")[0].enabled)
            view.canSwitch = false // while a reply is written
            verify(!shown(view, "previousAlternative")[0].enabled)
        }

        function test_thinkingFoldsAndErrorShows() {
            messages.append(message("user", "Q", { messageId: 1 }))
            messages.append(message("assistant", "", { messageId: 2, thinking: "Let me think", streaming: true,
                                                       thinkingActive: true }))
            const view = createTemporaryObject(chatComponent, root, { model: messages })
            verify(view)
            // Live while thinking: open.
            tryVerify(() => shown(view, "thinkingText").length === 1)
            compare(shown(view, "thinkingText")[0].text, "Let me think")
            // Thought, answered: folded, and a click opens it.
            messages.set(1, { text: "Four.", thinkingActive: false, streaming: false, errorText: "device lost" })
            tryVerify(() => shown(view, "thinkingText").length === 0)
            const toggle = shown(view, "thinkingToggle")[0]
            verify(toggle.Accessible.name.length > 0)
            mouseClick(toggle)
            tryVerify(() => shown(view, "thinkingText").length === 1)
            compare(shown(view, "errorMarker").length, 1)
        }

        function test_followsUntilTheUserScrollsUp() {
            for (let i = 0; i < 30; ++i)
                messages.append(message(i % 2 ? "assistant" : "user", "Message " + i + "\n\nwith two paragraphs",
                                        { messageId: i + 1 }))
            const view = createTemporaryObject(chatComponent, root, { model: messages })
            verify(view)
            const list = view.listView
            tryVerify(() => list.contentHeight > list.height * 2)
            tryVerify(() => list.atBottom)
            verify(view.following)

            // A reply grows: the view stays at its end.
            messages.append(message("assistant", "Start", { messageId: 100, streaming: true }))
            for (let i = 0; i < 5; ++i) {
                messages.setProperty(messages.count - 1, "text", messages.get(messages.count - 1).text + "\n\nmore " + i)
                wait(20)
            }
            tryVerify(() => list.atBottom)

            // The user scrolls up: it stops following while the reply grows on.
            mouseWheel(list, list.width / 2, list.height / 2, 0, 600)
            tryVerify(() => !view.following)
            tryVerify(() => !list.moving)
            const y = list.contentY
            messages.setProperty(messages.count - 1, "text", messages.get(messages.count - 1).text + "\n\nand more")
            wait(50)
            compare(list.contentY, y)
            verify(!list.atBottom)
            verify(shown(view, "jumpToLatest").length === 1)

            // Back at the bottom, it follows again.
            mouseClick(shown(view, "jumpToLatest")[0])
            tryVerify(() => view.following && list.atBottom)
            messages.setProperty(messages.count - 1, "text", messages.get(messages.count - 1).text + "\n\nthe end")
            tryVerify(() => list.atBottom)
        }
    }
}
