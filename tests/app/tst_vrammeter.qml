// VramMeter against a stand-in MemoryMeter: each category's segment is as wide as its share of
// the device's memory, the GPU is named with its totals, the legend gives every figure in GiB,
// and on the CPU backend the meter says why no GPU is used; a remote model uses none of it. Also
// the history chart's scale.
import QtQuick
import QtTest
import Hearth

Item {
    id: root
    width: 800
    height: 600

    readonly property real gib: 1073741824

    // The properties VramMeter reads from a MemoryMeter.
    component FakeMeter: QtObject {
        property bool valid: true
        property bool loaded: true
        property string deviceName: "NVIDIA GeForce RTX 4090"
        property bool onGpu: true
        property real weightsBytes: 9 * root.gib
        property real kvCacheBytes: 2 * root.gib
        property real recurrentStateBytes: 0
        property real workspaceBytes: 0.5 * root.gib
        property real deviceContextBytes: 0.5 * root.gib
        property real usedBytes: weightsBytes + kvCacheBytes + recurrentStateBytes + workspaceBytes + deviceContextBytes
        property real otherProcessesBytes: 4 * root.gib
        property real freeBytes: 8 * root.gib
        property real totalBytes: 24 * root.gib
        property string noGpuReason: ""
        property var historyBytes: [10 * root.gib, 12 * root.gib, 12 * root.gib]
        property var historySecondsAgo: [120, 60, 0]
        property int historyWindowSeconds: 300
    }

    Component {
        id: fakeMeter
        FakeMeter {}
    }
    Component {
        id: meterComponent
        VramMeter { width: 400 }
    }

    TestCase {
        name: "VramMeter"
        when: windowShown

        // Depth first through `data`, which holds the items and the popups.
        function find(item, name) {
            if (item.objectName === name)
                return item
            const parts = item.data || []
            for (let i = 0; i < parts.length; ++i) {
                const found = find(parts[i], name)
                if (found)
                    return found
            }
            return null
        }

        function test_segmentsAreProportional() {
            const meter = createTemporaryObject(fakeMeter, root)
            const view = createTemporaryObject(meterComponent, root, { memoryMeter: meter })
            const bar = find(view, "bar")
            verify(bar)
            tryVerify(() => bar.width > 0)
            const expected = {
                weights: meter.weightsBytes, kvCache: meter.kvCacheBytes, recurrent: 0,
                workspace: meter.workspaceBytes, context: meter.deviceContextBytes,
                other: meter.otherProcessesBytes, free: meter.freeBytes,
            }
            let sum = 0
            for (const key in expected) {
                const segment = find(view, "segment_" + key)
                verify(segment, key)
                fuzzyCompare(segment.width, bar.width * expected[key] / meter.totalBytes, 0.01)
                sum += segment.width
            }
            fuzzyCompare(sum, bar.width, 0.05) // the parts fill the bar: 24 GiB in all
            verify(find(view, "segment_weights").width > find(view, "segment_kvCache").width)
            compare(find(view, "deviceTitle").text, "NVIDIA GeForce RTX 4090")
            verify(find(view, "summary").text.indexOf("24.0") >= 0, find(view, "summary").text)
            verify(!find(view, "noGpuReason").visible)

            // A new report moves the segments.
            meter.kvCacheBytes = 6 * root.gib
            meter.freeBytes = 4 * root.gib
            fuzzyCompare(find(view, "segment_kvCache").width, bar.width * 6 / 24, 0.01)
            fuzzyCompare(find(view, "segment_free").width, bar.width * 4 / 24, 0.01)
        }

        function test_cpuShowsTheReason() {
            const meter = createTemporaryObject(fakeMeter, root, {
                onGpu: false, deviceName: "AMD Ryzen 9 7950X", deviceContextBytes: 0,
                weightsBytes: 2 * root.gib, kvCacheBytes: 0.5 * root.gib, workspaceBytes: 0,
                otherProcessesBytes: 10 * root.gib, freeBytes: 19.5 * root.gib, totalBytes: 32 * root.gib,
                noGpuReason: "No NVIDIA driver found",
            })
            const view = createTemporaryObject(meterComponent, root, { memoryMeter: meter })
            const reason = find(view, "noGpuReason")
            verify(reason.visible)
            compare(reason.text, "No NVIDIA driver found")
            verify(find(view, "deviceTitle").text.indexOf("AMD Ryzen 9 7950X") >= 0)
            // The RAM the model uses: 2.5 GiB of 32.
            verify(find(view, "summary").text.indexOf("2.5") >= 0, find(view, "summary").text)
            const bar = find(view, "bar")
            fuzzyCompare(find(view, "segment_weights").width, bar.width * 2 / 32, 0.01)
            compare(find(view, "segment_context").width, 0)
        }

        function test_remoteModelUsesNoMemoryHere() {
            const meter = createTemporaryObject(fakeMeter, root, {
                onGpu: false, loaded: false, deviceName: "AMD Ryzen 9 7950X", noGpuReason: "No NVIDIA driver found",
            })
            const view = createTemporaryObject(meterComponent, root, {
                memoryMeter: meter, remoteServer: "Lab vLLM", remoteModel: "Qwen/Qwen3-8B",
            })
            compare(find(view, "deviceTitle").text, "Remote · Lab vLLM")
            compare(find(view, "summary").text, "none used here")
            verify(!find(view, "noGpuReason").visible) // this computer's GPU is not the question now
            verify(find(view, "bar").opacity < 1)
            mouseClick(view)
            const details = find(view, "details")
            tryCompare(details, "opened", true)
            const note = find(details.contentItem, "remoteNote")
            verify(note.visible)
            verify(note.text.indexOf("Qwen/Qwen3-8B") >= 0 && note.text.indexOf("Lab vLLM") >= 0, note.text)
            details.close()
            view.remoteServer = ""
            verify(find(view, "deviceTitle").text.indexOf("AMD Ryzen 9 7950X") >= 0)
            verify(find(view, "noGpuReason").visible)
        }

        function test_noReportYet() {
            const meter = createTemporaryObject(fakeMeter, root, { valid: false })
            const view = createTemporaryObject(meterComponent, root, { memoryMeter: meter })
            compare(find(view, "segment_weights"), null) // nothing to split yet
            verify(!find(view, "noGpuReason").visible)
            const empty = createTemporaryObject(meterComponent, root)
            verify(empty) // no meter at all: no errors
        }

        function test_detailsListEveryCategory() {
            const meter = createTemporaryObject(fakeMeter, root)
            const view = createTemporaryObject(meterComponent, root, { memoryMeter: meter })
            mouseClick(view)
            const details = find(view, "details")
            tryCompare(details, "opened", true)
            const weights = find(details.contentItem, "legend_weights")
            verify(weights.visible)
            compare(find(weights, "legendValue").text, "9.0 GiB")
            compare(find(find(details.contentItem, "legend_other"), "legendValue").text, "4.0 GiB")
            verify(!find(details.contentItem, "legend_recurrent").visible) // none on this model
            const chart = find(details.contentItem, "historyChart")
            compare(chart.historyBytes.length, 3)
            compare(chart.topBytes, 24 * root.gib)
            details.close()
        }

        // A hybrid model's recurrent state: its own segment and legend line, in Hearth's use.
        function test_recurrentStateIsItsOwnCategory() {
            const meter = createTemporaryObject(fakeMeter, root, { recurrentStateBytes: 1.5 * root.gib,
                                                                   freeBytes: 6.5 * root.gib })
            const view = createTemporaryObject(meterComponent, root, { memoryMeter: meter })
            const bar = find(view, "bar")
            tryVerify(() => bar.width > 0)
            fuzzyCompare(find(view, "segment_recurrent").width, bar.width * 1.5 / 24, 0.01)
            mouseClick(view)
            const details = find(view, "details")
            tryCompare(details, "opened", true)
            const recurrent = find(details.contentItem, "legend_recurrent")
            verify(recurrent.visible)
            compare(find(recurrent, "legendValue").text, "1.5 GiB")
            details.close()
        }

        function test_chartScalesSmallUse() {
            const chart = createTemporaryObject(Qt.createComponent("qrc:/Hearth/VramHistoryChart.qml"), root, {
                historyBytes: [0.1 * root.gib, 0.2 * root.gib], historySecondsAgo: [10, 0], totalBytes: 24 * root.gib,
            })
            verify(chart)
            // Far under a tenth of the device: twice the peak, so the line is visible.
            fuzzyCompare(chart.topBytes, 0.4 * root.gib, 1)
        }
    }
}
