// What writes a reply for the chat: the local engine (EngineHost) or an OpenAI-compatible server
// (RemoteBackend, app/remote/). ChatController and LiveStats talk to this interface alone, so
// the chat view, its history, its stop button and its numbers are the same for both.
// A turn is asked for with startTurn, which returns an id at once; every result signal carries
// it. stop() ends the reply in progress before its next token, and it finishes with stop reason
// "cancel" and the text so far. GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QQmlEngine>

#include "enginetypes.h"

// Who wrote a reply, as the history keeps it with the reply and the conversation.
struct ReplyOrigin {
    QString model;  // a file's or a server's model name
    QString quant;  // empty for a remote model
    QString device; // a device name, or the connection's name for a remote model
    QString source; // the model's path, or "<model> @ <base URL>"
};

class ReplyBackend : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("a reply backend is the engine or a remote connection")
    Q_PROPERTY(bool generating READ isGenerating NOTIFY generatingChanged)

public:
    using QObject::QObject;

    // Starts a reply to `request`; replies run one after another in the order asked.
    virtual quint64 startTurn(const TurnRequest& request) = 0;
    // Stops the reply in progress and any queued one.
    Q_INVOKABLE virtual void stop() = 0;
    virtual bool isGenerating() const = 0;
    virtual ReplyOrigin origin() const = 0;

signals:
    // New text since the last piece (either may be empty) and the statistics so far.
    void replyPieces(quint64 id, const QString& content, const QString& reasoning, const ReplyStats& stats);
    void replyFinished(quint64 id, const ReplyResult& result); // stopped replies too ("cancel")
    void replyFailed(quint64 id, const ReplyFailure& failure);
    void generatingChanged();
};

// For an object that follows one engine or backend at a time (LiveStats, LocalModels,
// MemoryMeter, Diagnostics): points `current` at `next`, dropping every connection from the one
// before to `receiver`. False, with nothing changed, when `current` is `next` already.
template <typename Source>
bool followEngine(QObject* receiver, QPointer<Source>& current, Source* next)
{
    if (current == next)
        return false;
    if (current)
        QObject::disconnect(current, nullptr, receiver, nullptr);
    current = next;
    return true;
}
