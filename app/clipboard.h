// The system clipboard for QML (plain text): copy buttons call Clipboard.setText(...).
#pragma once

#include <QObject>
#include <QQmlEngine>

class Clipboard : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

public:
    explicit Clipboard(QObject* parent = nullptr) : QObject(parent) {}

    Q_INVOKABLE void setText(const QString& text);
    Q_INVOKABLE QString text() const;
};
