// The backend contract: what the runtime needs from a compute device.
//
// A DeviceModel is a loaded model's weights on one device — uploaded (and, on a GPU, repacked)
// once, shared by every session of that model. A BackendSession is one conversation's state on
// that device: KV cache, recurrent state, snapshots, workspace (later CUDA graphs). The CPU
// backend defines the reference results; every other backend is tested against it.
//
//     HEARTH_ASSIGN(auto device, createDeviceModel(loaded, {DeviceKind::Cpu}));
//     HEARTH_ASSIGN(auto state, device->createSession({.contextLength = 4096}));
//     HEARTH_ASSIGN(int32_t done, state->prefill(prompt /*all but the last*/, 0, LogitsWanted::None, logits, cancel));
//     HEARTH_ASSIGN(int32_t next, state->decode(prompt.back(), n - 1, sampler, nullptr));
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hearth/devices.h"
#include "hearth/status.h"

namespace hearth {

struct LoadedModel;
struct ModelConfig;
class Sampler;

enum class LogitsWanted {
    None, // prompt tokens whose logits nobody reads: no LM head
    Last, // the last token's [vocab] logits
    All,  // [tokens x vocab] (teacher-forced tests)
};

// Bytes a session's state holds, by category (the memory report's per-session part).
struct StateBytes {
    uint64_t kvCache = 0;
    uint64_t recurrentState = 0;
    uint64_t workspace = 0;
};

// The KV cache's element type (the runtime maps hearth::KvType onto it: backend/ sits below the
// public API's memory header).
enum class KvCacheType { F32, F16, BF16 };

uint64_t kvCacheElementBytes(KvCacheType type); // 4 or 2

struct SessionConfig {
    int32_t contextLength = 0; // KV positions; 0: the model's, capped at 4096
    KvCacheType kvType = KvCacheType::F32; // K and V are stored as this (rounded on write) on every backend
};

class BackendSession {
public:
    virtual ~BackendSession() = default;
    virtual int32_t contextLength() const = 0; // KV cache capacity in positions

    // Runs `tokens` at positions start, start+1, ... (state at those positions is overwritten).
    // `logits` receives what `which` asks for (resized; untouched for None). Checks `cancel`
    // (may be null) between tokens or chunks and returns how many tokens it processed, fewer
    // than tokens.size() only when cancelled. Errors: InvalidArgument for positions outside the
    // context or ids outside the vocabulary; the state past `start` is then undefined.
    virtual Result<int32_t> prefill(std::span<const int32_t> tokens, int32_t start, LogitsWanted which,
                                    std::vector<float>& logits, const std::atomic<bool>* cancel) = 0;

    // Runs `token` at `pos` and samples the next token from its logits with `sampler` — its
    // settings, its random stream and its history — where the logits are (the CPU on the host, a
    // GPU on the device); only the id comes back. `logits`, when not null, receives them too.
    // The caller accepts the returned id into the sampler when it keeps it.
    virtual Result<int32_t> decode(int32_t token, int32_t pos, Sampler& sampler, std::vector<float>* logits) = 0;

    // State snapshots, so that a session can go back to an earlier position (regenerate, edit,
    // the next turn after a template dropped text, speculative decoding). Attention KV can be
    // cut at any position, so attention-only models keep nothing and restore anywhere;
    // recurrent state (Qwen3.5) can only return to positions it saved.
    // Marks `pos` (the number of tokens processed) as a turn boundary worth keeping.
    virtual void checkpoint(int32_t /*pos*/) {}
    // Prepares to continue from `pos`; returns the position the state was restored to (<= pos;
    // the caller re-runs the tokens in between).
    virtual int32_t rewindTo(int32_t pos) { return pos; }

    virtual StateBytes stateBytes() const = 0;
};

class DeviceModel {
public:
    virtual ~DeviceModel() = default;
    virtual DeviceKind kind() const = 0;
    virtual std::string deviceName() const = 0;
    // The device as it is now (total and free memory read fresh).
    virtual DeviceInfo deviceInfo() const = 0;
    virtual uint64_t weightBytes() const = 0;          // the weights as the device holds them
    virtual uint64_t deviceContextBytes() const { return 0; } // CUDA context and libraries
    // Errors: OutOfMemory when the session's state does not fit; InvalidArgument.
    virtual Result<std::unique_ptr<BackendSession>> createSession(const SessionConfig& config) const = 0;
};

struct DeviceModelParams {
    DeviceKind kind = DeviceKind::Cpu; // Cpu or Cuda (Auto is resolved by the caller)
    int32_t threads = 0; // CPU threads; 0: all hardware threads
    bool fastCpuKernels = true; // the CPU's SIMD kernels, or the reference (ModelParams::cpuKernels)
    int32_t gpu = 0;     // CUDA device ordinal
    // Upload progress in [0, 1] and cancellation (checked between chunks); either may be null.
    std::function<void(double)> onProgress;
    const std::atomic<bool>* cancel = nullptr;
};

// The backend factory, keyed by device kind. The LoadedModel must outlive the DeviceModel.
// Errors: Unsupported for a device that cannot run models (yet), and the backend's own.
Result<std::unique_ptr<DeviceModel>> createDeviceModel(const LoadedModel& model, const DeviceModelParams& params);

// What a CPU session of `context` positions allocates (the memory estimate's CPU figures;
// cpu.memory checks them against a real session's stateBytes()): with the fast kernels, whose
// prefill holds a chunk of tokens' buffers, unless `fastKernels` is false.
StateBytes cpuSessionBytes(const ModelConfig& config, int32_t context, KvCacheType kvType, bool fastKernels = true);

// Per backend (backend/cpu/cpu_backend.cpp, backend/cuda_backend.cpp).
Result<std::unique_ptr<DeviceModel>> createCpuDeviceModel(const LoadedModel& model, int32_t threads, bool fastKernels);
Result<std::unique_ptr<DeviceModel>> createCudaDeviceModel(const LoadedModel& model, const DeviceModelParams& params);

} // namespace hearth
