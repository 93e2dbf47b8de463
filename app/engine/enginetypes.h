// The values that travel between the app and the engine thread: what the app asks for, and the
// results, statistics and errors the worker sends back by queued signals. Plain copyable values;
// no engine object ever leaves the worker thread.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include "hearth/devices.h"
#include "hearth/memory.h"
#include "hearth/sampling.h"
#include "hearth/status.h"
#include "modelfacts.h"

enum class DeviceChoice { Auto, Cpu, Cuda };
// "auto", "cpu", "cuda" (the settings' words); anything else is Auto.
DeviceChoice deviceChoiceFromName(const QString& name);

struct LoadRequest {
    QString path;                  // a .gguf file or a Hugging Face folder
    QString quant;                 // a preset applied at load (hearth/quant.h); empty: as stored
    int contextLength = 0;         // KV positions; 0 = the model's, capped at 4096
    DeviceChoice device = DeviceChoice::Auto; // Auto: CUDA when a device is usable, else the CPU
    int threads = 0;               // CPU threads; 0 = all hardware threads
    bool allowRequantize = false;  // convert already-quantized weights (loses quality)
    int gpu = 0;                   // CUDA device ordinal
    hearth::KvType kvType = hearth::KvType::F16; // the KV cache's type, on every backend
};
// A request from QML's words: `options` may hold contextLength, device ("auto", "cpu", "cuda"),
// gpu, kvType ("f16", "bf16", "f32"), threads and allowRequantize; the rest keep their defaults.
LoadRequest loadRequestFrom(const QString& path, const QString& quant, const QVariantMap& options);

enum class LoadPhase {
    Reading,          // opening the file and mapping the weights
    Converting,       // a preset converts the weights on the CPU (the slow part)
    Uploading,        // the weights go to the GPU
    QuantizingOnGpu,  // a 16-bit source goes to the GPU and the preset is applied there
    PreparingContext, // allocating the KV cache
};

struct EngineError {
    hearth::StatusCode code = hearth::StatusCode::Internal;
    QString message; // the engine's words: they name the file, the setting, what was expected
    bool cancelled() const { return code == hearth::StatusCode::Cancelled; }
};
EngineError toEngineError(const hearth::Status& status);

// The model in the worker after a successful load.
struct ModelSummary {
    ModelFacts facts;        // what the file is
    LoadRequest request;     // as asked (device Auto included)
    QString preset;          // the preset applied at load, canonical ("Q8_0"); empty: as stored
    QString quant;           // what the weights are now: the preset, else the file's own label
    int contextSize = 0;     // the session's KV positions
    hearth::DeviceKind device = hearth::DeviceKind::Cpu;
    QString deviceName;
    bool hasTemplate = true; // false: plain completion mode; modeNote says so
    QString modeNote;
};

// A message of the conversation as the app stores it.
struct TurnMessage {
    QString role;            // "system" (first only), "user", "assistant", "tool"
    QString content;
    QString reasoning;       // an assistant's thinking
    QList<qint32> replyIds;  // an assistant's generated ids when kept (ReplyResult::replyIds)
};

// One reply: generate the assistant's answer to `userText` after `history`. Regenerating the last
// reply or editing the last user message is the same request with `history` cut before that user
// message; the worker then rewinds its session instead of recomputing the conversation.
struct TurnRequest {
    QList<TurnMessage> history;
    QString userText;
    QString systemPrompt;              // empty: none
    bool thinking = true;              // the template's enable_thinking
    QString chatTemplate;              // a Jinja override; empty: the model's
    bool dropOldest = true;            // a conversation longer than the context drops old turns
    hearth::SamplingParams sampling = hearth::SamplingParams::chatDefaults();
    int maxTokens = 1024;
    QStringList stop;                  // the reply ends before the first of these (none: no stop text)
    bool seedFixed = false;            // sampling.seed was chosen, not drawn (a remote server is sent it)
};

// Where a reply stands: sent with every streamed piece and at the end.
struct ReplyStats {
    int tokens = 0;              // generated so far (thinking included)
    double elapsedMs = 0;        // since the worker started the request (its own clock)
    double ttftMs = -1;          // -1 until the first token
    double prefillTokPerS = -1;  // -1: nothing to time
    double decodeTokPerS = -1;   // the reply's average so far; -1 until measurable
    int promptTokens = 0;
    int contextUsed = 0;         // prompt + generated tokens
    int contextSize = 0;
};

struct ReplyResult {
    QString content, reasoning;  // the message the session added: store exactly these
    QString stopReason;          // hearth::stopReasonName: "eos", "length", "cancel", ...
    ReplyStats stats;
    int reusedTokens = 0;        // prompt tokens whose KV state was kept from earlier turns
    int droppedMessages = 0;     // old messages left out to fit the context
    bool restored = false;       // the session was rebuilt from the history (a full prefill)
    QList<qint32> replyIds;
};

// A reply that failed: the text so far is the app's to keep, marked.
struct ReplyFailure {
    QString content, reasoning;
    ReplyStats stats;
    EngineError error;
};

// One reading of memory by category, made in the worker thread.
struct MemorySnapshot {
    bool loaded = false;         // false: no model; only `report.device` is filled
    hearth::MemoryReport report;
    bool cudaBuilt = false;
    hearth::CudaUnavailable cudaUnavailable = hearth::CudaUnavailable::None;
    bool cpuChosen = false;      // the CPU was asked for although a GPU is usable
};

Q_DECLARE_METATYPE(LoadRequest)
Q_DECLARE_METATYPE(LoadPhase)
Q_DECLARE_METATYPE(EngineError)
Q_DECLARE_METATYPE(ModelSummary)
Q_DECLARE_METATYPE(TurnRequest)
Q_DECLARE_METATYPE(ReplyStats)
Q_DECLARE_METATYPE(ReplyResult)
Q_DECLARE_METATYPE(ReplyFailure)
Q_DECLARE_METATYPE(MemorySnapshot)
