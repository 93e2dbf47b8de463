// The engine bridge's QML types as QML sees them (module Hearth.App): they can be made, read
// and set from QML; with no engine attached they stay empty.
import QtQuick
import QtTest
import Hearth.App

TestCase {
    name: "EngineTypes"

    MemoryMeter { id: meter; active: false }
    LiveStats { id: stats }
    LocalModels { id: models }

    function test_memoryMeter() {
        compare(meter.engine, null)
        compare(meter.valid, false)
        compare(meter.usedBytes, 0)
        compare(meter.noGpuReason, "")
        compare(meter.historyWindowSeconds, 300)
        compare(meter.historyBytes.length, 0)
        meter.intervalMs = 500
        compare(meter.intervalMs, 500)
    }

    function test_liveStats() {
        compare(stats.active, false)
        compare(stats.tokens, 0)
        compare(stats.decodeTokPerS, -1)
        compare(stats.decodeHistory.length, 0)
    }

    function test_localModels() {
        compare(models.count, 0)
        compare(models.device, "auto")
        verify(models.quantOptions !== null)
        compare(models.quantOptions.count, 0)
        models.contextLength = 2048
        compare(models.contextLength, 2048)
        compare(models.indexOfPath("/nonexistent/model.gguf"), -1)
    }
}
