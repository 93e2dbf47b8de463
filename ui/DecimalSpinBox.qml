// A SpinBox for a real number (SpinBox itself counts in integers): `realValue` shown with
// `decimals` decimals in the user's locale; `zeroText` replaces 0 when set ("No limit").
import QtQuick
import QtQuick.Controls.Basic

SpinBox {
    id: root

    property real realValue: 0
    property real realFrom: 0
    property real realTo: 1
    property real realStep: 0.1
    property int decimals: 2
    property string zeroText

    signal realValueModified(real value)

    readonly property real factor: Math.pow(10, decimals)

    from: Math.round(realFrom * factor)
    to: Math.round(realTo * factor)
    stepSize: Math.max(1, Math.round(realStep * factor))
    value: Math.round(realValue * factor)
    editable: true
    // The default validator takes integers only.
    validator: RegularExpressionValidator { regularExpression: /.*/ }
    textFromValue: (v, locale) => v === 0 && zeroText.length > 0 ? zeroText
                                                               : Number(v / factor).toLocaleString(locale, "f", decimals)
    valueFromText: (text, locale) => {
        if (text === zeroText)
            return 0
        const parsed = Number.fromLocaleString(locale, text)
        return isNaN(parsed) ? value : Math.round(parsed * factor)
    }
    onValueModified: realValueModified(value / factor)
}
