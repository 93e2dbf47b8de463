// One catalog variant on the Library page: its quant, size, licence and the engine's estimate for
// this machine (fits / tight / does not fit, the largest context, on the CPU the speed class),
// "Recommended" for the best fit of its family, "Coming" for an architecture Hearth does not run
// yet, "Size unknown" where the catalog lacks the model's sizes (offered, but not estimated); the
// family's heading above its first variant. Download asks the page (which shows the licence first).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Hearth

Item {
    id: root

    // CatalogVariantModel's roles
    required property bool firstInFamily
    required property string familyName
    required property string publisher
    required property string parameters
    required property string spec
    required property string quant
    required property string format
    required property int fileCount
    required property bool shardsFromIndex
    required property real sizeBytes
    required property string license
    required property bool coming
    required property string requires
    required property bool fitReady
    required property string verdict
    required property bool sizesUnknown
    required property bool needsFreeing
    required property real estimatedBytes
    required property real weightsBytes
    required property int context
    required property int maxContext
    required property string speed
    required property real tokensPerSecond
    required property bool recommended
    required property bool downloaded
    required property string error

    property string deviceName
    property bool cpuOnly: false

    signal downloadRequested()

    readonly property string sizeText: sizeBytes > 0 ? Units.size(sizeBytes)
                                       : weightsBytes > 0 ? qsTr("about %1 (size not published)").arg(Units.size(weightsBytes))
                                       : qsTr("size not published")
    readonly property string badgeText: coming ? qsTr("Coming")
                                        : !fitReady ? qsTr("Estimating…")
                                        : sizesUnknown ? qsTr("Size unknown")
                                        : verdict === "fits" ? qsTr("Fits")
                                        : verdict === "tight" ? qsTr("Tight")
                                        : verdict === "no" ? qsTr("Does not fit") : qsTr("Unknown")
    readonly property string speedText: speed === "fast" ? qsTr("fast")
                                        : speed === "usable" ? qsTr("usable")
                                        : speed === "slow" ? qsTr("slow")
                                        : speed === "very-slow" ? qsTr("very slow") : ""
    readonly property string fitText: {
        if (coming)
            return qsTr("Needs the %1 architecture, which this version of Hearth does not run yet.").arg(requires)
        if (!fitReady)
            return ""
        if (sizesUnknown)
            return qsTr("The catalog does not list this model's sizes, so Hearth cannot estimate whether it fits. Once it is downloaded, the library estimates it from the file.")
        if (verdict === "unknown")
            return error
        let text = verdict === "no"
            ? qsTr("Needs about %1 at %2 context: more than %3 can hold.").arg(Units.size(estimatedBytes)).arg(Units.tokens(context)).arg(deviceName)
            : needsFreeing
            ? qsTr("Needs about %1 at %2 context: %3 holds it, but other programs use its memory now.").arg(Units.size(estimatedBytes)).arg(Units.tokens(context)).arg(deviceName)
            : qsTr("Needs about %1 at %2 context on %3.").arg(Units.size(estimatedBytes)).arg(Units.tokens(context)).arg(deviceName)
        if (maxContext > 0)
            text += " " + qsTr("Fits up to %1 context.").arg(Units.tokens(maxContext))
        if (cpuOnly && speedText.length > 0)
            text += " " + qsTr("On the CPU: %1, at most about %2 tokens per second.").arg(speedText).arg(Math.max(1, Math.round(tokensPerSecond)))
        return text
    }

    // The family's heading sits above its first variant (the model gives no sections).
    implicitHeight: (heading.visible ? heading.implicitHeight : 0) + card.implicitHeight

    Label {
        id: heading
        objectName: "familyHeading"
        visible: root.firstInFamily
        width: parent.width
        topPadding: Theme.spacingM
        bottomPadding: Theme.spacingS
        text: [root.familyName, root.publisher, root.parameters.length > 0 ? qsTr("%1 parameters").arg(root.parameters) : ""]
            .filter(s => s.length > 0).join(" · ")
        textFormat: Text.PlainText
        font: Theme.bodyStrongFont
        color: Theme.textPrimary
        Accessible.role: Accessible.Heading
    }

    Rectangle {
        id: card
        y: heading.visible ? heading.implicitHeight : 0
        width: parent.width
        implicitHeight: content.implicitHeight + 2 * Theme.spacingM
        radius: Theme.radiusM
        color: root.recommended ? Theme.accentSoft : Theme.surfaceSunken
        border.color: root.recommended ? Theme.accentLight : Theme.border
        Accessible.role: Accessible.ListItem
        Accessible.name: root.spec + ", " + root.badgeText + ", " + root.sizeText + ", " + root.fitText

        RowLayout {
            id: content
            anchors.fill: parent
            anchors.margins: Theme.spacingM
            spacing: Theme.spacingM

            ColumnLayout {
                Layout.fillWidth: true
                spacing: Theme.spacingXs

                RowLayout {
                    spacing: Theme.spacingS
                    Label {
                        text: root.quant
                        font: Theme.bodyStrongFont
                        color: Theme.textPrimary
                    }
                    Label {
                        objectName: "fitBadge"
                        text: root.badgeText
                        font: Theme.chipFont
                        padding: Theme.spacingXs
                        color: root.verdict === "fits" && !root.coming ? Theme.goodText : Theme.noticeText
                        background: Rectangle {
                            radius: Theme.radiusS
                            color: root.verdict === "fits" && !root.coming ? Theme.goodSoft : Theme.noticeBackground
                        }
                    }
                    Label {
                        objectName: "recommendedBadge"
                        visible: root.recommended
                        text: qsTr("Recommended")
                        font: Theme.chipFont
                        padding: Theme.spacingXs
                        color: Theme.accentText
                        background: Rectangle { radius: Theme.radiusS; color: Theme.surface }
                    }
                    Label {
                        visible: root.downloaded
                        text: qsTr("Downloaded")
                        font: Theme.chipFont
                        padding: Theme.spacingXs
                        color: Theme.goodText
                        background: Rectangle { radius: Theme.radiusS; color: Theme.goodSoft }
                    }
                }
                Label {
                    Layout.fillWidth: true
                    text: [root.sizeText,
                           root.format === "safetensors" ? (root.shardsFromIndex ? qsTr("Hugging Face folder, shards as its index lists them")
                                                                                 : qsTr("Hugging Face folder, %1 files").arg(root.fileCount))
                                                         : root.fileCount > 1 ? qsTr("GGUF in %1 parts").arg(root.fileCount) : "GGUF",
                           qsTr("licence: %1").arg(root.license)].join(" · ")
                    textFormat: Text.PlainText
                    font: Theme.smallFont
                    color: Theme.textSecondary
                    elide: Text.ElideRight
                }
                Label {
                    objectName: "fitText"
                    Layout.fillWidth: true
                    visible: text.length > 0
                    text: root.fitText
                    textFormat: Text.PlainText
                    font: Theme.smallFont
                    color: root.verdict === "fits" && !root.coming ? Theme.textSecondary : Theme.noticeText
                    wrapMode: Text.Wrap
                }
            }

            Button {
                objectName: "downloadButton"
                Layout.alignment: Qt.AlignVCenter
                text: root.downloaded ? qsTr("Downloaded") : qsTr("Download")
                visible: !root.coming // nothing to offer until Hearth runs it
                enabled: !root.coming && !root.downloaded
                Accessible.name: qsTr("Download %1").arg(root.spec)
                onClicked: root.downloadRequested()
            }
        }
    }
}
