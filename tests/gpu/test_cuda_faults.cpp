// Faults on the GPU never take the process down (HEARTH_FAULT, engine/backend/cuda/device_health.h):
// an out-of-memory load leaves device memory where it was; an out-of-memory or non-sticky error in
// a step fails that request and the session goes on; a sticky error makes every later call fail
// with DeviceLost and a reason that says to restart. Each case runs in a child process of its own
// (the module reads HEARTH_FAULT once).
#include "gpu_test.h"
HEARTH_GPU_TEST_NEEDS_KERNELS("cuda_faults")
#ifdef HEARTH_HAVE_KERNELS

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "hearth/engine.h"

using namespace hearth;

namespace {

std::string g_model;

size_t freeBytes() {
    size_t f = 0, t = 0;
    cudaMemGetInfo(&f, &t);
    return f;
}

Result<GenerateResult> generate(Session& s, int tokens) {
    GenerateParams p;
    p.maxTokens = tokens;
    p.useModelStopIds = false;
    return s.generate({1, 403, 407, 31}, p);
}

std::unique_ptr<Model> load() {
    auto m = Model::load({.path = g_model, .device = DeviceKind::Cuda});
    CHECK_OK(m);
    return m.isOk() ? std::move(m).value() : nullptr;
}

// A model and a session that are destroyed give every byte back (a second model then has it), and
// the memory report names every category.
void release() {
    cudaFree(nullptr); // the context exists before the baseline is read
    const size_t start = freeBytes();
    {
        auto model = load();
        if (!model) return;
        auto session = Session::create(*model, {.contextLength = 256});
        CHECK_OK(session);
        if (session.isOk()) {
            auto r = generate(*session.value(), 4);
            CHECK_OK(r);
            const MemoryReport m = session.value()->memoryReport();
            std::printf("memory: weights %llu, kv %llu, workspace %llu, context %llu bytes; device free %llu of %llu\n",
                        (unsigned long long)m.weightsBytes, (unsigned long long)m.kvCacheBytes,
                        (unsigned long long)m.workspaceBytes, (unsigned long long)m.deviceContextBytes,
                        (unsigned long long)m.device.freeBytes, (unsigned long long)m.device.totalBytes);
            CHECK(m.weightsBytes > 0 && m.kvCacheBytes > 0 && m.workspaceBytes > 0);
            CHECK(m.device.totalBytes > m.device.freeBytes);
        }
    }
    const size_t released = freeBytes();
    CHECK_MSG(released + (64u << 20) >= start, "a destroyed model kept " << (start - released) << " bytes");
}

void oomLoad() {
    cudaFree(nullptr);
    const size_t before = freeBytes();
    auto failed = Model::load({.path = g_model, .device = DeviceKind::Cuda});
    CHECK(!failed.isOk() && failed.status().code() == StatusCode::OutOfMemory);
    if (!failed.isOk()) std::printf("load: %s\n", failed.status().message().c_str());
    const size_t after = freeBytes();
    CHECK_MSG(after + (2u << 20) >= before, "device memory not given back: " << (before - after) << " bytes");
}

void stepFault(StatusCode expected) {
    auto model = load();
    if (!model) return;
    auto session = Session::create(*model, {.contextLength = 64});
    CHECK_OK(session);
    if (!session.isOk()) return;
    auto r = generate(*session.value(), 6);
    CHECK(!r.isOk());
    if (!r.isOk()) {
        std::printf("step: %s: %s\n", statusCodeName(r.status().code()), r.status().message().c_str());
        CHECK(r.status().code() == expected);
    }
    if (expected == StatusCode::DeviceLost) {
        CHECK(r.status().message().find("restart Hearth") != std::string::npos);
        auto again = generate(*session.value(), 2);
        CHECK(!again.isOk() && again.status().code() == StatusCode::DeviceLost);
        auto other = Session::create(*model, {.contextLength = 64});
        CHECK(!other.isOk() && other.status().code() == StatusCode::DeviceLost);
        auto reload = Model::load({.path = g_model, .device = DeviceKind::Cuda});
        CHECK(!reload.isOk() && reload.status().code() == StatusCode::DeviceLost);
        return;
    }
    // Non-sticky: the same session answers the next request in full.
    auto again = generate(*session.value(), 6);
    CHECK_OK(again);
    if (again.isOk()) CHECK_EQ(again->outputIds.size(), size_t(6));
}

int child(const std::string& kind) {
    test::startGpuTest(("cuda_faults " + kind).c_str(), true);
    if (kind == "release") release();
    if (kind == "oom-load") oomLoad();
    if (kind == "oom-step") stepFault(StatusCode::OutOfMemory);
    if (kind == "nonsticky") stepFault(StatusCode::InvalidArgument);
    if (kind == "sticky") stepFault(StatusCode::DeviceLost);
    return test::finish();
}

} // namespace

int main(int argc, char** argv) {
    g_model = (test::requireTestData("models/stories260K") / "stories260K-f32.gguf").string();
    if (argc == 2) return child(argv[1]);
    test::startGpuTest("cuda_faults", /*needsDevice=*/true);
    for (const char* kind : {"release", "oom-load", "oom-step", "nonsticky", "sticky"}) {
        std::fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) {
            if (std::strcmp(kind, "release") != 0) setenv("HEARTH_FAULT", kind, 1);
            execl("/proc/self/exe", argv[0], kind, static_cast<char*>(nullptr));
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  kind << ": the child " << (WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                                               : "died by signal " + std::to_string(WTERMSIG(status))));
    }
    return test::finish();
}

#endif
