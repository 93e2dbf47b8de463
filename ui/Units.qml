// How sizes and counts read in the views: bytes as MiB/GiB with one decimal in the user's
// locale, token counts as "4K". One place, so the meter, the picker and settings agree.
pragma Singleton
import QtQml

QtObject {
    function gib(bytes) {
        return qsTr("%1 GiB").arg(Number(bytes / 1073741824).toLocaleString(Qt.locale(), "f", 1))
    }
    // MiB below 1 GiB, GiB above.
    function size(bytes) {
        if (bytes < 1073741824)
            return qsTr("%1 MiB").arg(Number(bytes / 1048576).toLocaleString(Qt.locale(), "f", 1))
        return gib(bytes)
    }
    // 4096 → "4K", 131072 → "128K", 1000 → "1000".
    function tokens(count) {
        return count >= 1024 && count % 1024 === 0 ? qsTr("%1K").arg(count / 1024) : String(count)
    }
}
