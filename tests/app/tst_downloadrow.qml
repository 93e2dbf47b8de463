// DownloadRow in each state a download can be in: what it says and which verbs it offers
// (Pause while it runs, Resume or Retry when stopped, Remove from list once downloaded), with the
// progress bar following the fraction and the reason of a failure shown.
import QtQuick
import QtTest
import Hearth

Item {
    id: root
    width: 700
    height: 400

    Component {
        id: rowComponent
        DownloadRow {
            width: 600
            downloadId: 7
            name: "Qwen3 8B · Q4_K_M"
            downloadState: "running"
            stateText: "Downloading"
            detail: "1.2 GiB of 4.7 GiB · 35.0 MiB/s · 2 min left"
            fraction: 0.25
            license: "apache-2.0"
            canPause: true
            canResume: false
        }
    }

    TestCase {
        name: "DownloadRow"
        when: windowShown

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

        function test_running() {
            const row = createTemporaryObject(rowComponent, root)
            verify(find(row, "pauseButton").visible)
            verify(!find(row, "resumeButton").visible)
            compare(find(row, "cancelButton").text, "Cancel")
            compare(find(row, "downloadProgress").value, 0.25)
            verify(!find(row, "downloadProgress").indeterminate)
            compare(find(row, "downloadDetail").text, "1.2 GiB of 4.7 GiB · 35.0 MiB/s · 2 min left")
        }

        function test_unknownSizeIsIndeterminate() {
            const row = createTemporaryObject(rowComponent, root, { fraction: -1 })
            verify(find(row, "downloadProgress").indeterminate)
        }

        function test_failedOffersRetry() {
            const row = createTemporaryObject(rowComponent, root, {
                downloadState: "failed", stateText: "Failed", detail: "not found on the server (HTTP 404)",
                canPause: false, canResume: true })
            verify(!find(row, "pauseButton").visible)
            verify(find(row, "resumeButton").visible)
            compare(find(row, "resumeButton").text, "Retry")
            compare(find(row, "downloadDetail").text, "not found on the server (HTTP 404)")
            compare(find(row, "downloadState").text, "Failed")
        }

        function test_pausedOffersResume() {
            const row = createTemporaryObject(rowComponent, root, {
                downloadState: "paused", stateText: "Paused", canPause: false, canResume: true })
            compare(find(row, "resumeButton").text, "Resume")
            verify(find(row, "downloadProgress").visible)
        }

        function test_doneOffersRemoval() {
            const row = createTemporaryObject(rowComponent, root, {
                downloadState: "done", stateText: "Downloaded", fraction: 1, canPause: false, canResume: false })
            verify(!find(row, "pauseButton").visible)
            verify(!find(row, "resumeButton").visible)
            verify(!find(row, "downloadProgress").visible)
            compare(find(row, "cancelButton").text, "Remove from list")
        }
    }
}
