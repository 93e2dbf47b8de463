#include "openaiwire.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace openai {
namespace {

QJsonObject objectOf(const QByteArray& bytes, bool* ok)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    *ok = error.error == QJsonParseError::NoError && doc.isObject();
    return doc.object();
}

QString errorOf(const QJsonObject& o)
{
    const QJsonValue error = o.value(QLatin1String("error"));
    if (error.isObject()) {
        const QString message = error.toObject().value(QLatin1String("message")).toString();
        return message.isEmpty() ? QString::fromUtf8(QJsonDocument(error.toObject()).toJson(QJsonDocument::Compact))
                                 : message;
    }
    if (error.isString())
        return error.toString();
    if (o.value(QLatin1String("object")).toString() == QLatin1String("error"))
        return o.value(QLatin1String("message")).toString();
    const QJsonValue detail = o.value(QLatin1String("detail")); // FastAPI (vLLM, SGLang)
    if (detail.isString())
        return detail.toString();
    if (detail.isArray() || detail.isObject())
        return QString::fromUtf8(QJsonDocument::fromVariant(detail.toVariant()).toJson(QJsonDocument::Compact));
    return {};
}

QString textOf(const QJsonObject& part, const char* key)
{
    return part.value(QLatin1String(key)).toString();
}

Chunk readObject(const QJsonObject& o, const char* part)
{
    Chunk c;
    c.error = errorOf(o);
    const QJsonArray choices = o.value(QLatin1String("choices")).toArray();
    if (!choices.isEmpty()) {
        const QJsonObject choice = choices.first().toObject();
        const QJsonObject delta = choice.value(QLatin1String(part)).toObject();
        c.content = textOf(delta, "content");
        c.reasoning = textOf(delta, "reasoning_content");
        if (c.reasoning.isEmpty())
            c.reasoning = textOf(delta, "reasoning");
        c.finishReason = textOf(choice, "finish_reason");
    }
    const QJsonObject usage = o.value(QLatin1String("usage")).toObject();
    c.promptTokens = usage.value(QLatin1String("prompt_tokens")).toInt(-1);
    c.completionTokens = usage.value(QLatin1String("completion_tokens")).toInt(-1);
    const QJsonObject timings = o.value(QLatin1String("timings")).toObject();
    c.promptPerSecond = timings.value(QLatin1String("prompt_per_second")).toDouble(-1);
    c.predictedPerSecond = timings.value(QLatin1String("predicted_per_second")).toDouble(-1);
    return c;
}

} // namespace

QByteArray chatRequestBody(const QString& model, const TurnRequest& request)
{
    QJsonArray messages;
    auto add = [&messages](const QString& role, const QString& content) {
        messages.append(QJsonObject{{QStringLiteral("role"), role}, {QStringLiteral("content"), content}});
    };
    if (!request.systemPrompt.isEmpty())
        add(QStringLiteral("system"), request.systemPrompt);
    for (const TurnMessage& m : request.history)
        add(m.role, m.content); // earlier thinking stays out, as the chat templates leave it out
    add(QStringLiteral("user"), request.userText);

    const hearth::SamplingParams& s = request.sampling;
    QJsonObject body{{QStringLiteral("model"), model},
                     {QStringLiteral("messages"), messages},
                     {QStringLiteral("stream"), true},
                     {QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}}},
                     {QStringLiteral("max_tokens"), qMax(1, request.maxTokens)},
                     {QStringLiteral("temperature"), double(qMax(0.0f, s.temperature))}};
    if (s.topP < 1.0f)
        body.insert(QStringLiteral("top_p"), double(s.topP));
    if (s.topK > 0)
        body.insert(QStringLiteral("top_k"), s.topK);
    if (s.minP > 0.0f)
        body.insert(QStringLiteral("min_p"), double(s.minP));
    if (s.repetitionPenalty != 1.0f)
        body.insert(QStringLiteral("repetition_penalty"), double(s.repetitionPenalty));
    if (request.seedFixed)
        body.insert(QStringLiteral("seed"), double(s.seed)); // JSON numbers: exact below 2^53
    if (!request.stop.isEmpty())
        body.insert(QStringLiteral("stop"), QJsonArray::fromStringList(request.stop));
    if (!request.thinking)
        body.insert(QStringLiteral("chat_template_kwargs"), QJsonObject{{QStringLiteral("enable_thinking"), false}});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

Chunk readEvent(const SseEvent& event)
{
    Chunk c;
    const QByteArray data = event.data.trimmed();
    if (data == "[DONE]") {
        c.done = true;
        return c;
    }
    bool ok = false;
    const QJsonObject o = objectOf(data, &ok);
    if (!ok) {
        c.malformed = true;
        // An "error" event with plain text is still an error.
        if (event.type == "error")
            c.error = QString::fromUtf8(data);
        return c;
    }
    c = readObject(o, "delta");
    if (event.type == "error" && c.error.isEmpty())
        c.error = QString::fromUtf8(data);
    return c;
}

Chunk readCompletion(const QByteArray& body)
{
    bool ok = false;
    const QJsonObject o = objectOf(body, &ok);
    if (!ok) {
        Chunk c;
        c.malformed = true;
        return c;
    }
    Chunk c = readObject(o, "message");
    c.done = c.error.isEmpty();
    return c;
}

QString errorMessage(const QByteArray& body)
{
    bool ok = false;
    const QJsonObject o = objectOf(body, &ok);
    return ok ? errorOf(o) : QString();
}

ModelList readModels(const QByteArray& body)
{
    ModelList list;
    bool ok = false;
    const QJsonObject o = objectOf(body, &ok);
    const QJsonValue data = o.value(QLatin1String("data"));
    if (!ok || !data.isArray()) {
        list.error = ok && !errorOf(o).isEmpty()
                         ? errorOf(o)
                         : QCoreApplication::translate("OpenAi", "The answer is not a list of models.");
        return list;
    }
    for (const QJsonValue& v : data.toArray()) {
        const QJsonObject m = v.toObject();
        const QString id = m.value(QLatin1String("id")).toString();
        if (!id.isEmpty())
            list.models.append({id, m.value(QLatin1String("max_model_len")).toInt(0)});
    }
    return list;
}

} // namespace openai
