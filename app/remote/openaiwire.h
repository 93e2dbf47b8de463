// The OpenAI chat completions API as JSON, both ways: the request body for a turn, one streamed
// chunk (or a whole non-streamed completion), the error object servers send, and the model list
// of GET /v1/models. Tolerant of what vLLM, SGLang and llama-server add or rename: thinking comes
// as `reasoning_content` (llama-server, older vLLM) or `reasoning` (newer vLLM), usage may ride on
// the chunk with the finish reason (llama-server) or on a chunk of its own, and an error may be
// `{"error": {...}}`, `{"error": "..."}`, `{"object": "error", "message": ...}` or FastAPI's
// `{"detail": ...}`. No network here.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "enginetypes.h"
#include "sseparser.h"

namespace openai {

// The body of POST /chat/completions for `request` to `model`, streamed with usage. Sampling
// filters that are off are left out (servers differ in how they spell "off"); the seed only when
// the chat chose one; thinking off as chat_template_kwargs.enable_thinking (vLLM, SGLang and
// llama-server pass it to the model's template).
QByteArray chatRequestBody(const QString& model, const TurnRequest& request);

// What one event of the stream says (all fields optional).
struct Chunk {
    QString content, reasoning; // delta text of choice 0
    QString finishReason;       // "stop", "length", ...; empty: not finished
    int promptTokens = -1, completionTokens = -1;       // usage, when sent
    double promptPerSecond = -1, predictedPerSecond = -1; // llama-server's timings, when sent
    QString error;              // the server reports a failure (its words)
    bool done = false;          // data: [DONE]
    bool malformed = false;     // not a JSON object: ignored, but noted
};
Chunk readEvent(const SseEvent& event);
// A whole chat.completion (a server that answered stream:true without streaming) as one chunk.
Chunk readCompletion(const QByteArray& body);

// The message of an OpenAI-style error body, or empty when `body` is not one.
QString errorMessage(const QByteArray& body);

struct RemoteModel {
    QString id;
    int contextLength = 0; // vLLM's max_model_len; 0: not said
};
struct ModelList {
    QList<RemoteModel> models;
    QString error; // non-empty: not a model list (says what is wrong)
};
ModelList readModels(const QByteArray& body);

} // namespace openai
