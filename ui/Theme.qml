// Colours, spacing and type for every view. Light or dark as AppSettings.theme says ("system":
// the system palette's lightness; Qt 6.4 has no colour-scheme API); type scaled by AppSettings.fontSize.
pragma Singleton
import QtQuick
import Hearth.App

QtObject {
    readonly property SystemPalette systemPalette: SystemPalette { colorGroup: SystemPalette.Active }
    readonly property bool systemDark: systemPalette.window.hslLightness < 0.5
    // Tests and screenshots may set it directly.
    property bool dark: AppSettings.theme === "dark" || (AppSettings.theme === "system" && systemDark)

    // Surfaces
    readonly property color background: dark ? "#161513" : "#f5f3ef"
    readonly property color surface: dark ? "#211f1c" : "#ffffff"
    readonly property color surfaceSunken: dark ? "#2a2825" : "#f8f6f2"
    readonly property color border: dark ? "#37332e" : "#e8e3db"
    readonly property color shadow: dark ? "#26000000" : "#0a3a2a14"

    // Text
    readonly property color textPrimary: dark ? "#efebe6" : "#1f1c19"
    readonly property color textSecondary: dark ? "#aaa49b" : "#6b665e"
    readonly property color textTertiary: dark ? "#7f796f" : "#9a948a"

    // Brand: ember
    readonly property color accent: dark ? "#f07a3f" : "#e0602a"
    readonly property color accentLight: dark ? "#f6a765" : "#f29a4a"
    readonly property color accentSoft: dark ? "#3a251a" : "#fcebe1"
    readonly property color accentText: dark ? "#f6a775" : "#b4471a"
    readonly property color textOnAccent: "#ffffff"

    // States
    readonly property color goodSoft: dark ? "#1c3328" : "#e3f4ea"
    readonly property color goodText: dark ? "#7ad3a2" : "#1e7a4c"
    readonly property color neutralSoft: dark ? "#322f2b" : "#f0ede8"
    readonly property color noticeBackground: dark ? "#2e2616" : "#fff7e8"
    readonly property color noticeBorder: dark ? "#5a4620" : "#f1dcae"
    readonly property color noticeIcon: dark ? "#f2b33d" : "#d18a07"
    readonly property color noticeText: dark ? "#f1dcae" : "#5f430f"
    readonly property color meterTrack: dark ? "#3a3631" : "#ebe6de"

    // The VRAM meter's categories: told apart by hue, free memory is the track itself.
    readonly property color memoryWeights: accent
    readonly property color memoryKvCache: dark ? "#5b9bf0" : "#2f6fd0"
    readonly property color memoryRecurrent: dark ? "#b08cf0" : "#7a4fc9"
    readonly property color memoryWorkspace: dark ? "#4cc2b0" : "#178f7e"
    readonly property color memoryContext: dark ? "#e8c14a" : "#c29109"
    readonly property color memoryOther: dark ? "#8a847b" : "#a39d93"
    readonly property color memoryFree: meterTrack

    // Markdown in replies
    readonly property color codeBackground: dark ? "#1b1a18" : "#f3f0ea"
    readonly property color inlineCodeBackground: dark ? "#35322d" : "#ece7df"
    readonly property color quoteBar: dark ? "#4a453e" : "#ddd6cb"

    // Spacing (px)
    readonly property int spacingXs: 4
    readonly property int spacingS: 8
    readonly property int spacingM: 12
    readonly property int spacingL: 16
    readonly property int spacingXl: 24
    readonly property int spacingXxl: 32
    readonly property int spacingXxxl: 40

    // Shapes (px)
    readonly property int radiusS: 6
    readonly property int radiusM: 10
    readonly property int radiusL: 18
    readonly property int cardWidth: 580
    readonly property int brandMarkSize: 56
    readonly property int deviceChipSize: 40
    readonly property int meterHeight: 4

    // Type: sizes are for the default 14 px body text and scale with the font-size setting.
    readonly property real fontScale: AppSettings.fontSize / 14
    function px(size) { return Math.round(size * fontScale) }
    readonly property font titleFont: Qt.font({ pixelSize: px(28), weight: Font.DemiBold })
    readonly property font subtitleFont: Qt.font({ pixelSize: px(15) })
    readonly property font bodyFont: Qt.font({ pixelSize: px(14) })
    readonly property font bodyStrongFont: Qt.font({ pixelSize: px(14), weight: Font.DemiBold })
    readonly property font smallFont: Qt.font({ pixelSize: px(12) })
    readonly property font captionFont: Qt.font({ pixelSize: px(11), weight: Font.DemiBold,
                                                  letterSpacing: 0.8, capitalization: Font.AllUppercase })
    readonly property font chipFont: Qt.font({ pixelSize: px(11), weight: Font.Bold, letterSpacing: 0.5 })
    readonly property font brandFont: Qt.font({ pixelSize: px(28), weight: Font.Bold })
    readonly property font monoFont: Qt.font({ family: "monospace", pixelSize: px(13) })

    // Markdown headings: level 1 largest, 4 to 6 at body size.
    function headingFont(level) {
        const sizes = [22, 19, 16, 14, 14, 14]
        return Qt.font({ pixelSize: px(sizes[Math.max(1, Math.min(6, level)) - 1]), weight: Font.DemiBold })
    }
}
