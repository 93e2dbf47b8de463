// What the server needs of a model: its name, and a way to run work with it on the thread that
// owns it. hearth-cli serve owns its Model (LocalGenerator); the app's engine worker owns the
// model it has loaded, and runs the server's requests between the chats of its own window.
// Qt-free.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "hearth/model.h"
#include "hearth/status.h"
#include "server/model_slot.h"

namespace hearth::server {

struct ServedModel {
    std::string id;       // what /v1/models lists and requests name
    int64_t created = 0;  // Unix seconds: when it was loaded
};

// The model's name for the API: its file name without ".gguf", or its folder's name.
std::string modelIdFromPath(const std::string& path);

class Generator {
public:
    virtual ~Generator() = default;
    // The model being served; empty while none is loaded. Any thread.
    virtual std::optional<ServedModel> servedModel() const = 0;
    // Calls `work` with the model and its session slot on the thread that owns them, and returns
    // when `work` has returned. The server calls it from one thread, one request at a time.
    // Errors (work not called): FailedPrecondition when no model is loaded, Cancelled when the
    // owner is shutting down.
    virtual Status withModel(const std::function<void(const Model&, ModelSlot&)>& work) = 0;
    // The server is stopping: a withModel call still waiting for the owner's thread returns
    // Cancelled at once (one already running its work finishes: its job is cancelled). Any thread.
    virtual void interrupt() {}
};

// A Generator over a Model the caller owns and keeps alive (hearth-cli serve): work runs on the
// server's own thread.
class LocalGenerator : public Generator {
public:
    LocalGenerator(const Model& model, const SessionParams& params, std::string chatTemplate = {});
    // Makes the session now, so that a context that does not fit fails at start, not at the
    // first request. Errors: as ChatSession::create.
    Status prepare();
    int32_t contextLength() const { return m_slot.contextLength(); }

    std::optional<ServedModel> servedModel() const override;
    Status withModel(const std::function<void(const Model&, ModelSlot&)>& work) override;

private:
    const Model& m_model;
    ModelSlot m_slot;
    ServedModel m_served;
};

} // namespace hearth::server
