// The module's C entry points for models and sessions (backend/cuda_module_abi.h): each turns
// the C call into the C++ objects of this folder and a failed Status into a code and a message.
// No exception and no CUDA error crosses the boundary.
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <new>

#include "backend/cuda/cuda_session.h"
#include "backend/cuda/device_health.h"
#include "backend/cuda/process_memory.h"
#include "backend/cuda/device_weights.h"
#include "backend/cuda_module_abi.h"

struct HearthCudaModel {
    std::unique_ptr<hearth::cuda::DeviceWeights> weights;
};

struct HearthCudaSession {
    HearthCudaModel* model;
    std::unique_ptr<hearth::cuda::CudaSession> session;
};

namespace {

int report(const hearth::Status& status, HearthCudaError* error) {
    if (error) {
        error->code = int(status.code());
        std::snprintf(error->message, sizeof error->message, "%s", status.message().c_str());
    }
    return int(status.code());
}

// Every entry: refused at once when the GPU is lost; a failure is classified (sticky or not).
template <typename F>
int guarded(HearthCudaError* error, F&& f) {
    try {
        if (hearth::Status health = hearth::cuda::deviceHealth(); !health.isOk()) return report(health, error);
        return report(hearth::cuda::classifyFailure(f()), error);
    } catch (const std::bad_alloc&) {
        return report(hearth::outOfMemory("the CUDA backend ran out of host memory"), error);
    } catch (const std::exception& e) {
        return report(hearth::internalError(std::string("the CUDA backend failed: ") + e.what()), error);
    }
}

void fillDevice(int device, HearthCudaMemory* m) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
        std::snprintf(m->deviceName, sizeof m->deviceName, "%s", prop.name);
    size_t freeBytes = 0, totalBytes = 0;
    if (cudaSetDevice(device) == cudaSuccess && cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) {
        m->deviceFree = freeBytes;
        m->deviceTotal = totalBytes;
    }
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int hearth_cuda_model_load(const HearthCudaModelDesc* desc,
                                                                  HearthCudaModel** model, HearthCudaError* error) {
    return guarded(error, [&]() -> hearth::Status {
        if (!desc || !model) return hearth::invalidArgument("null argument");
        *model = nullptr;
        HEARTH_ASSIGN(auto weights, hearth::cuda::DeviceWeights::load(*desc));
        *model = new HearthCudaModel{std::move(weights)};
        return hearth::Status::ok();
    });
}

__attribute__((visibility("default"))) void hearth_cuda_model_free(HearthCudaModel* model) { delete model; }

__attribute__((visibility("default"))) void hearth_cuda_model_memory(const HearthCudaModel* model,
                                                                    HearthCudaMemory* memory) {
    if (!model || !memory) return;
    *memory = HearthCudaMemory{};
    fillDevice(model->weights->device(), memory);
    memory->weights = model->weights->bytes();
    // The CUDA context and libraries: what the driver counts for this process beyond the
    // module's own allocations (0 where NVML cannot tell).
    if (auto held = hearth::cuda::processDeviceBytes(model->weights->device()))
        memory->deviceContext = *held > hearth::cuda::allocatedBytes() ? *held - hearth::cuda::allocatedBytes() : 0;
}

__attribute__((visibility("default"))) int hearth_cuda_session_create(HearthCudaModel* model,
                                                                     const HearthCudaSessionDesc* desc,
                                                                     HearthCudaSession** session,
                                                                     HearthCudaError* error) {
    return guarded(error, [&]() -> hearth::Status {
        if (!model || !desc || !session) return hearth::invalidArgument("null argument");
        *session = nullptr;
        HEARTH_ASSIGN(auto s, hearth::cuda::CudaSession::create(*model->weights, *desc));
        *session = new HearthCudaSession{model, std::move(s)};
        return hearth::Status::ok();
    });
}

__attribute__((visibility("default"))) void hearth_cuda_session_free(HearthCudaSession* session) { delete session; }

__attribute__((visibility("default"))) void hearth_cuda_session_memory(const HearthCudaSession* session,
                                                                      HearthCudaMemory* memory) {
    if (!session || !memory) return;
    hearth_cuda_model_memory(session->model, memory);
    memory->kvCache = session->session->kvCacheBytes();
    memory->recurrentState = session->session->recurrentStateBytes();
    memory->workspace = session->session->workspaceBytes();
    if (memory->deviceContext == 0) memory->deviceContext = session->session->libraryBytes();
}

__attribute__((visibility("default"))) int hearth_cuda_prefill(HearthCudaSession* session, const int32_t* tokens,
                                                              int32_t count, int32_t start, int32_t which,
                                                              float* logits, HearthCudaError* error) {
    return guarded(error, [&]() -> hearth::Status {
        if (!session || !tokens) return hearth::invalidArgument("null argument");
        return session->session->prefill(tokens, count, start, which, logits);
    });
}

__attribute__((visibility("default"))) int hearth_cuda_decode(HearthCudaSession* session, int32_t token, int32_t pos,
                                                             const HearthCudaSampling* sampling, int32_t* sampled,
                                                             float* logits, HearthCudaError* error) {
    return guarded(error, [&]() -> hearth::Status {
        if (!session || !sampling) return hearth::invalidArgument("null argument");
        return session->session->decode(token, pos, *sampling, sampled, logits);
    });
}

__attribute__((visibility("default"))) int hearth_cuda_session_checkpoint(HearthCudaSession* session, int32_t pos,
                                                                         HearthCudaError* error) {
    return guarded(error, [&]() -> hearth::Status {
        if (!session) return hearth::invalidArgument("null argument");
        return session->session->checkpoint(pos);
    });
}

__attribute__((visibility("default"))) int hearth_cuda_session_rewind(HearthCudaSession* session, int32_t pos,
                                                                     int32_t* restored, HearthCudaError* error) {
    return guarded(error, [&]() -> hearth::Status {
        if (!session || !restored) return hearth::invalidArgument("null argument");
        HEARTH_ASSIGN(*restored, session->session->rewindTo(pos));
        return hearth::Status::ok();
    });
}

} // extern "C"
