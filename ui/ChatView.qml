// The conversation: a list of MessageDelegates that follows a streaming reply down the page until
// the user scrolls up, and follows again once they are back at the bottom (or press the arrow).
// A link in a reply opens only after the user has seen its target and said yes.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import Hearth

Item {
    id: root

    property alias model: list.model // ChatController.messages (or a stand-in with its roles)
    property bool canAct: true       // regenerate / edit possible now (a model, no reply under way)
    property bool canSwitch: true    // the alternatives arrows work (no reply under way)
    readonly property alias following: list.following
    readonly property ListView listView: list
    readonly property alias linkDialog: linkBox

    signal copyRequested(int row)
    signal regenerateRequested(int row)
    signal editRequested(int row, string text)
    signal alternativeRequested(int row, int step)

    function scrollToEnd() { list.scrollToEnd() }

    ListView {
        id: list
        objectName: "messageList"
        anchors.fill: parent
        clip: true
        spacing: 0
        topMargin: Theme.spacingL
        bottomMargin: Theme.spacingL
        boundsBehavior: Flickable.StopAtBounds
        reuseItems: false
        activeFocusOnTab: true
        Accessible.role: Accessible.List
        Accessible.name: qsTr("Conversation")
        ScrollBar.vertical: ScrollBar {
            id: scrollBar
            Accessible.name: qsTr("Scroll the conversation")
        }

        // Whether the view stays at the bottom as content grows; the user scrolling away from
        // the bottom turns it off, coming back turns it on.
        property bool following: true
        property bool autoScrolling: false
        // (positionViewAtEnd may leave the bottom margin out of view: within it counts.)
        readonly property bool atBottom: contentHeight <= height
                                         || contentY + height >= contentHeight + originY - 4

        function scrollToEnd() {
            autoScrolling = true
            positionViewAtEnd()
            autoScrolling = false
            following = true
        }

        onContentYChanged: {
            if (!autoScrolling && (moving || scrollBar.pressed || dragging || flicking))
                following = atBottom
        }
        onMovementEnded: following = atBottom
        onContentHeightChanged: if (following) Qt.callLater(scrollToEnd)
        onCountChanged: if (following) Qt.callLater(scrollToEnd)
        delegate: MessageDelegate {
            width: list.width
            viewport: list
            canAct: root.canAct
            canSwitch: root.canSwitch
            onCopyRequested: (row) => root.copyRequested(row)
            onRegenerateRequested: (row) => root.regenerateRequested(row)
            onEditRequested: (row, text) => root.editRequested(row, text)
            onAlternativeRequested: (row, step) => root.alternativeRequested(row, step)
            onLinkRequested: (url) => linkBox.ask(url)
        }
    }

    RoundButton {
        objectName: "jumpToLatest"
        visible: !list.following && list.count > 0
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: Theme.spacingL
        text: "↓"
        font: Theme.bodyStrongFont
        Accessible.name: qsTr("Go to the latest message")
        onClicked: list.scrollToEnd()
    }

    // Model output is untrusted: show where a link goes before anything opens it.
    Dialog {
        id: linkBox
        objectName: "linkDialog"
        property string url
        function ask(target) {
            url = target
            open()
        }
        title: qsTr("Open this link?")
        modal: true
        anchors.centerIn: parent
        width: Math.min(520, root.width - 2 * Theme.spacingXl)
        standardButtons: Dialog.Open | Dialog.Cancel
        onAccepted: Qt.openUrlExternally(url)
        Label {
            width: parent.width
            text: qsTr("The reply links to:\n%1").arg(linkBox.url)
            textFormat: Text.PlainText
            wrapMode: Text.WrapAnywhere
            font: Theme.bodyFont
        }
    }
}
