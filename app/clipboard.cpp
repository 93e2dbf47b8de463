#include "clipboard.h"

#include <QClipboard>
#include <QGuiApplication>

namespace {

// Only a QGuiApplication has a clipboard (a QCoreApplication-only test has none).
QClipboard* systemClipboard()
{
    return qobject_cast<QGuiApplication*>(QCoreApplication::instance()) ? QGuiApplication::clipboard() : nullptr;
}

} // namespace

void Clipboard::setText(const QString& text)
{
    if (QClipboard* clipboard = systemClipboard())
        clipboard->setText(text);
}

QString Clipboard::text() const
{
    const QClipboard* clipboard = systemClipboard();
    return clipboard ? clipboard->text() : QString();
}
