#include "backend/cuda_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace hearth {
namespace {
namespace fs = std::filesystem;

// Where the CUDA module may be: $HEARTH_CUDA_MODULE, beside the executable's lib folders (build
// tree and install tree), then the loader's own search path.
std::vector<std::string> moduleCandidates(const std::string& moduleName) {
    std::vector<std::string> out;
    if (const char* env = std::getenv("HEARTH_CUDA_MODULE"); env && *env) out.emplace_back(env);
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path dir = exe.parent_path();
        for (const fs::path& rel : {fs::path("lib"), fs::path("../lib"), fs::path("../lib/hearth"),
                                    fs::path("../../lib")}) {
            fs::path candidate = dir / rel / moduleName;
            if (fs::exists(candidate, ec)) out.push_back(candidate.lexically_normal().string());
        }
    }
    out.push_back(moduleName);
    return out;
}

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    return fn != nullptr;
}

} // namespace

CudaModule::CudaModule(const std::string& moduleName) {
    if (moduleName.empty()) {
        fail(CudaUnavailable::NotBuilt, "this build of Hearth has no CUDA backend");
        return;
    }
    std::string firstError; // of the first module file that exists: why it would not load
    for (const std::string& candidate : moduleCandidates(moduleName)) {
        m_handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (m_handle) break;
        const char* error = dlerror();
        std::error_code ec;
        if (firstError.empty() && error && (fs::exists(candidate, ec) || candidate == moduleName)) firstError = error;
    }
    if (!m_handle) {
        describeLoadError(moduleName, firstError);
        return;
    }
    auto version = reinterpret_cast<HearthCudaAbiVersionFn>(dlsym(m_handle, "hearth_cuda_abi_version"));
    auto probe = reinterpret_cast<HearthCudaProbeFn>(dlsym(m_handle, "hearth_cuda_probe"));
    if (!version || !probe || version() != HEARTH_CUDA_ABI_VERSION) {
        fail(CudaUnavailable::ModuleMismatch, "the CUDA backend module does not match this version of Hearth");
        return;
    }
    CudaModelApi api;
    const bool complete = resolve(m_handle, "hearth_cuda_model_load", api.modelLoad) &&
                          resolve(m_handle, "hearth_cuda_model_free", api.modelFree) &&
                          resolve(m_handle, "hearth_cuda_model_memory", api.modelMemory) &&
                          resolve(m_handle, "hearth_cuda_session_create", api.sessionCreate) &&
                          resolve(m_handle, "hearth_cuda_session_free", api.sessionFree) &&
                          resolve(m_handle, "hearth_cuda_session_memory", api.sessionMemory) &&
                          resolve(m_handle, "hearth_cuda_session_checkpoint", api.checkpoint) &&
                          resolve(m_handle, "hearth_cuda_session_rewind", api.rewind) &&
                          resolve(m_handle, "hearth_cuda_prefill", api.prefill) &&
                          resolve(m_handle, "hearth_cuda_decode", api.decode);
    if (!complete) {
        fail(CudaUnavailable::ModuleMismatch, "the CUDA backend module does not match this version of Hearth");
        return;
    }
    m_api = api;
    m_probe = probe;
}

CudaModule::~CudaModule() {
    if (m_handle) dlclose(m_handle);
}

const CudaModule& CudaModule::instance() {
    static const CudaModule* module = new CudaModule(HEARTH_CUDA_MODULE_NAME);
    return *module;
}

void CudaModule::fail(CudaUnavailable why, std::string words) {
    m_failure = why;
    m_reason = std::move(words);
}

// dlerror's "libcudart.so.13: cannot open shared object file: ..." in plain words: which
// library is missing (libcuda is the driver's).
void CudaModule::describeLoadError(const std::string& moduleName, const std::string& error) {
    const size_t missing = error.find(": cannot open shared object file");
    if (missing == std::string::npos)
        return fail(CudaUnavailable::ModuleBroken, "the CUDA backend could not be loaded (" + error + ")");
    const std::string library = error.substr(0, missing);
    const std::string file = fs::path(library).filename().string();
    if (file == moduleName)
        return fail(CudaUnavailable::ModuleMissing,
                    "the CUDA backend could not be loaded: its module " + moduleName + " is missing from this installation");
    if (file.rfind("libcuda.so", 0) == 0)
        return fail(CudaUnavailable::NoDriver,
                    "the CUDA backend could not be loaded: no NVIDIA driver is installed (" + file + " was not found)");
    fail(CudaUnavailable::LibraryMissing, "the CUDA backend could not be loaded: it needs " + library + ", which is not installed");
}

} // namespace hearth
